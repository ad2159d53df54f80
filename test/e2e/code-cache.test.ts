/**
 * V8's code cache for dist/ (bin/code-cache.js), the BUILT binary against the sandbox: the first run
 * writes one cache per dist file it loaded (0600 files in a 0700 directory under the cache dir,
 * per build and Node), the next takes them (it does not write them again: V8 accepted them) and
 * prints the same bytes; a damaged cache is compiled past and written anew; another build's caches
 * go; a directory open to others, a file in the way and PRS_DEBUG leave the cache unused, never the
 * run broken. The answer cache's fast path is cached only by runs it answers.
 */
import { spawn } from 'node:child_process';
import { chmodSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { baseEnv, collect, PRS_BIN, type RunResult, type tempDir } from '../helpers/run.js';
import { type LoggedIn, startLoggedIn } from '../helpers/session.js';

const PRELOAD = fileURLToPath(new URL('./fixtures/loaded-chunks.cjs', import.meta.url));
const DIST = fileURLToPath(new URL('../../dist/', import.meta.url));
const BUILD = readFileSync(join(DIST, 'build-id'), 'utf8').trim();
let tmp: ReturnType<typeof tempDir>;
let env: Record<string, string>;
let setup: LoggedIn | undefined;
beforeAll(async () => {
  setup = await startLoggedIn('prs-code-cache-', { rateLimit: '1000/1s' });
  ({ tmp, env } = setup);
});
afterAll(() => setup?.close());

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
const mtimes = () =>
  cacheFiles().map((f) => {
    const st = statSync(join(codeDir(), f));
    return `${f} ${st.ino} ${st.mtimeMs}`;
  });
beforeEach(() => rmSync(codeRoot(), { recursive: true, force: true }));

let n = 0;
/** prs with `args` (and `extra` env); also the dist/ files it loaded. */
async function prs(
  args: string[],
  extra: Record<string, string> = {},
): Promise<RunResult & { loaded: string[] }> {
  const list = join(tmp.path, `loaded-${n++}`);
  const child = spawn(process.execPath, ['-r', PRELOAD, PRS_BIN, ...args], {
    env: baseEnv({ ...env, ...extra, PRS_TEST_LOADED: list }),
  });
  child.stdin.end();
  const r = await collect(child).done;
  return { ...r, loaded: readFileSync(list, 'utf8').split('\n').filter(Boolean) };
}
const report = ['report', '42', '-t', 'index', '-d', '2024-05-02', '-f', 'json'];

describe('the code cache', () => {
  it('the first run writes one cache per dist file it loaded, private; the next takes them and prints the same', async () => {
    const first = await prs(report);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toBe('');
    expect(cacheFiles()).toEqual(first.loaded.map((f) => `${f.replaceAll('/', '~')}.v8`).sort());
    expect(statSync(codeDir()).mode & 0o777).toBe(0o700);
    for (const f of cacheFiles()) expect(statSync(join(codeDir(), f)).mode & 0o777).toBe(0o600);
    const written = mtimes();
    const second = await prs(report);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toBe(first.stdout);
    // Not written again: V8 took every one (a refused cache is rewritten at exit).
    expect(mtimes()).toEqual(written);
  });

  it('a damaged cache is compiled past and written anew; the output is the same', async () => {
    const good = await prs(report);
    const main = join(codeDir(), 'main.js.v8');
    const size = statSync(main).size;
    writeFileSync(main, Buffer.alloc(size, 7));
    const r = await prs(report);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(good.stdout);
    expect(readFileSync(main).equals(Buffer.alloc(size, 7))).toBe(false);
    writeFileSync(main, 'short');
    expect((await prs(report)).stdout).toBe(good.stdout);
    // One byte flipped inside the bytecode, the length the same: V8 would take it (release builds check
    // no checksum); the file's CRC-32 does not hold, so it is compiled past and rewritten.
    const bytes = readFileSync(main);
    bytes[bytes.length >> 1] ^= 0xff;
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
      [`${BUILD}-${process.version}-${process.arch}`, `${BUILD}-v99.0.0-${process.arch}`].sort(),
    );
  });

  it('a directory others may write: not used, nothing written, the run as ever', async () => {
    mkdirSync(codeDir(), { recursive: true });
    chmodSync(codeDir(), 0o777); // mkdir's mode is masked by the umask
    const r = await prs(report);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    expect(cacheFiles()).toEqual([]);
  });

  it('a file in the way: the run as ever', async () => {
    mkdirSync(codeRoot(), { recursive: true });
    writeFileSync(codeDir(), 'not a directory');
    const r = await prs(report);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
  });

  it('PRS_DEBUG=1 compiles as Node does (its stack traces need the source maps): no cache', async () => {
    const r = await prs(report, { PRS_DEBUG: '1' });
    expect(r.code, r.stderr).toBe(0);
    expect(cacheFiles()).toEqual([]);
  });

  it('the answer cache’s fast path is cached by the runs it answers, not by the ones it leaves to the CLI', async () => {
    const cached = ['--cache', '7d', 'report', '42', '-t', 'index', '-d', '2024-04-10', '-f', 'json'];
    const miss = await prs(cached);
    expect(miss.loaded).toContain('main.js');
    expect(cacheFiles()).not.toContain('hit.js.v8');
    const hit = await prs(cached);
    expect(hit.loaded).toEqual(['hit.js']);
    expect(cacheFiles()).toContain('hit.js.v8');
    const written = mtimes();
    const again = await prs(cached);
    expect(again.stdout).toBe(hit.stdout);
    expect(mtimes()).toEqual(written);
  });
});
