import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isJsonNumeric, JsonNumber, numberText } from '../../../src/domain.js';
import { parseLossless, parseLosslessByHand, stringifyLossless } from '../../../src/json/lossless.js';

const parsers = [
  ['parseLossless', parseLossless],
  ['parseLosslessByHand', parseLosslessByHand],
] as const;

/** Every number of a parsed value as text, in document order. */
function numberTexts(v: unknown, out: string[] = []): string[] {
  if (isJsonNumeric(v)) out.push(numberText(v));
  else if (Array.isArray(v)) for (const x of v) numberTexts(x, out);
  else if (v !== null && typeof v === 'object') for (const x of Object.values(v)) numberTexts(x, out);
  return out;
}

/** JSON number literals of every shape the grammar allows (not just what JS prints). */
const numberLiteral = fc
  .tuple(
    fc.boolean(),
    fc.oneof(fc.constant('0'), fc.stringMatching(/^[1-9][0-9]{0,24}$/)),
    fc.option(fc.stringMatching(/^[0-9]{1,22}$/), { nil: undefined }),
    fc.option(
      fc.tuple(fc.constantFrom('e', 'E'), fc.constantFrom('', '+', '-'), fc.stringMatching(/^[0-9]{1,3}$/)),
      {
        nil: undefined,
      },
    ),
  )
  .map(
    ([neg, int, frac, exp]) => `${neg ? '-' : ''}${int}${frac ? `.${frac}` : ''}${exp ? exp.join('') : ''}`,
  );

/** JSON text (with random spacing) of arbitrary values whose numbers are arbitrary literals, and those literals in order. */
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
const jsonText = jsonGen.map((g) => g.text);

/** Replaces every number in a JSON.parse result by a placeholder, to compare structure only. */
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

