/**
 * Unattended runs you can watch (CLI.md "Unattended runs"), the BUILT binary against the sandbox,
 * signed in as its service account from the environment alone (as a cron job would be):
 * `--log-format json` parsed line by line for a success, an item failure, an auth failure and an
 * interrupt; `--metrics-file` checked by the real `promtool check metrics` and its values asserted
 * (the last success carried over a failed and an interrupted run); `--ping-url` against a local
 * listener that records what a Healthchecks server would see, and against a closed port.
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { createServer as createNetServer, type Socket } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/sandbox/index.js';
import { freePort } from '../helpers/redis.js';
import { baseEnv, collect, PRS_BIN, type RunOptions, runPrs } from '../helpers/run.js';
import { dirsEnv, serviceEnv, useSandbox, useTempDir } from '../helpers/session.js';

const PROMTOOL = (() => {
  try {
    return execFileSync('sh', ['-c', 'command -v promtool'], { encoding: 'utf8' }).trim() || undefined;
  } catch {
    return undefined;
  }
})();
const NO_PROMTOOL =
  'promtool is not installed (apt-get install prometheus): skipping the promtool check of the metrics file';

const sandbox = useSandbox({ rateLimit: '100/1s' });
// Its exports answer after 20 s: a run is still waiting for one when the signal comes.
const slow = useSandbox({ rateLimit: '100/1s', exportDelayMs: 20_000 });
const tmp = useTempDir('prs-observe-');

/** A service account from the environment alone (no login), its own config dir per run. */
function robotEnv(sb: Sandbox, extra: Record<string, string> = {}): Record<string, string> {
  const dir = tmp.fresh('run');
  mkdirSync(join(dir, 'out'));
  return { ...dirsEnv(dir), ...serviceEnv(sb), ...extra };
}
const prs = (args: string[], env: Record<string, string>, o: RunOptions = {}) => runPrs(args, { ...o, env });

const REPORT = ['report', '42', '-t', 'index', '-d', '2023-06-29', '--json'];
const exportOf = (env: Record<string, string>, ...ids: string[]) => [
  'export',
  ...ids,
  '-t',
  'index',
  '-d',
  '2023-06-29',
  '--retries',
  '0',
  '--dir',
  join(env.HOME!, 'out'),
];

/** Every stderr line parsed as JSON (a line that is not JSON fails the test, naming it). */
function jsonLines(stderr: string): Record<string, unknown>[] {
  expect(stderr.endsWith('\n') || stderr === '').toBe(true);
  return stderr
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => {
      let v: unknown;
      expect(() => {
        v = JSON.parse(l);
      }, l).not.toThrow();
      const o = v as Record<string, unknown>;
      expect(o.time, l).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      expect(['error', 'warn', 'info', 'debug'], l).toContain(o.level);
      expect(typeof o.event, l).toBe('string');
      expect(typeof o.message, l).toBe('string');
      expect(l, 'no secret, no colour').not.toMatch(/robot-secret|eyJ|\u001b\[/);
      return o;
    });
}
const events = (lines: Record<string, unknown>[]) => lines.map((l) => l.event);

