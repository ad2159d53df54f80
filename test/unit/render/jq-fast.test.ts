import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Row } from '../../../src/domain.js';
import { decimalSpelling } from '../../../src/json/decimal.js';
import { stringifyLossless } from '../../../src/json/lossless.js';
import { compileJq, type JqProgram } from '../../../src/render/jq.js';
import type { RowBatch } from '../../../src/rows/tape.js';
import { RowTokenizer } from '../../../src/rows/tokenizer.js';

/** Bodies as the service might send them: usual rows, literals jq 1.7 spells otherwise, spaces and escapes. */
const BODIES = [
  '[{"isin":"US0001","indexWeighting":0.0125,"price":101.50,"name":"A","tags":["x","y"],"nested":{"a":1}},' +
    '{"isin":"DE0002","indexWeighting":0.009,"price":1234567.123456789012,"name":"Bé 😀","tags":[],"nested":null},' +
    '{"isin":null,"indexWeighting":0.01000000000000000001,"price":-0.5,"name":"","tags":[1,"2"],"nested":{"a":"s"}}]',
  '[{"a":1e2,"b":0.000000000000000001,"c":-0,"d":1.0,"e":9007199254740993,"f":0.01000000000000000001,' +
    '"g":100E-2,"h":-1.5e300,"s":"x\\u007fy\\n\\"q\\"\\t/","k":"2","tags":[0.1,1E-7]}]',
  '[ {"isin" : "A\\"B", "price" : 0.5 , "nested": {"b":1,"a":2}, "tags": [ ] , "name": "\\ud83d\\ude00"} ]',
  '[{"b":1,"a":2,"2":3,"name":"z","price":3}]',
  // A lone low half, which jq reads as U+FFFD (a lone high half fails).
  '[{"isin":"a\\udc00b","name":"\\\\ud83d\\ude00","tags":["\\udfff",1],"nested":{"a":"\\udc01"},"price":2}]',
  // A key no row has, read where the last row ended: inside this row's array.
  '[{"k":3,"tags":[]},{"k":1,"tags":[false,{"a":5}]}]',
];

/** Filters in the subset: run by render/jq-fast.ts, each checked against jq-web on every body. */
const FAST = [
  '.[] | select(.indexWeighting > 0.01) | .isin',
  // Literals one double apart or the same double: compared by their digits.
  '.[] | [.f > 0.01, .f == 0.01000000000000000001, .e > 9007199254740992, .e < 9007199254740994, .d == 1]',
  '.[]',
  ' .[] | .price',
  '.[] | .nested.a',
  '.[] | {isin, w: .indexWeighting, "n": .name}',
  '.[] | [.isin, .price]',
  '.[] | select(.name == "A" or .price >= 1000) | .name',
  'map(.isin)',
  'map(select(.indexWeighting > 0.01))',
  '[.[] | .price]',
  '.[] | empty',
  '.[] | .price == 1234567.123456789012, .price < 1234567.123456789013',
  '.[] | .name < "B", .name >= "😀", [.tags, .nested] < [.tags, null]',
  // jq-web would give a constant the input's spelling of the same number (render/jq.ts respell).
  '.[] | .price, 1e3, 1.0, 0.5, 100000000000000000001, "s", null, true, []',
  '.[] | {a: (1, 2), b: (.isin, .name)}',
  '.[] | .a, .b, .c, .d, .e, .f, .g, .h',
  '.[] | .s, [.s], .k, .k > "10", .tags',
  '.[] | .name.x',
  '.[] | .tags.x',
  '.[] | .never_sent',
  '.[] | .f > 0.01, .f == 0.01, .e > 9007199254740992, .h < 1e300',
  '.[] | (.tags == []) | not',
  '.[] | select(.price.x)',
  '.[] | {isin, n: .nested.a} | select(.n != null and .isin != "x")',
  '.[] | "\\(.isin)\\t\\(.price) \\(.tags)"',
  '.[] | tostring',
  '.[] | [.nested, .tags] | tostring',
  '.[] | [.a, .b, .g] | tostring',
  // A row inside an array or object: written whole, its numbers as sent (or as jq spells them for tostring).
  '.[] | [., .isin], {r: .}, ([.] | tostring)',
  '.[] | "a\\(1, 2)b\\("x", "y")\\u00e9"',
  // Errors at run time: a number or a string indexed.
  '.[] | .price.currency',
  '.[] | .isin, .nested.a.b',
];

