/**
 * V8's code cache for the CLI's chunks (src/boot.ts, in dist/fast.js), the BUILT binary against the
 * sandbox: the first run writes one cache per script the loader compiled (the CLI's start, dist/cli.pack,
 * the report's body, dist/report.pack, and each chunk loaded outside them: 0600 files in a 0700
 * directory under the cache dir, per build and Node), the next takes them (V8 accepted them: a
 * refused or damaged cache would be written anew) and prints the same bytes; a damaged cache is
 * compiled past and rewritten; another build's caches go; a directory others may write, someone
 * else's, a file in the way or a cache that cannot be written leave the cache unused, never the run
 * broken; PRS_DEBUG compiles as Node does.
 */
import { spawn } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  cpSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeEach, describe, expect, it } from 'vitest';
import { baseEnv, collect, PRS_BIN, type RunResult } from '../helpers/run.js';
import { useLoggedIn } from '../helpers/session.js';

const PRELOAD = fileURLToPath(new URL('./fixtures/loaded-chunks.cjs', import.meta.url));
const FAST = readFileSync(fileURLToPath(new URL('../../dist/fast.js', import.meta.url)), 'utf8');
const BUILD = /([0-9a-f]{16})-\$\{process\.version\}/.exec(FAST)?.[1];
const DIST = fileURLToPath(new URL('../../dist/', import.meta.url));
/** dist's packs and their chunks, each pack compiled and cached as one script: the CLI's start, cli.pack, and a command's body (report.pack), led by the command's chunk. */
const PACKS = Object.fromEntries(
  readdirSync(DIST)
    .filter((f) => f.endsWith('.pack'))
    .map((f) => [
      f,
      [...readFileSync(join(DIST, f), 'utf8').matchAll(/^"([^"]+)": function/gm)].map((m) => m[1]!),
    ]),
);
const PACKED = PACKS['cli.pack']!;
/** The scripts a run compiled (and so caches): each pack whose first chunk it loaded, and each chunk outside those. */
const scriptsOf = (compiled: string[]) => {
  const packs = Object.keys(PACKS).filter((p) => compiled.includes(PACKS[p]![0]!));
  return [...packs, ...compiled.filter((f) => !packs.some((p) => PACKS[p]!.includes(f)))];
};
const { tmp, env } = useLoggedIn('prs-code-cache-', { rateLimit: '1000/1s' });

const codeRoot = () => join(env.PRS_CACHE_DIR!, 'code');
const codeDir = () => join(codeRoot(), `${BUILD}-${process.version}-${process.arch}`);
const cacheFiles = () => {
  try {
    return readdirSync(codeDir()).sort();
  } catch {
    return [];
  }
};
/** Each cache file's identity: a rewrite (temp + rename) gives it another inode. */
const identities = () =>
  cacheFiles().map((f) => {
    const st = statSync(join(codeDir(), f));
    return `${f} ${st.ino} ${st.mtimeMs}`;
  });
beforeEach(() => rmSync(codeRoot(), { recursive: true, force: true }));

let n = 0;
/** prs with `args` (and `extra` env); also the chunks the loader compiled (not Node: dispatch, fast entry, loader). */
async function prs(
  args: string[],
  extra: Record<string, string> = {},
): Promise<RunResult & { compiled: string[] }> {
  const list = join(tmp.path, `loaded-${n++}`);
  const child = spawn(process.execPath, ['-r', PRELOAD, PRS_BIN, ...args], {
    env: baseEnv({ ...env, ...extra, PRS_TEST_LOADED: list }),
  });
  child.stdin.end();
  const r = await collect(child).done;
  const loaded = readFileSync(list, 'utf8').split('\n').filter(Boolean);
  return { ...r, compiled: loaded.filter((f) => !['fast.js', 'hit.js'].includes(f)) };
}
const report = ['report', '42', '-t', 'index', '-d', '2024-05-02', '-f', 'json'];

