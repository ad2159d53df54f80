/** Two answers of a report → the rows of their diff: joined by key, compared field by field as CSV flattens them. */
import { isJsonNumeric, JsonNumber, numberText, type ReportType, type Row } from '../domain.js';
import { sameNumber, subtract } from '../json/decimal.js';
import { stringifyLossless } from '../json/lossless.js';
import { type Column, columnOf, flatten, isNested, selectFields, valueAt } from '../render/columns.js';
import { keyOf } from './keys.js';

export type Change = 'added' | 'removed' | 'changed';

type PairCounts = Record<Change | 'unchanged', number>;

export type DiffInput = { type: ReportType; key: readonly string[]; fields?: readonly string[]; lead?: Row };

/** Always differs: compared only when --fields asks for it. */
const ANSWER_DATE = 'effectiveDate';

/** Absent counts as null; numbers are compared by value, objects by their JSON. */
export function sameValue(a: unknown, b: unknown): boolean {
  const x = a === undefined ? null : a;
  const y = b === undefined ? null : b;
  if (x === y) return true;
  // Two plain numbers are their own texts' values (domain.ts): no digits to compare.
  if (typeof x === 'number' && typeof y === 'number') return false;
  if (isJsonNumeric(x) && isJsonNumeric(y)) return sameNumber(numberText(x), numberText(y));
  if (typeof x === 'object' && typeof y === 'object' && x !== null && y !== null)
    return stringifyLossless(x) === stringifyLossless(y);
  return false;
}

export function deltaOf(from: unknown, to: unknown): JsonNumber | null {
  if (!isJsonNumeric(from) || !isJsonNumeric(to)) return null;
  const d = subtract(numberText(to), numberText(from));
  return d === undefined ? null : new JsonNumber(d);
}

function comparedFields(
  type: ReportType,
  before: readonly Record<string, unknown>[],
  after: readonly Record<string, unknown>[],
  key: readonly string[],
  fields?: readonly string[],
): string[] {
  const seen = new Set<string>();
  for (const rows of [before, after]) for (const r of rows) for (const k in r) seen.add(k);
  const keys = new Set(key);
  if (fields) {
    const columns: Column[] = [...seen].map(columnOf);
    return selectFields(columns, fields, type)
      .map((c) => c.name)
      .filter((n) => !keys.has(n));
  }
  return [...seen].filter((n) => !keys.has(n) && n !== ANSWER_DATE);
}

/** A row without nested objects is its own, uncopied. */
function flat(row: Row): Record<string, unknown> {
  for (const k in row) if (isNested(row[k])) return flatten(row);
  return row;
}

const BATCH = 1024;

/** In batches of output rows: the new answer's order, then the rows it lost; returns the counts. */
export function* diffBatches(
  before: readonly Row[],
  after: readonly Row[],
  o: DiffInput,
): Generator<Row[], PairCounts> {
  const oldFlat = before.map(flat);
  const newFlat = after.map(flat);
  const fields = comparedFields(o.type, oldFlat, newFlat, o.key, o.fields);
  const paths = o.key.map((k) => columnOf(k).path);
  const index = new Map<string, number>();
  for (let i = 0; i < before.length; i++) index.set(keyOf(before[i]!, paths), i);
  const matched = new Uint8Array(before.length);
  const counts: PairCounts = { added: 0, removed: 0, changed: 0, unchanged: 0 };
  const out: Row[] = [];
  const emit = (row: Row, change: Change, field: string, from: unknown, to: unknown) => {
    const r: Row = { ...o.lead, change };
    for (let k = 0; k < paths.length; k++) {
      const v = valueAt(row, paths[k]!);
      r[o.key[k]!] = v === undefined ? null : v;
    }
    r.field = field;
    r.from = from === undefined ? null : from;
    r.to = to === undefined ? null : to;
    r.delta = deltaOf(from, to);
    out.push(r);
  };
  for (let j = 0; j < after.length; j++) {
    const row = after[j]!;
    const i = index.get(keyOf(row, paths));
    const now = newFlat[j]!;
    if (i === undefined) {
      counts.added++;
      for (const f of fields) emit(row, 'added', f, null, now[f]);
    } else {
      matched[i] = 1;
      const was = oldFlat[i]!;
      let changed = false;
      for (const f of fields) {
        if (sameValue(was[f], now[f])) continue;
        changed = true;
        emit(row, 'changed', f, was[f], now[f]);
      }
      if (changed) counts.changed++;
      else counts.unchanged++;
    }
    if (out.length >= BATCH) yield out.splice(0);
  }
  for (let i = 0; i < before.length; i++) {
    if (matched[i]) continue;
    counts.removed++;
    const was = oldFlat[i]!;
    for (const f of fields) emit(before[i]!, 'removed', f, was[f], null);
    if (out.length >= BATCH) yield out.splice(0);
  }
  if (out.length > 0) yield out.splice(0);
  return counts;
}

export function countsText(c: PairCounts): string {
  return `${c.added} added, ${c.removed} removed, ${c.changed} changed, ${c.unchanged} unchanged`;
}

export const anyChange = (c: PairCounts): boolean => c.added + c.removed + c.changed > 0;