describe('--log-format json: every stderr line one JSON object', () => {
  it('a success with -v: request and response lines (URL, status, duration), then the summary', async () => {
    const r = await prs(['--log-format', 'json', '-v', ...REPORT], robotEnv(sandbox));
    expect(r.code, r.stderr).toBe(0);
    const lines = jsonLines(r.stderr);
    expect(events(lines)).toEqual(expect.arrayContaining(['request', 'response', 'summary']));
    const response = lines.find((l) => l.event === 'response' && String(l.url).includes('/portfolio/42'))!;
    expect(response).toMatchObject({ level: 'debug', status: 200, method: 'GET' });
    expect(response.durationMs).toEqual(expect.any(Number));
    expect(lines.at(-1)).toMatchObject({ event: 'summary', level: 'info', exitCode: 0 });
    expect(lines.at(-1)!.durationMs).toEqual(expect.any(Number));
    // The token request's form is redacted as in -v.
    const token = lines.find((l) => l.event === 'request' && String(l.url).endsWith('/token'))!;
    expect(token.message).toContain('client_secret=***');
  });

  it('PRS_LOG_FORMAT=json without -v: nothing but the summary on a quiet success', async () => {
    const r = await prs(REPORT, robotEnv(sandbox, { PRS_LOG_FORMAT: 'json' }));
    expect(r.code).toBe(0);
    expect(events(jsonLines(r.stderr))).toEqual(['start', 'item', 'summary']);
  });

  it('an item failure: its error line, the run error with exit code and hint, the summary — all JSON', async () => {
    const env = robotEnv(sandbox);
    const r = await prs(['--log-format', 'json', ...exportOf(env, '42', '500')], env);
    expect(r.code).toBe(8);
    const lines = jsonLines(r.stderr);
    expect(lines.some((l) => l.level === 'error' && String(l.message).includes('500'))).toBe(true);
    // The item's error is one entry carrying its item, exit code and hint (no separate hint line).
    expect(lines.find((l) => l.event === 'error' && l.portfolioId === 500)).toMatchObject({
      level: 'error',
      exitCode: 8,
      hint: expect.stringContaining('try again later'),
    });
    expect(lines.filter((l) => l.event === 'hint')).toEqual([]);
    const last = lines.filter((l) => l.event === 'error').at(-1)!;
    expect(last.exitCode).toBe(8);
    expect(lines.at(-1)).toMatchObject({ event: 'summary', level: 'error', exitCode: 8 });
  });

  it('an auth failure: one error object with the server description, exit code and hint', async () => {
    const env = robotEnv(sandbox, {
      PRS_CLIENT_ID: sandbox.clientId,
      PRS_CLIENT_SECRET: sandbox.clientSecret,
    });
    const r = await prs(['--log-format', 'json', ...REPORT], env);
    expect(r.code).toBe(4);
    const lines = jsonLines(r.stderr);
    const error = lines.find((l) => l.event === 'error')!;
    expect(error).toMatchObject({ level: 'error', exitCode: 4 });
    expect(error.message).toMatch(/^sign-in refused by .*: Client not enabled to retrieve service account$/);
    expect(error.hint).toMatch(/service accounts enabled/);
    expect(lines.at(-1)).toMatchObject({ event: 'summary', exitCode: 4 });
  });

  it('a usage error before any command runs is JSON too (flag read from argv)', async () => {
    const r = await prs(['--log-format', 'json', 'report', '42'], robotEnv(sandbox));
    expect(r.code).toBe(2);
    expect(jsonLines(r.stderr)).toMatchObject([{ event: 'error', exitCode: 2, message: 'missing --type' }]);
  });
});

/** Starts prs, waits for `ready(stderr)`, sends `signal`, and returns the result. */
async function interrupted(args: string[], env: Record<string, string>, ready: (stderr: string) => boolean) {
  const child = spawn(process.execPath, [PRS_BIN, ...args], { env: baseEnv(env) });
  child.stdin.end();
  const run = collect(child, 30_000);
  const deadline = Date.now() + 15_000;
  while (!ready(run.stderr()) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  expect(ready(run.stderr()), run.stderr()).toBe(true);
  child.kill('SIGTERM');
  return run.done;
}
const exportRequested = (stderr: string) => /"event":"request".*\/export\?/.test(stderr);

describe('an interrupted run (SIGTERM while an export is awaited)', () => {
  it('JSON lines to the end: the error with exit 143 and the summary', async () => {
    const env = robotEnv(slow);
    const r = await interrupted(['--log-format', 'json', '-v', ...exportOf(env, '42')], env, exportRequested);
    expect(r.code).toBe(143);
    const lines = jsonLines(r.stderr);
    expect(lines.find((l) => l.event === 'error')).toMatchObject({ level: 'error', exitCode: 143 });
    expect(lines.at(-1)).toMatchObject({ event: 'summary', exitCode: 143 });
  });
});

/** The metrics file's series as "name{labels}" → value. */
function series(text: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const at = line.lastIndexOf(' ');
    out[line.slice(0, at)] = Number(line.slice(at + 1));
  }
  return out;
}
const L = (command: string, extra = '') => `{command="${command}",profile="default"${extra}}`;

