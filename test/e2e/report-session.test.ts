/**
 * The built binary over runs long enough for the limits to matter, against the sandbox:
 * - an access token that expires in the middle of a multi-request report is renewed ahead of expiry
 *   (no 401 reaches the user, the run completes) with refresh grants alone: the client secret kept
 *   by `prs login` is used, none is in the environment;
 * - two `prs report` processes started together share one rate-limit window: zero 429s.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { loginArgs, type Sandbox, startSandbox } from '../../src/sandbox/index.js';
import { runPrs, tempDir } from '../helpers/run.js';

let sandbox: Sandbox;
let tmp: ReturnType<typeof tempDir>;
let env: Record<string, string>;

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, tokenTtl: 2, refreshTtl: 60, rateLimit: '4/2s' });
  tmp = tempDir('prs-session-');
  env = {
    PRS_CONFIG_DIR: join(tmp.path, 'config'),
    PRS_CACHE_DIR: join(tmp.path, 'cache'),
    HOME: tmp.path,
  };
  const user = sandbox.users[0];
  // The secret only for the login, which keeps it with the session: the runs below have none in env.
  const r = await runPrs(loginArgs(sandbox, user), {
    input: user.password,
    env: { ...env, PRS_CLIENT_SECRET: sandbox.clientSecret },
  });
  expect(r.code, r.stderr).toBe(0);
});

afterAll(async () => {
  await sandbox?.close();
  tmp?.cleanup();
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

it('two prs processes at once share the 4/2s window: 12 requests, zero 429s', async () => {
  // The other sandbox user: its own server-side window and its own client-side limiter state, so the
  // previous test's requests count for neither.
  const other = sandbox.users[1];
  const otherEnv = { ...env, PRS_CONFIG_DIR: join(tmp.path, 'config-other') };
  const login = await runPrs(loginArgs(sandbox, other), {
    input: other.password,
    env: { ...otherEnv, PRS_CLIENT_SECRET: sandbox.clientSecret },
  });
  expect(login.code, login.stderr).toBe(0);
  sandbox.stats.reset();
  const run = () =>
    runPrs('report 42 -t index --from 2024-05-01 --to 2024-05-08 --rate-limit 4/2s -q'.split(' '), {
      env: otherEnv,
      timeoutMs: 30_000,
    });
  const [a, b] = await Promise.all([run(), run()]);
  for (const r of [a, b]) expect([r.code, r.stderr]).toEqual([0, '']);
  expect(sandbox.stats.count({ endpoint: 'report', status: 429 })).toBe(0);
  // The 2 s tokens run out during limiter waits: renewed before sending, never spent on a 401.
  expect(sandbox.stats.count({ endpoint: 'report', status: 401 })).toBe(0);
  const sent = sandbox.stats.requests.filter((q) => q.endpoint === 'report');
  expect(sent).toHaveLength(12);
  // Shared, the 12 requests need three windows: the last comes at least two windows after the first.
  const at = sent.map((q) => q.at);
  expect(Math.max(...at) - Math.min(...at)).toBeGreaterThanOrEqual(4000);
});
