// The demo's last words (scripts/next-steps.mjs): how to run `prs` from a clone (issue 34 item 11).
import { chmodSync, mkdirSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/run.js';

const module_ = new URL('../../scripts/next-steps.mjs', import.meta.url).href;
const { nextSteps, prsOnPath } = (await import(module_)) as {
  nextSteps(bin: string, found: string | undefined): string;
  prsOnPath(path: string): string | undefined;
};

const tmp = tempDir('prs-next-steps-');
afterAll(() => tmp.cleanup());
const bin = realpathSync(new URL('../../bin/prs.js', import.meta.url));
const dir = (name: string) => {
  const d = join(tmp.path, name);
  mkdirSync(d);
  return d;
};
const empty = dir('empty');
const linked = dir('linked');
symlinkSync(bin, join(linked, 'prs'));
const other = dir('other');
writeFileSync(join(other, 'prs'), '#!/bin/sh\n');
chmodSync(join(other, 'prs'), 0o755);

describe('prsOnPath: the first prs on PATH, as its real path', () => {
  it.each([
    ['none', [empty], undefined],
    ['npm link (a link to this clone)', [empty, linked], bin],
    ['another program first', [other, linked], join(realpathSync(other), 'prs')],
    ['empty entries are skipped', ['', linked], bin],
  ])('%s', (_n, dirs, want) => expect(prsOnPath(dirs.join(delimiter))).toBe(want));
});

describe('nextSteps', () => {
  it('prs on PATH is this clone: try it', () =>
    expect(nextSteps(bin, bin)).toBe(
      'Done. Try `prs --help`, `prs help exit-codes`, or `prs sandbox` to keep a sandbox running.',
    ));
  it('not on PATH: npm link, or node bin/prs.js', () =>
    expect(nextSteps(bin, undefined)).toBe(
      'Done. `prs` is not on your PATH yet, and every README example calls it: run `npm link` (once, in this folder).\nOr run it in place: node bin/prs.js --help',
    ));
  it('another prs on PATH: named, and how to use this one', () =>
    expect(nextSteps(bin, '/usr/local/bin/prs')).toMatch(
      /^Done\. The `prs` on your PATH is another program \(\/usr\/local\/bin\/prs\): run `npm link`.*\nOr run it in place: node bin\/prs\.js --help$/,
    ));
});
