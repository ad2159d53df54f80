/**
 * The one row stream (src/rows/tokenizer.ts) against references: bodies generated from known rows in
 * every byte shape (compact, spaced as Python's json.dumps writes, pretty-printed, keys in any order,
 * escapes, exponents, a BOM), cut into chunks anywhere; and any JSON value against JSON.parse (shape)
 * and the literals it was written with (numbers).
 */
import { Readable } from 'node:stream';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import type { Row } from '../../../src/domain.js';
import { isJsonNumeric, JsonNumber, numberText } from '../../../src/domain.js';
import { stringifyLossless } from '../../../src/json/lossless.js';
import { type Column, cellText, isNested, seenColumns, valueAt } from '../../../src/render/columns.js';
import { csvCell, delimitedHeader, tsvCell } from '../../../src/render/delimited.js';
import { widen } from '../../../src/render/union.js';
import { createWriter, type WriterFormat } from '../../../src/render/writer.js';
import type { RowBatch } from '../../../src/rows/tape.js';
import { MalformedBody, RowTokenizer } from '../../../src/rows/tokenizer.js';
import { rowsOf, writtenAs } from '../../helpers/rows.js';

/** What a literal reads as: a plain number when the double prints back as the literal, else JsonNumber. */
const expected = (lit: string) => (String(Number(lit)) === lit ? Number(lit) : new JsonNumber(lit));

/** JSON number literals of every shape the grammar allows (not just what JS prints). */
const numberLiteral = fc.oneof(
  fc
    .tuple(
      fc.boolean(),
      fc.oneof(fc.constant('0'), fc.stringMatching(/^[1-9][0-9]{0,24}$/)),
      fc.option(fc.stringMatching(/^[0-9]{1,22}$/), { nil: undefined }),
      fc.option(
        fc.tuple(fc.constantFrom('e', 'E'), fc.constantFrom('', '+', '-'), fc.stringMatching(/^[0-9]{1,3}$/)),
        { nil: undefined },
      ),
    )
    .map(
      ([neg, int, frac, exp]) => `${neg ? '-' : ''}${int}${frac ? `.${frac}` : ''}${exp ? exp.join('') : ''}`,
    ),
  fc.constantFrom(
    '1302.917413',
    '0.25',
    '13029174',
    '5E-13',
    '1.10',
    '-0',
    '0.0000001',
    '0.000001',
    '9007199254740993',
  ),
);

/** A value of a row, as a model: how it reads, and its literal when a number. */
type Model = { num: string } | string | boolean | null | { obj: [string, Model][] } | { arr: Model[] };

const scalar: fc.Arbitrary<Model> = fc.oneof(
  numberLiteral.map((num) => ({ num })),
  fc.oneof(
    fc.string({ maxLength: 12 }),
    fc.string({ unit: 'binary', maxLength: 6 }),
    // Longer than the loops' 16-byte steps.
    fc.string({ minLength: 15, maxLength: 40 }),
    fc.constantFrom(
      'Société, Générale',
      'Pioneer Pharmaceutical Holdings, Kabushiki Kaisha',
      'sixteen bytes on: é, then more',
      'say "hi"',
      'x\ny',
      'tab\there',
      '\u{1F600} smile',
      'back\\slash',
      '/',
    ),
  ),
  fc.constantFrom(true, false, null),
);
const key = fc.oneof(
  fc.constantFrom('effectiveDate', 'isin', 'closingPrice', 'indexId', 'Net', '__proto__', 'a,b', 'ключ'),
  fc.string({ maxLength: 6 }),
);
const nested: fc.Arbitrary<Model> = fc
  .uniqueArray(fc.tuple(key, scalar), { maxLength: 3, selector: ([k]) => k })
  .map((obj) => ({ obj }));
const list: fc.Arbitrary<Model> = fc
  .array(fc.oneof(scalar, nested), { maxLength: 3 })
  .map((arr) => ({ arr }));
const rowModel = fc.uniqueArray(fc.tuple(key, fc.oneof({ weight: 8, arbitrary: scalar }, nested, list)), {
  maxLength: 6,
  selector: ([k]) => k,
});