/** Outside the subset: left to jq-web. */
const SLOW = [
  // Rows hold no arrays and their keys are names: indexes, `.[]`, `map`, `keys` and `."key"` inside a filter.
  '.[] | .tags[]',
  '.[] | .tags[0], .tags[-1], .tags[5]',
  '.[] | ."isin", .["name"]',
  '.[] | keys',
  '.[] | [.[]]',
  '.[] | [.tags[] | select(. != "x")], (.tags | map(tostring)), (.nested // {} | map(.))',
  '.[] | .nested | keys[0]',
  '.[] | .nested[]',
  '.[] | .price | keys',
  '.[] | .tags[0] | .[0]',
  'sort',
  '.[] | .a?',
  '.[] | .a as $x | $x',
  '.[0]',
  'length',
  '.[] | [.[]] | @csv',
  '.[] | .a + 1',
  '.[] | ..',
  'first(.[])',
  '.[] | {(.k): 1}',
  '.[] | {"1": 2}',
  '.[] | .tags[1:]',
  '.[] | .price # a comment',
  '.[] | .a | test("x")',
  // `//`, `if`, `length` and other builtins, arithmetic and negative numbers.
  '.[] | select(.isin != null and (.tags | length) > 0) | .isin',
  '.[] | length, (.name | length), (.price | length)',
  '.[] | .nested // "none"',
  '.[] | if .price > 100 then "big" elif .price > 1 then "mid" else "small" end',
  '.[] | if .isin then 1 end',
  '.[] | (.tags | length == 0) | not',
  '.[] | type, (.nested | type)',
  '.[] | select(.price > -1) | .price',
  '.[] | .f > 0.01, .f == 0.01, (.f | length) == 0.01, .e > 9007199254740992, .h < -1e300',
  '.[] | {a: .price | tostring, t: .tags | length}',
  '.[] | .nested | .a // .b',
  '.[] | select((.tags | length) > 1 and .price > 100) | .name',
  '.[] | true | length',
  '.[] | -1',
  '.[] | 01',
  'map(.a) | map(.b)',
  '[.[] | .a], [.[] | .b]',
];

/**
 * What a filter prints for a body, or its error: through the fast path, or jq-web over the rows' text.
 * A program compiled once may be handed in for several bodies: each run takes a new writer and collector.
 */
async function outcome(
  filter: string | JqProgram,
  body: string | Buffer[],
  fast: boolean,
  lead?: Row,
): Promise<string> {
  const jq = typeof filter === 'string' ? await compileJq(filter, { fast }) : filter;
  const t = new RowTokenizer();
  const collect = jq.collect();
  const answer = fast ? jq.writer!().answer('', lead) : undefined;
  const lines: string[] = [];
  // A batch is read before the next push: that reuses its bytes and tape.
  const take = (b: RowBatch) => {
    if (answer) collect.write(answer.rows(b));
    else lines.push(...b.objects(lead).map((r) => stringifyLossless(r)));
  };
  try {
    for (const chunk of typeof body === 'string' ? [Buffer.from(body)] : body) take(t.push(chunk));
    take(t.end());
    if (!answer)
      return jq.run(jq.format === 'json' ? `[${lines.join(',')}]` : lines.map((l) => `${l}\n`).join(''));
    answer.done();
    return await collect.end();
  } catch (err) {
    return `error: ${(err as Error).message}`;
  }
}

