/**
 * `npm ci` stays quiet (issue 24): npm 11.16+ warns about every dependency install script that
 * package.json's `allowScripts` does not list (and npm 12 skips them). Every package the lockfile
 * marks `hasInstallScript` must have an entry, approving or denying it: a new one is reviewed, not
 * found by a newcomer as a warning.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const root = new URL('../../', import.meta.url);
const pkg = JSON.parse(readFileSync(new URL('package.json', root), 'utf8'));
const lock = JSON.parse(readFileSync(new URL('package-lock.json', root), 'utf8'));

describe('install scripts', () => {
  it('every dependency with an install script is listed in allowScripts (so npm ci prints no warning)', () => {
    const withScripts = Object.entries(
      lock.packages as Record<string, { hasInstallScript?: boolean; version: string }>,
    )
      .filter(([path, p]) => path !== '' && p.hasInstallScript)
      .map(([path, p]) => ({ name: path.replace(/^.*node_modules\//, ''), version: p.version }));
    expect(withScripts.length).toBeGreaterThan(0);
    const allowed = (pkg.allowScripts ?? {}) as Record<string, boolean>;
    for (const { name, version } of withScripts) {
      const entry = allowed[name] ?? allowed[`${name}@${version}`];
      expect(typeof entry, `${name}@${version} is not in package.json allowScripts`).toBe('boolean');
    }
  });
});