const modelValue = (m: Model): unknown => {
  if (m === null || typeof m !== 'object') return m;
  if ('num' in m) return expected(m.num);
  if ('arr' in m) return m.arr.map(modelValue);
  return rowOf(m.obj);
};
function rowOf(entries: [string, Model][]): Row {
  const o: Row = {};
  for (const [k, v] of entries)
    Object.defineProperty(o, k, {
      value: modelValue(v),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  return o;
}

interface Style {
  /** Between tokens: '' compact, ' ' after `:` and `,` (json.dumps), or an indent (pretty). */
  spacing: 'compact' | 'spaced' | 'pretty';
  /** \uXXXX for everything outside ASCII (json.dumps' ensure_ascii), and / as \/. */
  ascii: boolean;
  wrapper: 'report' | 'bare' | 'report-among-keys';
  bom: boolean;
}

function str(s: string, ascii: boolean): string {
  const json = JSON.stringify(s);
  if (!ascii) return json;
  return json.replace(/[^\x20-\x7e]|\//g, (c) =>
    c === '/' ? '\\/' : `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

function text(m: Model, s: Style, indent: string): string {
  if (m === null || typeof m === 'boolean') return String(m);
  if (typeof m === 'string') return str(m, s.ascii);
  if ('num' in m) return m.num;
  if ('arr' in m)
    return `[${m.arr.map((v) => text(v, s, indent)).join(s.spacing === 'compact' ? ',' : ', ')}]`;
  return objectText(m.obj, s, indent);
}
function objectText(entries: [string, Model][], s: Style, indent: string): string {
  if (entries.length === 0) return '{}';
  const inner = `${indent}  `;
  const parts = entries.map(
    ([k, v]) => `${str(k, s.ascii)}${s.spacing === 'compact' ? ':' : ': '}${text(v, s, inner)}`,
  );
  if (s.spacing === 'pretty') return `{\n${inner}${parts.join(`,\n${inner}`)}\n${indent}}`;
  return `{${parts.join(s.spacing === 'spaced' ? ', ' : ',')}}`;
}
function bodyText(rows: [string, Model][][], s: Style): string {
  const pretty = s.spacing === 'pretty';
  const sep = s.spacing === 'compact' ? ',' : pretty ? ',\n    ' : ', ';
  const list =
    rows.length === 0
      ? '[]'
      : pretty
        ? `[\n    ${rows.map((r) => objectText(r, s, '    ')).join(sep)}\n  ]`
        : `[${rows.map((r) => objectText(r, s, '')).join(sep)}]`;
  const colon = s.spacing === 'compact' ? ':' : ': ';
  const body =
    s.wrapper === 'bare'
      ? list
      : s.wrapper === 'report'
        ? `{${pretty ? '\n  ' : ''}"report"${colon}${list}${pretty ? '\n' : ''}}`
        : `{"status"${colon}"ok",${pretty ? '\n' : ' '}"report"${colon}${list}, "meta"${colon}{"n": [1, 2.50, {"x": null}]}}`;
  return (s.bom ? '\ufeff' : '') + body;
}

const style = fc.record<Style>({
  spacing: fc.constantFrom('compact', 'spaced', 'pretty'),
  ascii: fc.boolean(),
  wrapper: fc.constantFrom('report', 'bare', 'report-among-keys'),
  bom: fc.boolean(),
});

/** The body's bytes in chunks cut at these points (anywhere: inside a token, a UTF-8 sequence, the BOM). */
function chunks(bytes: Buffer, cuts: number[]): Buffer[] {
  const at = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
  const out: Buffer[] = [];
  let from = 0;
  for (const c of [...at, bytes.length]) {
    out.push(bytes.subarray(from, c));
    from = c;
  }
  return out;
}

/** Rows from chunks, and after how many chunks each row came out. */
function tokenize(parts: Buffer[]): { rows: Row[]; seenAt: number[] } {
  const t = new RowTokenizer();
  const rows: Row[] = [];
  const seenAt: number[] = [];
  parts.forEach((p, i) => {
    for (const r of t.push(p).objects()) {
      rows.push(r);
      seenAt.push(i);
    }
  });
  for (const r of t.end().objects()) {
    rows.push(r);
    seenAt.push(parts.length);
  }
  return { rows, seenAt };
}

describe('RowTokenizer: bodies of every shape, cut anywhere', () => {
  it('gives the rows the body was written from', () => {
    const seen = { spaced: 0, pretty: 0, inexact: 0, chunked: 0, escaped: 0 };
    fc.assert(
      fc.property(
        fc.array(rowModel, { maxLength: 6 }),
        style,
        fc.array(fc.nat(), { maxLength: 8 }),
        (rows, s, cuts) => {
          const body = Buffer.from(bodyText(rows, s));
          const parts = chunks(body, cuts);
          const got = tokenize(parts).rows;
          expect(got).toEqual(rows.map(rowOf));
          // keys in the order sent (as JSON.parse gives them: integer-like keys first, a JS object's rule)
          expect(got.map((r) => Object.keys(r))).toEqual(rows.map((r) => Object.keys(rowOf(r))));
          if (s.spacing === 'spaced' && rows.length > 0) seen.spaced++;
          if (s.spacing === 'pretty' && rows.length > 0) seen.pretty++;
          if (parts.filter((p) => p.length > 0).length > 2) seen.chunked++;
          if (s.ascii && /\\u/.test(body.toString())) seen.escaped++;
          const inexact = (v: unknown): boolean =>
            v instanceof JsonNumber ||
            (typeof v === 'object' && v !== null && Object.values(v).some(inexact));
          if (got.some(inexact)) seen.inexact++;
        },
      ),
      { numRuns: 600 },
    );
    // Not vacuous: every shape was met many times.
    for (const [what, n] of Object.entries(seen)) expect(n, what).toBeGreaterThan(40);
  });

  it('a row comes out as soon as its bytes are in, before the body ends', () => {
    const body = Buffer.from('{"report": [{"a": 1}, {"a": 2.50}, {"a": "x"}]}');
    const cut = body.indexOf('{"a": 2.50}');
    const parts = [body.subarray(0, cut + 3), body.subarray(cut + 3)];
    const t = new RowTokenizer();
    expect(t.push(parts[0]!).objects()).toEqual([{ a: 1 }]);
    expect(t.push(parts[1]!).objects()).toEqual([{ a: new JsonNumber('2.50') }, { a: 'x' }]);
    expect(t.end().objects()).toEqual([]);
  });

  it('a body cut off anywhere (past its first byte) is not JSON, never fewer rows', () => {
    let cutInRows = 0;
    fc.assert(
      fc.property(fc.array(rowModel, { minLength: 1, maxLength: 4 }), style, fc.nat(), (rows, s, at) => {
        const body = Buffer.from(bodyText(rows, s));
        const start = s.bom ? 4 : 1;
        const cut = start + (at % (body.length - start));
        const prefix = body.subarray(0, cut);
        // A cut inside the BOM or before the first byte is an empty body (no rows): not this case.
        expect(rowsOf(prefix)).toBe('the body is not JSON');
        if (cut > body.length / 2) cutInRows++;
      }),
      { numRuns: 300 },
    );
    expect(cutInRows).toBeGreaterThan(50);
  });

  it('holds one row and one chunk, not the answer: a 40 MB body fed in 64 kB chunks', () => {
    const row = Buffer.from(
      '{"effectiveDate": "2024-05-02", "isin": "DE0005140008", "closingPrice": 1302.917413, "w": 1.10},\n',
    );
    const chunk = Buffer.concat(Array.from({ length: Math.ceil(65536 / row.length) }, () => row));
    const t = new RowTokenizer();
    t.push(Buffer.from('{"report": ['));
    let rows = 0;
    // What the tokenizer keeps, not what waits for a collection: measured after one, every 50 chunks.
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    gc();
    const before = process.memoryUsage().arrayBuffers;
    let peak = 0;
    for (let sent = 0, i = 0; sent < 40e6; sent += chunk.length, i++) {
      // a fresh buffer each time, as a socket gives them
      rows += t.push(Buffer.from(chunk)).length;
      if (i % 50 === 0) {
        gc();
        peak = Math.max(peak, process.memoryUsage().arrayBuffers - before);
      }
    }
    rows += t.push(Buffer.from('{"a": 1}]}')).length + t.end().length;
    expect(rows).toBe(Math.ceil(40e6 / chunk.length) * (chunk.length / row.length) + 1);
    expect(peak).toBeLessThan(4e6);
  });
});

describe('RowTokenizer: malformed bodies', () => {
  const nested = (levels: number) => `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;
  it.each([
    // body → rows or why; broken: the service broke it (true), or another base URL would mend it (false)
    ['', 0, false],
    ['  \n', 0, false],
    ['\ufeff', 0, false],
    ['[]', 0, false],
    ['{"report":[]}', 0, false],
    ['\ufeff{ "report" : [ ] }', 0, false],
    ['{"report":[{"a":1}]}', 1, false],
    ['[{"a":1},{"b":2}]', 2, false],
    ['{"report":null}', 'expected an object with a "report" array', false],
    ['{"rows":[]}', 'expected an object with a "report" array', false],
    ['{}', 'expected an object with a "report" array', false],
    ['{"report":{}}', 'expected an object with a "report" array', false],
    ['null', 'expected an object with a "report" array', false],
    ['"text"', 'expected an object with a "report" array', false],
    ['12', 'expected an object with a "report" array', false],
    ['[[]]', 'the report rows are not JSON objects', false],
    ['{"report":[null]}', 'the report rows are not JSON objects', false],
    ['{"report":[1,2]}', 'the report rows are not JSON objects', false],
    ['{"report":[{"a":1},5,{"a":2}]}', 'the report rows are not JSON objects', false],
    ['{', 'the body is not JSON', true],
    ['{"report":[{"a":1}', 'the body is not JSON', true],
    ['{"report":[{"a":1},]}', 'the body is not JSON', true],
    ['[1] x', 'the body is not JSON', true],
    ['{"report":[1,2]} x', 'the body is not JSON', true],
    ['{"report":[{"a":01}]}', 'the body is not JSON', true],
    ['{"report":[{"a":1.}]}', 'the body is not JSON', true],
    ['{"report":[{"a":tru}]}', 'the body is not JSON', true],
    ['{"report":[{"a":"\\x"}]}', 'the body is not JSON', true],
    ['{"report":[{"a":"\t"}]}', 'the body is not JSON', true],
    ['{"report":[{"a":"\\u12G4"}]}', 'the body is not JSON', true],
    ['hello', 'the body is not JSON', false],
    ['<html><body>Login</body></html>', 'the body is not JSON', false],
    [
      Buffer.from([0x5b, 0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0x22, 0x7d, 0x5d]),
      'the body is not valid UTF-8',
      true,
    ],
    ['{"report":[],"report":[]}', 'the body has more than one "report"', true],
    [`{"report":[{"v":${nested(100_000)}}]}`, 'a row nests values more than 64 levels deep', true],
    [`{"report":[{"v":${nested(64)}}]}`, 'a row nests values more than 64 levels deep', true],
    [`{"report":[{"v":${nested(62)}}]}`, 1, false],
    [`{"report":[{"v":${nested(100_000)}}`, 'a row nests values more than 64 levels deep', true],
    [`{"report":[{"v":${nested(70)}}`, 'the body is not JSON', true],
    [`${'['.repeat(100_000)}${']'.repeat(100_000)}`, 'the body nests values more than 64 levels deep', true],
    [
      `{"report":[${'['.repeat(100_000)}${']'.repeat(100_000)}]}`,
      'the body nests values more than 64 levels deep',
      true,
    ],
    [`{"rows":${nested(100_000)}}`, 'the body nests values more than 64 levels deep', true],
    [`{"report":[1, ${nested(70)}]}`, 'the body nests values more than 64 levels deep', true],
    ['[[1],[2]]', 'the report rows are not JSON objects', false],
  ])('%#', (body, want, broken) => {
    const r = rowsOf(body);
    expect(typeof r === 'string' ? r : r.length).toBe(want);
    if (typeof r === 'string') {
      const t = new RowTokenizer();
      t.push(typeof body === 'string' ? Buffer.from(body) : body);
      let err: unknown;
      try {
        t.end();
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(MalformedBody);
      expect((err as MalformedBody).broken).toBe(broken);
    }
  });
});

describe('RowTokenizer: a row laid out as the row before (read by its one loop)', () => {
  // The first row is the template; the value of "a" in the rows after it is the case.
  const bodies = (v: string) => [
    `{"report":[{"a":1,"b":"x"},{"a":${v},"b":"x"},{"a":2,"b":"y"}]}`,
    `{"report": [{"a": 1, "b": "x"}, {"a": ${v}, "b": "x"}, {"a": 2, "b": "y"}]}`,
  ];
  it.each([
    '0',
    '-0',
    '-12.50',
    '1e5',
    '-1.5E-3',
    '123456789012345678901234567890',
    'true',
    'false',
    'null',
    '"é"',
    '"a\\"b"',
    '"\\u00e9"',
    '{"c":1}',
    '[1,2]',
    '""',
  ])('%s: the row the general descent gives when it is read alone', (v) => {
    const alone = (rowsOf(`[{"a":${v},"b":"x"}]`) as Row[])[0];
    for (const body of bodies(v)) {
      expect(() => JSON.parse(body)).not.toThrow();
      const rows = rowsOf(body) as Row[];
      expect(rows).toHaveLength(3);
      expect(stringifyLossless(rows[1])).toBe(stringifyLossless(alone));
    }
  });
  it.each([
    '01',
    '-',
    '-a',
    '1.',
    '.5',
    '1.e3',
    '1e',
    '+1',
    'nul',
    'nulls',
    'tru',
    'True',
    '"\t"',
    '"\\x"',
    '"a',
    'x',
  ])('%s: not JSON, wherever the body is cut', (v) => {
    for (const body of bodies(v)) {
      expect(() => JSON.parse(body)).toThrow();
      expect(rowsOf(body)).toBe('the body is not JSON');
      for (let cut = 1; cut < body.length; cut += 7) {
        const t = new RowTokenizer();
        t.push(Buffer.from(body.slice(0, cut)));
        t.push(Buffer.from(body.slice(cut)));
        expect(() => t.end()).toThrow('the body is not JSON');
      }
    }
  });
  /** The rows as objects, and how many of them the loop read (fastRows returning true). */
  const read = (parts: Buffer[]) => {
    const t = new RowTokenizer();
    const loop = vi.spyOn(t as unknown as { fastRows(): boolean }, 'fastRows');
    const rows: Row[] = [];
    for (const part of parts) rows.push(...t.push(part).objects());
    rows.push(...t.end().objects());
    return { rows, loop: loop.mock.results.filter((r) => r.value === true).length };
  };
  it('more rows in one chunk than one call of the loop has room for', () => {
    const rows = Array.from({ length: 20_000 }, (_, i) => ({ a: i, b: i % 3 ? 'x' : null }));
    const got = read([Buffer.from(JSON.stringify({ report: rows }))]);
    expect(got.rows).toEqual(rows);
    // One call from the tokenizer: its 60,000 entries are more than the loop's tape holds at once.
    expect(got.loop).toBe(1);
  });
  it('bytes at hand beyond what the loop takes (a 5 MB chunk) are read by the general descent', () => {
    const rows = Array.from({ length: 60_000 }, (_, i) => ({ a: i, b: 'x'.repeat(80) }));
    const got = read([Buffer.from(JSON.stringify(rows))]);
    expect(got.rows).toEqual(rows);
    expect(got.loop).toBe(0);
  });
  it('answers read in turns (the loop shares its memory) each give their own rows', () => {
    const a = Array.from({ length: 3000 }, (_, i) => ({ a: i, b: `row ${i}` }));
    const b = Array.from({ length: 3000 }, (_, i) => ({ x: `é${i}`, y: -i - 0.25, z: i % 2 === 0 }));
    const bodies = [a, b].map((rows) => Buffer.from(JSON.stringify(rows)));
    const ts = [new RowTokenizer(), new RowTokenizer()];
    const got: Row[][] = [[], []];
    for (let at = 0; at < bodies[0]!.length || at < bodies[1]!.length; at += 4096)
      for (const i of [0, 1]) got[i]!.push(...ts[i]!.push(bodies[i]!.subarray(at, at + 4096)).objects());
    for (const i of [0, 1]) got[i]!.push(...ts[i]!.end().objects());
    expect(got).toEqual([a, b]);
  });
  it('a value that is not UTF-8 in a row after the first: not valid UTF-8', () => {
    const body = Buffer.concat([
      Buffer.from('[{"a":"x","b":1},{"a":"'),
      Buffer.from([0xc3, 0x28]),
      Buffer.from('","b":2}]'),
    ]);
    expect(rowsOf(body)).toBe('the body is not valid UTF-8');
  });
});

// Any JSON value, as the value of a row's key: against JSON.parse for the shape and the literals for numbers.

/** Every number of a parsed value as text, in document order. */
function numberTexts(v: unknown, out: string[] = []): string[] {
  if (isJsonNumeric(v)) out.push(numberText(v));
  else if (Array.isArray(v)) for (const x of v) numberTexts(x, out);
  else if (v !== null && typeof v === 'object') for (const x of Object.values(v)) numberTexts(x, out);
  return out;
}

type Gen = { text: string; numbers: string[] };
const join = (xs: Gen[]) => xs.flatMap((x) => x.numbers);
const jsonGen: fc.Arbitrary<Gen> = fc.letrec<{ value: Gen }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    numberLiteral.map((n) => ({ text: n, numbers: [n] })),
    fc.string({ unit: 'binary' }).map((s) => ({ text: JSON.stringify(s), numbers: [] })),
    fc.constantFrom('true', 'false', 'null').map((t) => ({ text: t, numbers: [] })),
    fc
      .array(tie('value'), { maxLength: 5 })
      .map((xs) => ({ text: `[${xs.map((x) => x.text).join(' , ')}]`, numbers: join(xs) })),
    fc.array(fc.tuple(fc.string({ unit: 'binary' }), tie('value')), { maxLength: 5 }).map((kv) => ({
      text: `{${kv.map(([k, v]) => `${JSON.stringify(k)}:\n${v.text}`).join(',')}}`,
      // a duplicate key keeps only its last value
      numbers: join(kv.filter(([k], i) => !kv.slice(i + 1).some(([k2]) => k2 === k)).map(([, v]) => v)),
    })),
  ),
})).value;