describe('--jq’s fast path gives what jq-web gives, byte for byte', () => {
  it.each(FAST.flatMap((f) => BODIES.map((b, i) => [f, i, b])))('%s on body %i', async (filter, _, body) => {
    expect(await outcome(filter as string, body as string, true)).toBe(
      await outcome(filter as string, body as string, false),
    );
  });

  // Several portfolios: each row after its portfolioId (a row's own portfolioId wins, in the lead's place).
  it.each(FAST.flatMap((f) => [0, 3].map((i) => [f, i])))('%s on body %i after a lead', async (filter, i) => {
    const body = i === 3 ? BODIES[3]!.replace('{"b"', '{"portfolioId":"own","b"') : BODIES[i as number]!;
    const lead = { portfolioId: 42, isin: 'lead' };
    expect(await outcome(filter as string, body, true, lead)).toBe(
      await outcome(filter as string, body, false, lead),
    );
  });

  it('the subset’s filters take the fast path, the others do not', async () => {
    for (const f of FAST) expect([f, (await compileJq(f)).writer]).toEqual([f, expect.any(Function)]);
    for (const f of SLOW) expect([f, (await compileJq(f)).writer]).toEqual([f, undefined]);
  });

  it('the cases are not vacuous: rows printed, errors raised', async () => {
    const results = await Promise.all(FAST.map((f) => outcome(f, BODIES[0]!, true)));
    expect(results.filter((r) => r.startsWith('error: --jq: ')).length).toBeGreaterThan(4);
    expect(results.filter((r) => r.split('\n').length > 3).length).toBeGreaterThan(15);
  });

  it('holds a failed answer’s error back until the answer is done; a dropped one does not count', async () => {
    const jq = await compileJq('.[] | .a.b');
    const collect = jq.collect();
    const writer = jq.writer!();
    const t = new RowTokenizer();
    const dropped = writer.answer();
    expect(dropped.rows(t.push(Buffer.from('[{"a":"x"}]')))).toBe('');
    const kept = writer.answer();
    collect.write(kept.rows(new RowTokenizer().push(Buffer.from('[{"a":{"b":1}},{"a":null}]'))));
    kept.done();
    expect(await collect.end()).toBe('1\nnull\n');
  });
});

/** Filters built from the subset's pieces, valid jq or not (`a == b == c`, `{a: x, y}` are not). */
const { filter: randomFilter } = fc.letrec<{ filter: string }>((tie) => ({
  filter: fc.oneof(
    { depthSize: 'small' },
    fc.constantFrom(
      ...['.', '.isin', '.price', '.tags', '.nested', '.name', '.a', '.f', '1', '0.01', '1e3', '"x"'],
      ...['null', 'true', 'not', 'tostring', 'empty', '{isin}', '[]', '{}', '.nested.a'],
    ),
    fc
      .tuple(tie('filter'), fc.constantFrom('|', ',', '==', '!=', '<', '>=', 'and', 'or'), tie('filter'))
      .map(([a, op, b]) => `${a} ${op} ${b}`),
    tie('filter').map((f) => `(${f})`),
    tie('filter').map((f) => `[${f}]`),
    tie('filter').map((f) => `select(${f})`),
    tie('filter').map((f) => `{a: ${f}, "b": .name}`),
    tie('filter').map((f) => `"s\\(${f})t"`),
  ),
}));

describe('any filter the fast path takes', () => {
  it('is jq that compiles, and gives what jq-web gives on every body (property)', async () => {
    let taken = 0;
    await fc.assert(
      fc.asyncProperty(randomFilter, async (f) => {
        const filter = `.[] | ${f}`;
        // Outside the subset: jq-web's, which may well refuse it.
        const fast = await compileJq(filter).catch(() => undefined);
        if (!fast?.writer) return;
        taken++;
        const slow = await compileJq(filter, { fast: false });
        expect(slow.writer).toBeUndefined();
        // Each mode compiled once for the six bodies: jq-web's compile check is a whole jq run.
        for (const body of BODIES)
          expect(await outcome(fast, body, true)).toBe(await outcome(slow, body, false));
      }),
      { numRuns: 200, seed: 33 },
    );
    expect(taken).toBeGreaterThan(60);
  }, 120_000);
});

