import { familyOf, type ReportType, type Row } from '../domain.js';
import { plural, UsageError } from '../errors.js';
import { cellText, columnOf, valueAt } from '../render/columns.js';

export function defaultKey(type: ReportType): { first: string; second: string } {
  const family = familyOf(type);
  if (family === 'index') return { first: 'indexId', second: 'indexName' };
  if (family === 'corporate actions') return { first: 'eventId', second: 'isin' };
  return { first: 'isin', second: 'securityTicker' };
}

/** A row's key values' cell texts, joined unambiguously. */
export function keyOf(row: Row, paths: readonly (readonly string[])[]): string {
  if (paths.length === 1) return cellText(valueAt(row, paths[0]!));
  let s = '';
  for (const p of paths) s += `${JSON.stringify(cellText(valueAt(row, p)))},`;
  return s;
}

/** The first key that occurs twice among `rows`, its values space-separated. */
export function repeated(rows: readonly Row[], fields: readonly string[]): string | undefined {
  const paths = fields.map((f) => columnOf(f).path);
  const seen = new Set<string>();
  for (const row of rows) {
    const k = keyOf(row, paths);
    if (seen.has(k)) return paths.map((p) => cellText(valueAt(row, p))).join(' ');
    seen.add(k);
  }
  return undefined;
}

/** --key as given, else the type's first key, with its second added when the first repeats (a dual listing). */
export function chooseKey(
  type: ReportType,
  answers: readonly { rows: readonly Row[]; label: string }[],
  explicit?: readonly string[],
): string[] {
  const check = (fields: string[]) => {
    for (const a of answers) {
      const value = repeated(a.rows, fields);
      if (value !== undefined)
        throw new UsageError(
          `the key ${fields.join(',')} repeats within the answer of ${a.label}: ${value}`,
          {
            hint: 'choose fields that tell the rows apart with --key a,b',
          },
        );
    }
    return fields;
  };
  if (explicit) {
    // A name no row has would make every key the same empty text: say what it is instead.
    const rows = answers.flatMap((a) => a.rows.slice(0, 1));
    const missing = explicit.filter(
      (f) => rows.length > 0 && rows.every((r) => valueAt(r, columnOf(f).path) === undefined),
    );
    if (missing.length > 0)
      throw new UsageError(
        `unknown --key ${plural(missing.length, 'field')} ${missing.map((f) => `"${f}"`).join(', ')} for ${type}`,
        { hint: `the rows have: ${Object.keys(rows[0]!).join(', ')}` },
      );
    return check([...explicit]);
  }
  const { first, second } = defaultKey(type);
  const single = answers.every((a) => repeated(a.rows, [first]) === undefined);
  return single ? [first] : check([first, second]);
}
