/**
 * The direct CSV/TSV path (src/render/direct.ts) against the general one (lossless parse → rowsOf →
 * render): wherever the direct path answers, its bytes must be the general path's, and wherever the
 * body is not a report the general path accepts, it must step aside (undefined).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ReportType } from '../../../src/domain.js';
import { emitDelimited, emitRows } from '../../../src/render/direct.js';
import { render, renderDirect } from '../../../src/render/index.js';
import { scanReport } from '../../../src/render/tape.js';
import { rowsOf } from '../../../src/service/service.js';
import { numberLiteral } from '../../helpers/json-arbitraries.js';

type Format = 'csv' | 'tsv';
type AnyFormat = Format | 'json' | 'ndjson';

/** The general path's text (JSON compact, as when piped), or undefined when the body is not a report with rows. */
function general(body: Buffer, format: AnyFormat, fields?: string[], type: ReportType = 'index') {
  const rows = rowsOf(body.toString('utf8'));
  if (typeof rows === 'string' || rows.length === 0) return undefined;
  return render({ type, format, rows, fields, multi: false, color: false, terminal: false, width: 80 }).text;
}

function direct(body: Buffer, format: AnyFormat, fields?: string[], type: ReportType = 'index') {
  return renderDirect(body, { type, format, fields })?.bytes.toString('utf8');
}

const report = (...rows: string[]) => `{"report":[${rows.join(',')}]}`;

describe('renderDirect: the same bytes as the general path', () => {
  const cases: [string, string, string][] = [
    [
      'flat rows, every value kind',
      report(
        '{"a":"x","n":1302.917413,"t":true,"f":false,"z":null,"e":{}}',
        '{"a":"y","n":-0.5,"t":false,"f":true,"z":null,"e":{}}',
      ),
      'a,n,t,f,z,e\nx,1302.917413,true,false,,{}\ny,-0.5,false,true,,{}\n',
    ],
    [
      'numbers keep the digits sent, including those a double cannot hold',
      report('{"v":1.10,"w":-0,"x":1e5,"y":12345678901234567890,"z":1234567.123456789012}'),
      'v,w,x,y,z\n1.10,-0,1e5,12345678901234567890,1234567.123456789012\n',
    ],
    [
      'commas, quotes and newlines are quoted; escapes decoded',
      report('{"s":"a,b","q":"say \\"hi\\"","nl":"l1\\nl2","u":"caf\\u00e9 \\ud83d\\ude00","p":"\\/\\\\"}'),
      's,q,nl,u,p\n"a,b","say ""hi""","l1\nl2",café 😀,/\\\n',
    ],
    [
      'raw UTF-8 is copied as is',
      report('{"name":"Société Générale","city":"Zürich"}'),
      'name,city\nSociété Générale,Zürich\n',
    ],
    [
      'nested objects flatten to dotted columns',
      report(
        '{"indexId":{"Net":"n1","Price":"p1"},"isin":"X1"}',
        '{"indexId":{"Net":"n2","Price":"p2"},"isin":"X2"}',
      ),
      'indexId.Net,indexId.Price,isin\nn1,p1,X1\nn2,p2,X2\n',
    ],
    [
      'keys missing in some rows, new keys later, another order',
      report('{"a":1,"b":2}', '{"b":3}', '{"c":4,"a":5}', '{"b":6,"a":7}'),
      'a,b,c\n1,2,\n,3,\n5,,4\n7,6,\n',
    ],
    ['a bare array of rows', '[{"a":1},{"a":2}]', 'a\n1\n2\n'],
    [
      'whitespace anywhere JSON allows it',
      ' \n{ "report" : [ { "a" : 1 , "b" : { "c" : "d" } } ,\r\n\t{"a":2,"b":{"c":"e"}} ] } \n',
      'a,b.c\n1,d\n2,e\n',
    ],
    ['a lone empty cell is quoted so the line is not blank', report('{"a":null}', '{"a":"x"}'), 'a\n""\nx\n'],
    ['an empty row is a line of empty cells', report('{"a":1,"b":2}', '{}'), 'a,b\n1,2\n,\n'],
    ['portfolioId leads when the data has it', report('{"a":1,"portfolioId":42}'), 'portfolioId,a\n42,1\n'],
    ['__proto__ is a key like any other', report('{"__proto__":1,"b":2}'), '__proto__,b\n1,2\n'],
    // (The general path printed Object.prototype as `{}` here before render used own properties only.)
    [
      'a row without __proto__ has an empty cell there',
      report('{}', '{"__proto__":1}'),
      '__proto__\n""\n1\n',
    ],
  ];

  it.each(cases)('%s', (_name, body, want) => {
    const b = Buffer.from(body);
    expect(direct(b, 'csv')).toBe(want);
    expect(direct(b, 'csv')).toBe(general(b, 'csv'));
    expect(direct(b, 'tsv')).toBe(general(b, 'tsv'));
  });

  it('TSV escapes backslash, tab and newline; commas stay as they are', () => {
    const b = Buffer.from(report('{"s":"a,b","t":"x\\ty","n":"1\\n2","b":"c:\\\\d"}'));
    expect(direct(b, 'tsv')).toBe('s\tt\tn\tb\na,b\tx\\ty\t1\\n2\tc:\\\\d\n');
    expect(direct(b, 'tsv')).toBe(general(b, 'tsv'));
  });

  it('a lone surrogate escape prints as U+FFFD, as writing the general path’s string does', () => {
    const b = Buffer.from(report('{"s":"a\\ud800b"}'));
    expect(direct(b, 'csv')).toBe('s\na\uFFFDb\n');
    expect(Buffer.from(general(b, 'csv')!).toString()).toBe('s\na\uFFFDb\n');
  });

  it.each([
    [['isin'], 'isin\nX1\n'],
    [['isin', 'indexId'], 'isin,indexId.Net,indexId.Price\nX1,n1,p1\n'],
    [['indexId.Price', 'isin', 'indexId.Price'], 'indexId.Price,isin,indexId.Price\np1,X1,p1\n'],
    [['isin', 'currency'], 'isin,currency\nX1,\n'],
  ])('--fields %j', (fields, want) => {
    const b = Buffer.from(report('{"indexId":{"Net":"n1","Price":"p1"},"isin":"X1"}'));
    expect(direct(b, 'csv', fields)).toBe(want);
    expect(direct(b, 'csv', fields)).toBe(general(b, 'csv', fields));
  });

  it('an unknown --fields name is the same usage error', () => {
    const b = Buffer.from(report('{"isin":"X1"}'));
    expect(() => direct(b, 'csv', ['nope'])).toThrow(/unknown field "nope" for index/);
    expect(() => general(b, 'csv', ['nope'])).toThrow(/unknown field "nope" for index/);
  });
});

