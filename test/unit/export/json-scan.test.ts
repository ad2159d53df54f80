import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { JsonArrayScanner, JsonScanError, scanJsonArray } from '../../../src/export/json-scan.js';

/** Feeds `text` split at the given byte offsets, as a network would. */
function scanInChunks(bytes: Uint8Array, cuts: number[]) {
  const s = new JsonArrayScanner();
  let at = 0;
  for (const cut of [...cuts].sort((a, b) => a - b)) {
    s.push(bytes.subarray(at, cut));
    at = cut;
  }
  s.push(bytes.subarray(at));
  return s.end();
}

const parsesAsArray = (text: string) => {
  try {
    return Array.isArray(JSON.parse(text));
  } catch {
    return false;
  }
};

describe('JsonArrayScanner', () => {
  it.each([
    ['[]', 0],
    [' [1, -0.5e+3, 0, 1E-2, true, false, null] \n', 7],
    ['["a\\u00e9\\n\\"", {"a": [1, {"b": 2}]}, [[]]]', 3],
    ['[{"indexName":"Example 600 OG EUR"}]', 1],
  ])('accepts %s (%i rows)', (text, rows) => {
    expect(scanJsonArray(text).rows).toBe(rows);
  });

  it.each([
    ['', /empty/],
    ['   ', /empty/],
    ['{"report":[]}', /not a JSON array/],
    ['"x"', /not a JSON array/],
    ['[1', /ends early/],
    ['[{"a":1},{"b":', /ends early/],
    ['["abc', /ends early/],
    ['[1,]', /unexpected/],
    ['[01]', /leading zero/],
    ['[1] x', /after the end/],
    ['[1][2]', /after the end/],
    ['[tru]', /unexpected/],
    ['["\u0001"]', /control character/],
    ['["\\x"]', /bad escape/],
    ['["\\u12g4"]', /bad \\u escape/],
    ['[-]', /unexpected/],
    ['[1.]', /unexpected/],
    ['[1e]', /unexpected/],
    ['[{"a" 1}]', /unexpected/],
    ['[{"a":1,}]', /unexpected/],
    ['[1 2]', /unexpected/],
    ['[1}', /unexpected/],
    ['[{]', /unexpected/],
  ])('rejects %j', (text, message) => {
    expect(() => scanJsonArray(text)).toThrow(JsonScanError);
    expect(() => scanJsonArray(text)).toThrow(message);
  });

  it('rejects invalid UTF-8', () => {
    expect(() => scanJsonArray(Buffer.from([0x5b, 0x22, 0xff, 0x22, 0x5d]))).toThrow(/UTF-8/);
  });

  it('gathers the common leading words of the rows indexName values', () => {
    const rows = [
      { indexName: 'Example 600 OG EUR', indexValue: 1 },
      { indexName: 'Example 600 OG JPY', nested: { indexName: 'Other' } },
      { other: 'Example' },
    ];
    expect(scanJsonArray(JSON.stringify(rows))).toEqual({ rows: 3, indexWords: ['Example', '600', 'OG'] });
  });

  it('reads indexName objects ({Net, Price, Total}) and escapes', () => {
    const rows = [{ indexName: { Net: 'Ex\\u0061mple 1 Net', Price: 'Example 1 Price' } }];
    const text = JSON.stringify(rows).replace('\\\\u0061', '\\u0061');
    expect(scanJsonArray(text).indexWords).toEqual(['Example', '1']);
  });

  it('reports no index words when no row has a name', () => {
    expect(scanJsonArray('[{"a":"indexName"},["indexName"]]').indexWords).toBeUndefined();
  });

  it('agrees with JSON.parse on any JSON value, in any chunking', () => {
    fc.assert(
      fc.property(fc.json(), fc.array(fc.nat()), (text, rawCuts) => {
        const bytes = Buffer.from(text);
        const cuts = rawCuts.map((c) => c % (bytes.length + 1));
        const ok = parsesAsArray(text);
        let scanned = false;
        try {
          scanInChunks(bytes, cuts);
          scanned = true;
        } catch (err) {
          expect(err).toBeInstanceOf(JsonScanError);
        }
        expect(scanned).toBe(ok);
      }),
      { numRuns: 500 },
    );
  });

  it('agrees with JSON.parse on damaged arrays (truncated, a byte changed)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.jsonValue()),
        fc.nat(),
        fc.constantFrom('', ',', ']', '}', '"', '\\', 'x', ' ', '0', '-', '.', 'e'),
        (value, where, insert) => {
          const text = JSON.stringify(value);
          const at = where % (text.length + 1);
          for (const damaged of [text.slice(0, at), text.slice(0, at) + insert + text.slice(at + 1)]) {
            let scanned = false;
            try {
              scanJsonArray(damaged);
              scanned = true;
            } catch {}
            expect(scanned, damaged).toBe(parsesAsArray(damaged));
          }
        },
      ),
      { numRuns: 500 },
    );
  });
});
