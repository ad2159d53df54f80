/** No data on weekends; a holiday (1 Jan, 25/26 Dec) answers with the business day before (README). */
const DAY_MS = 86_400_000;

export function isIsoDate(v: string): boolean {
  const t = Date.parse(`${v}T00:00:00Z`);
  return /^\d{4}-\d{2}-\d{2}$/.test(v) && !Number.isNaN(t) && new Date(t).toISOString().startsWith(v);
}

export const dayNumber = (iso: string): number => Math.floor(Date.parse(`${iso}T00:00:00Z`) / DAY_MS);
export const addDays = (iso: string, n: number): string =>
  new Date((dayNumber(iso) + n) * DAY_MS).toISOString().slice(0, 10);
export const weekday = (iso: string): number => new Date(`${iso}T00:00:00Z`).getUTCDay();
const isWeekend = (iso: string) => weekday(iso) % 6 === 0;
const isBusinessDay = (iso: string) => !isWeekend(iso) && !['01-01', '12-25', '12-26'].includes(iso.slice(5));

export function effectiveDateFor(requested: string): string | undefined {
  if (isWeekend(requested)) return undefined;
  let d = requested;
  while (!isBusinessDay(d)) d = addDays(d, -1);
  return d;
}

export function nextBusinessDay(iso: string, n = 1): string {
  let d = iso;
  for (let i = 0; i < n; i++) {
    d = addDays(d, 1);
    while (!isBusinessDay(d)) d = addDays(d, 1);
  }
  return d;
}