describe('renderDirect: JSON and NDJSON are the body’s own bytes when they already are the output', () => {
  it.each([
    [
      'every value kind',
      report(
        '{"a":"x","n":1302.917413,"t":true,"f":false,"z":null,"e":{}}',
        '{"a":"y","n":-0.5,"t":false,"f":true,"z":null,"e":{}}',
      ),
    ],
    [
      'numbers as sent',
      report('{"v":1.10,"w":-0,"x":1e5,"y":12345678901234567890}', '{"v":2,"w":0,"x":1E-7,"y":1}'),
    ],
    [
      'nested objects',
      report(
        '{"indexId":{"Net":"n1","Price":"p1"},"isin":"X1"}',
        '{"indexId":{"Net":"n2","Price":"p2"},"isin":"X2"}',
      ),
    ],
    [
      'escapes JSON.stringify writes the same way',
      report('{"s":"q\\"x\\\\y\\n\\u0001\\ud800"}', '{"s":"\\t\\""}'),
    ],
    ['a bare array', '[{"a":1,"b":"x"},{"a":2,"b":"y"}]'],
    ['raw UTF-8, a comma in a string', report('{"name":"Société, Générale","city":"Zürich"}')],
  ])('%s', (_name, body) => {
    const b = Buffer.from(body);
    const array = body.slice(body.indexOf('['), body.lastIndexOf(']') + 1);
    expect(direct(b, 'json')).toBe(`${array}\n`);
    expect(direct(b, 'json')).toBe(general(b, 'json'));
    expect(direct(b, 'ndjson')).toBeDefined();
    expect(direct(b, 'ndjson')).toBe(general(b, 'ndjson'));
  });

  it.each([
    ['whitespace between tokens', '{"report":[ {"a":1}]}'],
    ['whitespace inside a row', report('{"a": 1}')],
    ['whitespace between rows', report('{"a":1}', ' {"a":2}')],
    ['an escape JSON.stringify writes otherwise (row 0)', report('{"s":"\\/"}')],
    ['an escape JSON.stringify writes otherwise (a later row)', report('{"s":"a"}', '{"s":"\\u0041"}')],
    ['upper-case hex', report('{"s":"a"}', '{"s":"\\u001F"}')],
    ['`{ }`', report('{"e":{}}', '{"e":{ }}')],
    ['rows with other keys', report('{"a":1}', '{"b":1}')],
    ['a nested object where row 0 had a value', report('{"a":1,"b":2}', '{"a":{"c":1},"b":2}')],
  ])('steps aside for %s, and the general path answers', (_name, body) => {
    const b = Buffer.from(body);
    for (const format of ['json', 'ndjson'] as const) {
      expect(direct(b, format)).toBeUndefined();
      expect(general(b, format)).toBeDefined();
    }
  });

  it('--fields reshapes the rows from the tape, as the general path does (absent: null, escapes as JSON.stringify writes them)', () => {
    const b = Buffer.from(
      report('{"isin":"X1","n":1.10,"o":{"p":"\\u00e9","q":{ }}}', '{"isin":"X\\"2","o":{"p":null,"q":{}}}'),
    );
    for (const format of ['json', 'ndjson'] as const) {
      for (const f of [['isin'], ['o', 'n'], ['n', 'isin', 'n'], ['o.q', 'currency']]) {
        expect(direct(b, format, f)).toBe(general(b, format, f));
      }
    }
    expect(direct(b, 'ndjson', ['n', 'o'])).toBe(
      '{"n":1.10,"o.p":"é","o.q":{}}\n{"n":null,"o.p":null,"o.q":{}}\n',
    );
  });
});

