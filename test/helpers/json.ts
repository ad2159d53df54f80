/** Lossless JSON in for tests: any JSON value through the one row stream (src/rows/tokenizer.ts). */
import { rowsOf } from './rows.js';

/** `text` parsed with numbers kept as sent (JsonNumber where a double would change them); throws when not JSON. */
export function parseJson(text: string): unknown {
  const r = rowsOf(`[{"v":${text}\n}]`);
  if (typeof r === 'string') throw new SyntaxError(`${r}: ${text.slice(0, 80)}`);
  return r[0]!.v;
}
