/**
 * --fields for JSON and NDJSON (writer.ts writes them): rows reduced to the chosen columns.
 */
import type { Row } from '../domain.js';
import { type Column, valueAt } from './columns.js';

/**
 * Rows reduced to `columns` (the --fields choice), keyed by the dotted column names in that order:
 * `--fields isin,indexId.Net` gives `{"isin": ..., "indexId.Net": ...}`. A column naming a nested
 * object keeps the object. Absent values become null, so every row has every chosen key.
 */
export function project(rows: readonly Row[], columns: readonly Column[]): Row[] {
  return rows.map((row) => {
    const out: Row = {};
    for (const c of columns) {
      const v = valueAt(row, c.path);
      Object.defineProperty(out, c.name, {
        value: v === undefined ? null : v,
        enumerable: true,
        writable: true,
      });
    }
    return out;
  });
}
