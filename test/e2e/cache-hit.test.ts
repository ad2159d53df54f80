/**
 * The answer cache's fast path (src/fast.ts → src/hit.ts, dist/fast.js → dist/hit.js), the BUILT binary against the sandbox:
 * a report the cache holds is answered before the CLI loads (dist/main.js is never required: read
 * from Node's module cache at exit), with exactly the bytes the CLI printed when it asked the service,
 * in every format it takes, and no request; what it does not take goes to the CLI, which prints the
 * same. stdout's rules hold on this path too: a reader that left is exit 0 in silence, a full disk or
 * a short write exit 10 in one line, and a non-blocking stdout that fills up loses nothing.
 */
import { spawn } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { useFaultServer } from '../helpers/fault-server.js';
import { openSpools } from '../helpers/rows.js';
import { baseEnv, collect, PRS_BIN, type RunResult, runPrsIntoClosedPipe } from '../helpers/run.js';
import { tokenEnv, useLoggedIn } from '../helpers/session.js';

const PRELOAD = fileURLToPath(new URL('./fixtures/loaded-chunks.cjs', import.meta.url));
const DAY = '2024-05-02';

const { sandbox, tmp, env } = useLoggedIn('prs-cache-hit-', { rateLimit: '1000/1s' }, { PRS_CACHE: '7d' });
beforeEach(() => sandbox.stats.reset());

const requests = () => sandbox.stats.count({ endpoint: 'report' });
let n = 0;

/** prs with `args` (against the sandbox, or as `over` says); also which dist/ files it loaded. */
async function prs(
  args: string[],
  over: Record<string, string> = env,
): Promise<RunResult & { loaded: string[] }> {
  const list = join(tmp.path, `loaded-${n++}`);
  const child = spawn(process.execPath, ['-r', PRELOAD, PRS_BIN, ...args], {
    env: baseEnv({ ...over, PRS_TEST_LOADED: list }),
  });
  child.stdin.end();
  const r = await collect(child).done;
  return { ...r, loaded: readFileSync(list, 'utf8').split('\n').filter(Boolean) };
}

/** `report <id> -t <type> -d <date> …`: each case of the first table has a date of its own (the key has
 * no format), so that its first run asks. */
const report = (id: string, type: string, ...more: string[]) => [
  'report',
  id,
  '-t',
  type,
  '-d',
  DAY,
  ...more,
];
const on = (date: string, args: string[]) => args.map((a) => (a === DAY ? date : a));

