// The module the tokenizer loads was compiled from the source as it is (`npm run wasm` after an edit).
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { FAST_ROWS_SOURCE } from '../../../src/rows/fast-rows.js';

it('src/rows/fast-rows.ts was compiled from src/rows/fast-rows.wat as it is', () => {
  const source = readFileSync(new URL('../../../src/rows/fast-rows.wat', import.meta.url));
  expect(createHash('sha256').update(source).digest('hex')).toBe(FAST_ROWS_SOURCE);
});
