import contentDisposition from 'content-disposition';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  commonWords,
  disambiguate,
  dispositionFileName,
  dropCurrency,
  exportKind,
  nameFromHeaders,
  nameWords,
  ruleFileName,
} from '../../../src/export/naming.js';
import { MAX_NAME_BYTES, sanitizeFileName, truncateUtf8 } from '../../../src/fs/file-name.js';

describe('sanitizeFileName', () => {
  it.each([
    ['2024-05-01_Example_600_OG_index.json', '2024-05-01_Example_600_OG_index.json'],
    ['../../x.json', 'x.json'],
    ['..\\..\\windows\\x.json', 'x.json'],
    ['/etc/passwd', 'passwd'],
    ['reports/2024/', '2024'],
    ['.hidden.json', 'hidden.json'],
    ['...json', 'json'],
    ['a..b.json', 'a.b.json'],
    ['..', undefined],
    ['.', undefined],
    ['', undefined],
    ['   ', undefined],
    ['/', undefined],
    ['a\u0000b\u001f\u007f\u0085c.json', 'abc.json'],
    ['evil\u202Egnp.json', 'evilgnp.json'],
    ['zero\u200Bwidth\u200D\u2060soft\u00ADhyphen\u061C\u2028.json', 'zerowidthsofthyphen.json'],
    ['we<ird>:na"me|?*.json', 'we_ird__na_me___.json'],
    ['  spaced name.json  ', 'spaced name.json'],
    ['name.json.', 'name.json'],
    ['Ünïcødé €.json', 'Ünïcødé €.json'],
    ['e\u0301.json', 'é.json'],
  ])('%j → %j', (raw, want) => {
    expect(sanitizeFileName(raw)).toBe(want);
  });

  it('caps long names in UTF-8 bytes and keeps the extension', () => {
    const name = sanitizeFileName(`${'€'.repeat(300)}.json`)!;
    expect(Buffer.byteLength(name)).toBeLessThanOrEqual(MAX_NAME_BYTES);
    expect(name.endsWith('.json')).toBe(true);
    expect(name.startsWith('€€€')).toBe(true);
  });

  const hostile = fc.oneof(
    fc.string({ unit: 'binary', maxLength: 300 }),
    fc.string({
      unit: fc.constantFrom('.', '/', '\\', 'a', ' ', '\u0000', '\u202e', 'é', 'e', '\u0301', ':', '€'),
      maxLength: 80,
    }),
    fc.string({ unit: 'grapheme', maxLength: 400 }),
  );

  it('never yields a separator, a control character, a leading dot, `..` or an empty name', () => {
    fc.assert(
      fc.property(hostile, (raw) => {
        const name = sanitizeFileName(raw);
        if (name === undefined) return;
        expect(name).not.toBe('');
        expect(name).not.toMatch(/[/\\]/);
        expect(name).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
        expect(name.startsWith('.')).toBe(false);
        expect(name).not.toContain('..');
        expect(Buffer.byteLength(name)).toBeLessThanOrEqual(MAX_NAME_BYTES);
      }),
      { numRuns: 2000 },
    );
  });

  it('is idempotent', () => {
    fc.assert(
      fc.property(hostile, (raw) => {
        const once = sanitizeFileName(raw);
        if (once !== undefined) expect(sanitizeFileName(once)).toBe(once);
      }),
      { numRuns: 2000 },
    );
  });
});

describe('truncateUtf8', () => {
  it.each([
    ['short.json', 20, 'short.json'],
    ['abcdefghij.json', 10, 'abcde.json'],
    ['ééééé', 5, 'éé'],
  ])('%j to %i bytes → %j', (s, max, want) => {
    expect(truncateUtf8(s, max)).toBe(want);
  });
});

