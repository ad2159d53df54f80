import {
  EXPORT_FORMATS,
  type ExportFormat,
  REPORT_FORMATS,
  REPORT_TYPES,
  type ReportFormat,
  type ReportType,
} from './domain.js';
import { UsageError } from './errors.js';

/** Optimal string alignment: a swap of neighbours (`exprot`), the commonest typo, is one edit. */
export function editDistance(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const row = rows[i]!;
      const up = rows[i - 1]!;
      row[j] = Math.min(up[j]! + 1, row[j - 1]! + 1, up[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        row[j] = Math.min(row[j]!, rows[i - 2]![j - 2]! + 1);
    }
  }
  return rows[a.length]![b.length]!;
}

/** One edit per three letters, the last dotted part, or a prefix of two letters or more. */
export function isClose(input: string, candidate: string): boolean {
  const a = input.toLowerCase();
  const b = candidate.toLowerCase();
  if ((a.length >= 2 && b.startsWith(a)) || b.endsWith(`.${a}`)) return true;
  return editDistance(a, b) <= Math.max(1, Math.floor(a.length / 3));
}

export function suggest(input: string, candidates: readonly string[]): string | undefined {
  const lower = input.toLowerCase();
  const score = (c: string) =>
    c.startsWith(lower) || c.endsWith(`.${lower}`) ? 0 : editDistance(lower, c.toLowerCase());
  return candidates.filter((c) => isClose(input, c)).sort((a, b) => score(a) - score(b))[0];
}

export function oneOf<T extends string>(
  what: string,
  value: string,
  allowed: readonly T[],
  list = `valid ${what}s`,
): T {
  if (allowed.includes(value as T)) return value as T;
  const guess = suggest(value, allowed);
  throw new UsageError(`unknown ${what} "${value}"${guess ? ` — did you mean "${guess}"?` : ''}`, {
    hint: `${list}: ${allowed.join(', ')}`,
  });
}

export const parseReportType = (v: string): ReportType => oneOf('report type', v, REPORT_TYPES);
export const parseReportFormat = (v: string): ReportFormat => oneOf('format', v, REPORT_FORMATS);
export const parseExportFormat = (v: string): ExportFormat => oneOf('format', v, EXPORT_FORMATS);

/** `-o json` (kubectl's spelling of a format) is refused; `-o ./json` writes the file. */
export function parseOutput(v: string | undefined, formats: readonly string[]): string | undefined {
  if (v === undefined || !formats.includes(v.toLowerCase())) return v;
  throw new UsageError(`-o ${v} names a format, not a file — did you mean -f ${v.toLowerCase()}?`, {
    hint: `to write a file named ${v}, say -o ./${v}`,
  });
}

/** At most as many digits as `max` has (spaces around them where `trim`). */
export function wholeNumber(what: string, v: string, min: number, max: number, trim = true): number {
  const digits = trim ? v.trim() : v;
  if (!new RegExp(`^\\d{1,${String(max).length}}$`).test(digits) || +digits < min || +digits > max)
    throw new UsageError(`invalid ${what} "${v}": expected a whole number from ${min} to ${max}`);
  return Number(digits);
}

export const parsePortfolioId = (v: string) => wholeNumber('portfolio id', v, 1, 2_147_483_647, false);

export function parsePortfolioIds(values: readonly string[]): number[] {
  if (values.length === 0) throw new UsageError('missing portfolio id');
  return [...new Set(values.map(parsePortfolioId))];
}

export function formatDate(d: Date): string {
  return d.toISOString().slice(0, 10);
}

export const DATE_WORDS = {
  today: "today's date (local time)",
  yesterday: "yesterday's date (local time)",
  'previous-weekday': 'the latest Monday–Friday before today (for cron)',
} as const;
type DateWord = keyof typeof DATE_WORDS;

const DAYS_BACK: Record<DateWord, (weekday: number) => number> = {
  today: () => 0,
  yesterday: () => 1,
  'previous-weekday': (weekday) => (weekday === 1 ? 3 : weekday === 0 ? 2 : 1),
};

