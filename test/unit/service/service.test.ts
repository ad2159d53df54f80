import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as zlib from 'node:zlib';
import { MockAgent } from 'undici';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Session } from '../../../src/auth/session.js';
import {
  AuthError,
  exitCodeFor,
  HttpError,
  InterruptedError,
  NetworkError,
  ServiceError,
  UsageError,
} from '../../../src/errors.js';
import { createHttp } from '../../../src/http/client.js';
import { createService } from '../../../src/service/service.js';
import type { CallHooks } from '../../../src/service/types.js';
import { resolveSettings, type SettingValues } from '../../../src/settings.js';
import { readWhole } from '../../helpers/answers.js';
import { FakeClock } from '../../helpers/clock.js';
import { createTestIO } from '../../helpers/io.js';

const ORIGIN = 'https://api.example.test';
const PATH = '/api/v1/report-service/report/generate/portfolio';
const Q = { portfolioId: 42, reportType: 'index' as const, date: '2024-05-01' };
const ROWS = '{"report":[{"effectiveDate":"2024-05-01","indexValue":1302.917413}]}';

let agent: MockAgent;
let cacheDir: string;
let clock: FakeClock;
let renewed: string[];
let waits: [number, string][];

beforeEach(() => {
  agent = new MockAgent();
  agent.disableNetConnect();
  cacheDir = mkdtempSync(join(tmpdir(), 'prs-service-'));
  clock = new FakeClock();
  renewed = [];
  waits = [];
});

afterEach(async () => {
  agent.assertNoPendingInterceptors();
  await agent.close();
  rmSync(cacheDir, { recursive: true, force: true });
});

function service(
  values: SettingValues = {},
  o: { session?: Partial<Session>; env?: Record<string, string> } = {},
) {
  const settings = resolveSettings(
    { 'base-url': ORIGIN, tenant: 'acme', ...values },
    { PRS_CACHE_DIR: cacheDir, ...o.env },
  );
  const io = createTestIO();
  // Like the real session: after a renewal, token() hands out the renewed token.
  let current = 'tok-1';
  const session: Session = {
    token: async () => current,
    renew: async (rejected) => {
      renewed.push(rejected);
      current = 'tok-2';
      return current;
    },
    ...o.session,
  };
  const http = createHttp({ timeoutMs: 5000, proxy: {}, io, dispatcher: agent });
  return createService({
    settings,
    session,
    http,
    clock,
    io,
    signal: new AbortController().signal,
    random: () => 0.5,
  });
}

const hooks: CallHooks = { onWait: (ms, reason) => waits.push([ms, reason]) };

/** One expected request to the JSON (or export) endpoint, answered with `status` and `body`. */
function expect1(
  status: number,
  body = '',
  o: {
    headers?: Record<string, string>;
    token?: string;
    suffix?: string;
    query?: Record<string, string>;
    times?: number;
  } = {},
) {
  agent
    .get(ORIGIN)
    .intercept({
      path: `${PATH}/42${o.suffix ?? ''}`,
      method: 'GET',
      query: { reportType: 'index', date: '2024-05-01', ...o.query },
      headers: { authorization: `Bearer ${o.token ?? 'tok-1'}`, 'x-client-id': 'acme' },
    })
    .reply(status, body, { headers: o.headers ?? {} })
    .times(o.times ?? 1);
}