describe('Content-Disposition', () => {
  it.each([
    ['attachment; filename="2024-05-01_Example_600_OG_index.json"', '2024-05-01_Example_600_OG_index.json'],
    ['attachment; filename=plain.zip', 'plain.zip'],
    [
      "attachment; filename*=UTF-8''2024-05-01_%C3%9Cbersicht_%E2%82%AC_index.json",
      '2024-05-01_Übersicht_€_index.json',
    ],
    // Both present: filename* (RFC 5987) wins, as RFC 6266 says.
    ['attachment; filename="fallback.json"; filename*=UTF-8\'\'r%C3%A9el.json', 'réel.json'],
    ['attachment; filename*=UTF-8\'\'r%C3%A9el.json; filename="fallback.json"', 'réel.json'],
    ['attachment; filename="quo\\"ted.json"', 'quo"ted.json'],
    ['inline; filename="x.json"', 'x.json'],
    ['attachment', undefined],
    ['', undefined],
    [undefined, undefined],
    ['attachment; filename=""', undefined],
    // Malformed headers the strict parser refuses still give their name, leniently.
    ['attachment; filename=my file.json', 'my file.json'],
    ["attachment; filename*=UTF-16''x.json", 'x.json'],
    ['attachment; filename="a.json"; filename="b.json"', 'a.json'],
  ])('%j → %j', (header, want) => {
    expect(dispositionFileName(header)).toBe(want);
  });

  it.each([
    ['attachment; filename="../../x.json"', 'x.json'],
    ["attachment; filename*=UTF-8''..%2F..%2Fx.json", 'x.json'],
    ['attachment; filename="/etc/cron.d/job"', 'job.json'],
    ['attachment; filename=".bashrc"', 'bashrc.json'],
    ['attachment; filename="..\\\\..\\\\x.zip"', 'x.json'],
    // The extension follows the content (a JSON export here), whatever the server says.
    ['attachment; filename="x.zip"', 'x.json'],
    ["attachment; filename*=UTF-8''%E2%80%AEnosj.exe", 'nosj.json'],
    ['attachment; filename="report.JSON"', 'report.JSON'],
    ['attachment; filename="data.tar.gz"', 'data.tar.json'],
    ['attachment; filename="Example v1.5"', 'Example v1.5.json'],
    ['attachment; filename="x.csv"', 'x.json'],
    ['attachment; filename="report"', 'report.json'],
    ['attachment; filename="a\u0001b.json"', 'ab.json'],
    ['attachment; filename=".."', undefined],
    ['attachment; filename="/"', undefined],
  ])('a hostile or odd name %j becomes %j', (header, want) => {
    expect(nameFromHeaders(header, 'json')).toBe(want);
  });

  it('reads filename* leniently when it cannot be parsed strictly', () => {
    expect(dispositionFileName("attachment; filename*=utf-8''%E2%82%AC.json; x")).toBe('€.json');
    expect(dispositionFileName("attachment; filename*=iso-8859-1''%E9.json")).toBe('é.json');
    expect(dispositionFileName('attachment; size=3')).toBeUndefined();
  });

  it('a blank filename* names nothing: its ASCII fallback (`"?"` for each character) is not the name', () => {
    expect(contentDisposition('\u2003')).toBe('attachment; filename="?"; filename*=UTF-8\'\'%E2%80%83');
    expect(dispositionFileName(contentDisposition('\u2003'))).toBeUndefined();
    expect(dispositionFileName(contentDisposition('\u3000 \u2003'))).toBeUndefined();
  });

  it('recovers the name contentDisposition() encoded, for any plain name', () => {
    // contentDisposition() keeps only the basename itself, so names with separators are left out.
    const plain = fc
      .string({ minLength: 1, maxLength: 60, unit: 'grapheme' })
      .filter((n) => !/[/\\]/.test(n));
    fc.assert(
      fc.property(plain, (name) => {
        expect(dispositionFileName(contentDisposition(name))).toBe(name.trim() ? name : undefined);
      }),
      { numRuns: 500 },
    );
  });
});