/** Replaces every number by a placeholder, to compare structure only. */
function shape(v: unknown): unknown {
  if (isJsonNumeric(v)) return '#';
  if (Array.isArray(v)) return v.map(shape);
  if (v !== null && typeof v === 'object') {
    const o: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v))
      Object.defineProperty(o, k, { value: shape(x), enumerable: true });
    return o;
  }
  return v;
}

/** A JSON value read as the value `v` of a row; throws the reason when the body is refused. */
function parse(valueText: string): unknown {
  const r = rowsOf(`[{"v": ${valueText}}]`);
  if (typeof r === 'string') throw new SyntaxError(r);
  return r[0]!.v;
}

describe('RowTokenizer: any JSON value', () => {
  it.each([
    ['1234567.123456789012', '1234567.123456789012'],
    ['12345678901234567890', '12345678901234567890'],
    ['-0', '-0'],
    ['1.10', '1.10'],
    ['1e5', '1e5'],
    ['1E+05', '1E+05'],
    ['0.0000001', '0.0000001'],
    ['9007199254740993', '9007199254740993'],
    ['{"v":996.57944,"w":1.000,"x":null}', '{"v":996.57944,"w":1.000,"x":null}'],
    [' [ 1 , "a\\u0000b" , true ] ', '[1,"a\\u0000b",true]'],
    ['"\\ud83d\\ude00 \\ud800 \\u00e9\\/"', '"😀 \\ud800 é/"'],
  ])('keeps the digits of %s', (text, want) => {
    expect(stringifyLossless(parse(text))).toBe(want);
  });

  it.each([
    ['0.25', 0.25],
    ['13029174', 13029174],
    ['1302.917413', 1302.917413],
    ['-0.5', -0.5],
    ['0.000001', 0.000001],
    ['123456789012345', 123456789012345],
  ])('gives a plain number when a double is exact: %s', (text, want) => {
    expect(parse(text)).toBe(want);
  });

  it('keeps __proto__ as an own property; a duplicate key wins last in the first position (as JSON.parse)', () => {
    const v = parse('{"__proto__":{"x":1.10},"a":1}') as Record<string, unknown>;
    expect(Object.getPrototypeOf(v)).toBe(Object.prototype);
    expect(Object.keys(v)).toEqual(['__proto__', 'a']);
    expect(stringifyLossless(v)).toBe('{"__proto__":{"x":1.10},"a":1}');
    expect(stringifyLossless(parse('{"a":1.10,"b":2,"a":3.30}'))).toBe('{"a":3.30,"b":2}');
  });

  it('agrees with JSON.parse on everything but numbers, and keeps every number literal', () => {
    fc.assert(
      fc.property(jsonGen, ({ text, numbers }) => {
        const v = parse(text);
        expect(shape(v)).toEqual(shape(JSON.parse(text)));
        expect(numberTexts(v).sort()).toEqual([...numbers].sort());
      }),
      { numRuns: 300 },
    );
  });

  it('makes a JS number exactly when String(Number(raw)) === raw', () => {
    fc.assert(
      fc.property(numberLiteral, (raw) => {
        expect(parse(raw)).toEqual(expected(raw));
      }),
      { numRuns: 3000 },
    );
  });

  it('refuses wherever JSON.parse throws', () => {
    let refused = 0;
    fc.assert(
      fc.property(
        jsonGen.map((g) => g.text),
        fc.nat(),
        fc.constantFrom('', ',', ']', '}', '"', '-', '.', 'e', '0', ' ', '\\'),
        (text, at, junk) => {
          const i = at % (text.length + 1);
          const broken = text.slice(0, i) + junk + text.slice(i);
          // Junk between a surrogate pair's halves has no UTF-8 form: the body would differ from the text.
          if (!(broken as string & { isWellFormed(): boolean }).isWellFormed()) return;
          let native: unknown;
          try {
            native = JSON.parse(broken);
          } catch {
            refused++;
            expect(() => parse(broken)).toThrow('the body is not JSON');
            return;
          }
          expect(shape(parse(broken))).toEqual(shape(native));
        },
      ),
      { numRuns: 500 },
    );
    expect(refused).toBeGreaterThan(100);
  });
});