async function failure(p: Promise<unknown>): Promise<Error & { hint?: string }> {
  try {
    await p;
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected a failure');
}

describe('report(): success and no-data shapes', () => {
  it('sends the headers and query, returns the exact body and the rows', async () => {
    expect1(200, ROWS, { headers: { 'content-type': 'application/json' } });
    const r = await readWhole(service(), Q, hooks);
    expect(r.bytes.toString()).toBe(ROWS);
    expect(r.rows).toHaveLength(1);
    expect(String(r.rows[0]!.indexValue)).toBe('1302.917413');
    expect(waits).toEqual([]);
  });

  it.each([
    ['empty body', ''],
    ['whitespace body', ' \n'],
    ['bare array', '[]'],
    ['report: []', '{"report":[]}'],
  ])('%s → no rows', async (_n, body) => {
    expect1(200, body);
    const r = await readWhole(service(), Q);
    expect(r.rows).toEqual([]);
    expect(r.bytes.toString()).toBe(body);
  });

  it('numbers keep the digits the service sent', async () => {
    const body = '{"report":[{"big":12345678901234567890,"precise":1234567.123456789012,"exp":1.0E-7}]}';
    expect1(200, body);
    const r = await readWhole(service(), Q);
    expect(r.bytes.toString()).toBe(body);
    expect(Object.values(r.rows[0]!).map(String)).toEqual([
      '12345678901234567890',
      '1234567.123456789012',
      '1.0E-7',
    ]);
  });

  it('a bare array of rows is accepted too', async () => {
    expect1(200, '[{"a":1},{"a":2}]');
    expect((await readWhole(service(), Q)).rows).toHaveLength(2);
  });
});

describe('report(): malformed 200 bodies → ServiceError (exit 8) when the answer is read', () => {
  it.each([
    ['not JSON', 'hello', 'not JSON'],
    ['HTML page', '<html><body><h1>Login</h1></body></html>', 'not JSON'],
    ['wrong shape', '{"rows":[]}', '"report" array'],
    ['report not an array', '{"report":{}}', '"report" array'],
    ['rows not objects', '{"report":[1,2]}', 'not JSON objects'],
    ['truncated JSON', '{"report":[{"a":1}', 'not JSON'],
  ])('%s', async (_n, body, why) => {
    expect1(200, body, { headers: { 'content-type': 'text/html' } });
    const err = await failure(readWhole(service(), Q));
    expect(err).toBeInstanceOf(ServiceError);
    expect(exitCodeFor(err)).toBe(8);
    expect(err.message).toContain('malformed response');
    expect(err.message).toContain(why);
    expect(err.message).not.toContain('<');
  });
});

describe('report(): answers on the wire (compressed, a BOM, streamed)', () => {
  const body = `{"report": [${Array.from({ length: 300 }, (_, i) => `{"a": ${i}.10, "b": "x"}`).join(', ')}]}`;
  it.each([
    ['gzip', zlib.gzipSync(body)],
    ['x-gzip', zlib.gzipSync(body)],
    ['deflate', zlib.deflateSync(body)],
    ['deflate (raw, as some servers send it)', zlib.deflateRawSync(body)],
    ['br', zlib.brotliCompressSync(body)],
    ['gzip, br', zlib.brotliCompressSync(zlib.gzipSync(body))],
    ['identity', Buffer.from(body)],
  ])(
    'Content-Encoding %s: decoded as it streams; the bytes handed on are the decoded body',
    async (enc, wire) => {
      agent
        .get(ORIGIN)
        .intercept({
          path: `${PATH}/42`,
          method: 'GET',
          query: { reportType: 'index', date: '2024-05-01' },
          headers: { 'accept-encoding': 'gzip, deflate' },
        })
        .reply(200, wire, {
          headers: { 'content-encoding': enc.replace(/ \(.*/, ''), 'content-length': String(wire.length) },
        });
      const r = await readWhole(service(), Q);
      expect(r.bytes.toString()).toBe(body);
      expect(r.rows).toHaveLength(300);
      expect(String(r.rows[299]!.a)).toBe('299.10');
    },
  );

  it('a UTF-8 byte order mark before the JSON is ignored (and kept in the bytes handed on)', async () => {
    expect1(200, `\ufeff${ROWS}`);
    const r = await readWhole(service(), Q);
    expect(r.rows).toHaveLength(1);
    expect(r.bytes.subarray(0, 3)).toEqual(Buffer.from([0xef, 0xbb, 0xbf]));
  });

  it.each([
    ['an encoding prs cannot read', 'zstd', Buffer.from(body), /encoding prs cannot read \(zstd\)/],
    ['gzip that is not', 'gzip', Buffer.from(body), /does not decode as its Content-Encoding says/],
    ['gzip cut short', 'gzip', zlib.gzipSync(body).subarray(0, 200), /does not decode|not JSON/],
  ])('%s: a malformed answer (exit 8)', async (_n, enc, wire, message) => {
    expect1(200, wire as unknown as string, { headers: { 'content-encoding': enc } });
    const err = await failure(readWhole(service(), Q));
    expect(err).toBeInstanceOf(ServiceError);
    expect(exitCodeFor(err)).toBe(8);
    expect(err.message).toMatch(message);
  });
});

describe('report(): error statuses → error class and exit code', () => {
  it.each([
    [
      400,
      '{"message":"invalid date 2024-13-01"}',
      HttpError,
      2,
      'the service rejected the request: invalid date 2024-13-01',
    ],
    [400, '', HttpError, 2, 'the service rejected the request: 400 Bad Request'],
    [403, '{"error":"tenant mismatch"}', HttpError, 5, 'forbidden — check the tenant (X-CLIENT-ID acme)'],
    [
      404,
      '<!doctype html><html><body>Not Found</body></html>',
      HttpError,
      6,
      'portfolio 42 not found — check the id',
    ],
    [405, 'nope', HttpError, 8, 'unexpected answer from the service: 405 Method Not Allowed: nope'],
  ])('%i %j', async (status, body, cls, code, message) => {
    expect1(status, body);
    const err = await failure(readWhole(service(), Q, hooks));
    expect(err).toBeInstanceOf(cls);
    expect(exitCodeFor(err)).toBe(code);
    expect(err.message).toContain(message);
    expect(err.message).not.toMatch(/<|stack|at /);
    expect(waits).toEqual([]); // never retried
  });

  it('403 names the server message in the hint', async () => {
    expect1(403, '{"message":"no access to portfolio"}');
    const err = await failure(readWhole(service(), Q));
    expect(err.hint).toBe('the service said: no access to portfolio');
  });

  it('5xx after the retries → exit 8, short text, no HTML', async () => {
    expect1(502, '<html><head><title>502 Bad Gateway</title></head><body>nginx</body></html>', {
      headers: { 'content-type': 'text/html' },
      times: 4,
    });
    const err = await failure(readWhole(service(), Q, hooks));
    expect(err).toBeInstanceOf(HttpError);
    expect(exitCodeFor(err)).toBe(8);
    expect(err.message).toBe('service error: 502 Bad Gateway (after 3 retries)');
    // Backoff with jitter 0.5: 750, 1500, 3000.
    expect(waits).toEqual([
      [750, 'backoff'],
      [1500, 'backoff'],
      [3000, 'backoff'],
    ]);
    expect(clock.sleeps).toEqual([750, 1500, 3000]);
  });

  it('--retries 0 gives up at once', async () => {
    expect1(503, '{"message":"maintenance"}');
    const err = await failure(readWhole(service({ retries: '0' }), Q, hooks));
    expect(err.message).toBe('service error: 503 Service Unavailable: maintenance');
    expect(waits).toEqual([]);
  });

  it('429 persisting after the retries → HttpError (exit 7), honouring Retry-After each time', async () => {
    expect1(429, '{"message":"Too many requests"}', { headers: { 'retry-after': '3' }, times: 3 });
    const err = await failure(readWhole(service({ retries: '2' }), Q, hooks));
    expect(err).toBeInstanceOf(HttpError);
    expect(exitCodeFor(err)).toBe(7);
    expect(err.message).toBe(
      'rate limited by the service (429 Too Many Requests) (after 2 retries): Too many requests',
    );
    expect(waits).toEqual([
      [3000, 'retry-after'],
      [3000, 'retry-after'],
    ]);
  });
});

describe('report(): retries that recover', () => {
  it('500 once, then OK', async () => {
    expect1(500, 'boom');
    expect1(200, ROWS);
    const r = await readWhole(service(), Q, hooks);
    expect(r.rows).toHaveLength(1);
    expect(waits).toEqual([[750, 'backoff']]);
  });

  it('503 with Retry-After (HTTP date), then OK', async () => {
    expect1(503, '', { headers: { 'retry-after': new Date(clock.now() + 7000).toUTCString() } });
    expect1(200, ROWS);
    await readWhole(service(), Q, hooks);
    expect(waits).toEqual([[7000, 'retry-after']]);
  });

  it('429 without Retry-After waits for the limiter slot and blocks the shared limiter', async () => {
    expect1(429, '');
    expect1(200, ROWS);
    const svc = service({ 'rate-limit': '4/10s' });
    await readWhole(svc, Q, hooks);
    expect(waits).toEqual([[10_000, 'rate-limit']]);
    const [file] = readdirSync(cacheDir).filter((f) => f.startsWith('limiter-'));
    expect(file).toMatch(/^limiter-[0-9a-f]{16}\.json$/);
  });

  it('a connection reset is retried', async () => {
    agent
      .get(ORIGIN)
      .intercept({ path: `${PATH}/42`, method: 'GET', query: { reportType: 'index', date: '2024-05-01' } })
      .replyWithError(Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }));
    expect1(200, ROWS);
    await readWhole(service(), Q, hooks);
    expect(waits).toEqual([[750, 'backoff']]);
  });

  it('a connection reset that persists → NetworkError (exit 9)', async () => {
    agent
      .get(ORIGIN)
      .intercept({ path: `${PATH}/42`, method: 'GET', query: { reportType: 'index', date: '2024-05-01' } })
      .replyWithError(Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }))
      .times(2);
    const err = await failure(readWhole(service({ retries: '1' }), Q, hooks));
    expect(err).toBeInstanceOf(NetworkError);
    expect(exitCodeFor(err)).toBe(9);
    expect(err.message).toBe('connection reset by api.example.test');
  });
});

