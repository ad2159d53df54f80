// The module the tokenizer loads is the one its source compiles to (`npm run wasm` was run after an edit).
import { expect, it } from 'vitest';
import { FAST_ROWS_WASM } from '../../../src/rows/fast-rows.js';

const { compileFastRows } = (await import(new URL('../../../scripts/wasm.mjs', import.meta.url).href)) as {
  compileFastRows(): Promise<string>;
};

it('src/rows/fast-rows.ts holds what src/rows/fast-rows.wat compiles to', async () => {
  expect(await compileFastRows()).toBe(FAST_ROWS_WASM);
});