/** The real `promtool check metrics` (it reads the exposition on stdin): no output, exit 0. */
async function promtoolCheck(file: string): Promise<void> {
  if (!PROMTOOL) return;
  const child = spawn(PROMTOOL, ['check', 'metrics'], { stdio: ['pipe', 'pipe', 'pipe'] });
  const run = collect(child, 10_000);
  child.stdin.end(readFileSync(file));
  const res = await run.done;
  expect({ code: res.code, out: res.stdout + res.stderr }).toEqual({ code: 0, out: '' });
}

if (!PROMTOOL) console.warn(NO_PROMTOOL);
describe('--metrics-file: replaced after every run, checked by promtool', () => {
  it('success, then an item failure and an interrupt carry the last success over', async () => {
    const env = robotEnv(sandbox);
    const file = join(env.HOME!, 'prs.prom');
    const before = Date.now();
    const ok = await prs(['--metrics-file', file, ...exportOf(env, '42')], env);
    expect(ok.code, ok.stderr).toBe(0);
    await promtoolCheck(file);
    const m1 = series(readFileSync(file, 'utf8'));
    expect(m1[`prs_last_run_exit_code${L('export')}`]).toBe(0);
    const success = m1[`prs_last_success_timestamp_seconds${L('export')}`]!;
    expect(success).toBe(m1[`prs_last_run_timestamp_seconds${L('export')}`]);
    expect(success * 1000).toBeGreaterThanOrEqual(before - 1);
    expect(success * 1000).toBeLessThanOrEqual(Date.now());
    expect(m1[`prs_run_duration_seconds${L('export')}`]).toBeGreaterThan(0);
    expect(m1[`prs_requests_total${L('export', ',endpoint="token",code="200"')}`]).toBe(1);
    expect(m1[`prs_requests_total${L('export', ',endpoint="export",code="200"')}`]).toBe(1);
    for (const [status, n] of [
      ['written', 1],
      ['skipped', 0],
      ['empty', 0],
      ['failed', 0],
    ] as const)
      expect(m1[`prs_items${L('export', `,status="${status}"`)}`], status).toBe(n);
    expect(m1[`prs_rate_limit_wait_seconds${L('export')}`]).toBe(0);
    expect(m1[`prs_bytes_written${L('export')}`]).toBeGreaterThan(0);

    // An item failure (portfolio 500 always fails): exit 8 recorded, the last success kept.
    const failed = await prs(['--metrics-file', file, ...exportOf(env, '500')], env);
    expect(failed.code).toBe(8);
    await promtoolCheck(file);
    const m2 = series(readFileSync(file, 'utf8'));
    expect(m2[`prs_last_run_exit_code${L('export')}`]).toBe(8);
    expect(m2[`prs_last_success_timestamp_seconds${L('export')}`]).toBe(success);
    expect(m2[`prs_last_run_timestamp_seconds${L('export')}`]).toBeGreaterThan(success);
    expect(m2[`prs_requests_total${L('export', ',endpoint="export",code="500"')}`]).toBe(1);
    expect(m2[`prs_items${L('export', ',status="failed"')}`]).toBe(1);
    expect(m2[`prs_items${L('export', ',status="written"')}`]).toBe(0);

    // An interrupt, against the slow sandbox (same file): 143, the last success still kept.
    const slowEnv = { ...env, PRS_AUTH_URL: slow.authUrl, PRS_BASE_URL: slow.url };
    const r = await interrupted(['-v', '--metrics-file', file, ...exportOf(env, '42')], slowEnv, (e) =>
      /> GET .*\/export\?/.test(e),
    );
    expect(r.code).toBe(143);
    await promtoolCheck(file);
    const m3 = series(readFileSync(file, 'utf8'));
    expect(m3[`prs_last_run_exit_code${L('export')}`]).toBe(143);
    expect(m3[`prs_last_success_timestamp_seconds${L('export')}`]).toBe(success);
    // Nothing half-written beside it.
    expect(readFileSync(file, 'utf8')).toMatch(/^# HELP prs_last_run_exit_code /);
  });

  it('a setting that does not resolve (PRS_RATE_LIMIT=bad, a bad --cache): exit 2 recorded, the last success kept, the failure pinged', async () => {
    const m = await monitor();
    try {
      const env = robotEnv(sandbox);
      const file = join(env.HOME!, 'usage.prom');
      const ok = await prs(['--metrics-file', file, ...exportOf(env, '42')], env);
      expect(ok.code, ok.stderr).toBe(0);
      const success = series(readFileSync(file, 'utf8'))[`prs_last_success_timestamp_seconds${L('export')}`];
      expect(success).toBeGreaterThan(0);
      // A cron line whose environment or profile went bad: no request, but the run's end is recorded.
      const bad = await prs(['--metrics-file', file, '--ping-url', m.url, ...exportOf(env, '42')], {
        ...env,
        PRS_RATE_LIMIT: 'bad',
      });
      expect(bad.code).toBe(2);
      expect(bad.stderr).toMatch(/^prs: invalid rate limit "bad".*\(from PRS_RATE_LIMIT\)$/m);
      await promtoolCheck(file);
      const m2 = series(readFileSync(file, 'utf8'));
      expect(m2[`prs_last_run_exit_code${L('export')}`]).toBe(2);
      expect(m2[`prs_last_success_timestamp_seconds${L('export')}`]).toBe(success);
      expect(m.seen).toEqual([
        'GET /ping/5f2c-secret-uuid/start',
        expect.stringMatching(/^POST \/ping\/5f2c-secret-uuid\/2 prs: invalid rate limit "bad"/),
      ]);
      const cache = await prs(['--metrics-file', file, '--cache', 'bogus', ...REPORT], env);
      expect(cache.code).toBe(2);
      expect(series(readFileSync(file, 'utf8'))[`prs_last_run_exit_code${L('report')}`]).toBe(2);
    } finally {
      await m.close();
    }
  });

  it('a report run is labelled command="report"; no earlier success → no last-success series yet', async () => {
    const env = robotEnv(sandbox);
    const file = join(env.HOME!, 'report.prom');
    const r = await prs(
      ['--metrics-file', file, 'report', '500', '-t', 'index', '-d', '2023-06-29', '--retries', '0'],
      env,
    );
    expect(r.code).toBe(8);
    await promtoolCheck(file);
    const m = series(readFileSync(file, 'utf8'));
    expect(m[`prs_last_run_exit_code${L('report')}`]).toBe(8);
    expect(m[`prs_last_success_timestamp_seconds${L('report')}`]).toBeUndefined();
    expect(m[`prs_requests_total${L('report', ',endpoint="report",code="500"')}`]).toBe(1);
  });

  it("a shared file keeps the other commands' and profiles' series (README's alert on export still fires)", async () => {
    const env = robotEnv(sandbox);
    const file = join(env.HOME!, 'shared.prom');
    const exported = await prs(['--metrics-file', file, ...exportOf(env, '42')], env);
    expect(exported.code, exported.stderr).toBe(0);
    const success = series(readFileSync(file, 'utf8'))[`prs_last_success_timestamp_seconds${L('export')}`];
    expect(success).toBeGreaterThan(0);
    const reported = await prs(['--metrics-file', file, ...REPORT], env);
    expect(reported.code, reported.stderr).toBe(0);
    expect((await prs(['--profile', 'nightly', 'config', 'set', 'tenant', 'demo-tenant'], env)).code).toBe(0);
    const other = await prs(['--profile', 'nightly', '--metrics-file', file, ...REPORT.slice(0, -1)], env);
    expect(other.code, other.stderr).toBe(0);
    await promtoolCheck(file);
    const m = series(readFileSync(file, 'utf8'));
    expect(m[`prs_last_success_timestamp_seconds${L('export')}`]).toBe(success);
    expect(m[`prs_items${L('export', ',status="written"')}`]).toBe(1);
    expect(m[`prs_last_run_exit_code${L('report')}`]).toBe(0);
    expect(m['prs_last_run_exit_code{command="report",profile="nightly"}']).toBe(0);
    // A rerun replaces its own series only: still one of each.
    const again = await prs(['--metrics-file', file, ...exportOf(env, '500')], env);
    expect(again.code).toBe(8);
    await promtoolCheck(file);
    const text = readFileSync(file, 'utf8');
    expect(text.match(/^prs_last_run_exit_code\{command="export",profile="default"\} 8$/gm)).toHaveLength(1);
    expect(series(text)[`prs_last_success_timestamp_seconds${L('export')}`]).toBe(success);
    expect(series(text)[`prs_last_run_exit_code${L('report')}`]).toBe(0);
  });

  it('an unwritable metrics file is one warning; the exit code stays the run’s', async () => {
    const env = robotEnv(sandbox);
    const r = await prs(['--metrics-file', join(env.HOME!, 'missing-dir', 'x.prom'), ...REPORT], env);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/^prs: warning: could not write the metrics file .*missing-dir\/x\.prom: /);
  });
});