/** YYYY-MM-DD or a DATE_WORD; today is the local calendar day, as a person or a cron job means it. */
export function parseDate(v: string, now: Date = new Date()): string {
  const word = v.trim().toLowerCase();
  if (Object.hasOwn(DATE_WORDS, word)) {
    const local = new Date(Date.UTC(now.getFullYear(), now.getMonth(), now.getDate()));
    local.setUTCDate(local.getUTCDate() - DAYS_BACK[word as DateWord](local.getUTCDay()));
    return formatDate(local);
  }
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(v);
  if (m) {
    const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
    const date = new Date(Date.UTC(y, mo - 1, d));
    if (y >= 1900 && date.getUTCMonth() === mo - 1 && date.getUTCDate() === d) return v;
    if (mo < 1 || mo > 12) throw new UsageError(`invalid date "${v}": there is no month ${m[2]}`);
    if (y >= 1900) {
      const days = new Date(Date.UTC(y, mo, 0)).getUTCDate();
      const month = new Date(Date.UTC(y, mo - 1, 1)).toLocaleString('en', { month: 'long', timeZone: 'UTC' });
      throw new UsageError(`invalid date "${v}": that date does not exist (${month} ${y} has ${days} days)`);
    }
  }
  throw new UsageError(
    `invalid date "${v}": expected YYYY-MM-DD, "today", "yesterday" or "previous-weekday"`,
  );
}

export const isWeekend = (iso: string): boolean => {
  const day = new Date(`${iso}T00:00:00Z`).getUTCDay();
  return day === 0 || day === 6;
};

/** A typo (2024 vs 2042) must not queue thousands of requests. */
const MAX_RANGE_DAYS = 366;

/** --from and --to: both given, in order. */
export function parseRange(o: { from?: string; to?: string }, now: Date): [from: string, to: string] {
  if (o.from === undefined || o.to === undefined) throw new UsageError('--from and --to go together');
  const [from, to] = [parseDate(o.from, now), parseDate(o.to, now)];
  if (from > to) throw new UsageError(`--from ${from} is after --to ${to}`);
  return [from, to];
}

/** `from` not after `to` (parseRange). */
export function dateRange(from: string, to: string, weekends = false): string[] {
  const start = Date.parse(`${from}T00:00:00Z`);
  const end = Date.parse(`${to}T00:00:00Z`);
  if ((end - start) / 86_400_000 + 1 > MAX_RANGE_DAYS)
    throw new UsageError(`date range ${from}..${to} is longer than ${MAX_RANGE_DAYS} days`);
  const out: string[] = [];
  for (let t = start; t <= end; t += 86_400_000) {
    const iso = formatDate(new Date(t));
    if (weekends || !isWeekend(iso)) out.push(iso);
  }
  if (out.length === 0) {
    throw new UsageError(`no weekdays between ${from} and ${to}`, {
      hint: 'add --weekends to include Saturdays and Sundays',
    });
  }
  return out;
}

export function resolveDates(
  o: { date?: string; from?: string; to?: string; weekends?: boolean },
  now: Date = new Date(),
): string[] {
  if (o.date !== undefined && (o.from !== undefined || o.to !== undefined))
    throw new UsageError('use either --date or --from/--to, not both');
  if (o.from !== undefined || o.to !== undefined) return dateRange(...parseRange(o, now), o.weekends);
  if (o.date === undefined)
    throw new UsageError('missing --date (or --from/--to)', {
      hint: 'e.g. --date 2024-05-01, --date yesterday',
    });
  return [parseDate(o.date, now)];
}

export function parseFields(v: string, flag = '--fields'): string[] {
  const fields = v.split(',').map((f) => f.trim());
  if (fields.some((f) => f === '')) throw new UsageError(`invalid ${flag} "${v}": empty field name`);
  return fields;
}