describe('report(): 401 and re-authentication', () => {
  it('401 → one renew → retry with the new token succeeds', async () => {
    expect1(401, '');
    expect1(200, ROWS, { token: 'tok-2' });
    const r = await readWhole(service({ retries: '0' }), Q, hooks);
    expect(r.rows).toHaveLength(1);
    expect(renewed).toEqual(['tok-1']);
    expect(waits).toEqual([]);
  });

  it('the re-authentication is not one of the --retries', async () => {
    expect1(401, '');
    expect1(503, '', { token: 'tok-2' });
    expect1(200, ROWS, { token: 'tok-2' });
    await readWhole(service({ retries: '1' }), Q, hooks);
    expect(renewed).toEqual(['tok-1']);
    expect(waits).toEqual([[750, 'backoff']]);
  });

  it('401 twice → exit 4 (auth), renewed exactly once', async () => {
    expect1(401, '{"error":"invalid_token"}');
    expect1(401, '{"error":"invalid_token"}', { token: 'tok-2' });
    const err = await failure(readWhole(service(), Q, hooks));
    expect(err).toMatchObject({ status: 401 });
    expect(exitCodeFor(err)).toBe(4);
    expect(err.message).toContain('even after signing in again');
    expect(renewed).toEqual(['tok-1']);
  });

  it('a renew that fails is its AuthError', async () => {
    expect1(401, '');
    const err = await failure(
      readWhole(
        service(
          {},
          {
            session: {
              renew: async () => {
                throw new AuthError('not logged in or session expired — run `prs login`');
              },
            },
          },
        ),
        Q,
      ),
    );
    expect(err).toBeInstanceOf(AuthError);
    expect(err.message).toContain('prs login');
  });

  it('under CI the 401 hint names the environment variables', async () => {
    expect1(401, '');
    expect1(401, '', { token: 'tok-2' });
    const err = await failure(readWhole(service({}, { env: { CI: 'true' } }), Q));
    expect(err.hint).toContain('PRS_TOKEN');
  });
});