describe('the <date>_<name>_index rule', () => {
  it.each([
    [
      ['Example 600 OG EUR', 'Example 600 OG JPY'],
      ['Example', '600', 'OG'],
    ],
    [['Example 600 OG JPY'], ['Example', '600', 'OG']],
    [
      ['Example 600 OG JPY', 'Example 600 OG JPY'],
      ['Example', '600', 'OG'],
    ],
    [
      ['Example 600 OG EUR Net', 'Example 600 OG EUR Price'],
      ['Example', '600', 'OG'],
    ],
    [['STOXX Example 600 OIL & GAS NET EUR'], ['STOXX', 'Example', '600', 'OIL', 'GAS', 'NET']],
    [['Alpha EUR', 'Beta EUR'], []],
    [['EUR'], ['EUR']],
    [['Example 600 Og'], ['Example', '600', 'Og']],
    [[], []],
  ])('index names %j → %j', (names, want) => {
    const common = names.reduce<string[] | undefined>(commonWords, undefined);
    expect(dropCurrency(common ?? [])).toEqual(want);
  });

  it.each([
    ['Example 600 OG', ['Example', '600', 'OG']],
    ['  a/b\\c..d  ', ['a', 'b', 'c', 'd']],
    ['OIL & GAS', ['OIL', 'GAS']],
    ['Größe-1 ü', ['Größe-1', 'ü']],
    ['--', []],
  ])('nameWords(%j) → %j', (text, want) => {
    expect(nameWords(text)).toEqual(want);
  });

  it('commonWords: the words every name starts with', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ unit: fc.constantFrom('a', 'b', ' ') })), (names) => {
        const all = names.map(nameWords);
        const common = all[0]?.filter((_, i) =>
          all.every((w) => w.slice(0, i + 1).join(' ') === all[0]!.slice(0, i + 1).join(' ')),
        );
        expect(names.reduce<string[] | undefined>(commonWords, undefined)).toEqual(common);
      }),
    );
  });

  it.each([
    [{ name: 'Example 600 OG' }, 'json', '2024-05-01_Example_600_OG_index.json'],
    [{ name: 'Example 600 OG', indexWords: ['Other'] }, 'zip', '2024-05-01_Example_600_OG_index.zip'],
    [{ indexWords: ['Example', '600', 'OG', 'JPY'] }, 'json', '2024-05-01_Example_600_OG_index.json'],
    [{ indexWords: [] }, 'json', '2024-05-01_portfolio_42_index.json'],
    [{}, 'zip', '2024-05-01_portfolio_42_index.zip'],
    [{ name: '&&' }, 'json', '2024-05-01_portfolio_42_index.json'],
    [{ name: '../../etc' }, 'json', '2024-05-01_etc_index.json'],
  ] as const)('%j (%s) → %s', (o, kind, want) => {
    expect(ruleFileName({ date: '2024-05-01', portfolioId: 42, kind, ...o })).toBe(want);
  });

  it('keeps a rule name within the length cap', () => {
    const name = ruleFileName({
      date: '2024-05-01',
      portfolioId: 1,
      kind: 'json',
      name: 'x '.repeat(300),
    });
    expect(Buffer.byteLength(name)).toBeLessThanOrEqual(MAX_NAME_BYTES);
    expect(name.endsWith('.json')).toBe(true);
  });
});

describe('exportKind', () => {
  it.each([
    ['json', 'json'],
    ['csv', 'zip'],
  ] as const)('%s → %s, whatever the content type says', (format, want) => {
    expect(exportKind(format)).toBe(want);
  });
});

describe('disambiguate', () => {
  it.each([
    ['2024-05-01_x_index.json', '2024-05-01_x_index_7_2024-05-02.json'],
    ['noext', 'noext_7_2024-05-02'],
  ])('%s → %s', (name, want) => {
    expect(disambiguate(name, 7, '2024-05-02')).toBe(want);
  });
  it('stays within the cap', () => {
    const long = `${'a'.repeat(195)}.json`;
    const out = disambiguate(long, 2147483647, '2024-05-02');
    expect(Buffer.byteLength(out)).toBeLessThanOrEqual(MAX_NAME_BYTES);
    expect(out.endsWith('_2147483647_2024-05-02.json')).toBe(true);
  });
});
