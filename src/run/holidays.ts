import type { Item } from '../domain.js';

/** The service answers a date without data with an earlier day's rows: such a repeat is delivered once. */
export class HolidayFilter {
  /** Per portfolio and effective date delivered, the dates that repeated it. */
  private readonly repeats = new Map<string, { id: number; effective: string; dates: string[] }>();

  admit(item: Item, effectiveDate: string | undefined): boolean {
    if (effectiveDate === undefined) return true;
    const key = `${item.portfolioId} ${effectiveDate}`;
    const repeat = this.repeats.get(key);
    if (!repeat) this.repeats.set(key, { id: item.portfolioId, effective: effectiveDate, dates: [] });
    else repeat.dates.push(item.date);
    return !repeat;
  }

  get count(): number {
    return [...this.repeats.values()].reduce((n, r) => n + r.dates.length, 0);
  }

  notes(): string[] {
    return [...this.repeats.values()]
      .filter((r) => r.dates.length > 0)
      .map(({ id, effective, dates }) => {
        const they = dates.length === 1 ? 'its' : 'their';
        return `portfolio ${id}: ${dates.join(', ')} answered with the rows of ${effective} (no data of ${they} own: holiday?); not repeated`;
      });
  }
}
