import { describe, expect, it } from 'vitest';
import { JsonNumber } from '../../../src/domain.js';
import { deeperThan, parseLossless } from '../../../src/json/lossless.js';
import { isBrokenJson } from '../../../src/json/report-body.js';
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

describe('a body of the wrong shape nested 100,000 levels deep: the service broke it, not the base URL', () => {
  it.each([
    // case, body → why, isBrokenJson (true: "the service sent a broken answer"; false: "check the base URL")
    [
      'arrays 100,000 deep',
      `${'['.repeat(100_000)}${']'.repeat(100_000)}`,
      'the body nests values more than 64 levels deep',
      true,
    ],
    [
      'report rows of arrays 100,000 deep',
      `{"report":[${'['.repeat(100_000)}${']'.repeat(100_000)}]}`,
      'the body nests values more than 64 levels deep',
      true,
    ],
    [
      'another key, objects 100,000 deep',
      `{"rows":${nested(100_000)}}`,
      'the body nests values more than 64 levels deep',
      true,
    ],
    ['rows of shallow arrays', '[[1],[2]]', 'the report rows are not JSON objects', false],
    ["another API's JSON", '{"rows":[]}', 'expected an object with a "report" array', false],
  ])('%s', (_case, body, why, broken) => {
    expect(rowsOf(body)).toBe(why);
    expect(isBrokenJson(body, why)).toBe(broken);
  });
});