/** Keys the filters below name; rows take them in any order, some left out, some nested again. */
const KEYS = ['isin', 'w', 'name', 'n'];
const literal = fc.oneof(
  fc.constantFrom('0.01', '0.0100', '1E-2', '0.01000000000000000001', '9.10979e-05', '-0', '1e400', '100'),
  fc
    .tuple(fc.integer({ min: -999, max: 999 }), fc.nat(99999), fc.constantFrom('', 'e-3', 'E+2', 'e1'))
    .map(([i, f, e]) => `${i}.${f}${e}`),
);
const text = fc.oneof(
  fc.string({ maxLength: 5 }),
  fc.constantFrom('a"b', 'x\\y', 'é😀', '\u007f', 'tab\t', 'lone \ud800'),
);
type Cell = { num: string } | string | null | boolean | [string, Cell][];
const cell: fc.Arbitrary<Cell> = fc.oneof(
  { weight: 4, arbitrary: literal.map((num) => ({ num })) },
  { weight: 3, arbitrary: text },
  fc.constantFrom(null, true),
  fc.uniqueArray(
    fc.tuple(
      fc.constantFrom(...KEYS),
      literal.map((num) => ({ num })),
    ),
    {
      maxLength: 2,
      selector: ([k]) => k,
    },
  ),
);
const generatedRow = fc.uniqueArray(fc.tuple(fc.constantFrom(...KEYS, 'x', '2'), cell), {
  maxLength: 5,
  selector: ([k]) => k,
});

