import { describe, expect, it } from 'vitest';
import { deeperThan, JsonNumber, parseLossless } from '../../../src/json/lossless.js';
import { rowsOf } from '../../../src/service/service.js';

/** `{"a":{"a":…1…}}`, `levels` objects deep. */
const nested = (levels: number) => `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;

describe('deeperThan', () => {
  it.each([
    [1, 0, false],
    [null, 0, false],
    [new JsonNumber('1.10'), 0, false],
    [{}, 1, false],
    [{}, 0, true],
    [{ a: { b: [1, { c: 2 }] } }, 4, false],
    [{ a: { b: [1, { c: 2 }] } }, 3, true],
  ])('%j, max %i → %s', (value, max, want) => {
    expect(deeperThan(value, max)).toBe(want);
  });

  it('measures 100,000 levels without overflowing the stack', () => {
    expect(deeperThan(parseLossless(nested(100_000)), 64)).toBe(true);
  });
});

describe('rowsOf: a row nested 100,000 levels deep is a malformed answer', () => {
  it('says why instead of giving rows that overflow every renderer', () => {
    expect(rowsOf(`{"report":[{"v":${nested(100_000)}}]}`)).toBe(
      'a row nests values more than 64 levels deep',
    );
    expect(rowsOf(`{"report":[{"v":${nested(10)}}]}`)).toEqual([{ v: parseLossless(nested(10)) }]);
  });
});
