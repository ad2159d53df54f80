/**
 * `prs export` over many items (CLI.md "Runs of many items"), end to end: the BUILT binary (run
 * `npm run build` first) against in-process sandboxes. Keep going and --fail-fast, --json against the
 * disk, resume with --skip-existing (after a failed run, an interrupted one, an extended range, a file
 * deleted by hand), parallel runs writing exactly what a sequential one writes, and SIGINT/SIGTERM in
 * the middle of a parallel export leaving only whole files and a consistent manifest.
 */
import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { MANIFEST_NAME } from '../../src/export/manifest.js';
import type { Sandbox } from '../../src/sandbox/index.js';
import { baseEnv, collect, PRS_BIN, runPrs } from '../helpers/run.js';
import { signInEnv, useSandbox, useTempDir } from '../helpers/session.js';

const sandbox = useSandbox();
/** Adds 400 ms to each export: a run lasts long enough to be interrupted midway. */
const slow = useSandbox({ exportDelayMs: 400 });
const home = useTempDir('prs-export-runs-');
let out: string;

beforeEach(() => {
  out = home.fresh();
  sandbox.stats.reset();
  slow.stats.reset();
});

const envFor = (sb: Sandbox) => ({
  ...signInEnv(sb),
  PRS_CONFIG_DIR: join(home.path, `config-${sb.port}`),
  PRS_CACHE_DIR: join(home.path, `cache-${sb.port}`),
  HOME: home.path,
});
const prs = (args: string[], sb = sandbox) =>
  runPrs(['export', ...args, '--dir', out], { cwd: out, env: envFor(sb), timeoutMs: 60_000 });
const files = (dir = out) =>
  readdirSync(dir)
    .filter((f) => f !== MANIFEST_NAME)
    .sort();
const lines = (s: string) => s.split('\n').filter(Boolean);
const exportRequests = (sb = sandbox) => sb.stats.requests.filter((r) => r.endpoint === 'export');
const requestedDates = (sb = sandbox) =>
  exportRequests(sb).map((r) => new URL(r.path, 'http://x').searchParams.get('date'));
const sha256 = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex');

/** Every manifest line parses, and every file it names is in `dir` with the recorded size and hash. */
function expectConsistentManifest(dir = out): number {
  const text = readFileSync(join(dir, MANIFEST_NAME), 'utf8');
  let entries = 0;
  for (const line of lines(text)) {
    const entry = JSON.parse(line) as { files: { name: string; bytes: number; sha256: string }[] };
    for (const f of entry.files) {
      expect(statSync(join(dir, f.name)).size).toBe(f.bytes);
      expect(sha256(join(dir, f.name))).toBe(f.sha256);
    }
    entries++;
  }
  return entries;
}

