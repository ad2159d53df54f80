/**
 * Hostile names from the server can never leave the target directory: any Content-Disposition header
 * and any zip member name
 * become a plain file name inside the directory, or nothing / a ZipError — never a crash.
 * (test/unit/export/naming.test.ts has the tables and sanitizeFileName's own properties.)
 */
import { join, resolve, sep } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { nameFromHeaders } from '../../../src/export/naming.js';
import { memberFileName, ZipError } from '../../../src/export/zip.js';
import { MAX_NAME_BYTES } from '../../../src/fs/file-name.js';

const DIR = resolve('/srv/reports/out');
const UNSAFE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}/\\]/u;

/** Pieces attackers use: traversal, separators, NULs, bidi overrides, Windows devices and drives. */
const piece = fc.constantFrom(
  '..',
  '../',
  '..\\',
  '/',
  '\\',
  '/etc/passwd',
  'C:',
  'C:\\Windows\\',
  '\u0000',
  '\n',
  '\u202e',
  '\u200b',
  '\u2060',
  '\u00ad',
  '\u2028',
  '.exe',
  '.zip',
  '%2e%2e%2f',
  '%00',
  '.',
  ' ',
  '"',
  ';',
  '*',
  'CON',
  'x.json',
  '.bashrc',
  'ü',
  '東京',
  '😀',
);
const hostileName = fc
  .array(fc.oneof(piece, fc.string({ maxLength: 4 })), { maxLength: 12 })
  .map((a) => a.join(''));
const header = fc.oneof(
  fc.string(),
  hostileName.map((n) => `attachment; filename="${n.replace(/["\\]/g, '\\$&')}"`),
  hostileName.map((n) => `attachment; filename*=UTF-8''${encodeURIComponent(n)}`),
  hostileName.map((n) => `attachment; filename=${n}`),
  hostileName.map((n) => `attachment; filename*=UTF-8''${n}; filename="${n}"`),
  fc.tuple(hostileName, fc.nat(300)).map(([n, k]) => `attachment; filename="${'a'.repeat(k)}${n}.json"`),
);

/** The name is a plain file name and joining it to the directory stays directly inside it. */
function expectContained(name: string): void {
  expect(name).not.toMatch(UNSAFE);
  expect(name).not.toMatch(/^[.\s]/);
  expect(name === '.' || name === '..').toBe(false);
  expect(Buffer.byteLength(name)).toBeLessThanOrEqual(MAX_NAME_BYTES + 5); // + the extension added
  const full = resolve(join(DIR, name));
  expect(full.startsWith(DIR + sep)).toBe(true);
  expect(full.slice(DIR.length + 1)).toBe(name);
}

describe('server-given names', () => {
  it('[R-P03] any Content-Disposition → undefined or a plain name inside the target directory (property)', () => {
    fc.assert(
      fc.property(header, fc.constantFrom('json', 'zip') as fc.Arbitrary<'json' | 'zip'>, (h, kind) => {
        const name = nameFromHeaders(h, kind);
        if (name === undefined) return;
        expectContained(name);
        expect(name.toLowerCase().endsWith(`.${kind}`)).toBe(true); // the content's extension, always
      }),
      { numRuns: 3000 },
    );
  });

  it('[R-P04] any zip member name → a plain name inside the target directory, or a ZipError (property)', () => {
    fc.assert(
      fc.property(hostileName, (raw) => {
        let name: string;
        try {
          name = memberFileName(raw);
        } catch (err) {
          expect(err).toBeInstanceOf(ZipError);
          return;
        }
        expectContained(name);
        // A name that climbs out is refused, not quietly flattened.
        expect(/(^|[/\\])\.\.([/\\]|$)/.test(raw)).toBe(false);
      }),
      { numRuns: 3000 },
    );
  });
});