describe('report(): the client-side limiter', () => {
  it('the fifth request in a 4/60s window waits for the first slot to leave it', async () => {
    expect1(200, ROWS, { times: 5 });
    const svc = service();
    for (let i = 0; i < 5; i++) await readWhole(svc, Q, hooks);
    expect(waits).toEqual([[60_000, 'rate-limit']]);
  });

  it('a token that runs out during the limiter wait is renewed before sending, not spent on a 401', async () => {
    expect1(200, ROWS, { times: 4 });
    expect1(200, ROWS, { token: 'tok-late' });
    const start = clock.now();
    // Valid for 30 s from the start: fine for the first four, stale after the fifth's 60 s wait.
    const svc = service(
      {},
      { session: { token: async () => (clock.now() - start < 30_000 ? 'tok-1' : 'tok-late') } },
    );
    for (let i = 0; i < 5; i++) await readWhole(svc, Q, hooks);
    expect(waits).toEqual([[60_000, 'rate-limit']]);
    expect(renewed).toEqual([]);
  });

  it('missing base URL or tenant → UsageError before any request', async () => {
    // With something to sign in with (PRS_TOKEN): never logged in is exit 4 (test/unit/auth/not-logged-in).
    const env = { PRS_CACHE_DIR: cacheDir, PRS_TOKEN: 'x' };
    const noBase = createService({
      settings: resolveSettings({ tenant: 'acme' }, env),
      session: { token: async () => 'x', renew: async () => 'y' },
      http: createHttp({ timeoutMs: 1000, proxy: {}, io: createTestIO(), dispatcher: agent }),
      clock,
      io: createTestIO(),
      signal: new AbortController().signal,
    });
    const e1 = await failure(readWhole(noBase, Q));
    expect(e1).toBeInstanceOf(UsageError);
    expect(e1.hint).toContain('--base-url');
    expect(e1.hint).toContain('PRS_BASE_URL');
    const e2 = await failure(readWhole(service({ tenant: '' }, { env }), Q));
    expect(e2).toBeInstanceOf(UsageError);
    expect(e2.hint).toContain('--tenant');
    expect(e2.hint).toContain('PRS_TENANT');
    expect(existsSync(join(cacheDir, 'x'))).toBe(false);
  });

  it('an aborted signal → InterruptedError (exit 130)', async () => {
    expect1(503, '', { headers: { 'retry-after': '5' } });
    const ac = new AbortController();
    const err = await failure(
      readWhole(service(), Q, {
        signal: ac.signal,
        onWait: () => ac.abort(),
      }),
    );
    expect(err).toBeInstanceOf(InterruptedError);
    expect(exitCodeFor(err)).toBe(130);
  });
});

