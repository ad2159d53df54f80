/**
 * Start-up stays lazy (the BUILT binary: `npm run build` first). Every command's definition (flags,
 * typed options) is on the start-up path, its body is not: `prs --help`, a command's --help and every
 * bad input refused while parsing load commander and the definitions only (a report read from its
 * flag table not even those), never a command module nor what it pulls in (undici, conf, ora). Which dist/ files a run loaded is read from Node's module
 * cache at exit (test/e2e/fixtures/loaded-chunks.cjs); which source files those hold, from the source
 * map the build writes beside each (a body bundled into a start-up chunk is caught as well).
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { baseEnv, PRS_BIN, tempDir } from '../helpers/run.js';

const PRELOAD = fileURLToPath(new URL('./fixtures/loaded-chunks.cjs', import.meta.url));
const tmp = tempDir('prs-startup-');
afterAll(() => tmp.cleanup());

const DIST = fileURLToPath(new URL('../../dist/', import.meta.url));
let n = 0;

/** The exit code of `prs ...args`, and the source files (src/..., node_modules/...) it loaded. */
function loadedBy(args: string[]): { code: number | null; sources: string[]; chunks: string[] } {
  const list = join(tmp.path, `loaded-${n++}`);
  const env = { PRS_TEST_LOADED: list, PRS_CONFIG_DIR: join(tmp.path, 'config'), HOME: tmp.path };
  const r = spawnSync(process.execPath, ['-r', PRELOAD, PRS_BIN, ...args], { env: baseEnv(env) });
  const chunks = readFileSync(list, 'utf8').split('\n').filter(Boolean);
  expect(chunks).toContain('main.js');
  // dist/fast.js, bin/prs.js's first stop, and dist/hit.js, the answer cache's fast path for `prs
  // report`, are files of their own holding what they need (settings, the store, the renderers): they
  // are not the CLI's start-up.
  const sources = chunks
    .filter((chunk) => chunk !== 'fast.js' && chunk !== 'hit.js')
    .flatMap((chunk) => {
      const map = JSON.parse(readFileSync(join(DIST, `${chunk}.map`), 'utf8')) as { sources: string[] };
      return map.sources.map((source) => source.replace(/^(\.\.\/)+/, ''));
    });
  return { code: r.status, sources: [...new Set(sources)], chunks };
}

/** Source files that only a command's body needs: the body itself, the service, the renderers, ... */
const BODY =
  /^src\/(commands\/(?!define\.ts$)(?!(.*\.)?(cli|flags)\.ts$)|service\/|auth\/|render\/|export\/|sandbox\/(?!options)|completion\/)|^node_modules\/(?!commander\/)/;

describe('start-up loads no command body', () => {
  it.each([
    ['--help', 0, ['--help']],
    ['report --help', 0, ['report', '--help']],
    ['export --help', 0, ['export', '--help']],
    ['prs help auth status', 0, ['help', 'auth', 'status']],
    ['an unknown command', 2, ['reprot']],
    ['a bad portfolio id', 2, ['report', 'abc', '-t', 'index', '-d', '2024-05-01']],
    ['a bad --parallel', 2, ['export', '42', '-t', 'index', '-d', '2024-05-01', '--parallel', '9']],
    ['an unknown shell', 2, ['completion', 'tcsh']],
  ])('%s: exit %i, no command module loaded', (_name, code, args) => {
    const r = loadedBy(args);
    expect(r.code).toBe(code);
    expect(r.sources).toContain('src/main.ts');
    expect(r.sources.filter((f) => BODY.test(f))).toEqual([]);
  });

  it('a report read from its flag table builds no commander program; anything else does', () => {
    const bad = loadedBy(['report', 'abc', '-t', 'index', '-d', '2024-05-01']);
    expect(bad.code).toBe(2);
    expect(
      bad.sources.filter((f) =>
        /^(src\/cli\.ts|src\/commands\/define\.ts|node_modules\/commander\/)/.test(f),
      ),
    ).toEqual([]);
    expect(loadedBy(['report', 'abc', '-t', 'index', '-d', '2024-05-01', '--bogus']).sources).toContain(
      'src/commands/define.ts',
    );
  });

  it('only `prs report` with the cache possibly on loads the answer cache’s fast path, and first', () => {
    const bad = ['report', 'abc', '-t', 'index', '-d', '2024-05-01'];
    expect(loadedBy(['--cache', '7d', ...bad]).chunks.slice(0, 2)).toEqual(['fast.js', 'hit.js']);
    expect(loadedBy(bad).chunks).not.toContain('hit.js');
    expect(
      loadedBy(['--cache', '7d', 'export', '42', '-t', 'index', '-d', '2024-05-01']).chunks,
    ).not.toContain('hit.js');
  });

  it('`prs --version` is answered by bin/prs.js alone: no dist/ file loads', () => {
    const list = join(tmp.path, `loaded-${n++}`);
    const r = spawnSync(process.execPath, ['-r', PRELOAD, PRS_BIN, '--version'], {
      env: baseEnv({ PRS_TEST_LOADED: list, HOME: tmp.path }),
    });
    expect([r.status, r.stdout.toString()]).toEqual([
      0,
      `${JSON.parse(readFileSync(join(DIST, '../package.json'), 'utf8')).version}\n`,
    ]);
    expect(readFileSync(list, 'utf8').split('\n').filter(Boolean)).toEqual([]);
  });

  it('a command that runs loads its own body (so the check above can see one)', () => {
    const r = loadedBy(['completion', 'bash']);
    expect(r.code).toBe(0);
    expect(r.sources.filter((f) => BODY.test(f))).toEqual([
      'src/commands/completion.ts',
      'src/completion/scripts.ts',
    ]);
  });
});
