// `npx vitest bench test/unit/json/lossless.bench.ts` — the measurement behind src/json/lossless.ts.
import { bench, describe } from 'vitest';
import { parseLossless, parseLosslessByHand, stringifyLossless } from '../../../src/json/lossless.js';

/** 20,000 constituent rows, about 3 MB; `odd` adds literals a double cannot hold. */
function body(odd: boolean): string {
  const rows: string[] = [];
  for (let i = 0; i < 20_000; i++) {
    rows.push(
      `{"effectiveDate":"2024-05-03","isin":"EU000965${String(i).padStart(4, '0')}","securityName":"STOXX Example 600 OIL & GAS NET EUR","securityTicker":"SXER Index","closingPrice":${(i * 7.31) % 1000},"currency":"EUR","closingFx":1,"indexShares":${odd ? '6549.996509000' : '6549.996509'},"indexWeighting":${odd ? '0.50099812345678901' : '0.500998'}}`,
    );
  }
  return `{"report":[${rows.join(',')}]}`;
}

for (const odd of [false, true]) {
  const text = body(odd);
  const parsed = parseLossless(text);
  describe(`20,000 rows, ${(text.length / 1e6).toFixed(1)} MB${odd ? ', inexact literals' : ''}`, () => {
    bench('JSON.parse (loses digits)', () => {
      JSON.parse(text);
    });
    bench('parseLossless', () => {
      parseLossless(text);
    });
    bench('parseLosslessByHand', () => {
      parseLosslessByHand(text);
    });
    bench('stringifyLossless', () => {
      stringifyLossless(parsed);
    });
  });
}
