// json and ndjson are written as each pair is compared; csv, tsv and the table at the end, since their
// columns are the union of the pairs' key fields.
import { isJsonNumeric, JsonNumber, numberText, type ReportFormat, type Row } from '../domain.js';
import { shift } from '../json/decimal.js';
import { stringifyLossless } from '../json/lossless.js';
import { type Column, cellText } from '../render/columns.js';
import { csvCell, delimitedHeader, tsvCell } from '../render/delimited.js';
import { jsonEnd, jsonRow } from '../render/json.js';
import { displayWidth, renderTable } from '../render/table.js';

const TAIL = ['field', 'from', 'to', 'delta'] as const;

interface DiffWriterOptions {
  format: ReportFormat;
  lead: readonly string[];
  terminal: boolean;
  color: boolean;
  width: number;
}

/** A column whose name is a key of the row as it is (`indexId.Net` is one key of a diff row, not a path). */
const flat = (name: string): Column => ({ name, path: [name] });

export function diffColumns(rows: readonly Row[], lead: readonly string[], key: readonly string[]): Column[] {
  const fixed = new Set<string>([...lead, 'change', ...TAIL]);
  const keys = new Set<string>();
  for (const row of rows) for (const k in row) if (!fixed.has(k)) keys.add(k);
  const keyNames = rows.length === 0 ? key : [...keys];
  return [...lead, 'change', ...keyNames, ...TAIL].map(flat);
}

export function basisPoints(field: string, delta: unknown): JsonNumber | null {
  if (!/weight/i.test(field) || !isJsonNumeric(delta)) return null;
  const bp = shift(numberText(delta), 4);
  return bp === undefined ? null : new JsonNumber(bp);
}

export function diffTable(
  rows: readonly Row[],
  o: Pick<DiffWriterOptions, 'lead' | 'color' | 'terminal' | 'width'>,
): { text: string; notes: string[] } {
  if (rows.length === 0) return { text: '', notes: ['no changes'] };
  const columns = diffColumns(rows, o.lead, []);
  const group = columns.filter((c) => !(TAIL as readonly string[]).includes(c.name)).map((c) => c.name);
  const weights = rows.some((r) => basisPoints(String(r.field), r.delta) !== null);
  const shown: Row[] = [];
  let previous = '';
  for (const row of rows) {
    const id = stringifyLossless(group.map((g) => row[g] ?? null));
    const line: Row = {};
    for (const g of group) line[g] = id === previous ? '' : row[g];
    for (const t of TAIL) line[t] = row[t];
    if (weights) line.bp = basisPoints(String(row.field), row.delta);
    shown.push(line);
    previous = id;
  }
  const all = weights ? [...columns, flat('bp')] : columns;
  // Never fitted to the terminal: fitting cuts long text cells, and a diff must not cut digits.
  const table = renderTable(shown, all, { color: o.color, picked: true });
  const wide = o.terminal ? displayWidth(table.text.slice(0, table.text.indexOf('\n'))) : 0;
  const notes =
    wide > o.width
      ? [`the table is ${wide} columns wide, the terminal ${o.width}: widen it, or use -f csv`]
      : [];
  return { text: table.text, notes };
}

export function diffWriter(o: DiffWriterOptions) {
  const kept: Row[] = [];
  let count = 0;
  return {
    add(rows: readonly Row[]): string {
      if (o.format === 'json' || o.format === 'ndjson')
        return rows.map((row) => jsonRow(row, o.format, count++ === 0, o.terminal)).join('');
      for (const r of rows) kept.push(r);
      return '';
    },
    /** `key`: the fields the pairs were joined by (the header of an empty CSV/TSV). */
    end(key: readonly string[]): { text: string; notes: string[] } {
      if (o.format === 'json') return { text: jsonEnd(count, o.terminal), notes: [] };
      if (o.format === 'ndjson') return { text: '', notes: [] };
      if (o.format === 'table') return diffTable(kept, o);
      const columns = diffColumns(kept, o.lead, key);
      const [cell, sep] = o.format === 'csv' ? [csvCell, ','] : [tsvCell, '\t'];
      const lines = kept.map((row) => columns.map((c) => cell(cellText(row[c.name]))).join(sep));
      return { text: `${[delimitedHeader(columns, o.format), ...lines].join('\n')}\n`, notes: [] };
    },
  };
}