describe.each(parsers)('%s', (_name, parse) => {
  it.each([
    ['1234567.123456789012', '1234567.123456789012'],
    ['12345678901234567890', '12345678901234567890'],
    ['-0', '-0'],
    ['1.10', '1.10'],
    ['1e5', '1e5'],
    ['1E+05', '1E+05'],
    ['0.0000001', '0.0000001'],
    ['9007199254740993', '9007199254740993'],
    ['{"report":[{"v":996.57944,"w":1.000,"x":null}]}', '{"report":[{"v":996.57944,"w":1.000,"x":null}]}'],
    [' [ 1 , "a\\u0000b" , true ] ', '[1,"a\\u0000b",true]'],
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

  it.each([
    ['1.10', '1.10'],
    ['12345678901234567890', '12345678901234567890'],
    ['-0', '-0'],
  ])('gives a JsonNumber when a double is not exact: %s', (text, raw) => {
    const v = parse(text);
    expect(v).toBeInstanceOf(JsonNumber);
    expect((v as JsonNumber).raw).toBe(raw);
  });

  it('keeps __proto__ as an own property, like JSON.parse', () => {
    const v = parse('{"__proto__":{"x":1.10},"a":1}') as Record<string, unknown>;
    expect(Object.getPrototypeOf(v)).toBe(Object.prototype);
    expect(Object.keys(v)).toEqual(['__proto__', 'a']);
    expect(stringifyLossless(v)).toBe('{"__proto__":{"x":1.10},"a":1}');
  });

  it('lets a duplicate key win last, in the first position, like JSON.parse', () => {
    expect(stringifyLossless(parse('{"a":1.10,"b":2,"a":3.30}'))).toBe('{"a":3.30,"b":2}');
  });

  it.each([
    ['', 0],
    ['[1,]', 3],
    ['{"a":1,}', 7],
    ['[01]', 2],
    ['[1.]', 3],
    ['[-]', 2],
    ['"abc', 4],
    ['[1] x', 4],
    ['{"a" 1}', 5],
    ['"a\tb"', 2],
    ['"\\x"', 2],
    ['"\\u12G4"', 5],
    ['nul', 3],
    ['[1e]', 3],
    ['<html>', 0],
  ])('rejects %j with a SyntaxError at position %i', (text, position) => {
    expect(() => parse(text)).toThrow(SyntaxError);
    expect(() => parse(text)).toThrow(`at position ${position}`);
  });

  it('agrees with JSON.parse on everything but numbers, and keeps every number literal', () => {
    fc.assert(
      fc.property(jsonGen, ({ text, numbers }) => {
        const v = parse(text);
        expect(shape(v)).toEqual(shape(JSON.parse(text)));
        expect(numberTexts(v).sort()).toEqual([...numbers].sort());
        const out = stringifyLossless(v);
        expect(stringifyLossless(parse(out))).toBe(out);
      }),
      { numRuns: 300 },
    );
  });

  it('makes a JS number exactly when String(Number(raw)) === raw', () => {
    fc.assert(
      fc.property(numberLiteral, (raw) => {
        const v = parse(raw);
        if (String(Number(raw)) === raw) expect(v).toBe(Number(raw));
        else expect(v).toEqual(new JsonNumber(raw));
      }),
      { numRuns: 2000 },
    );
  });

  it('throws wherever JSON.parse throws', () => {
    fc.assert(
      fc.property(
        jsonText,
        fc.nat(),
        fc.constantFrom('', ',', ']', '}', '"', '-', '.', 'e', '0', ' ', '\\'),
        (text, at, junk) => {
          const i = at % (text.length + 1);
          const broken = text.slice(0, i) + junk + text.slice(i);
          let native: unknown;
          try {
            native = JSON.parse(broken);
          } catch {
            expect(() => parse(broken)).toThrow(SyntaxError);
            return;
          }
          expect(shape(parse(broken))).toEqual(shape(native));
        },
      ),
      { numRuns: 500 },
    );
  });
});

describe('parseLossless and parseLosslessByHand', () => {
  it.each([
    ['sparse', (i: number) => (i % 50 === 0 ? `${i}.10` : `${i}.5`)],
    ['dense (the hand parser takes over)', (i: number) => `${i}.10`],
  ])('keep every digit of many inexact literals, %s', (_name, literal) => {
    const text = `[${Array.from({ length: 3000 }, (_, i) => `{"v":${literal(i)},"s":"x"}`).join(',')}]`;
    expect(stringifyLossless(parseLossless(text))).toBe(text);
    expect(parseLossless(text)).toEqual(parseLosslessByHand(text));
  });

  const outcome = (parse: (t: string) => unknown, text: string) => {
    try {
      return { value: parse(text) };
    } catch (err) {
      return { error: (err as Error).name };
    }
  };
  it.each([
    ...[
      '0',
      '-0',
      '0.0',
      '-0.0',
      '7',
      '-7',
      '100',
      '123456789012345',
      '1234567890123456',
      '-123456789012345',
    ],
    ...['1234567.12345678', '1234567.12345670', '12345678.1', '1.123456789', '0.123456789', '0.1234567891'],
    ...['0.000001', '0.0000010', '0.0000001', '0.00000123456789', '-0.000001', '-0.0000001', '1.5e3'],
    ...['01', '1.', '-', '--1', '1.2.3', '1-2', '2024-05-02', '1e', '0x1'],
  ])('agree at the edges of the fast path: %s', (lit) => {
    for (const text of [lit, `[${lit}]`, `{"a":${lit},"b":"${lit}"}`, `"x\\"${lit}`]) {
      expect(outcome(parseLossless, text)).toEqual(outcome(parseLosslessByHand, text));
    }
  });

  it('give the same result', () => {
    fc.assert(
      fc.property(jsonText, (text) => {
        expect(parseLossless(text)).toEqual(parseLosslessByHand(text));
      }),
      { numRuns: 300 },
    );
  });
});

describe('stringifyLossless', () => {
  const sample = {
    s: 'a"b\\c\n\u2028\ud800',
    n: [1, -0, Number.NaN, Number.POSITIVE_INFINITY, 1e21, 0.1],
    b: [true, false, null],
    nested: { e: {}, a: [], u: undefined, f: () => 1 },
    arr: [undefined, () => 1],
    d: new Date(0),
  };
  it.each([undefined, 0, 2, 4, 20])('matches JSON.stringify without JsonNumbers (indent %s)', (indent) => {
    expect(stringifyLossless(sample, indent)).toBe(JSON.stringify(sample, null, indent));
  });

  it('writes JsonNumbers verbatim, also indented', () => {
    const v = { a: new JsonNumber('1.10'), b: [new JsonNumber('12345678901234567890')] };
    expect(stringifyLossless(v)).toBe('{"a":1.10,"b":[12345678901234567890]}');
    expect(stringifyLossless(v, 2)).toBe('{\n  "a": 1.10,\n  "b": [\n    12345678901234567890\n  ]\n}');
  });

  it('matches JSON.stringify on arbitrary JSON values', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.constantFrom(undefined, 2), (v, indent) => {
        expect(stringifyLossless(v, indent)).toBe(JSON.stringify(v, null, indent));
      }),
    );
  });
});