describe('export: keep going, --fail-fast, --json', () => {
  it('an unknown portfolio fails its items only: the others are written, one summary, exit 6', async () => {
    const r = await prs(['42', '999', '13', '-t', 'index', '-d', '2024-05-02']);
    expect(r.code).toBe(6);
    expect(files()).toEqual([
      '2024-05-02_Example_600_OG_index.json',
      '2024-05-02_Précision_Stress_index.json',
    ]);
    expect(lines(r.stdout)).toHaveLength(2);
    expect(r.stderr).toMatch(/^prs: portfolio 999 on 2024-05-02: portfolio 999 not found/m);
    expect(lines(r.stderr).at(-1)).toBe('prs: 2 written, 1 failed: portfolio 999 on 2024-05-02 (not found)');
  });

  it('--fail-fast stops at the first failure: nothing after it is requested', async () => {
    const r = await prs(['999', '42', '-t', 'index', '-d', '2024-05-02', '--fail-fast']);
    expect(r.code).toBe(6);
    expect(files()).toEqual([]);
    expect(exportRequests()).toHaveLength(1);
  });

  it('a run-level failure (a refused tenant) stops the run at once', async () => {
    const r = await runPrs(['export', '42', '13', '-t', 'index', '-d', '2024-05-02', '--dir', out], {
      env: { ...envFor(sandbox), PRS_TENANT: 'other-tenant' },
    });
    expect(r.code).toBe(5);
    expect(exportRequests()).toHaveLength(1);
  });

  it('a file that exists fails that item (exit 10, the hint names --skip-existing); the rest is written', async () => {
    const first = await prs(['42', '-t', 'index', '-d', '2024-05-02']);
    expect(first.code).toBe(0);
    const r = await prs(['42', '-t', 'index', '--from', '2024-05-02', '--to', '2024-05-03']);
    expect(r.code).toBe(10);
    expect(r.stderr).toMatch(/--skip-existing/);
    expect(files()).toEqual(['2024-05-02_Example_600_OG_index.json', '2024-05-03_Example_600_OG_index.json']);
  });

  it('--json parses and matches the disk', async () => {
    const r = await prs([
      '42',
      '999',
      '-t',
      'index',
      '--from',
      '2024-05-03',
      '--to',
      '2024-05-06',
      '--weekends',
      '--json',
    ]);
    expect(r.code).toBe(6);
    const items = JSON.parse(r.stdout) as Record<string, unknown>[];
    expect(items.map((i) => [i.portfolioId, i.date, i.status])).toEqual([
      [42, '2024-05-03', 'written'],
      [42, '2024-05-04', 'empty'],
      [42, '2024-05-05', 'empty'],
      [42, '2024-05-06', 'written'],
      [999, '2024-05-03', 'failed'],
      [999, '2024-05-04', 'failed'],
      [999, '2024-05-05', 'failed'],
      [999, '2024-05-06', 'failed'],
    ]);
    for (const i of items) expect(i).toMatchObject({ type: 'index', format: 'json' });
    const written = items.filter((i) => i.status === 'written');
    expect(written.map((i) => String(i.path).slice(out.length + 1)).sort()).toEqual(files());
    for (const i of written) expect(statSync(String(i.path)).size).toBe(i.bytes);
    expect(items.find((i) => i.status === 'failed')?.error).toEqual({
      exitCode: 6,
      message: expect.stringMatching(/portfolio 999 not found/),
    });
  });
});