describe('renderDirect: steps aside for anything outside its shape', () => {
  it.each([
    ['empty body', ''],
    ['no rows', '{"report":[]}'],
    ['no rows, bare', '[]'],
    ['not JSON', 'hello'],
    ['truncated', '{"report":[{"a":1}'],
    ['trailing garbage', '{"report":[{"a":1}]}x'],
    ['a second top-level key', '{"report":[{"a":1}],"more":1}'],
    ['another top-level key first', '{"meta":1,"report":[{"a":1}]}'],
    ['report is not an array', '{"report":{"a":1}}'],
    ['a row that is not an object', '{"report":[{"a":1},2]}'],
    ['an array as a value', '{"report":[{"a":[1,2]}]}'],
    ['an integer-like key (JS lists those first)', '{"report":[{"b":1,"2":3}]}'],
    ['a key with a dot', '{"report":[{"a.b":1}]}'],
    ['an escape in a key', '{"report":[{"a\\u0062":1}]}'],
    ['a duplicate key', '{"report":[{"a":1,"a":2}]}'],
    ['a duplicate nested key', '{"report":[{"o":{"x":1,"x":2}}]}'],
    ['a value in one row, an object in another', '{"report":[{"a":1},{"a":{"b":2}}]}'],
    ['an object in one row, a value in another', '{"report":[{"a":{"b":2}},{"a":1}]}'],
    ['an empty object and a nested one under one key', '{"report":[{"a":{}},{"a":{"b":2}}]}'],
    ['a raw control character in a string', '{"report":[{"a":"x\ty"}]}'],
    ['a bad escape', '{"report":[{"a":"\\x"}]}'],
    ['a short unicode escape', '{"report":[{"a":"\\u12"}]}'],
    ['a leading zero', '{"report":[{"a":01}]}'],
    ['a bare minus', '{"report":[{"a":-}]}'],
    ['a dot without digits', '{"report":[{"a":1.}]}'],
    ['an exponent without digits', '{"report":[{"a":1e}]}'],
    ['a misspelt literal', '{"report":[{"a":nul}]}'],
    ['a trailing comma', '{"report":[{"a":1,}]}'],
    ['a byte order mark', '\uFEFF{"report":[{"a":1}]}'],
  ])('%s', (_name, body) => {
    expect(renderDirect(Buffer.from(body), { type: 'index', format: 'csv' })).toBeUndefined();
  });

  it('invalid UTF-8', () => {
    const b = Buffer.concat([
      Buffer.from('{"report":[{"a":"'),
      Buffer.from([0xc3, 0x28]),
      Buffer.from('"}]}'),
    ]);
    expect(renderDirect(b, { type: 'index', format: 'csv' })).toBeUndefined();
  });

  it('nesting deeper than 32 levels', () => {
    const deep = `${'{"a":'.repeat(40)}1${'}'.repeat(40)}`;
    expect(renderDirect(Buffer.from(report(deep)), { type: 'index', format: 'csv' })).toBeUndefined();
  });
});

