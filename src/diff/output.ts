/**
 * A diff's rows → text (CLI.md `prs diff`): json and ndjson as each pair is compared (memory holds one
 * pair's rows); csv, tsv and the table once the run is over, since their columns are the union of the
 * pairs' key fields (a dual listing adds `securityTicker` to one portfolio's pairs only). The table
 * groups a row's changes (its lead and key cells only on the first line) and gives weight changes in
 * basis points too.
 */
import { isJsonNumeric, JsonNumber, numberText, type ReportFormat, type Row } from '../domain.js';
import { stringifyLossless } from '../json/lossless.js';
import type { Column } from '../render/columns.js';
import { renderDelimited } from '../render/delimited.js';
import { renderJson } from '../render/json.js';
import { renderTable } from '../render/table.js';
import { shift } from './decimal.js';

/** The columns every diff row ends with. */
export const TAIL = ['field', 'from', 'to', 'delta'] as const;

export interface DiffWriterOptions {
  format: ReportFormat;
  /** portfolioId, fromDate, toDate: as they apply to this run. */
  lead: readonly string[];
  /** The key fields a run without rows would have had (the header of an empty CSV). */
  key: readonly string[];
  terminal: boolean;
  color: boolean;
  width: number;
}

export interface DiffWriter {
  /** One pair's rows → the text to write now ('' for the formats that wait for the end). */
  add(rows: readonly Row[]): string;
  /** The run is over: the rest of the output, and notes for stderr. */
  end(): { text: string; notes: string[] };
}

/** A column whose name is a key of the row as it is (`indexId.Net` is one key of a diff row, not a path). */
const flat = (name: string): Column => ({ name, path: [name] });

/** lead, change, the key fields seen (first-seen order), field, from, to, delta. */
export function diffColumns(rows: readonly Row[], lead: readonly string[], key: readonly string[]): Column[] {
  const fixed = new Set<string>([...lead, 'change', ...TAIL]);
  const keys = new Set<string>();
  for (const row of rows) for (const k in row) if (!fixed.has(k)) keys.add(k);
  const keyNames = rows.length === 0 ? key : [...keys];
  return [...lead, 'change', ...keyNames, ...TAIL].map(flat);
}

/** Whether a field holds a weight (a fraction): its changes are shown in basis points too. */
export const isWeight = (field: string): boolean => /weight/i.test(field);

/** A weight's delta in basis points (× 10,000), exact; null when there is none. */
export function basisPoints(field: string, delta: unknown): JsonNumber | null {
  if (!isWeight(field) || !isJsonNumeric(delta)) return null;
  const bp = shift(numberText(delta), 4);
  return bp === undefined ? null : new JsonNumber(bp);
}

/** The table: one group of lines per row of the report, weight deltas in basis points. */
export function diffTable(
  rows: readonly Row[],
  o: Pick<DiffWriterOptions, 'lead' | 'key' | 'color' | 'terminal' | 'width'>,
): { text: string; notes: string[] } {
  if (rows.length === 0) return { text: '', notes: ['no changes'] };
  const columns = diffColumns(rows, o.lead, o.key);
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
  return renderTable(shown, all, { color: o.color, width: o.terminal ? o.width : undefined, picked: true });
}

export function diffWriter(o: DiffWriterOptions): DiffWriter {
  const kept: Row[] = [];
  let opened = false;
  switch (o.format) {
    case 'ndjson':
      return {
        add: (rows) => (rows.length === 0 ? '' : `${rows.map((r) => stringifyLossless(r)).join('\n')}\n`),
        end: () => ({ text: '', notes: [] }),
      };
    case 'json':
      // Indented for a person at a terminal (all at the end), else one streamed array.
      if (o.terminal)
        return {
          add: (rows) => {
            for (const r of rows) kept.push(r);
            return '';
          },
          end: () => ({ text: renderJson(kept, true), notes: [] }),
        };
      return {
        add: (rows) => {
          if (rows.length === 0) return '';
          const text = `${opened ? ',' : '['}${rows.map((r) => stringifyLossless(r)).join(',')}`;
          opened = true;
          return text;
        },
        end: () => ({ text: opened ? ']\n' : '[]\n', notes: [] }),
      };
    case 'csv':
    case 'tsv': {
      const kind = o.format;
      return {
        add: (rows) => {
          for (const r of rows) kept.push(r);
          return '';
        },
        end: () => ({ text: renderDelimited(kept, diffColumns(kept, o.lead, o.key), kind), notes: [] }),
      };
    }
    case 'table':
      return {
        add: (rows) => {
          for (const r of rows) kept.push(r);
          return '';
        },
        end: () => diffTable(kept, o),
      };
  }
}
