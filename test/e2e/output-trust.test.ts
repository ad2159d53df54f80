/**
 * CLI.md "Output that scripts can trust" and the run's notices, the BUILT binary against the sandbox:
 * a reader of stdout that goes away (`| head -1`) stops the run at once, silently, exit 0; any other
 * stdout failure (/dev/full, a short write past `ulimit -f`) is exit 10 with one line and no source;
 * CSV across answers with -o has every answer's columns, and to a pipe a warning that -q does not
 * silence; a run planned longer than ten minutes says so first.
 */
import { spawn } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { baseEnv, collect, PRS_BIN, type RunResult, runPrs } from '../helpers/run.js';
import { useLoggedIn } from '../helpers/session.js';
import { STACK } from './reliability-helpers.js';

const DATE = '2024-05-02';
/** 20 weekdays: 2024-05-01 … 2024-05-28. */
const RANGE = ['--from', '2024-05-01', '--to', '2024-05-28'];

const { sandbox, tmp, env: session } = useLoggedIn('prs-output-trust-', { rateLimit: '100/1s' });
beforeEach(() => sandbox.stats.reset());

const prs = (args: string[], env: Record<string, string> = {}) =>
  runPrs(args, { env: { ...session, ...env } });
const reportRequests = () => sandbox.stats.count({ endpoint: 'report' });

/** `script` in sh, with $PRS the built binary (run by this node); prs's own exit code is written to $CODE. */
async function sh(
  script: string,
  env: Record<string, string> = {},
): Promise<RunResult & { prsCode: number; prsStderr: () => string }> {
  const codeFile = join(tmp.path, `code-${Math.random().toString(36).slice(2)}`);
  const child = spawn('sh', ['-c', script], {
    env: baseEnv({ ...session, ...env, NODE: process.execPath, PRS: PRS_BIN, CODE: codeFile }),
  });
  child.stdin.end();
  const r = await collect(child).done;
  return {
    ...r,
    prsCode: Number(readFileSync(codeFile, 'utf8').trim()),
    prsStderr: () => readFileSync(`${codeFile}.err`, 'utf8'),
  };
}

/** Runs prs with stdout on an already-open file descriptor (a device, a file). */
async function withStdout(path: string, args: string[]): Promise<RunResult> {
  const fd = openSync(path, 'w');
  try {
    const child = spawn(process.execPath, [PRS_BIN, ...args], {
      env: baseEnv(session),
      stdio: ['pipe', fd, 'pipe'],
    });
    child.stdin?.end();
    const err: Buffer[] = [];
    child.stderr?.on('data', (c: Buffer) => err.push(c));
    const code = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
    return {
      code,
      signal: null,
      stdout: '',
      stdoutBytes: Buffer.alloc(0),
      stderr: Buffer.concat(err).toString(),
    };
  } finally {
    closeSync(fd);
  }
}

describe('any other stdout failure: exit 10, one line, no source', () => {
  it.each([
    ['report', ['report', '42', '-t', 'index', '-d', DATE, '-f', 'ndjson']],
    ['report, a range', ['report', '42', '-t', 'index', ...RANGE, '-f', 'ndjson']],
    ['export -o -', ['export', '42', '-t', 'index', '-d', DATE, '-o', '-']],
    // Written by bin/prs.js before anything loads; a write that fails goes to the fast entry's rules.
    ['--version', ['--version']],
    ['--help', ['--help']],
  ])('%s > /dev/full', async (_name, args) => {
    const r = await withStdout('/dev/full', args);
    expect(r.code).toBe(10);
    expect(r.stderr).toBe('prs: cannot write to stdout: disk full\n');
    expect(r.stderr).not.toMatch(STACK);
  });

  it('a short write mid-stream (`ulimit -f`, SIGXFSZ ignored: the write fails with EFBIG) → exit 10, never 0', async () => {
    const out = join(tmp.path, 'short.ndjson');
    const r = await sh(
      `trap '' XFSZ; ulimit -f 8; "$NODE" "$PRS" report 1 -t constituent.close ${RANGE.join(' ')} -f ndjson >"${out}"; echo $? >"$CODE"`,
    );
    expect(r.prsCode).toBe(10);
    expect(r.stderr).toBe('prs: cannot write to stdout: file too large\n');
    // The limit was reached: the output was cut short (8 blocks of 512 bytes), and prs said so.
    expect(statSync(out).size).toBe(8 * 512);
  });
});