describe('renderDirect: properties', () => {
  /** Every body of `bodies`, in each of `formats`: the direct path answers, with the general path's bytes. */
  const alwaysAnswers = (bodies: fc.Arbitrary<string>, formats: AnyFormat[]) =>
    fc.assert(
      fc.property(bodies, fc.constantFrom(...formats), (text, format) => {
        const b = Buffer.from(text);
        const got = direct(b, format);
        expect(got).toBeDefined();
        // As bytes: a lone surrogate escape is U+FFFD once written, whichever path wrote it.
        expect(Buffer.from(got!)).toEqual(Buffer.from(general(b, format)!));
      }),
      { numRuns: 500 },
    );
  /** Number literals, many that a double cannot hold. */
  const literal = numberLiteral(['0.0000910979', '1.10']);
  /** Keys: mostly plain (shared between rows, so rows line up), sometimes ones the path steps aside for. */
  const key = fc.oneof(
    { weight: 30, arbitrary: fc.constantFrom('a', 'b', 'isin', 'name', 'closingPrice', 'portfolioId') },
    { weight: 1, arbitrary: fc.constantFrom('0', '7', 'a.b', 'é', '__proto__', '', 'x"y') },
  );
  const str = fc.oneof(
    fc.string({ maxLength: 10 }),
    fc.string({ unit: 'binary', maxLength: 6 }),
    fc.constantFrom('a,b', 'say "hi"', 'x\ny', 'tab\there', 'back\\slash', '\ud800'),
  );
  const leaf = fc.oneof(
    { weight: 8, arbitrary: literal },
    { weight: 8, arbitrary: str.map((s) => JSON.stringify(s)) },
    // The same string written with every character escaped.
    {
      weight: 1,
      arbitrary: str.map(
        (s) => `"${[...s].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('')}"`,
      ),
    },
    { weight: 2, arbitrary: fc.constantFrom('null', 'true', 'false', '{}') },
    { weight: 1, arbitrary: fc.constantFrom('[]', '[1]') },
  );
  const ws = fc.constantFrom('', '', '', ' ', '\n', '\t', ' \r\n ');
  const object = (value: fc.Arbitrary<string>) =>
    fc
      .uniqueArray(fc.tuple(key, value, ws, ws), { maxLength: 6, selector: ([k]) => k })
      .map(
        (kv) => `{${kv.map(([k, v, w1, w2]) => `${w1}${JSON.stringify(k)}${w2}:${w1}${v}${w2}`).join(',')}}`,
      );
  const row = object(fc.oneof({ weight: 8, arbitrary: leaf }, { weight: 1, arbitrary: object(leaf) }));
  const body = fc
    .tuple(fc.array(row, { minLength: 1, maxLength: 6 }), fc.boolean(), ws)
    .map(([rows, bare, w]) =>
      bare ? `${w}[${rows.join(`,${w}`)}]${w}` : `{"report":${w}[${rows.join(',')}]}${w}`,
    );
  const fields = fc.option(
    fc.uniqueArray(fc.constantFrom('a', 'b', 'isin', 'name', 'indexValue', 'currency'), {
      minLength: 1,
      maxLength: 3,
    }),
    { nil: undefined },
  );

  it('where it answers, it answers what the general path does (every format, with and without --fields)', () => {
    let answered = 0;
    let withFields = 0;
    fc.assert(
      fc.property(
        body,
        fc.constantFrom<AnyFormat>('csv', 'tsv', 'json', 'ndjson'),
        fields,
        (text, format, f) => {
          const b = Buffer.from(text);
          let want: string | undefined;
          let wantErr: unknown;
          try {
            want = general(b, format, f);
          } catch (err) {
            wantErr = err;
          }
          let got: string | undefined;
          try {
            got = direct(b, format, f);
          } catch (err) {
            // Only the --fields usage error may come out, and only when the general path raises it too.
            expect(String(err)).toBe(String(wantErr));
            return;
          }
          if (got !== undefined) {
            answered++;
            if (f && (format === 'json' || format === 'ndjson')) withFields++;
            expect(Buffer.from(got)).toEqual(Buffer.from(want!));
          }
        },
      ),
      { numRuns: 2500, seed: 23 },
    );
    // The generator mostly makes bodies the direct path takes: the property is not vacuous.
    expect(answered).toBeGreaterThan(400);
    expect(withFields).toBeGreaterThan(100);
  });

  it('rows that all have the same keys in the same order (the usual answer) render as the general path does', () => {
    const keys = ['isin', 'name', 'closingPrice', 'a', 'b'];
    const uniformBody = fc
      .array(fc.tuple(...keys.map(() => leaf.filter((v) => !v.startsWith('['))), ws), {
        minLength: 1,
        maxLength: 8,
      })
      .map((rows) =>
        report(
          ...rows.map(([...cells]) => {
            const w = cells.pop() as string;
            return `{${keys.map((k, i) => `${w}"${k}":${cells[i]}`).join(',')}}`;
          }),
        ),
      );
    alwaysAnswers(uniformBody, ['csv', 'tsv']);
  });

  // The properties that count how often the path answered run on a fixed seed: the count is a check
  // that they are not vacuous, and must not depend on a lucky draw (95 of 1,500 once failed `> 100`).
  // emitRows (one pass, rows written as they are read) must be the two-pass scanReport + emitDelimited
  // wherever it answers, and must answer for the usual body, or the usual answer pays for two passes.
  const names = (columns: string[]) => columns.join('|');
  const twoPass = (b: Buffer, kind: Format) => {
    const s = scanReport(b);
    return (
      s &&
      emitDelimited(
        s,
        Int32Array.from(s.columns, (_, i) => i),
        names(s.columns),
        kind,
      )
    );
  };

  it('emitRows, where it answers, writes what scanReport + emitDelimited do', () => {
    let answered = 0;
    fc.assert(
      fc.property(body, fc.constantFrom<Format>('csv', 'tsv'), (text, kind) => {
        const b = Buffer.from(text);
        const got = emitRows(b, kind, names);
        if (got === undefined) return;
        answered++;
        expect(got.bytes).toEqual(twoPass(b, kind));
        expect(got.rows).toBe(scanReport(b)!.rows);
      }),
      { numRuns: 1500, seed: 23 },
    );
    expect(answered).toBeGreaterThan(100);
  });

  it('emitRows takes every body whose rows share row 0’s layout, and no body with a column order of its own', () => {
    const keys = ['isin', 'name', 'closingPrice', 'a'];
    const value = leaf.filter((v) => !v.startsWith('['));
    const sameLayout = fc
      .tuple(fc.array(fc.tuple(...keys.map(() => value)), { minLength: 1, maxLength: 8 }), ws)
      .map(([rows, w]) =>
        report(...rows.map((cells) => `{${keys.map((k, i) => `"${k}":${w}${cells[i]}`).join(',')}}`)),
      );
    fc.assert(
      fc.property(sameLayout, fc.constantFrom<Format>('csv', 'tsv'), (text, kind) => {
        const b = Buffer.from(text);
        const got = emitRows(b, kind, names);
        expect(got).toBeDefined();
        expect(got!.bytes).toEqual(twoPass(b, kind));
        expect(emitRows(b, kind, () => undefined)).toBeUndefined();
      }),
      { numRuns: 500 },
    );
  });

  it('JSON and NDJSON, where answered, are what the general path writes; compact bodies are answered', () => {
    // Compact rows of one layout (a nested object included) with values as JSON.stringify writes
    // them: the output already.
    const scalar = fc.oneof(
      literal,
      str.map((v) => JSON.stringify(v)),
      fc.constantFrom('null', 'true', 'false', '{}'),
    );
    const compact = fc
      .array(fc.tuple(scalar, scalar, scalar, scalar), { minLength: 1, maxLength: 8 })
      .map((rows) =>
        report(...rows.map(([a, b, c, d]) => `{"isin":${a},"name":${b},"o":{"p":${c}},"closingPrice":${d}}`)),
      );
    let answered = 0;
    fc.assert(
      fc.property(fc.oneof(body, compact), fc.constantFrom<AnyFormat>('json', 'ndjson'), (text, format) => {
        const b = Buffer.from(text);
        const got = direct(b, format);
        if (got === undefined) return;
        answered++;
        expect(Buffer.from(got)).toEqual(Buffer.from(general(b, format)!));
      }),
      { numRuns: 1500, seed: 23 },
    );
    expect(answered).toBeGreaterThan(300);
    alwaysAnswers(compact, ['json', 'ndjson']);
  });

  it('several portfolios: JSON and NDJSON, where answered, are the general path’s rows led by portfolioId', () => {
    const scalar = fc.oneof(
      literal,
      str.map((v) => JSON.stringify(v)),
      fc.constantFrom('null', 'true', '{}'),
    );
    // One key per body (a row's own portfolioId among them), the same in every row.
    const compact = fc
      .tuple(
        fc.constantFrom('isin', 'portfolioId', 'p'),
        fc.array(fc.tuple(scalar, scalar), { minLength: 1, maxLength: 6 }),
      )
      .map(([k, rows]) => report(...rows.map(([a, b]) => `{"${k}":${a},"o":{"p":${b}}}`)));
    let answered = 0;
    fc.assert(
      fc.property(
        fc.oneof(body, compact),
        fc.constantFrom<AnyFormat>('json', 'ndjson'),
        fc.integer({ min: 1, max: 99999 }),
        (text, format, portfolioId) => {
          const b = Buffer.from(text);
          const got = renderDirect(b, { type: 'index', format, portfolioId })?.bytes.toString('utf8');
          const rows = rowsOf(text);
          if (got === undefined || typeof rows === 'string') return;
          answered++;
          const led = rows.map((row) => ({ portfolioId, ...row }));
          const want = render({
            type: 'index',
            format,
            rows: led,
            multi: true,
            color: false,
            terminal: false,
            width: 80,
          });
          expect(got).toBe(want.text);
        },
      ),
      { numRuns: 1500, seed: 23 },
    );
    expect(answered).toBeGreaterThan(200);
    // A row's own portfolioId key: the general path (it would take the lead's value).
    expect(
      renderDirect(Buffer.from(report('{"portfolioId":1,"a":2}')), {
        type: 'index',
        format: 'ndjson',
        portfolioId: 7,
      }),
    ).toBeUndefined();
    expect(
      renderDirect(Buffer.from(report('{"a":2}')), { type: 'index', format: 'csv', portfolioId: 7 }),
    ).toBeUndefined();
  });

  it('a damaged body is never rendered differently (one byte changed, dropped or cut off)', () => {
    const good = report(
      '{"isin":"X1","name":"Société, \\"Générale\\"","closingPrice":1302.917413,"o":{"p":1.10,"q":null}}',
      '{"isin":"X2","name":"B","closingPrice":-0,"o":{"p":true,"q":"\\u00e9"}}',
    );
    fc.assert(
      fc.property(
        fc.nat(good.length - 1),
        fc.oneof(fc.integer({ min: 0, max: 255 }), fc.constant(-1), fc.constant(-2)),
        (at, byte) => {
          const src = Buffer.from(good);
          const b =
            byte === -1
              ? Buffer.concat([src.subarray(0, at), src.subarray(at + 1)])
              : byte === -2
                ? src.subarray(0, at)
                : Buffer.concat([src.subarray(0, at), Buffer.from([byte]), src.subarray(at + 1)]);
          for (const format of ['csv', 'json', 'ndjson'] as const) {
            const got = direct(b, format);
            if (got !== undefined) expect(got).toBe(general(b, format));
          }
        },
      ),
      { numRuns: 3000 },
    );
  });
});
