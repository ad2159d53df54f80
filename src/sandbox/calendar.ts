/**
 * The sandbox's calendar: which dates have data and which effective date answers a request.
 * Rule (kept simple on purpose, documented in the README): a weekend request has no data; a request on a
 * fixed holiday (1 Jan, 25 Dec, 26 Dec) answers with the last business day before it, so the rows'
 * effectiveDate can differ from the requested date as it does in the public examples.
 */
const DAY_MS = 86_400_000;

/** A real calendar date in strict YYYY-MM-DD form. */
export function isIsoDate(v: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(v);
  if (!m) return false;
  const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  return d.getUTCFullYear() === Number(m[1]) && d.getUTCMonth() === Number(m[2]) - 1;
}

export const dayNumber = (iso: string): number => Math.floor(Date.parse(`${iso}T00:00:00Z`) / DAY_MS);
export const fromDayNumber = (n: number): string => new Date(n * DAY_MS).toISOString().slice(0, 10);
export const addDays = (iso: string, n: number): string => fromDayNumber(dayNumber(iso) + n);

export function isWeekendDay(iso: string): boolean {
  const wd = new Date(`${iso}T00:00:00Z`).getUTCDay();
  return wd === 0 || wd === 6;
}

export const HOLIDAYS = ['01-01', '12-25', '12-26'] as const;
export const isHoliday = (iso: string): boolean => (HOLIDAYS as readonly string[]).includes(iso.slice(5));
export const isBusinessDay = (iso: string): boolean => !isWeekendDay(iso) && !isHoliday(iso);

/** The effective date of the rows for a requested date, or undefined when the request has no data. */
export function effectiveDateFor(requested: string): string | undefined {
  if (isWeekendDay(requested)) return undefined;
  let d = requested;
  while (!isBusinessDay(d)) d = addDays(d, -1);
  return d;
}

/** The next business day after `iso` (pro forma events look ahead). */
export function nextBusinessDay(iso: string, n = 1): string {
  let d = iso;
  for (let i = 0; i < n; i++) {
    d = addDays(d, 1);
    while (!isBusinessDay(d)) d = addDays(d, 1);
  }
  return d;
}