/** A Healthchecks stand-in: records method, path and body of every ping. */
async function monitor(): Promise<{ url: string; seen: string[]; close(): Promise<void> }> {
  const seen: string[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', () => {
      seen.push(`${req.method} ${req.url}${body ? ` ${body}` : ''}`);
      res.end('OK');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}/ping/5f2c-secret-uuid`,
    seen,
    close: () => new Promise((r) => server.close(() => r())),
  };
}

describe('--ping-url: start, success, failure with the exit code', () => {
  it('a success: GET /start, then POST with the summary line', async () => {
    const m = await monitor();
    try {
      const r = await prs(['--ping-url', m.url, ...REPORT], robotEnv(sandbox));
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toBe('');
      expect(m.seen).toEqual([
        'GET /ping/5f2c-secret-uuid/start',
        expect.stringMatching(
          /^POST \/ping\/5f2c-secret-uuid prs report: exit 0 after \d+\.\d s; 1 written; \d+ requests?$/,
        ),
      ]);
    } finally {
      await m.close();
    }
  });

  it('a failure: POST /<exit code> with the error lines; exit 3 (no data) counts as one', async () => {
    const m = await monitor();
    try {
      const env = robotEnv(sandbox, { PRS_PING_URL: m.url });
      const failed = await prs(exportOf(env, '500'), env);
      expect(failed.code).toBe(8);
      const empty = await prs(['report', '101', '-t', 'index', '-d', '2023-06-29', '--json'], env);
      expect(empty.code).toBe(3);
      expect(m.seen).toHaveLength(4);
      expect(m.seen[0]).toBe('GET /ping/5f2c-secret-uuid/start');
      expect(m.seen[1]).toMatch(
        /^POST \/ping\/5f2c-secret-uuid\/8 portfolio 500 on 2023-06-29: service error/,
      );
      expect(m.seen[1]).toContain('\nprs: service error');
      expect(m.seen[1]).toContain('prs export: exit 8');
      expect(m.seen[2]).toBe('GET /ping/5f2c-secret-uuid/start');
      expect(m.seen[3]).toMatch(/^POST \/ping\/5f2c-secret-uuid\/3 prs: /);
    } finally {
      await m.close();
    }
  });

  it('a diff is a run like the others: its own metrics series (command="diff") and pings; --exit-code 11 is a failure there', async () => {
    const m = await monitor();
    try {
      const env = robotEnv(sandbox);
      const file = join(env.HOME!, 'diff.prom');
      const diff = ['diff', '77', '-t', 'constituent.close', '--from', '2024-03-15', '--to', '2024-03-18'];
      const watched = ['--metrics-file', file, '--ping-url', m.url, ...diff, '-f', 'ndjson'];
      const ok = await prs(watched, env);
      expect(ok.code, ok.stderr).toBe(0);
      await promtoolCheck(file);
      const m1 = series(readFileSync(file, 'utf8'));
      expect(m1[`prs_last_run_exit_code${L('diff')}`]).toBe(0);
      expect(m1[`prs_items${L('diff', ',status="written"')}`]).toBe(2);
      expect(m1[`prs_requests_total${L('diff', ',endpoint="report",code="200"')}`]).toBe(2);
      expect(m1[`prs_bytes_written${L('diff')}`]).toBe(Buffer.byteLength(ok.stdout));
      const changed = await prs([...watched, '--exit-code'], env);
      expect(changed.code).toBe(11);
      const m2 = series(readFileSync(file, 'utf8'));
      expect(m2[`prs_last_run_exit_code${L('diff')}`]).toBe(11);
      expect(m2[`prs_last_success_timestamp_seconds${L('diff')}`]).toBe(
        m1[`prs_last_success_timestamp_seconds${L('diff')}`],
      );
      expect(m.seen).toEqual([
        'GET /ping/5f2c-secret-uuid/start',
        expect.stringMatching(
          /^POST \/ping\/5f2c-secret-uuid prs diff: exit 0 after \d+\.\d s; 2 written; \d+ requests$/,
        ),
        'GET /ping/5f2c-secret-uuid/start',
        expect.stringMatching(/^POST \/ping\/5f2c-secret-uuid\/11 .*prs diff: exit 11 after /s),
      ]);
    } finally {
      await m.close();
    }
  });

  it('an unreachable monitor: one warning with the URL redacted, the exit code unchanged, no delay', async () => {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}/ping/5f2c-secret-uuid`;
    const r = await prs(['--ping-url', url, ...REPORT], robotEnv(sandbox));
    expect(r.code).toBe(0);
    // No delay: refused at once (ECONNREFUSED), not given up on after the 5 s a silent monitor gets.
    expect(r.stderr).toBe(
      `prs: warning: could not ping the monitor (start): http://127.0.0.1:${port}/***: ECONNREFUSED\n`,
    );
    const failed = await prs(
      ['--ping-url', url, 'report', '101', '-t', 'index', '-d', '2023-06-29'],
      robotEnv(sandbox),
    );
    expect(failed.code).toBe(3);
    expect(failed.stderr).not.toContain('5f2c-secret-uuid');
  });

  it('a monitor that accepts but never answers: each ping given up after 5 s, one warning, exit unchanged', async () => {
    const sockets: Socket[] = [];
    /** How long each ping's connection stayed open until prs gave up on it (ms). */
    const held: number[] = [];
    const silent = createNetServer((socket) => {
      sockets.push(socket);
      const opened = Date.now();
      socket.resume(); // read (and drop) the request, so that prs closing its end is seen
      socket.on('close', () => held.push(Date.now() - opened));
    });
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    const port = (silent.address() as { port: number }).port;
    try {
      const r = await prs(
        ['--ping-url', `http://127.0.0.1:${port}/ping/5f2c-secret-uuid`, ...REPORT],
        robotEnv(sandbox),
        // Only a hang detector: a ping that were never given up on would be killed here (exit null).
        { timeoutMs: 60_000 },
      );
      expect(r.code).toBe(0);
      expect(r.stderr).toBe(
        `prs: warning: could not ping the monitor (start): http://127.0.0.1:${port}/***: no answer within 5 s\n`,
      );
      // The start ping and the success ping: each held until prs gave up on it, not closed at once.
      // Half the 5 s, not all of it: a busy machine delays this process's 'connection' event by
      // up to seconds, which shortens the span measured here but not prs's wait.
      while (held.length < 2) await new Promise((resolve) => setTimeout(resolve, 20));
      for (const ms of held) expect(ms).toBeGreaterThanOrEqual(2_500);
    } finally {
      for (const s of sockets) s.destroy();
      await new Promise((r) => silent.close(r));
    }
  });

  it('the URL is a secret: never printed, not by -v nor by config list', async () => {
    const m = await monitor();
    try {
      const env = robotEnv(sandbox);
      const r = await prs(['-v', '--ping-url', m.url, ...REPORT], env);
      expect(r.code).toBe(0);
      expect(r.stderr).not.toContain('5f2c-secret-uuid');
      expect(r.stderr).toContain(`ping: monitor ${new URL(m.url).origin}/***`);
      await prs(['config', 'set', 'ping-url', m.url], env);
      const list = await prs(['config', 'list'], env);
      expect(list.stdout).toMatch(/^ping-url: +http:\/\/127\.0\.0\.1:\d+\/\*\*\* +\(profile\)$/m);
      expect(list.stdout + list.stderr).not.toContain('5f2c-secret-uuid');
    } finally {
      await m.close();
    }
  });
});