describe('a hit is answered before the CLI loads, with the CLI’s bytes', () => {
  it.each([
    ['index, default format (json in a pipe)', on('2024-04-01', report('42', 'index'))],
    ['index, csv', on('2024-04-02', report('42', 'index', '-f', 'csv'))],
    ['20,000 rows, ndjson', on('2024-04-03', report('7', 'constituent.close', '-f', 'ndjson'))],
    ['20,000 rows, csv', on('2024-04-04', report('7', 'constituent.close', '--format=csv'))],
    ['20,000 rows, tsv, -q', on('2024-04-05', ['-q', ...report('7', 'constituent.close', '-f', 'tsv')])],
    [
      '20,000 rows, --json, --cache given after',
      on('2024-04-08', [...report('7', 'constituent.close', '--json'), '--cache', '3d']),
    ],
  ])('%s', async (_name, args) => {
    const asked = await prs(args);
    expect(asked.code, asked.stderr).toBe(0);
    expect(asked.loaded).toContain('main.js');
    expect(requests()).toBe(1);
    const hit = await prs(args);
    expect(hit.code, hit.stderr).toBe(0);
    expect(hit.stderr).toBe('');
    expect(hit.loaded).toEqual(['fast.js', 'hit.js']);
    expect(hit.stdoutBytes.equals(asked.stdoutBytes)).toBe(true);
    expect(requests()).toBe(1);
  });

  it.each([
    ['-v (the CLI says "cache hit")', ['-v'], /^cache hit: portfolio 42 index 2024-05-02/m],
    ['a table asked for in a pipe', ['-f', 'table'], /^$/],
    ['--fields', ['--fields', 'indexName,currency', '-f', 'csv'], /^$/],
  ])(
    'what it does not take goes to the CLI, which answers from the cache: %s',
    async (_name, more, stderr) => {
      const args = report('42', 'index', ...more);
      await prs(args); // stored (if not already)
      sandbox.stats.reset();
      const again = await prs(args);
      expect(again.code, again.stderr).toBe(0);
      expect(again.loaded).toContain('main.js');
      expect(again.stderr).toMatch(stderr);
      expect(requests()).toBe(0);
    },
  );

  it('--jq goes to the CLI, which runs the filter over the stored answer (the fast path printed it unfiltered)', async () => {
    const args = on('2024-04-10', report('42', 'index', '--jq', '.[0].indexName'));
    const first = await prs(args);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toMatch(/^Example .+\n$/);
    sandbox.stats.reset();
    const again = await prs(args);
    expect(again.code, again.stderr).toBe(0);
    expect(again.loaded).toContain('main.js');
    expect(again.stdout).toBe(first.stdout);
    expect(requests()).toBe(0);
  });

  it('--raw goes to the CLI and prints the stored bytes, which the fast path’s JSON came from', async () => {
    const raw = await prs(report('42', 'index', '--raw'));
    expect(raw.code, raw.stderr).toBe(0);
    expect(raw.loaded).toContain('main.js');
    const json = await prs(report('42', 'index', '-f', 'json'));
    expect(json.loaded).toEqual(['fast.js', 'hit.js']);
    expect(JSON.parse(json.stdout)).toEqual(JSON.parse(raw.stdout).report ?? JSON.parse(raw.stdout));
  });

  it('the cache turned on by the profile (`prs config set cache 7d`) takes the fast path too', async () => {
    const args = ['report', '42', '-t', 'index', '-d', '2024-04-09', '-f', 'json'];
    const set = await prs(['config', 'set', 'cache', '7d']);
    expect(set.code, set.stderr).toBe(0);
    try {
      env.PRS_CACHE = '';
      expect((await prs(args)).loaded).toContain('main.js');
      const hit = await prs(args);
      expect(hit.loaded).toEqual(['fast.js', 'hit.js']);
      expect(requests()).toBe(1);
    } finally {
      env.PRS_CACHE = '7d';
      expect((await prs(['config', 'unset', 'cache'])).code).toBe(0);
    }
  });

  it('a miss (today, never kept) goes to the CLI and asks', async () => {
    const today = new Date().toISOString().slice(0, 10);
    const r = await prs(['report', '42', '-t', 'index', '-d', today, '-f', 'json']);
    expect(r.loaded).toContain('main.js');
    expect(requests()).toBe(1);
  });
});

