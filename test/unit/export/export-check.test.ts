import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { commonWords } from '../../../src/export/naming.js';
import { ExportCheck } from '../../../src/rows/answer.js';

/** An export body through the check, cut at these byte offsets: its rows and index words, or the reason. */
function check(body: string | Uint8Array, cuts: number[] = []) {
  const bytes = typeof body === 'string' ? Buffer.from(body) : body;
  let indexWords: string[] | undefined;
  const c = new ExportCheck((n) => {
    indexWords = commonWords(indexWords, n);
  });
  try {
    let at = 0;
    for (const cut of [...cuts].sort((a, b) => a - b)) {
      c.push(bytes.subarray(at, cut));
      at = cut;
    }
    c.push(bytes.subarray(at));
    return { rows: c.end(), indexWords };
  } catch (err) {
    return (err as Error).message;
  }
}

describe('ExportCheck: an export JSON through the row stream', () => {
  it.each([
    ['[]', 0],
    ['   ', 0],
    [' [{"a": 1, "b": -0.5e+3}, {"c": [1, {"d": true}]}] \n', 2],
    ['[{"s": "a\\u00e9\\n\\""}]', 1],
    ['[1, "x", [2], {"a": 1}]', 4],
  ])('accepts %j (%i rows)', (body, rows) => {
    expect(check(body)).toMatchObject({ rows });
  });

  it.each([
    ['{"report":[]}', 'not a JSON array'],
    ['"x"', 'not a JSON array'],
    ['[1', 'JSON ends early'],
    ['[{"a":1},{"b":', 'JSON ends early'],
    ['[{"a":"abc', 'JSON ends early'],
    ['[{"a":1},]', 'the body is not JSON'],
    ['[{"a":01}]', 'the body is not JSON'],
    ['[{"a":1}] x', 'the body is not JSON'],
    ['[{"a":tru}]', 'the body is not JSON'],
    ['[{"a":"\u0001"}]', 'the body is not JSON'],
    ['[{"a":"\\x"}]', 'the body is not JSON'],
    ['[{"a" 1}]', 'the body is not JSON'],
  ])('refuses %j: %s', (body, why) => {
    expect(check(body)).toBe(why);
  });

  it('refuses invalid UTF-8', () => {
    expect(check(Buffer.from([0x5b, 0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0x22, 0x7d, 0x5d]))).toBe(
      'the body is not valid UTF-8',
    );
  });

  it('gathers the common leading words of the rows indexName values (strings, or an object of them)', () => {
    const rows = [
      { indexName: 'Example 600 OG EUR', indexValue: 1 },
      {
        indexName: { Net: 'Ex\u0061mple 600 OG Net', Price: 'Example 600 OG Price' },
        nested: { indexName: 'x' },
      },
      { other: 'Example' },
    ];
    expect(check(JSON.stringify(rows).replace('Exa', 'Ex\\u0061'))).toEqual({
      rows: 3,
      indexWords: ['Example', '600', 'OG'],
    });
    expect(check('[{"a": 1}]')).toEqual({ rows: 1, indexWords: undefined });
  });

  it('gives the same wherever the body is cut', () => {
    const body = JSON.stringify(
      Array.from({ length: 30 }, (_, i) => ({ indexName: `Example ${i % 3} idx`, v: i / 7, s: 'é,"' })),
    );
    const whole = check(body);
    expect(whole).toMatchObject({ rows: 30, indexWords: ['Example'] });
    fc.assert(
      fc.property(fc.array(fc.nat({ max: Buffer.byteLength(body) }), { maxLength: 6 }), (cuts) => {
        expect(check(body, cuts)).toEqual(whole);
      }),
    );
  });

  const parsesAsArray = (text: string) => {
    try {
      return Array.isArray(JSON.parse(text));
    } catch {
      return false;
    }
  };
  /** Accepted, or refused; an empty body (nothing but whitespace) is no data, neither. */
  const accepted = (text: string, cuts: number[] = []) => typeof check(text, cuts) !== 'string';

  it('agrees with JSON.parse on any JSON value, in any chunking', () => {
    fc.assert(
      fc.property(fc.json(), fc.array(fc.nat()), (text, cuts) => {
        if (text.trim() === '') return;
        expect(
          accepted(
            text,
            cuts.map((c) => c % (Buffer.byteLength(text) + 1)),
          ),
        ).toBe(parsesAsArray(text));
      }),
      { numRuns: 500 },
    );
  });

  it('agrees with JSON.parse on damaged arrays (truncated, a byte changed)', () => {
    let refused = 0;
    fc.assert(
      fc.property(
        fc.array(fc.jsonValue()),
        fc.nat(),
        fc.constantFrom('', ',', ']', '}', '"', '\\', 'x', ' ', '0', '-', '.', 'e'),
        (value, where, insert) => {
          const text = JSON.stringify(value);
          const at = where % (text.length + 1);
          for (const damaged of [text.slice(0, at), text.slice(0, at) + insert + text.slice(at + 1)]) {
            // A cut inside a surrogate pair has no UTF-8 form; nothing but whitespace is no data.
            if (!(damaged as string & { isWellFormed(): boolean }).isWellFormed() || damaged.trim() === '')
              continue;
            if (!parsesAsArray(damaged)) refused++;
            expect(accepted(damaged), damaged).toBe(parsesAsArray(damaged));
          }
        },
      ),
      { numRuns: 500 },
    );
    expect(refused).toBeGreaterThan(100);
  });
});