/** What a format gives for rows that are objects, written without the writers (CSV/TSV: all the rows' columns). */
function referenceOutput(format: WriterFormat, rows: Row[], columns: Column[]): string {
  switch (format) {
    case 'ndjson':
      return rows.map((r) => `${stringifyLossless(r)}\n`).join('');
    case 'json':
      return `${stringifyLossless(rows)}\n`;
    default: {
      const cell = format === 'csv' ? csvCell : tsvCell;
      const lines = rows.map((r) => {
        const line = columns
          .map((c) => {
            // A nested object's leaves are their own columns: a column it extends is empty (59d2a08).
            const v = valueAt(r, c.path);
            return isNested(v) && Object.keys(v).length > 0 ? '' : cell(cellText(v));
          })
          .join(format === 'csv' ? ',' : '\t');
        return line === '' && columns.length === 1 && format === 'csv' ? '""' : line;
      });
      return `${delimitedHeader(columns, format as 'csv')}\n${lines.map((l) => `${l}\n`).join('')}`;
    }
  }
}

describe('the writers over bodies of every shape', () => {
  it('give what the rows as objects give (JSON.stringify, cells by column), with and without lead fields', () => {
    const seen = { copied: 0, walked: 0, objects: 0, lead: 0 };
    // Answers with a batch of rows the writers copy at once (RowBatch.flags 0).
    let tightAnswers = 0;
    fc.assert(
      fc.property(
        fc.array(rowModel, { minLength: 1, maxLength: 6 }),
        style,
        fc.array(fc.nat(), { maxLength: 8 }),
        fc.constantFrom<WriterFormat>('csv', 'tsv', 'ndjson', 'json'),
        fc.option(fc.constantFrom({ portfolioId: 42 }, { portfolioId: 7, isin: 'x,y' }), { nil: undefined }),
        (models, s, cuts, format, lead) => {
          const rows = models.map((m) => ({ ...lead, ...rowOf(m) }));
          const columns = seenColumns(rows);
          const w = createWriter({ format, columns: () => columns });
          const a = w.answer('one', lead);
          let out = '';
          const t = new RowTokenizer();
          let tight = false;
          const write = (batch: RowBatch) => {
            tight ||= batch.flags === 0 && batch.length > 1;
            out += String(a.rows(batch));
          };
          for (const part of chunks(Buffer.from(bodyText(models, s)), cuts)) write(t.push(part));
          write(t.end());
          a.done();
          out += String(w.end().text);
          if (rows.length === 0 || rows.every((r) => Object.keys(r).length === 0)) return;
          expect(out).toBe(Buffer.from(referenceOutput(format, rows, columns)).toString());
          if (lead) seen.lead++;
          if (s.spacing === 'compact' && !s.ascii) seen.copied++;
          else seen.walked++;
          if (rows.some((r) => Object.keys(r).some((k) => /^[0-9]/.test(k)))) seen.objects++;
          if (tight) tightAnswers++;
        },
      ),
      { numRuns: 600 },
    );
    for (const [what, n] of Object.entries(seen)) expect(n, what).toBeGreaterThan(30);
    expect(tightAnswers).toBeGreaterThan(10);
  });

  it('rows laid out alike (the same keys, any values) give what their objects give, cut anywhere', () => {
    /** The model with its scalars replaced, in order, by `values` (cycled). */
    const refill = (m: Model, values: Model[], at: { i: number }): Model => {
      if (m !== null && typeof m === 'object' && 'obj' in m)
        return { obj: m.obj.map(([k, v]) => [k, refill(v, values, at)] as [string, Model]) };
      if (m !== null && typeof m === 'object' && 'arr' in m)
        return { arr: m.arr.map((v) => refill(v, values, at)) };
      return values[at.i++ % values.length]!;
    };
    let alike = 0;
    const loop = vi.spyOn(RowTokenizer.prototype as unknown as { fastRows(): boolean }, 'fastRows');
    fc.assert(
      fc.property(
        rowModel,
        fc.array(
          fc.array(fc.oneof({ weight: 6, arbitrary: scalar }, nested), { minLength: 1, maxLength: 8 }),
          {
            minLength: 2,
            maxLength: 8,
          },
        ),
        style,
        fc.array(fc.nat(), { maxLength: 8 }),
        fc.constantFrom<WriterFormat>('csv', 'ndjson', 'json'),
        (layout, fills, s, cuts, format) => {
          const models = fills.map((values) =>
            layout.map(([k, v]) => [k, refill(v, values, { i: 0 })] as [string, Model]),
          );
          const rows = models.map(rowOf);
          const parts = chunks(Buffer.from(bodyText(models, s)), cuts);
          expect(tokenize(parts).rows).toEqual(rows);
          const out = writtenAs(format, parts, rows);
          if (rows.every((r) => Object.keys(r).length === 0)) return;
          expect(out).toBe(Buffer.from(referenceOutput(format, rows, seenColumns(rows))).toString());
          if (layout.length > 2) alike++;
        },
      ),
      { numRuns: 400 },
    );
    expect(alike).toBeGreaterThan(50);
    expect(loop.mock.results.filter((r) => r.value === true).length).toBeGreaterThan(200);
    loop.mockRestore();
  });

  it('a column first seen in a later batch keeps its key whole: a dot in a key is no nesting', () => {
    const w = createWriter({ format: 'csv' });
    const a = w.answer('one');
    const t = new RowTokenizer();
    let out = String(a.rows(t.push(Buffer.from('[{"a":1},'))));
    out += String(a.rows(t.push(Buffer.from('{"a":2,"b.c":3,"d":{"e.f":4}}]'))));
    out += String(a.rows(t.end()));
    const widened = a.done();
    expect(widened?.header).toBe('a,b.c,d.e.f');
    expect(out).toBe('a\n1\n2,3,4\n');
  });

  it('find every column of rows that change shape mid-answer, cut anywhere, as the rows as objects have them', async () => {
    /** The model with its scalars replaced, in order, by `values` (cycled). */
    const refill = (m: Model, values: Model[], at: { i: number }): Model => {
      if (m !== null && typeof m === 'object' && 'obj' in m)
        return { obj: m.obj.map(([k, v]) => [k, refill(v, values, at)] as [string, Model]) };
      return values[at.i++ % values.length]!;
    };
    const flat = fc.uniqueArray(fc.tuple(key, fc.oneof({ weight: 4, arbitrary: scalar }, nested)), {
      minLength: 1,
      maxLength: 5,
      selector: ([k]) => k,
    });
    const seen = { grew: 0, lead: 0 };
    await fc.assert(
      fc.asyncProperty(
        fc.array(flat, { minLength: 1, maxLength: 3 }),
        fc.array(fc.tuple(fc.nat(), fc.array(scalar, { minLength: 1, maxLength: 4 })), {
          minLength: 1,
          maxLength: 10,
        }),
        style,
        fc.array(fc.nat(), { maxLength: 8 }),
        fc.constantFrom<'csv' | 'tsv'>('csv', 'tsv'),
        fc.option(fc.constantFrom({ portfolioId: 42 }, { portfolioId: 7, isin: 'x,y' }, { Net: 1 }), {
          nil: undefined,
        }),
        async (layouts, picks, s, cuts, format, lead) => {
          const models = picks.map(([i, values]) =>
            layouts[i % layouts.length]!.map(([k, v]) => [k, refill(v, values, { i: 0 })] as [string, Model]),
          );
          const rows = models.map((m) => ({ ...lead, ...rowOf(m) }));
          const columns = seenColumns(rows);
          if (columns.length === 0) return;
          const names = columns.map((c) => c.name);
          const collide = names.some((n) => names.some((m) => m.startsWith(`${n}.`)));
          const w = createWriter({ format });
          const a = w.answer('one', lead);
          const t = new RowTokenizer();
          const out: Buffer[] = [];
          const take = (c: unknown) => out.push(Buffer.from(String(c)));
          for (const part of chunks(Buffer.from(bodyText(models, s)), cuts)) take(a.rows(t.push(part)));
          take(a.rows(t.end()));
          const widened = a.done();
          take(w.end().text);
          let text = Buffer.concat(out).toString();
          if (widened) {
            // A key that is an object in one row and a leaf in another: rows written before the leaf's
            // column came have no cell for it (a widened file pads them), where the object would be JSON.
            if (collide) return;
            const wide: Buffer[] = [];
            await widen(Readable.from([Buffer.concat(out)]), widened, async (c) => void wide.push(c));
            // A lone empty cell was written quoted (not a blank line); padded, `"",` reads as `,` does.
            text = Buffer.concat(wide).toString().replace(/^"",/gm, ',');
            seen.grew++;
          }
          if (lead) seen.lead++;
          expect(text).toBe(Buffer.from(referenceOutput(format, rows, columns)).toString());
        },
      ),
      { numRuns: 500 },
    );
    for (const [what, n] of Object.entries(seen)) expect(n, what).toBeGreaterThan(30);
  });

  it.each([
    ['a key twice: the last value, where the first was', '[{"a": 1, "b": 2, "a": {"x": 3}}]'],
    ['a key twice in a nested object', '[{"o": {"x": 1, "x": 2}, "n": 1}]'],
    ['integer keys, which JS puts first', '[{"b": 1, "10": 2, "2": 3}]'],
    ['objects in an array', '[{"a": [{"x": 1}, {"x": "y\\n"}], "b": [1, [2, {}]]}]'],
    ['escapes JSON.stringify writes otherwise', '[{"s": "\\u00e9\\/\\u0041\\ud83d\\ude00", "t": "\\ud800"}]'],
    ['exponents and digits beyond a double', '[{"e": 5E-13, "f": -0, "g": 1.10, "h": 9007199254740993}]'],
    ['empty objects and arrays', '[{"o": {}, "a": [], "n": {"p": {}}}]'],
    [
      'keys in another order per row, fields missing',
      '[{"a": 1, "b": "x"}, {"b": "y"}, {"c": null, "a": 2}]',
    ],
    ['a key named __proto__', '[{"__proto__": {"x": 1}, "a": 2}]'],
    // The row's own value wins over the lead's, an object too (its JSON in the lead's column).
    ['a lead field the row has as an object', '[{"a": 1}, {"a": 2, "portfolioId": {"x": 1}}]'],
  ])('%s', (_what, body) => {
    const rows = rowsOf(body) as Row[];
    expect(rows.map((r) => Object.keys(r))).toEqual(JSON.parse(body).map((r: Row) => Object.keys(r)));
    for (const format of ['csv', 'tsv', 'ndjson', 'json'] as const) {
      for (const lead of [undefined, { portfolioId: 42 }]) {
        const want = lead ? rows.map((r) => ({ ...lead, ...r })) : rows;
        const columns = seenColumns(want);
        const w = createWriter({ format, columns: () => columns });
        const a = w.answer('one', lead);
        const t = new RowTokenizer();
        const out = String(a.rows(t.push(Buffer.from(body)))) + String(a.rows(t.end()));
        a.done();
        // As bytes: a lone surrogate is written as U+FFFD either way.
        expect(out + String(w.end().text)).toBe(
          Buffer.from(referenceOutput(format, want, columns)).toString(),
        );
      }
    }
  });
});