describe('CSV across answers', () => {
  const extra = ['exchangeCode', 'sedol', 'country', 'sector'];

  it('with -o the header is the union of every answer’s columns (first answer’s first), in either order', async () => {
    const a = join(tmp.path, 'q.csv');
    const b = join(tmp.path, 'q1.csv');
    const r = await prs([
      '-q',
      'report',
      '42',
      '1',
      '-t',
      'constituent.close',
      '-d',
      DATE,
      '-f',
      'csv',
      '-o',
      a,
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    const s = await prs([
      '-q',
      'report',
      '1',
      '42',
      '-t',
      'constituent.close',
      '-d',
      DATE,
      '-f',
      'csv',
      '-o',
      b,
    ]);
    expect(s.code, s.stderr).toBe(0);
    const header = (f: string) => readFileSync(f, 'utf8').split('\n')[0]!.split(',');
    expect(header(a)).toEqual(expect.arrayContaining(extra));
    expect(new Set(header(a))).toEqual(new Set(header(b)));
    // Every record has every column: portfolio 42's rows got empty cells for the columns they lack.
    const widths = readFileSync(a, 'utf8')
      .trimEnd()
      .split('\n')
      .map((l) => l.split(',').length);
    expect(new Set(widths)).toEqual(new Set([header(a).length]));
  });

  it('to a pipe: the first answer’s columns, and a warning that -q does not silence', async () => {
    const r = await prs(['-q', 'report', '42', '1', '-t', 'constituent.close', '-d', DATE, '-f', 'csv']);
    expect(r.code).toBe(0);
    expect(r.stdout.split('\n')[0]).not.toMatch(/exchangeCode/);
    const lines = r.stderr.split('\n').filter(Boolean);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^prs: warning: left out columns .*exchangeCode.* of portfolio 1 on 2024-05-02: .*-o.*--fields/,
    );
    for (const c of extra) expect(lines[0]).toContain(c);
  });
});

describe('a run planned longer than ten minutes', () => {
  it('says so first, in one line, without a terminal; -q silences it', async () => {
    // 3 items at 1/600s: 20 minutes. The first (an unknown portfolio) fails, --fail-fast: no wait.
    const args = [
      'report',
      '999',
      '42',
      '1',
      '-t',
      'index',
      '-d',
      DATE,
      '--fail-fast',
      '--rate-limit',
      '1/600s',
    ];
    const r = await prs(args, { PRS_CACHE_DIR: join(tmp.path, 'cache-long') });
    expect(r.code).toBe(6);
    expect(r.stderr.split('\n')[0]).toMatch(/^3 requests at 1\/600s: about 20 min \(until \d\d:\d\d\)$/);
    expect(reportRequests()).toBe(1);
    const q = await prs(['-q', ...args], { PRS_CACHE_DIR: join(tmp.path, 'cache-long-q') });
    expect(q.stderr).not.toMatch(/requests at/);
    expect(existsSync(join(tmp.path, 'cache-long'))).toBe(true);
  });

  it('plans from the limiter state as it is: slots an earlier run took count', async () => {
    // 2 items at 2/660s from an empty window: no wait, no notice. After one request in the same
    // window, the second of them waits 11 minutes: the notice says so before the first request.
    const env = { PRS_CACHE_DIR: join(tmp.path, 'cache-taken') };
    const args = ['report', '999', '42', '-t', 'index', '-d', DATE, '--fail-fast', '--rate-limit', '2/660s'];
    const fresh = await prs(args, env);
    expect(fresh.code).toBe(6);
    expect(fresh.stderr).not.toMatch(/requests at/);
    const r = await prs(args, env);
    expect(r.code).toBe(6);
    expect(r.stderr.split('\n')[0]).toMatch(/^2 requests at 2\/660s: about 11 min \(until \d\d:\d\d\)$/);
    expect(reportRequests()).toBe(2);
  });
});

describe('a reader of stdout that goes away', () => {
  it('report piped into `head -1` over a 20-date range: at most 2 requests sent, exit 0, no message', async () => {
    // The second answer onwards comes 300 ms late: `head` has surely gone by then, whatever the load.
    // (These faults outlive the test; it comes last among this sandbox's report runs.)
    sandbox.injectFault({ endpoint: 'report', delayMs: 1, count: 1 });
    sandbox.injectFault({ endpoint: 'report', delayMs: 300, count: 30 });
    const r = await sh(
      `{ "$NODE" "$PRS" -v report 42 -t index ${RANGE.join(' ')} -f ndjson 2>"$CODE.err"; echo $? >"$CODE"; } | head -1`,
    );
    expect(r.stdout.split('\n').filter(Boolean)).toHaveLength(1);
    expect(r.prsCode).toBe(0);
    // -v: a line per request as it is sent (one aborted in its delay never reaches the sandbox's
    // count), and nothing else: no message.
    const lines = r.prsStderr().split('\n').filter(Boolean);
    expect(lines.filter((l) => !/^[<>] /.test(l))).toEqual([]);
    expect(lines.filter((l) => /^> GET .*\/portfolio\/42\?/.test(l)).length).toBeLessThanOrEqual(2);
    expect(reportRequests()).toBeLessThanOrEqual(2);
  });

  it('export: the paths piped into `head -1` stop the run too, after at most 2 requests', async () => {
    // As for report: the second answer onwards comes 300 ms late, when `head` has surely gone.
    sandbox.injectFault({ endpoint: 'export', delayMs: 1, count: 1 });
    sandbox.injectFault({ endpoint: 'export', delayMs: 300, count: 30 });
    const dir = join(tmp.path, 'exports');
    const r = await sh(
      `mkdir -p "${dir}"; { "$NODE" "$PRS" -v export 42 -t index ${RANGE.join(' ')} --dir "${dir}" 2>"$CODE.err"; echo $? >"$CODE"; } | head -1`,
    );
    expect(r.prsCode).toBe(0);
    // -v: a line per request as it is sent (an aborted one never reaches the sandbox's count), and
    // nothing else: no message, no summary.
    const lines = r.prsStderr().split('\n').filter(Boolean);
    expect(lines.filter((l) => !/^[<>] /.test(l))).toEqual([]);
    // Was 3: the next item started before the write of the second path had failed.
    expect(lines.filter((l) => /^> GET .*\/export\?/.test(l)).length).toBeLessThanOrEqual(2);
    expect(sandbox.stats.count({ endpoint: 'export' })).toBeLessThanOrEqual(2);
  });
});
