/**
 * JSON and NDJSON. `json` is an array of rows, the same shape as the export's JSON file; `ndjson` one
 * compact row per line. Numbers are written with the digits the service sent (stringifyLossless).
 *
 * Layout: compact (one line) when piped or written to a file — smaller and faster, and `jq .`
 * pretty-prints it; indented by 2 spaces when stdout is a terminal, where a person reads it.
 */

import type { Row } from '../domain.js';
import { stringifyLossless } from '../json/lossless.js';
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

export function renderJson(rows: readonly Row[], pretty: boolean): string {
  if (rows.length === 0) return '[]\n';
  return `${stringifyLossless(rows, pretty ? 2 : undefined)}\n`;
}

export function renderNdjson(rows: readonly Row[]): string {
  if (rows.length === 0) return '';
  const parts = new Array<string>(rows.length);
  for (let i = 0; i < rows.length; i++) parts[i] = stringifyLossless(rows[i]);
  return `${parts.join('\n')}\n`;
}
