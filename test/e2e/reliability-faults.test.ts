/**
 * Faults, against the BUILT binary (`npm run build` first): a misbehaving server (the sandbox's
 * injectFault, or test/helpers/fault-server.ts) and Ctrl-C. Every case ends in a successful retry or
 * the contract's exit code with one `prs:` line, no stack trace and no partial output file.
 * Row ids in [brackets] are listed in docs/reliability.md (checked by test/unit/reliability/doc.test.ts).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/sandbox/index.js';
import { useFaultServer } from '../helpers/fault-server.js';
import { runPrs } from '../helpers/run.js';
import { tokenEnv, useLoggedIn } from '../helpers/session.js';
import { expectCleanFailure, readJson } from './reliability-helpers.js';

const DATE = '2024-05-03'; // a Friday
const server = useFaultServer();
/** Called with each line the sandbox logs (one per request, before the body is sent). */
let onSandboxLog: (line: string) => void = () => {};
let out: string;

/** `session` reaches the sandbox through a stored session (logged in once). */
const {
  sandbox,
  tmp,
  env: session,
} = useLoggedIn('prs-reliability-faults-', { rateLimit: '100/1s', log: (l) => onSandboxLog(l) });
beforeEach(() => {
  sandbox.stats.reset();
  onSandboxLog = () => {};
  out = tmp.fresh();
});

/** prs against the sandbox with the stored session. */
const prs = (args: string[], env: Record<string, string> = {}) =>
  runPrs(args, { env: { ...session, ...env } });
/** prs against the fault server with a ready token (it accepts any). */
const faulty = (args: string[], env: Record<string, string> = {}) =>
  runPrs(args, {
    env: { ...tokenEnv(server.url, join(tmp.path, 'faulty')), PRS_RATE_LIMIT: '100/1s', ...env },
  });
const report = ['report', '42', '-t', 'index', '-d', DATE, '--json'];
const count = (f: Parameters<Sandbox['stats']['count']>[0]) => sandbox.stats.count(f);
const json = { 'content-type': 'application/json' };
const okBody = JSON.stringify({ report: [{ effectiveDate: DATE, indexValue: 1302.917413 }] });
const html = `<!DOCTYPE html><html><head><title>502 Bad Gateway</title></head><body><h1>Bad Gateway</h1><p>nginx</p></body></html>`;