describe('exportReport()', () => {
  const X = { ...Q, format: 'csv' as const };

  it('returns the streaming body and the download headers', async () => {
    expect1(200, 'PK\u0003\u0004zipbytes', {
      suffix: '/export',
      query: { format: 'csv' },
      headers: {
        'content-type': 'application/zip',
        'content-disposition': 'attachment; filename="2024-05-01_Example_index.zip"',
        'content-length': '14',
      },
    });
    const r = await service().exportReport(X, hooks, async (res) => res);
    expect(r.contentType).toBe('application/zip');
    expect(r.contentDisposition).toContain('2024-05-01_Example_index.zip');
    expect(r.contentLength).toBe(14);
    const chunks: Buffer[] = [];
    for await (const c of r.body) chunks.push(c as Buffer);
    expect(Buffer.concat(chunks).toString('latin1')).toBe('PK\u0003\u0004zipbytes');
  });

  it('5xx then OK; the client limiter is not involved', async () => {
    expect1(500, '<html>oops</html>', { suffix: '/export', query: { format: 'json' } });
    expect1(200, '', { suffix: '/export', query: { format: 'json' } });
    const r = await service().exportReport({ ...X, format: 'json' }, hooks, async (res) => res);
    expect(r.contentLength).toBeUndefined();
    r.body.resume();
    expect(waits).toEqual([[750, 'backoff']]);
    expect(readdirSync(cacheDir)).toEqual([]);
  });

  it('more than 4 exports never wait for the JSON endpoint limiter', async () => {
    expect1(200, '[]', { suffix: '/export', query: { format: 'csv' }, times: 6 });
    const svc = service();
    for (let i = 0; i < 6; i++) (await svc.exportReport(X, {}, async (res) => res)).body.resume();
    expect(clock.sleeps).toEqual([]);
  });

  it('a 429 on export honours Retry-After, else backs off (no limiter slot)', async () => {
    expect1(429, '', { suffix: '/export', query: { format: 'csv' }, headers: { 'retry-after': '2' } });
    expect1(429, '', { suffix: '/export', query: { format: 'csv' } });
    expect1(200, 'x', { suffix: '/export', query: { format: 'csv' } });
    (await service().exportReport(X, hooks, async (res) => res)).body.resume();
    expect(waits).toEqual([
      [2000, 'retry-after'],
      [1500, 'backoff'],
    ]);
  });

  it('404 on export → HttpError', async () => {
    expect1(404, '', { suffix: '/export', query: { format: 'csv' } });
    const err = await failure(service().exportReport(X, {}, async (res) => res));
    expect(err).toBeInstanceOf(HttpError);
  });
});

describe('exportReport() with a save: a download that stalls after its headers is asked for again, by the one retry loop', () => {
  const X = { ...Q, format: 'json' as const };
  const stall = () =>
    new NetworkError('the download stalled after 10 bytes', {
      cause: Object.assign(new Error('body timeout'), { code: 'UND_ERR_BODY_TIMEOUT' }),
    });
  /** `save` plays each attempt's outcome: a stall (thrown), another failure, or the saved file. */
  const run = async (outcomes: (Error | string)[], retries: number, requests: number) => {
    expect1(200, '[1]', { suffix: '/export', query: { format: 'json' }, times: requests });
    let calls = 0;
    const result = await service({ retries: String(retries) })
      .exportReport(X, hooks, async (res) => {
        res.body.resume();
        const o = outcomes[Math.min(calls++, outcomes.length - 1)];
        if (o instanceof Error) throw o;
        return o;
      })
      .catch((err: Error) => err);
    return { result, calls };
  };

  it.each([
    // name, outcomes, --retries, result, requests, sleeps (random 0.5: ¾ of 1 s, 2 s)
    ['a stall, then the file', [stall(), 'file'], 3, 'file', 2, [750]],
    ['stalls beyond the retries: the stall (exit 9)', [stall()], 2, NetworkError, 3, [750, 1500]],
    ['no retries: the stall at once', [stall()], 0, NetworkError, 1, []],
    ['a corrupt download is not retried', [new ServiceError('corrupt'), 'file'], 3, ServiceError, 1, []],
  ] as const)('%s', async (_name, outcomes, retries, expected, requests, sleeps) => {
    const r = await run([...outcomes], retries, requests);
    if (typeof expected === 'string') expect(r.result).toBe(expected);
    else expect(r.result).toBeInstanceOf(expected);
    expect(r.calls).toBe(requests);
    expect(clock.sleeps).toEqual(sleeps);
    expect(waits).toEqual(sleeps.map((ms) => [ms, 'backoff']));
  });
});
