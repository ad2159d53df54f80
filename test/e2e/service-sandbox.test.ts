/**
 * The adapter as a real process (the bundled fixture runner) against the sandbox: recovery from a
 * server 429 via Retry-After, retries of 5xx and cut-off bodies, and every error status → its exit
 * code and message. Two processes sharing one window: test/e2e/service-limiter.test.ts.
 */
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { BROKEN_PORTFOLIO_ID, EMPTY_PORTFOLIO_ID, EXAMPLE_PORTFOLIO_ID } from '../helpers/portfolios.js';
import { sandboxTokens, useSandbox, useTempDir } from '../helpers/session.js';
import { buildRunner, spawnRunner } from './service-helpers.js';

const tmp = useTempDir('prs-service-sandbox-');
let script: string;
const sandbox = useSandbox({ rateLimit: '4/2s', tokenTtl: 60 });
let token: string;

beforeAll(async () => {
  script = await buildRunner(tmp.path);
});

// A token of its own for each test: the sandbox's live 60 s, and this file can run longer than that
// on a busy machine (one token for the whole file then expired halfway, exit 4).
beforeEach(async () => {
  token = (await sandboxTokens(sandbox)).access_token;
  sandbox.stats.reset();
});

const env = (extra: Record<string, string> = {}) => ({
  PRS_BASE_URL: sandbox.url,
  PRS_TENANT: sandbox.users[0]!.tenant,
  PRS_TOKEN: token,
  PRS_RATE_LIMIT: '4/2s',
  PRS_RETRIES: '3',
  // One limiter state for the whole file, as on a real machine: it tracks the sandbox's window across tests.
  PRS_CACHE_DIR: `${tmp.path}/cache`,
  FIXTURE_PORTFOLIO: String(EXAMPLE_PORTFOLIO_ID),
  ...extra,
});

const waitOutWindow = () => new Promise((r) => setTimeout(r, 2100));

describe('the limiter against the sandbox', () => {
  it('a 429 from the server (another client used the window) is recovered via Retry-After', async () => {
    // Started first and held: its request follows the other client's at once, however long a busy
    // machine takes to start a process (the window would have passed by then).
    const ours = spawnRunner(script, ['1', '--wait-go'], env());
    await ours.ready;
    // Another client of the same user, not sharing our limiter state, takes the whole window. In this
    // process and all at once: a second process could take longer than the window to start on a busy
    // machine, and the window would be free again when ours asks.
    const url = `${sandbox.url}/api/v1/report-service/report/generate/portfolio/${EXAMPLE_PORTFOLIO_ID}?reportType=index&date=2024-05-02`;
    const headers = { authorization: `Bearer ${token}`, 'x-client-id': sandbox.users[0]!.tenant };
    const other = await Promise.all(
      [1, 2, 3, 4].map(() => fetch(url, { headers }).then((res) => res.status)),
    );
    expect(other).toEqual([200, 200, 200, 200]);
    ours.go();
    const r = await ours.done;
    expect([r.code, r.stderr]).toEqual([0, '']);
    const out = JSON.parse(r.stdout.replace(/^ready\n/, '')) as { rows: number[]; waits: [number, string][] };
    expect(out.rows[0]).toBeGreaterThan(0);
    expect(out.waits).toHaveLength(1);
    expect(out.waits[0]![1]).toBe('retry-after');
    expect(out.waits[0]![0]).toBeGreaterThan(0);
    expect(out.waits[0]![0]).toBeLessThanOrEqual(2000);
    expect(sandbox.stats.count({ endpoint: 'report', status: 429 })).toBe(1);
    await waitOutWindow();
  });
});