/** A row's text: compact, spaced as Python's json.dumps writes it, or pretty; escapes as `\u` or as is. */
function rowText(row: [string, Cell][], spacing: string, ascii: boolean): string {
  const str = (s: string) =>
    ascii
      ? JSON.stringify(s).replace(
          /[^\x20-\x7e]/g,
          (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
        )
      : JSON.stringify(s);
  const value = (c: Cell): string =>
    c === null || typeof c === 'boolean'
      ? String(c)
      : typeof c === 'string'
        ? str(c)
        : Array.isArray(c)
          ? rowText(c, spacing, ascii)
          : c.num;
  const [colon, comma] =
    spacing === 'compact' ? [':', ','] : spacing === 'spaced' ? [': ', ', '] : [': ', ',\n  '];
  return `{${row.map(([k, v]) => `${str(k)}${colon}${value(v)}`).join(comma)}}`;
}

describe('the fast path on generated bodies, cut into chunks anywhere', () => {
  const filters = [
    '.[] | select(.w > 0.01) | .isin',
    '.[] | select(.w <= 0.01 and .name != null) | [.isin, .w, .n]',
    '.[] | .n.w, .w, .isin',
    'map(select(.isin) | {isin, w})',
    '.[] | select(.n) | .n',
    // Whole rows: printed from the body's bytes where they are what jq prints.
    '.[] | select(.w > 0.01)',
    'map(select(.isin != null))',
  ];
  // A test per filter, each over the same 150 bodies (one seed): one hang limit each, not one for all.
  it.each(filters)(
    '%s gives what jq-web gives (property)',
    async (filter) => {
      // Compiled once, not per body: jq-web's compile check is a whole jq run.
      const [fast, slow] = [await compileJq(filter), await compileJq(filter, { fast: false })];
      await fc.assert(
        fc.asyncProperty(
          fc.array(generatedRow, { minLength: 1, maxLength: 12 }),
          fc.constantFrom('compact', 'spaced', 'pretty'),
          fc.boolean(),
          fc.array(fc.nat(), { maxLength: 4 }),
          async (rows, spacing, ascii, cuts) => {
            // jq-web's output is given back the body's spelling of a literal (render/jq.ts respell): where
            // the body has two spellings of one decNumber (`0.01`, `1E-2`) it cannot tell which a row had,
            // so those numbers are compared as jq spells them.
            const raws = new Map<string, Set<string>>();
            for (const raw of JSON.stringify(rows).match(/(?<="num":")[^"]+/g) ?? []) {
              const spelled = decimalSpelling(raw);
              raws.set(spelled, (raws.get(spelled) ?? new Set()).add(raw));
            }
            const undecided = new Set(
              [...raws].filter(([, s]) => s.size > 1).flatMap(([spelled, s]) => [spelled, ...s]),
            );
            const body = Buffer.from(
              `{"report": [${rows.map((r) => rowText(r, spacing, ascii)).join(', ')}]}`,
            );
            const at = [...new Set(cuts.map((c) => c % body.length))].sort((a, b) => a - b);
            const parts = [0, ...at].map((from, i) => body.subarray(from, [...at, body.length][i]));
            // jq-web names a row's parse error (a lone surrogate) in the failed row alone (line 1) on the fast path.
            const same = (o: string) =>
              o
                .replace(/ at line \d+, column \d+$/, '')
                .replace(/-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g, (n) =>
                  undecided.has(n) ? decimalSpelling(n) : n,
                );
            expect(same(await outcome(fast, parts, true))).toBe(same(await outcome(slow, parts, false)));
          },
        ),
        { numRuns: 150, seed: 12 },
      );
    },
    120_000,
  );
});

describe('lone surrogates: escapes read left to right', () => {
  it.each([
    '"\\ud83d\\ude00"',
    '"\\ud800"',
    '"\\udc00"',
    '"\\ud83d x \\ude00"',
    '"\\ud83d\\ud83d\\ude00"',
    '"\\udc00 \\ud800"',
    '"\\\\ud800"', // an escaped backslash, then the text "ud800"
    '"\\\\\\ud800"',
    '"\\\\ud83d\\ude00"', // the low half alone: its "high half" is text
    '"a\\"b\\n\\u00e9"',
  ])('%s in a value or a key: the fast path fails or mends the row as jq-web does', async (text) => {
    const body = `[{"s":${text},"w":1},{${text}:2}]`;
    // A parse error is named in the failed row alone on the fast path: its column differs.
    const same = (o: string) => o.replace(/ at line \d+, column \d+$/, '');
    for (const filter of ['.[] | .s', '.[] | select(.w > 0)', '.[]'])
      expect(same(await outcome(filter, body, true))).toBe(same(await outcome(filter, body, false)));
  });

  it('a row whose text holds `\\\\ud800` goes through the fast path as jq-web reads it', async () => {
    const body = '{"report":[{"isin":"C:\\\\ud800","w":1},{"isin":"\\ud83d\\ude00","w":2}]}';
    for (const filter of ['.[] | .isin', '.[] | select(.w > 0)'])
      expect(await outcome(filter, body, true)).toBe(await outcome(filter, body, false));
    expect(await outcome('.[] | .isin', body, true)).toBe('C:\\ud800\n😀\n');
  });
});

describe('a filter nested deeper than the fast path’s compiler recurses', () => {
  it('is left to jq-web (a test per ISIN, as a script builds it), not an internal error', async () => {
    const tests = Array.from({ length: 1000 }, (_, i) => `.isin == "X${i}"`);
    const filter = `.[] | select(${tests.join(' or ')}) | .name`;
    const body = '[{"isin":"A","name":"EUR"},{"isin":"X7","name":"x"}]';
    const fast = (await compileJq(filter)).writer !== undefined;
    expect(await outcome(filter, body, fast)).toBe('x\n');
  });
});
