/**
 * The built binary over runs long enough for the limits to matter, against the sandbox:
 * an access token that expires in the middle of a multi-request report is renewed ahead of expiry
 * (no 401 reaches the user, the run completes) with refresh grants alone: the client secret kept by
 * `prs login` is used, none is in the environment. Two processes sharing one rate-limit window:
 * test/e2e/service-limiter.test.ts.
 */
import { beforeAll, expect, it } from 'vitest';
import { runPrs } from '../helpers/run.js';
import { loginSandbox, useSandbox, useTempDir } from '../helpers/session.js';

const sandbox = useSandbox({ tokenTtl: 2, refreshTtl: 60, rateLimit: '4/2s' });
const tmp = useTempDir('prs-session-');
let env: Record<string, string>;

beforeAll(async () => {
  // The secret only for the login, which keeps it with the session: the runs below have none in env.
  env = await loginSandbox(sandbox, tmp.path);
});

it('a 2 s token expiring mid-range is renewed ahead of time: no 401, every date answered', async () => {
  sandbox.stats.reset();
  // 8 weekdays at 2 requests per second: about 3 s, so the 2 s token must be renewed at least once.
  const r = await runPrs(
    'report 42 -t index --from 2024-05-01 --to 2024-05-10 --rate-limit 2/1s -f ndjson'.split(' '),
    {
      env,
      timeoutMs: 30_000,
    },
  );
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  const dates = new Set(
    r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l).effectiveDate),
  );
  expect(dates.size).toBe(8);
  expect(sandbox.stats.count({ endpoint: 'report', status: 200 })).toBe(8);
  expect(sandbox.stats.count({ endpoint: 'report', status: 401 })).toBe(0);
  expect(sandbox.stats.count({ endpoint: 'token', status: 200 })).toBeGreaterThanOrEqual(1);
  // Renewed with refresh grants (the kept client secret), never with a password.
  const grants = sandbox.stats.requests.filter((q) => q.endpoint === 'token').map((q) => q.grant);
  expect(grants.length).toBeGreaterThanOrEqual(2); // ~3.5 s of 2 s tokens renewed at half-life
  expect(new Set(grants)).toEqual(new Set(['refresh_token']));
});
