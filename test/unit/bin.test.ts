// What bin/prs.js decides before the CLI loads: where prs's directories are (prsDirs, which must be
// settings.ts resolveDirs exactly, or a profile's `cache` would silently stop taking the fast path and
// the code cache would live elsewhere than the rest), and the gate before the answer cache's fast
// path, "could the cache be on?", an over-estimate.
import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CONFIG_FILE } from '../../src/auth/store.js';
import { resolveDirs } from '../../src/settings.js';
import { tempDir } from '../helpers/run.js';

type Env = Record<string, string | undefined>;
const require = createRequire(import.meta.url);
const { cacheMayBeOn, prsDirs } = require('../../bin/prs.js') as {
  cacheMayBeOn(args: string[], env: Env, configDir: string): boolean;
  prsDirs(env: Env): { configDir: string; cacheDir: string };
};
const { codeCacheDir } = require('../../bin/code-cache.js') as {
  codeCacheDir(cacheDir: string, buildId: string): string;
};
const tmp = tempDir('prs-bin-gate-');
afterAll(() => tmp.cleanup());
const report = ['report', '42', '-t', 'index', '-d', '2024-05-01'];

describe('prsDirs: settings.ts resolveDirs, without loading the CLI', () => {
  it.each([
    ['PRS_CONFIG_DIR, PRS_CACHE_DIR', { PRS_CONFIG_DIR: '/c/cfg', PRS_CACHE_DIR: '/c/cache', HOME: '/h' }],
    ['XDG_CONFIG_HOME, XDG_CACHE_HOME', { XDG_CONFIG_HOME: '/x', XDG_CACHE_HOME: '/y', HOME: '/h' }],
    ['HOME', { HOME: '/h' }],
    ['empty variables are unset', { PRS_CONFIG_DIR: '', XDG_CACHE_HOME: '', HOME: '/h' }],
  ])('%s', (_name, env) => {
    expect(prsDirs(env)).toEqual(resolveDirs(env));
  });

  it('the code cache lives under the cache directory, per build, Node and CPU', () => {
    expect(codeCacheDir('/c/cache', 'abc')).toBe(
      join('/c/cache', 'code', `abc-${process.version}-${process.arch}`),
    );
  });
});

describe('cacheMayBeOn', () => {
  it('finds a profile’s cache setting in the config file', () => {
    const dir = join(tmp.path, 'cfg');
    mkdirSync(dir, { recursive: true });
    expect(cacheMayBeOn(report, {}, dir)).toBe(false); // no config file
    writeFileSync(
      join(dir, CONFIG_FILE),
      JSON.stringify({ profiles: { default: { settings: { tenant: 'T' } } } }),
    );
    expect(cacheMayBeOn(report, {}, dir)).toBe(false);
    writeFileSync(
      join(dir, CONFIG_FILE),
      JSON.stringify({ profiles: { default: { settings: { cache: '7d' } } } }),
    );
    expect(cacheMayBeOn(report, {}, dir)).toBe(true);
  });

  it.each([
    ['--cache <age>', ['--cache', '7d', ...report], {}, true],
    ['--cache=<age> after the command', [...report, '--cache=7d'], {}, true],
    ['PRS_CACHE', report, { PRS_CACHE: '1d' }, true],
    ['--no-cache alone', [...report, '--no-cache'], {}, false],
    ['nothing', report, {}, false],
  ])('%s', (_name, args, extra, want) => {
    expect(cacheMayBeOn(args, extra, join(tmp.path, 'empty'))).toBe(want);
  });
});
