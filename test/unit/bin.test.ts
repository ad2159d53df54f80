// bin/prs.js's gate before the answer cache's fast path: "could the cache be on?", an over-estimate
// that must look for the config file exactly where the settings resolver does (resolveDirs), or a
// profile's `cache` would silently stop taking the fast path.
import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CONFIG_FILE } from '../../src/auth/store.js';
import { resolveDirs } from '../../src/settings.js';
import { tempDir } from '../helpers/run.js';

const require = createRequire(import.meta.url);
const { cacheMayBeOn } = require('../../bin/prs.js') as {
  cacheMayBeOn(args: string[], env: Record<string, string | undefined>): boolean;
};
const { codeCacheDir } = require('../../bin/code-cache.js') as {
  codeCacheDir(env: Record<string, string | undefined>, buildId: string): string;
};
const tmp = tempDir('prs-bin-gate-');
afterAll(() => tmp.cleanup());
const report = ['report', '42', '-t', 'index', '-d', '2024-05-01'];

describe('cacheMayBeOn', () => {
  it.each([
    ['PRS_CONFIG_DIR', (d: string) => ({ PRS_CONFIG_DIR: join(d, 'cfg'), HOME: d })],
    ['XDG_CONFIG_HOME', (d: string) => ({ XDG_CONFIG_HOME: join(d, 'xdg'), HOME: d })],
    ['HOME', (d: string) => ({ HOME: d })],
  ])('finds a profile’s cache setting where resolveDirs puts the config (%s)', (name, envOf) => {
    const env = envOf(join(tmp.path, name));
    const dir = resolveDirs(env).configDir;
    mkdirSync(dir, { recursive: true });
    expect(cacheMayBeOn(report, env)).toBe(false); // no config file
    writeFileSync(
      join(dir, CONFIG_FILE),
      JSON.stringify({ profiles: { default: { settings: { tenant: 'T' } } } }),
    );
    expect(cacheMayBeOn(report, env)).toBe(false);
    writeFileSync(
      join(dir, CONFIG_FILE),
      JSON.stringify({ profiles: { default: { settings: { cache: '7d' } } } }),
    );
    expect(cacheMayBeOn(report, env)).toBe(true);
  });

  it.each([
    ['--cache <age>', ['--cache', '7d', ...report], {}, true],
    ['--cache=<age> after the command', [...report, '--cache=7d'], {}, true],
    ['PRS_CACHE', report, { PRS_CACHE: '1d' }, true],
    ['--no-cache alone', [...report, '--no-cache'], {}, false],
    ['nothing', report, {}, false],
  ])('%s', (_name, args, extra, want) => {
    expect(cacheMayBeOn(args, { HOME: join(tmp.path, 'empty'), ...extra })).toBe(want);
  });
});

describe('codeCacheDir (bin/code-cache.js): under the cache directory settings.ts resolves', () => {
  it.each([
    ['PRS_CACHE_DIR', { PRS_CACHE_DIR: '/c/prs', HOME: '/h' }],
    ['XDG_CACHE_HOME', { XDG_CACHE_HOME: '/x', HOME: '/h' }],
    ['HOME', { HOME: '/h' }],
  ])('%s', (_name, env) => {
    expect(codeCacheDir(env, 'abc')).toBe(
      join(resolveDirs(env).cacheDir, 'code', `abc-${process.version}-${process.arch}`),
    );
  });
});