describe('the code cache', () => {
  it('the build names its cache directory', () => {
    expect(BUILD).toMatch(/^[0-9a-f]{16}$/);
  });

  it('the first run writes one cache per script it compiled, private; the next takes them and prints the same', async () => {
    const first = await prs(report);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toBe('');
    expect(first.compiled).toEqual(expect.arrayContaining(PACKED));
    expect(scriptsOf(first.compiled)).toEqual(expect.arrayContaining(['cli.pack', 'report.pack']));
    expect(cacheFiles()).toEqual(
      scriptsOf(first.compiled)
        .map((f) => f.replaceAll('/', '~'))
        .sort(),
    );
    expect(statSync(codeDir()).mode & 0o777).toBe(0o700);
    for (const f of cacheFiles()) expect(statSync(join(codeDir(), f)).mode & 0o777).toBe(0o600);
    const written = identities();
    const second = await prs(report);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toBe(first.stdout);
    // The first run also compiled the atomic writer, to write the caches.
    expect(first.compiled).toEqual(expect.arrayContaining(second.compiled));
    // Not written again: V8 took every one (a refused cache is written anew after the run).
    expect(identities()).toEqual(written);
  });

  it('a range (which lowers a V8 flag for its later answers, commands/report.ts) sets it back: its caches are taken by the next range and by a single report', async () => {
    const range = ['report', '42', '-t', 'index', '--from', '2024-05-01', '--to', '2024-05-03', '-f', 'json'];
    const first = await prs(range);
    expect(first.code, first.stderr).toBe(0);
    const written = identities();
    expect(written.length).toBeGreaterThan(0);
    const again = await prs(range);
    expect([again.code, again.stdout]).toEqual([0, first.stdout]);
    expect((await prs(report)).code).toBe(0);
    // Not written again: the flags at exit were the start's, which V8 checks a cache against.
    expect(identities()).toEqual(written);
  });

  it('a run that writes a new cache writes the others again: the start’s gains what this command compiled', async () => {
    expect((await prs(['--help'])).code).toBe(0);
    const start = join(codeDir(), 'cli.pack');
    const byHelp = statSync(start);
    expect((await prs(report)).code).toBe(0);
    const byReport = statSync(start);
    expect(byReport.ino).not.toBe(byHelp.ino);
    expect(byReport.size).toBeGreaterThan(byHelp.size);
    const written = identities();
    expect((await prs(report)).code).toBe(0);
    expect((await prs(['--help'])).code).toBe(0);
    expect(identities()).toEqual(written);
  });

  it('a damaged cache is compiled past and written anew; the output is the same', async () => {
    const good = await prs(report);
    const main = join(codeDir(), 'cli.pack');
    const size = statSync(main).size;
    writeFileSync(main, Buffer.alloc(size, 7));
    const r = await prs(report);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(good.stdout);
    expect(readFileSync(main).equals(Buffer.alloc(size, 7))).toBe(false);
    writeFileSync(main, 'short');
    expect((await prs(report)).stdout).toBe(good.stdout);
    // One byte flipped inside the bytecode, the length the same: release V8 checks no checksum unless
    // told to (src/boot.ts sets --verify-snapshot-checksum), so it is compiled past and rewritten.
    const bytes = readFileSync(main);
    bytes[bytes.length >> 1]! ^= 0xff;
    writeFileSync(main, bytes);
    const flipped = statSync(main).ino;
    const r2 = await prs(report);
    expect(r2.code, r2.stderr).toBe(0);
    expect(r2.stdout).toBe(good.stdout);
    expect(statSync(main).ino).not.toBe(flipped);
  });

  it('another build’s caches for this Node go when this build writes; another Node’s stay', async () => {
    const oldBuild = join(codeRoot(), `0000000000000000-${process.version}-${process.arch}`);
    const otherNode = join(codeRoot(), `${BUILD}-v99.0.0-${process.arch}`);
    for (const d of [oldBuild, otherNode]) mkdirSync(d, { recursive: true, mode: 0o700 });
    expect((await prs(report)).code).toBe(0);
    expect(readdirSync(codeRoot()).sort()).toEqual(
      [codeDir(), otherNode].map((d) => d.slice(codeRoot().length + 1)).sort(),
    );
  });

  it('a directory others may write: not used, nothing written, the run as ever', async () => {
    mkdirSync(codeDir(), { recursive: true });
    chmodSync(codeDir(), 0o775); // mkdir's mode is masked by the umask
    const r = await prs(report);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    expect(cacheFiles()).toEqual([]);
  });

  it.runIf(process.getuid?.() === 0)('someone else’s directory: not used, nothing written', async () => {
    mkdirSync(codeDir(), { recursive: true, mode: 0o700 });
    chownSync(codeDir(), 65534, 65534);
    const r = await prs(report);
    expect(r.code, r.stderr).toBe(0);
    expect(cacheFiles()).toEqual([]);
  });

  it('a file in the way of the directory, or of one cache file: the run as ever', async () => {
    mkdirSync(codeRoot(), { recursive: true });
    writeFileSync(codeDir(), 'not a directory');
    const r = await prs(report);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    rmSync(codeDir());
    // A directory where the pack's cache goes: that one write fails, the others are made.
    mkdirSync(join(codeDir(), 'cli.pack', 'x'), { recursive: true, mode: 0o700 });
    const r2 = await prs(report);
    expect([r2.code, r2.stderr, r2.stdout]).toEqual([0, '', r.stdout]);
    expect(cacheFiles().length).toBe(scriptsOf(r2.compiled).length);
    expect(statSync(join(codeDir(), 'cli.pack')).isDirectory()).toBe(true);
  });

  it('a build whose cache writer cannot load (its chunk gone): the run’s own exit code, nothing on stderr', async () => {
    const copy = join(tmp.path, 'broken-build');
    rmSync(copy, { recursive: true, force: true });
    const root = fileURLToPath(new URL('../../', import.meta.url));
    for (const part of ['bin', 'dist', 'package.json'])
      cpSync(join(root, part), join(copy, part), { recursive: true });
    const writer = readdirSync(join(copy, 'dist', 'chunks')).filter((f) => /^atomic-\w+\.js$/.test(f));
    expect(writer).toHaveLength(1);
    rmSync(join(copy, 'dist', 'chunks', writer[0]!));
    const child = spawn(process.execPath, [join(copy, 'bin', 'prs.js'), 'config', 'path'], {
      env: baseEnv(env),
    });
    child.stdin.end();
    const r = await collect(child).done;
    expect([r.code, r.stderr]).toEqual([0, '']);
    expect(r.stdout).toContain('config.json');
  });

  it('PRS_DEBUG=1 compiles as Node does (its stack traces need the source maps): no cache', async () => {
    const r = await prs(report, { PRS_DEBUG: '1' });
    expect(r.code, r.stderr).toBe(0);
    expect(cacheFiles()).toEqual([]);
  });
});
