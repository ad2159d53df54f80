// What the fast entry (src/fast.ts) decides before the CLI loads: the gate before the answer cache's
// fast path, "could the cache be on?", an over-estimate read from the settings table's spellings.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CONFIG_FILE } from '../../src/dirs.js';
import { cacheMayBeOn } from '../../src/fast.js';
import { longFlag, settingRow } from '../../src/settings.js';
import { tempDir } from '../helpers/run.js';

const tmp = tempDir('prs-fast-gate-');
afterAll(() => tmp.cleanup());
const report = ['report', '42', '-t', 'index', '-d', '2024-05-01'];

describe('cacheMayBeOn', () => {
  it('knows the cache setting by the spellings the settings table gives it', () => {
    expect([longFlag('cache'), settingRow('cache').env]).toEqual(['--cache', 'PRS_CACHE']);
  });

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
    expect(cacheMayBeOn([...report, '--no-cache'], {}, dir)).toBe(false);
  });

  it.each([
    ['--cache <age>', ['--cache', '7d', ...report], {}, true],
    ['--cache=<age> after the command', [...report, '--cache=7d'], {}, true],
    ['PRS_CACHE', report, { PRS_CACHE: '1d' }, true],
    ['an empty PRS_CACHE is unset', report, { PRS_CACHE: '' }, false],
    ['--no-cache alone', [...report, '--no-cache'], {}, false],
    ['--no-cache over PRS_CACHE', [...report, '--no-cache'], { PRS_CACHE: '1d' }, false],
    ['--no-cache over --cache', [...report, '--no-cache', '--cache=7d'], {}, false],
    ['--no-cache before the command', ['--no-cache', ...report], { PRS_CACHE: '1d' }, false],
    // hit.ts, which reads argv by the flag tables, decides: here --no-cache is the tenant's name.
    ['--no-cache after an option', ['--tenant', '--no-cache', ...report], { PRS_CACHE: '1d' }, true],
    ['--no-cache after --cache=<age>', [...report, '--cache=7d', '--no-cache'], {}, true],
    ['nothing', report, {}, false],
  ])('%s', (_name, args, extra, want) => {
    expect(cacheMayBeOn(args, extra, join(tmp.path, 'empty'))).toBe(want);
  });
});