describe('re-authentication through the real session', () => {
  it('a revoked access token → 401 → one refresh → retry succeeds', async () => {
    const user = sandbox.users[0]!;
    const e = env({
      FIXTURE_REAL_SESSION: '1',
      PRS_TOKEN: '',
      PRS_CONFIG_DIR: `${tmp.path}/config`,
      PRS_AUTH_URL: sandbox.authUrl,
      PRS_REALM: sandbox.realm,
      PRS_CLIENT_ID: sandbox.clientId,
      PRS_USERNAME: user.username,
      PRS_PASSWORD: user.password,
      PRS_CLIENT_SECRET: sandbox.clientSecret,
    });
    const first = await spawnRunner(script, ['1'], e).done; // signs in (password grant) and stores the tokens
    expect([first.code, first.stderr]).toEqual([0, '']);
    sandbox.revokeTokens();
    sandbox.stats.reset();
    const second = await spawnRunner(script, ['1'], e).done;
    expect([second.code, second.stderr]).toEqual([0, '']);
    expect(sandbox.stats.count({ endpoint: 'report', status: 401 })).toBe(1);
    expect(sandbox.stats.count({ endpoint: 'token', status: 200 })).toBe(1);
    expect(sandbox.stats.count({ endpoint: 'report', status: 200 })).toBe(1);
    await waitOutWindow();
  });
});

describe('retries against the sandbox', () => {
  it('a 503 once, then OK', async () => {
    sandbox.injectFault({ endpoint: 'report', status: 503 });
    const r = await spawnRunner(script, ['1'], env()).done;
    expect([r.code, r.stderr]).toEqual([0, '']);
    expect(JSON.parse(r.stdout).waits.map((w: [number, string]) => w[1])).toEqual(['backoff']);
  });

  it('a body cut off mid-stream is retried', async () => {
    sandbox.injectFault({ endpoint: 'report', truncate: true });
    const r = await spawnRunner(script, ['1'], env()).done;
    expect([r.code, r.stderr]).toEqual([0, '']);
    expect(JSON.parse(r.stdout).waits).toHaveLength(1);
  });

  it('5xx persisting after --retries 1 → exit 8, one line, no HTML, no stack', async () => {
    sandbox.injectFault({ endpoint: 'report', status: 502, count: 2 });
    const r = await spawnRunner(script, ['1'], env({ PRS_RETRIES: '1' })).done;
    expect(r.code).toBe(8);
    expect(r.stderr.split('\n')[0]).toMatch(/^prs: service error: 502 Bad Gateway.*\(after 1 retry\)$/);
    expect(r.stderr).not.toMatch(/<|\n\s+at /);
  });

  it('no answer within --timeout → exit 9', async () => {
    sandbox.injectFault({ endpoint: 'report', delayMs: 1500 });
    const r = await spawnRunner(script, ['1'], env({ PRS_RETRIES: '0', PRS_TIMEOUT: '0.3' })).done;
    expect(r.code).toBe(9);
    expect(r.stderr).toContain('sent no response within 0.3 s');
  });
});

describe('error statuses → exit codes', () => {
  it.each([
    [
      '404 unknown portfolio',
      { FIXTURE_PORTFOLIO: '999999' },
      6,
      'prs: portfolio 999999 not found — check the id',
    ],
    [
      '403 wrong tenant',
      { PRS_TENANT: 'not-my-tenant' },
      5,
      "prs: forbidden — check the tenant (X-CLIENT-ID not-my-tenant) and your account's permissions",
    ],
    ['400 bad date', { FIXTURE_DATE: '2024-02-30' }, 2, 'prs: the service rejected the request: '],
    ['401 bad token (re-auth impossible)', { PRS_TOKEN: 'garbage' }, 4, 'prs: '],
    [
      '500 broken portfolio after retries',
      { FIXTURE_PORTFOLIO: String(BROKEN_PORTFOLIO_ID), PRS_RETRIES: '0' },
      8,
      'prs: service error: 500',
    ],
  ])('%s', async (_name, extra, code, message) => {
    const r = await spawnRunner(script, ['1'], env(extra)).done;
    expect(r.code).toBe(code);
    expect(r.stderr.startsWith(message)).toBe(true);
    expect(r.stderr).not.toMatch(/<|\n\s+at /);
  });

  it('no data → rows []', async () => {
    const r = await spawnRunner(script, ['1'], env({ FIXTURE_PORTFOLIO: String(EMPTY_PORTFOLIO_ID) })).done;
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).rows).toEqual([0]);
  });
});
