import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { JsonNumber } from '../../../src/domain.js';
import { stringifyLossless } from '../../../src/json/lossless.js';

describe('stringifyLossless', () => {
  const sample = {
    s: 'a"b\\c\n\u2028\ud800',
    n: [1, -0, Number.NaN, Number.POSITIVE_INFINITY, 1e21, 0.1],
    b: [true, false, null],
    nested: { e: {}, a: [], u: undefined, f: () => 1 },
    arr: [undefined, () => 1],
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