describe('stdout’s rules on the fast path', () => {
  const big = report('7', 'constituent.close', '-f', 'csv');
  beforeAll(async () => {
    expect((await prs(big)).code).toBe(0); // stored
  });

  it('a reader that went away: exit 0, nothing on stderr, no request', async () => {
    const r = await runPrsIntoClosedPipe(big, { env });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(requests()).toBe(0);
  });

  it('/dev/full: exit 10, one line', async () => {
    const fd = openSync('/dev/full', 'w');
    try {
      const child = spawn(process.execPath, [PRS_BIN, ...big], {
        env: baseEnv(env),
        stdio: ['ignore', fd, 'pipe'],
      });
      const err: Buffer[] = [];
      child.stderr?.on('data', (c: Buffer) => err.push(c));
      const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
      expect(code).toBe(10);
      expect(Buffer.concat(err).toString()).toBe('prs: cannot write to stdout: disk full\n');
    } finally {
      closeSync(fd);
    }
  });

  it('a short write past `ulimit -f` (SIGXFSZ ignored): exit 10, never 0', async () => {
    // 50 rows, ~15 kB: past the limit of 4 kB, and held in memory until written (a spool file under
    // `ulimit -f` would fail first, as the CLI's does).
    const mid = report('1', 'constituent.close', '-f', 'csv');
    expect((await prs(mid)).stdout.length).toBeGreaterThan(8 * 512);
    const out = join(tmp.path, 'short.csv');
    const codeFile = join(tmp.path, 'short.code');
    const child = spawn(
      'sh',
      [
        '-c',
        `trap '' XFSZ; ulimit -f 8; "$NODE" "$PRS" "$@" >"${out}"; echo $? >"${codeFile}"`,
        'sh',
        ...mid,
      ],
      { env: baseEnv({ ...env, NODE: process.execPath, PRS: PRS_BIN }) },
    );
    child.stdin.end();
    const r = await collect(child).done;
    expect(Number(readFileSync(codeFile, 'utf8'))).toBe(10);
    expect(r.stderr).toBe('prs: cannot write to stdout: file too large\n');
    expect(statSync(out).size).toBe(8 * 512);
  });

  it('SIGTERM while stdout is not read: exit 143, "prs: terminated", the spooled answer removed', async () => {
    const temp = join(tmp.path, 'tmp-sigterm');
    mkdirSync(temp);
    // stdout a pipe nobody reads: the run stops in its writes with the answer (2 MB of CSV) spooled.
    const child = spawn(process.execPath, [PRS_BIN, ...big], { env: baseEnv({ ...env, TMPDIR: temp }) });
    child.stdin.end();
    const err: Buffer[] = [];
    child.stderr.on('data', (c: Buffer) => err.push(c));
    const closed = new Promise<number | null>((resolve) => child.on('close', resolve));
    // The spool's file, not anything else in TMPDIR (Node 24 keeps its compile cache there); open
    // without a name there.
    const spooled = () => readdirSync(temp).filter((f) => f.startsWith('.prs-answer.'));
    while (openSpools(child.pid!).length === 0) await new Promise((r) => setTimeout(r, 20));
    child.kill('SIGTERM');
    child.stdout.resume();
    expect(await closed).toBe(143);
    expect(Buffer.concat(err).toString()).toBe('prs: terminated\n');
    expect(spooled()).toEqual([]);
    expect(requests()).toBe(0);
  });

  it('a non-blocking stdout (inherited from a Node parent) that fills up: every byte arrives, exit 0', async () => {
    const expected = (await prs(big)).stdoutBytes;
    // The parent's own stdout is a pipe Node made non-blocking; prs shares it and meets EAGAIN when the
    // reader (this test, reading slowly) falls behind.
    const parent = `const r = require('node:child_process').spawnSync(process.execPath, [process.env.PRS, ...process.argv.slice(1)], { stdio: ['ignore', 'inherit', 'inherit'] }); process.stdout; process.exitCode = r.status;`;
    const child = spawn(process.execPath, ['-e', `process.stdout; ${parent}`, ...big], {
      env: baseEnv({ ...env, PRS: PRS_BIN }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const chunks: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => {
      chunks.push(c);
      child.stdout.pause();
      setTimeout(() => child.stdout.resume(), 1);
    });
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => {
      stderr += c;
    });
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(Buffer.concat(chunks).equals(expected)).toBe(true);
  });
});

describe('an answer whose columns grow after the cache reads its first chunk', () => {
  const server = useFaultServer();
  it.each(['csv', 'tsv'])(
    '%s: the hit prints the CLI’s bytes (every column in the header, earlier lines padded)',
    async (format) => {
      // Past the cache's read chunk (256 KiB), a row with a column none before had.
      const rows = Array.from({ length: 3000 }, (_, i) => ({ a: i, b: 'x'.repeat(100) }));
      const body = JSON.stringify({ report: [...rows, { a: 3000, b: 'y', late: 'z' }] });
      server.respond({ body, headers: { 'content-type': 'application/json' } });
      const over = { ...tokenEnv(server.url, join(tmp.path, `grow-${format}`)), PRS_CACHE: '7d' };
      const args = ['report', '5', '-t', 'constituent.close', '-d', '2024-04-10', '-f', format];
      const asked = await prs(args, over);
      expect(asked.code, asked.stderr).toBe(0);
      expect(asked.stdout.split('\n')[0]).toBe(['a', 'b', 'late'].join(format === 'csv' ? ',' : '\t'));
      const hit = await prs(args, over);
      expect(hit.code, hit.stderr).toBe(0);
      expect(hit.loaded).toEqual(['fast.js', 'hit.js']);
      expect(server.requests).toHaveLength(1);
      expect(hit.stdout).toBe(asked.stdout);
    },
  );
});
