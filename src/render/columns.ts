// Columns of report rows: nested objects flatten to dotted columns (`indexId.Net`).
import { familyOf, JsonNumber, numberText, type ReportType, type Row, specFields } from '../domain.js';
import { plural, UsageError } from '../errors.js';
import { stringifyLossless } from '../json/lossless.js';

export interface Column {
  name: string;
  path: string[];
}

export const NET_PRICE_TOTAL = (k: string) => [`${k}.Net`, `${k}.Price`, `${k}.Total`];
export const specColumns = (type: ReportType) => specFields(familyOf(type));

export const PORTFOLIO_COLUMN = 'portfolioId';

export function isNested(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof JsonNumber);
}

/** A nested object with keys: an empty one stays a value. */
const flattens = (v: unknown): v is Record<string, unknown> => isNested(v) && Object.keys(v).length > 0;

export function flatten(row: Row): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const walk = (o: Record<string, unknown>, prefix: string) => {
    for (const k of Object.keys(o)) {
      const v = o[k];
      if (flattens(v)) walk(v, `${prefix}${k}.`);
      else out[prefix + k] = v;
    }
  };
  walk(row, '');
  return out;
}

export function seenColumns(rows: readonly Row[]): Column[] {
  const byName = new Map<string, Column>();
  const walk = (o: Record<string, unknown>, path: string[], prefix: string) => {
    for (const k in o) {
      const v = o[k];
      const name = prefix + k;
      if (flattens(v)) walk(v, [...path, k], `${name}.`);
      else if (!byName.has(name)) byName.set(name, { name, path: [...path, k] });
    }
  };
  for (const row of rows) walk(row, [], '');
  return [...byName.values()];
}

export const columnOf = (name: string): Column => ({ name, path: name.split('.') });

/**
 * A writer's columns: `seen` in the rows' order; `spec` the spec's present in the rows in its order, then
 * the rest; no rows: the spec's. portfolioId first. Without a type the rows' own. `--fields` picks (an
 * unknown name is a UsageError, decided on the data).
 */
export function columnsOf(
  r: { type?: ReportType; rows: readonly Row[]; fields?: readonly string[]; multi?: boolean },
  order: 'spec' | 'seen',
): Column[] {
  const { type, rows, fields, multi } = r;
  if (type === undefined) return seenColumns(rows);
  if (fields) {
    const picked =
      rows.length === 0 ? fields.map(columnOf) : selectFields(columnsOf({ type, rows }, order), fields, type);
    // With several portfolios every row starts with portfolioId (CLI.md), unless --fields places it.
    return multi && !picked.some((c) => c.name === PORTFOLIO_COLUMN)
      ? [columnOf(PORTFOLIO_COLUMN), ...picked]
      : picked;
  }
  if (rows.length === 0) return [...(multi ? [PORTFOLIO_COLUMN] : []), ...specColumns(type)].map(columnOf);
  const seen = seenColumns(rows);
  const lead = seen.filter((c) => c.name === PORTFOLIO_COLUMN);
  const rest = seen.filter((c) => c.name !== PORTFOLIO_COLUMN);
  if (order === 'seen') return [...lead, ...rest];
  const spec = specColumns(type);
  const place = (c: Column) => (spec.includes(c.name) ? spec.indexOf(c.name) : spec.length);
  return [...lead, ...rest.sort((a, b) => place(a) - place(b))];
}

/** `--fields`: a column or a prefix of nested ones; one the data lacks is empty if the spec lists it, else an error. */
export function selectFields(
  columns: readonly Column[],
  fields: readonly string[],
  type: ReportType,
): Column[] {
  const out: Column[] = [];
  const unknown: string[] = [];
  const spec = new Set([PORTFOLIO_COLUMN, ...specColumns(type)]);
  for (const f of fields) {
    const found = [
      columns.filter((c) => c.name === f),
      columns.filter((c) => c.name.startsWith(`${f}.`)),
      spec.has(f) ? [columnOf(f)] : [],
      [...spec].filter((n) => n.startsWith(`${f}.`)).map(columnOf),
    ].find((cs) => cs.length > 0);
    if (found) out.push(...found);
    else unknown.push(f);
  }
  if (unknown.length > 0) {
    const available = columns.length > 0 ? columns.map((c) => c.name) : [...spec];
    throw new UsageError(
      `unknown ${plural(unknown.length, 'field')} ${unknown.map((f) => `"${f}"`).join(', ')} for ${type}`,
      { hint: `available: ${available.join(', ')}` },
    );
  }
  return out;
}

export function valueAt(row: Row, path: readonly string[]): unknown {
  let v: unknown = own(row, path[0]);
  for (let i = 1; i < path.length; i++) {
    if (!isNested(v)) return undefined;
    v = own(v, path[i]);
  }
  return v;
}

/** Own properties only: a row without a `__proto__` key must not print Object.prototype. */
export function own(o: Record<string, unknown>, k: string): unknown {
  return k === '__proto__' && !Object.hasOwn(o, k) ? undefined : o[k];
}

export function cellText(v: unknown): string {
  if (typeof v === 'string') return v;
  if (v === null || v === undefined) return '';
  if (v instanceof JsonNumber) return numberText(v);
  return typeof v === 'object' ? stringifyLossless(v) : String(v);
}