describe('server faults on the JSON endpoint', () => {
  it('[R-F01] a 500 once, then OK: retried, exit 0', async () => {
    sandbox.injectFault({ endpoint: 'report', status: 500 });
    const r = await prs([...report, '--retries', '1']);
    expect([r.code, r.stderr]).toEqual([0, '']);
    expect(JSON.parse(r.stdout)[0].effectiveDate).toBeDefined();
    expect([count({ endpoint: 'report', status: 500 }), count({ endpoint: 'report', status: 200 })]).toEqual([
      1, 1,
    ]);
  });

  it('[R-F02] a 502 with an HTML page, persisting: exit 8, one line, no HTML', async () => {
    server.respond({ status: 502, headers: { 'content-type': 'text/html' }, body: html });
    const r = await faulty([...report, '--retries', '1']);
    expectCleanFailure(r, 8, /^prs: service error: 502 Bad Gateway \(after 1 retry\)$/);
    expect(server.requests).toHaveLength(2);
  });

  it('[R-F03] a 503 with Retry-After: 1 is waited out, then OK', async () => {
    sandbox.injectFault({ endpoint: 'report', status: 503, retryAfter: 1 });
    const started = Date.now();
    const r = await prs([...report, '--retries', '1']);
    expect([r.code, r.stderr]).toEqual([0, '']);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
    expect([count({ endpoint: 'report', status: 503 }), count({ endpoint: 'report', status: 200 })]).toEqual([
      1, 1,
    ]);
  });

  it('[R-F04] a connection reset before the response is retried, then OK', async () => {
    server.respond({ reset: true }, { headers: json, body: okBody });
    const r = await faulty([...report, '--retries', '1']);
    expect([r.code, r.stderr]).toEqual([0, '']);
    expect(JSON.parse(r.stdout)).toEqual([{ effectiveDate: DATE, indexValue: 1302.917413 }]);
    expect(server.requests).toHaveLength(2);
  });

  it('[R-F05] connection resets persisting: exit 9, one line', async () => {
    server.respond({ reset: true });
    const r = await faulty([...report, '--retries', '0']);
    expectCleanFailure(r, 9, /^prs: connection (reset by|to) 127\.0\.0\.1:\d+/);
  });

  it('[R-F17] a host name that does not resolve: exit 9, one line naming the host', async () => {
    // `.invalid` never resolves (RFC 2606); a resolver that cannot be reached at all says EAI_AGAIN.
    const r = await faulty([...report, '--retries', '0'], { PRS_BASE_URL: 'http://no-such-host.invalid' });
    expectCleanFailure(
      r,
      9,
      /^prs: cannot resolve host no-such-host\.invalid( \(DNS temporarily unavailable\))?$/,
    );
  });

  it('[R-F06] a body cut mid-stream is retried, then OK', async () => {
    sandbox.injectFault({ endpoint: 'report', truncate: true });
    const r = await prs([...report, '--retries', '1']);
    expect([r.code, r.stderr]).toEqual([0, '']);
    expect(count({ endpoint: 'report', status: 200 })).toBe(2);
  });

  it('[R-F07] a body cut mid-stream, persisting: exit 8 (corrupt response, as for export), one line, nothing on stdout', async () => {
    server.respond({ headers: json, body: `${okBody.slice(0, -2)}${' '.repeat(5000)}]}`, cutAfter: 40 });
    const r = await faulty([...report, '--retries', '0']);
    expectCleanFailure(
      r,
      8,
      /^prs: the response from 127\.0\.0\.1:\d+ broke off before its end \(connection to 127\.0\.0\.1:\d+ closed unexpectedly\)$/,
    );
  });

  // JSON cut short (or nested 100,000 deep) is the service's fault: no hint at the base URL, which is
  // right (it answered JSON). An HTML page or another API's JSON points at the URL.
  const ownFault = /^hint: the service sent a broken answer/;
  const checkUrl = /^hint: check the base URL/;
  it.each([
    ['[R-F08] invalid JSON with status 200: exit 8, not retried', json, '{"report":[{"a":1},', ownFault],
    ['[R-F09] an HTML page with status 200 (wrong base URL, captive portal): exit 8', {}, html, checkUrl],
    ['[R-F10] JSON of the wrong shape with status 200: exit 8', json, '{"rows":[]}', checkUrl],
  ])('%s', async (_title, headers, body, hint) => {
    server.respond({ headers, body });
    const r = await faulty([...report, '--retries', '2']);
    expectCleanFailure(r, 8, /^prs: malformed response from the service: /);
    expect(r.stderr.split('\n')[1]).toMatch(hint);
    expect(server.requests).toHaveLength(1);
  });

  it('[R-F11] headers that never come: --timeout 1 → exit 9 within seconds', async () => {
    server.respond({ delayMs: 8000, headers: json, body: okBody });
    const started = Date.now();
    const r = await faulty([...report, '--retries', '0', '--timeout', '1']);
    expectCleanFailure(r, 9, /^prs: 127\.0\.0\.1:\d+ sent no response within 1 s$/);
    // Gave up before the server's 8 s answer (the timeout, not the answer, ended it); no tighter bound
    // holds on a busy machine.
    expect(Date.now() - started).toBeLessThan(8000);
  });

  it('[R-F12] a 429 storm: exit 7 after --retries 1, Retry-After honoured, limiter state valid', async () => {
    // Exactly as many 429s as attempts (1 + --retries 1), so none is left over for later tests.
    sandbox.injectFault({ endpoint: 'report', status: 429, retryAfter: 1, count: 2 });
    const started = Date.now();
    const r = await prs([...report, '--retries', '1']);
    expectCleanFailure(r, 7, /^prs: rate limited by the service \(429 Too Many Requests\) \(after 1 retry\)/);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
    expect(count({ endpoint: 'report', status: 429 })).toBe(2);
    const cache = session.PRS_CACHE_DIR!;
    const states = readdirSync(cache).filter((f) => /^limiter-.*\.json$/.test(f));
    expect(states.length).toBeGreaterThan(0);
    for (const f of states) expect(readJson(join(cache, f))).toMatchObject({ stamps: expect.any(Array) });
  });

  it('[R-F13] a 401 in the middle of a range: one re-authentication, the run completes, -v leaks nothing', async () => {
    let revoked = false;
    onSandboxLog = (line) => {
      if (!revoked && / 200 \(demo\)$/.test(line) && line.includes('/portfolio/42?')) {
        revoked = true;
        sandbox.revokeTokens();
      }
    };
    const before = readJson(join(session.PRS_CONFIG_DIR!, 'config.json')) as {
      profiles: { default: { session: { accessToken: string; refreshToken: string } } };
    };
    const r = await prs(
      ['-v', 'report', '42', '-t', 'index', '--from', '2024-05-01', '--to', DATE, '-f', 'ndjson'],
      { PRS_CLIENT_SECRET: sandbox.clientSecret },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(revoked).toBe(true);
    const dates = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l).effectiveDate);
    expect(new Set(dates).size).toBe(3);
    expect(count({ endpoint: 'report', status: 401 })).toBe(1);
    expect(count({ endpoint: 'token', status: 200 })).toBe(1);
    expect(count({ endpoint: 'report', status: 200 })).toBe(3);
    const after = readJson(join(session.PRS_CONFIG_DIR!, 'config.json')) as typeof before;
    const secrets = [
      before.profiles.default.session.accessToken,
      before.profiles.default.session.refreshToken,
      after.profiles.default.session.accessToken,
      after.profiles.default.session.refreshToken,
      sandbox.clientSecret,
    ];
    expect(after.profiles.default.session.accessToken).not.toBe(before.profiles.default.session.accessToken);
    expect(r.stderr).toMatch(/"authorization":"Bearer \*\*\*"/);
    expect(r.stderr).toMatch(/grant_type=refresh_token/);
    for (const s of secrets) expect(r.stderr).not.toContain(s);
    expect(r.stderr).not.toMatch(/eyJ/);
  });
  it('[R-F16] a 500 whose body never ends: exit 8 within seconds, only the start of the body read', async () => {
    server.respond({
      status: 500,
      headers: { 'content-type': 'text/html' },
      body: function* () {
        for (;;) yield Buffer.alloc(64 * 1024, '<p>error</p>');
      },
    });
    // The body never ends: that prs exits at all shows it read only the start.
    const r = await faulty([...report, '--retries', '0']);
    expectCleanFailure(r, 8, /^prs: service error: 500 Internal Server Error$/);
  });
});

describe('server faults on the export endpoint', () => {
  it('[R-F14] a 503 once, then OK: the file is whole', async () => {
    sandbox.injectFault({ endpoint: 'export', status: 503 });
    const r = await prs(['export', '42', '-t', 'index', '-d', DATE, '--dir', out, '--retries', '1']);
    expect([r.code, r.stderr]).toEqual([0, '']);
    const files = readdirSync(out);
    expect(files).toHaveLength(1);
    expect(JSON.parse(readFileSync(join(out, files[0]!), 'utf8')).length).toBeGreaterThan(0);
  });

  it('[R-F15] a 502 HTML page on export: exit 8, no file, no HTML', async () => {
    server.respond({ status: 502, headers: { 'content-type': 'text/html' }, body: html });
    const r = await faulty(['export', '42', '-t', 'index', '-d', DATE, '--dir', out, '--retries', '0']);
    expectCleanFailure(r, 8, /^prs: service error: 502 Bad Gateway$/);
    expect(readdirSync(out)).toEqual([]);
  });
});
