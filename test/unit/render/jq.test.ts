import { describe, expect, it } from 'vitest';
import { JsonNumber } from '../../../src/domain.js';
import { decimalSpelling } from '../../../src/json/decimal.js';
import { stringifyLossless } from '../../../src/json/lossless.js';
import { compileJq, type JqProgram } from '../../../src/render/jq.js';

/** These tests are jq-web's: a filter in render/jq-fast.ts's subset would otherwise not load it. */
const jqWeb = (filter: string) => compileJq(filter, { fast: false });

/** The rows as prs hands them to the filter: -f json's array, or one a line. */
const rowsText = (jq: JqProgram, rows: unknown[]) =>
  jq.format === 'json'
    ? `[${rows.map(stringifyLossless).join(',')}]`
    : rows.map((r) => `${stringifyLossless(r)}\n`).join('');

describe('decimalSpelling (jq 1.7’s spelling of a literal it passes through)', () => {
  it.each([
    ['0', '0'],
    ['-0', '-0'],
    ['1.10', '1.10'],
    ['1234567.123456789012', '1234567.123456789012'],
    ['12345678901234567890', '12345678901234567890'],
    ['0.000001', '0.000001'],
    ['0.0000001', '1E-7'],
    ['0.000000000000000001', '1E-18'],
    ['1e5', '1E+5'],
    ['15E2', '1.5E+3'],
    ['100E-2', '1.00'],
    ['6.02214076E+23', '6.02214076E+23'],
    ['0.00', '0.00'],
  ])('%s → %s', (raw, want) => expect(decimalSpelling(raw)).toBe(want));
});

describe('compileJq', () => {
  it('runs a filter over the rows’ exact text, gh style', async () => {
    const jq = await jqWeb('.[] | .a, .s, .o');
    const rows = [
      { a: new JsonNumber('0.000000000000000001'), s: 'x\ny', o: { n: new JsonNumber('9007199254740993') } },
      { a: 1.5, s: '', o: [new JsonNumber('1e5')] },
    ];
    expect(jq.format).toBe('ndjson');
    expect(jq.run(rowsText(jq, rows))).toBe(
      '0.000000000000000001\nx\ny\n{"n":9007199254740993}\n1.5\n\n[1e5]\n',
    );
  });

  it('computes with numbers as jq does (a double), and gives back no literal for a computed value', async () => {
    const jq = await jqWeb('.[] | .a * 1, .a');
    expect(jq.run('{"a":0.000000000000000001}')).toBe('1e-18\n0.000000000000000001\n');
  });

  it('no result: no output', async () => {
    expect((await jqWeb('.[] | select(false)')).run('1\n2\n')).toBe('');
    expect((await jqWeb('map(select(false))[]')).run('[1,2]')).toBe('');
  });

  it.each(['.[', 'nosuch', '. as', '{'])('%j does not compile: a UsageError', async (f) => {
    await expect(jqWeb(f)).rejects.toMatchObject({ name: 'UsageError', exitCode: 2 });
  });

  it('checks a filter that never ends without running it; a trailing comment is fine', async () => {
    await expect(jqWeb('repeat(1)')).resolves.toBeDefined();
    await expect(jqWeb('.[] # the rows')).resolves.toBeDefined();
  });
});

describe('a filter `.[] | f` runs as `f` on each row', () => {
  it.each([
    ['.[] | .a', 'ndjson'],
    [' .[]|.a', 'ndjson'],
    ['.[]', 'json'],
    ['(.[] | .a)', 'json'],
    ['[.[] | .a]', 'json'],
    ['def f: .a; .[] | f', 'json'],
    ['.[] | input', 'json'],
    ['.[] | [., inputs]', 'json'],
    ['.[] | input_line_number', 'json'],
  ])('%j reads the rows as %s', async (filter, format) => {
    expect((await jqWeb(filter)).format).toBe(format);
  });

  it.each(['.[] | .a', '.[]', 'map(.a)', '[.[] | .a]', '.[] | input', 'nosuch'])(
    '%j: the fast path, when it takes the filter, reads the rows as jq-web does',
    async (filter) => {
      const web = await jqWeb(filter).catch(() => undefined);
      const fast = await compileJq(filter).catch(() => undefined);
      expect(fast?.format).toBe(web?.format);
    },
  );

  const rows = [
    { a: 1, s: 'x', n: new JsonNumber('0.000000000000000001') },
    { a: 2.5, s: 'yz', n: null },
    { a: 3, s: '', n: [new JsonNumber('1e5')] },
  ];
  it.each([
    '.a, .s',
    '.a as $x | $x * 2',
    'select(.a > 1) | .s',
    'first(.s, .a)',
    'limit(1; .a, .s)',
    'try error("x") catch .',
    '.n',
    '[paths]',
    '$__loc__',
    '. as {a: $a} | {$a, k: (keys | length)}',
  ])('`.[] | %s` gives what the same filter gives over the array', async (f) => {
    const each = await jqWeb(`.[] | ${f}`);
    const whole = await jqWeb(`(.[] | ${f})`);
    expect(each.run(rowsText(each, rows))).toBe(whole.run(rowsText(whole, rows)));
  });
});

describe('a run-time error', () => {
  it.each([
    '.[] | if .i == 2 then error("row \\(.i)") else .i end',
    '(.[] | if .i == 2 then error("row \\(.i)") else .i end)',
  ])('on a row before the last fails %j as it fails over the array', async (filter) => {
    const jq = await jqWeb(filter);
    const rows = [{ i: 1 }, { i: 2 }, { i: 3 }];
    expect(() => jq.run(rowsText(jq, rows))).toThrow(/^--jq: row 2$/);
  });
});

describe('collect: the rows as the run writes them', () => {
  // Past the 8 MiB batch, in chunks that split rows: batches of whole lines give what one run gives.
  const rows = Array.from({ length: 70_000 }, (_, i) => ({
    i,
    w: new JsonNumber(`0.${i}0`),
    s: 'x'.repeat(100),
  }));
  const text = Buffer.from(rows.map((r) => `${stringifyLossless(r)}\n`).join(''));
  const chunks = (size: number) =>
    Array.from({ length: Math.ceil(text.length / size) }, (_, k) => text.subarray(k * size, (k + 1) * size));

  it('filters a batch of whole rows at a time, with the same output as one run', async () => {
    expect(text.length).toBeGreaterThan(8 * 1024 * 1024);
    const jq = await jqWeb('.[] | select(.i % 9999 == 0) | .w');
    const c = jq.collect();
    for (const chunk of chunks(1_000_003)) c.write(chunk);
    expect(await c.end()).toBe(jq.run(text));
    expect(jq.run(text)).toBe('0.00\n0.99990\n0.199980\n0.299970\n0.399960\n0.499950\n0.599940\n0.699930\n');
  });

  it("throws the filter's first error at the end, and filters nothing after it", async () => {
    const c = (await jqWeb('.[] | if .i == 5 then error("row \\(.i)") else .i end')).collect();
    for (const chunk of chunks(4_000_000)) c.write(chunk);
    await expect(c.end()).rejects.toThrow(/^--jq: row 5/);
  });
});