describe('export --skip-existing: resume', () => {
  const range = ['-t', 'index', '--from', '2024-05-01', '--to', '2024-05-08'];

  it('after a failed run only the failed item is fetched again', async () => {
    sandbox.injectFault({ endpoint: 'export', status: 500 });
    const first = await prs(['42', ...range, '--retries', '0']);
    expect(first.code).toBe(8);
    expect(files()).toHaveLength(5);
    sandbox.stats.reset();
    const again = await prs(['42', ...range, '--skip-existing']);
    expect(again.code).toBe(0);
    expect(requestedDates()).toEqual(['2024-05-01']);
    expect(files()).toHaveLength(6);
    expect(expectConsistentManifest()).toBe(6);
  });

  it('an extended range fetches only the new dates; a file deleted by hand is fetched again', async () => {
    expect((await prs(['42', ...range])).code).toBe(0);
    rmSync(join(out, '2024-05-03_Example_600_OG_index.json'));
    sandbox.stats.reset();
    const r = await prs([
      '42',
      '-t',
      'index',
      '--from',
      '2024-05-01',
      '--to',
      '2024-05-10',
      '--skip-existing',
    ]);
    expect(r.code).toBe(0);
    expect(requestedDates()).toEqual(['2024-05-03', '2024-05-09', '2024-05-10']);
    expect(files()).toHaveLength(8);
    expect(lines(r.stderr).at(-1)).toBe('3 written, 5 skipped');
  });

  it('a file altered by hand is fetched again and kept, never overwritten (exit 10)', async () => {
    expect((await prs(['42', ...range])).code).toBe(0);
    const path = join(out, '2024-05-02_Example_600_OG_index.json');
    const { writeFileSync } = await import('node:fs');
    writeFileSync(path, '[]');
    sandbox.stats.reset();
    const r = await prs(['42', ...range, '--skip-existing']);
    expect(r.code).toBe(10);
    expect(r.stderr).toMatch(
      /2024-05-02_Example_600_OG_index.json already exists\n.*differs from what the service sent/,
    );
    expect(requestedDates()).toEqual(['2024-05-02']);
    expect(readFileSync(path, 'utf8')).toBe('[]');
  });

  it('without a manifest (an earlier single export), an identical file counts as done', async () => {
    expect((await prs(['42', '-t', 'index', '-d', '2024-05-02'])).code).toBe(0);
    expect(readdirSync(out)).not.toContain(MANIFEST_NAME);
    const r = await prs(['42', ...range, '--skip-existing']);
    expect(r.code).toBe(0);
    expect(r.stdout).not.toContain('2024-05-02');
    expect(files()).toHaveLength(6);
  });

  const strace = (() => {
    try {
      // Installed and allowed to trace here (a container may refuse ptrace).
      execFileSync('strace', ['-qq', '-o', '/dev/null', 'true'], { stdio: 'ignore' });
      return true;
    } catch {
      return false;
    }
  })();
  it.skipIf(!strace)('each manifest line is fsynced, after the file it names is committed', async () => {
    const trace = join(home.fresh(), 'strace.log');
    const syscalls = 'trace=openat,write,fsync,close,rename,renameat,renameat2,link,linkat';
    const args = ['export', '42', ...range.slice(0, 4), '--to', '2024-05-02', '--dir', out];
    const child = spawn(
      'strace',
      ['-f', '-qq', '-o', trace, '-e', syscalls, process.execPath, PRS_BIN, ...args],
      {
        env: baseEnv(envFor(sandbox)),
        cwd: out,
      },
    );
    child.stdin.end();
    expect((await collect(child, 60_000).done).code).toBe(0);
    // A call another thread interrupted is split in two lines: joined back, per thread.
    const open = new Map<string, string>();
    const calls: string[] = [];
    for (const line of readFileSync(trace, 'utf8').split('\n')) {
      const [, pid = '', rest = ''] = /^(\d+)\s+(.*)$/.exec(line) ?? [];
      if (rest.endsWith('<unfinished ...>')) open.set(pid, rest.slice(0, -'<unfinished ...>'.length));
      else if (rest.startsWith('<...')) calls.push(open.get(pid) + rest.replace(/^<\.\.\. \w+ resumed>/, ''));
      else if (rest) calls.push(rest);
    }
    // Each record: the manifest's temporary written and fsynced, then renamed over it.
    const name = MANIFEST_NAME.replaceAll('.', '\\.');
    const manifestFd = new RegExp(`^openat\\(.*/\\.${name}\\.\\d+\\.[0-9a-f]{8}\\.tmp".*O_EXCL.*= (\\d+)$`);
    const records: number[] = [];
    calls.forEach((c, i) => {
      const fd = manifestFd.exec(c)?.[1];
      if (!fd) return;
      const rest = calls.slice(i + 1);
      const closed = rest.findIndex((x) => x.startsWith(`close(${fd})`));
      const mine = rest.slice(0, closed).filter((x) => new RegExp(`^(write|fsync)\\(${fd}[,)]`).test(x));
      expect(mine.map((x) => x.slice(0, 5))).toEqual(['write', 'fsync']);
      const renamed = rest.findIndex((x) => new RegExp(`^rename.*\\.tmp", ".*/${name}"`).test(x));
      expect(renamed).toBeGreaterThan(closed);
      records.push(i);
    });
    expect(records).toHaveLength(2);
    const member = calls.findIndex((c) => /^(rename|link).*2024-05-01_\w+_index\.json"/.test(c));
    expect(member).toBeGreaterThanOrEqual(0);
    expect(member).toBeLessThan(records[0]!);
  });
});

describe('export --parallel', () => {
  it('writes exactly the files (and prints the lines, in order) of a sequential run, holidays included', async () => {
    const args = ['42', '13', '-t', 'index', '--from', '2024-12-18', '--to', '2025-01-03', '-f', 'csv'];
    const seq = await prs(args);
    const seqDir = out;
    out = home.fresh();
    const par = await prs([...args, '--parallel', '4']);
    expect(par.code, par.stderr).toBe(0);
    expect(seq.code, seq.stderr).toBe(0);
    expect(files()).toEqual(files(seqDir));
    for (const f of files()) expect(sha256(join(out, f))).toBe(sha256(join(seqDir, f)));
    expect(par.stdout.replaceAll(out, '')).toBe(seq.stdout.replaceAll(seqDir, ''));
    expect(par.stderr).toBe(seq.stderr);
    expect(par.stderr).toMatch(/2024-12-25, 2024-12-26 answered with the rows of 2024-12-24/);
  });

  it('a bad --parallel is exit 2 before any request', async () => {
    const r = await prs(['42', '-t', 'index', '-d', '2024-05-02', '--parallel', '9']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^prs: invalid --parallel "9"/);
    expect(sandbox.stats.requests).toHaveLength(0);
  });

  it('a 503 with Retry-After: the run waits and goes on (fewer in flight), no item fails', async () => {
    sandbox.injectFault({ endpoint: 'export', status: 503, retryAfter: 1, count: 2 });
    const r = await prs([
      '42',
      '-t',
      'index',
      '--from',
      '2024-05-01',
      '--to',
      '2024-05-08',
      '--parallel',
      '4',
    ]);
    expect(r.code).toBe(0);
    expect(files()).toHaveLength(6);
  });

  it.each(['SIGINT', 'SIGTERM'] as const)(
    '%s in the middle: only whole files, no temporary file, a consistent manifest; a resume completes it',
    async (sig) => {
      const args = [
        'export',
        '42',
        '13',
        '-t',
        'index',
        '--from',
        '2024-05-01',
        '--to',
        '2024-05-14',
        '-f',
        'csv',
      ];
      const child = spawn(process.execPath, [PRS_BIN, ...args, '--dir', out, '--parallel', '2'], {
        env: baseEnv(envFor(slow)),
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      child.stdin.end();
      // Signal once the first file is in place: 19 more items (at 400 ms each, 2 at a time) are to come.
      let signalled = false;
      const { done } = collect(child, 60_000, () => {
        if (!signalled) {
          signalled = true;
          child.kill(sig);
        }
      });
      const r = await done;
      // 130 for SIGINT, 143 for SIGTERM (CLI.md).
      expect(r.code).toBe(sig === 'SIGINT' ? 130 : 143);
      const left = readdirSync(out);
      expect(left.filter((f) => f.endsWith('.tmp') || f.startsWith('prs-export-'))).toEqual([]);
      const done1 = files();
      expect(done1.length).toBeGreaterThan(0);
      expect(done1.length).toBeLessThan(20);
      // Every recorded file is whole and in place. (A file committed in the instant before the process
      // ended may lack its record: a resume fetches it again and finds it identical.)
      const recorded = expectConsistentManifest();
      expect(recorded).toBeGreaterThan(0);
      expect(recorded).toBeLessThanOrEqual(done1.length);
      // Requests of the interrupted run still in their delay are recorded later: count arrivals from now.
      const resumed = Date.now();
      const again = await prs(
        [
          '42',
          '13',
          '-t',
          'index',
          '--from',
          '2024-05-01',
          '--to',
          '2024-05-14',
          '-f',
          'csv',
          '--skip-existing',
          '--parallel',
          '4',
        ],
        slow,
      );
      expect(exportRequests(slow).filter((q) => q.at >= resumed)).toHaveLength(20 - recorded);
      expect(again.code).toBe(0);
      expect(files()).toHaveLength(20);
      expect(expectConsistentManifest()).toBe(20);
    },
  );
});
