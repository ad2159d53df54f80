import type { Item } from '../domain.js';

/** The service answers a date without data with an earlier day's rows: such a repeat is delivered once. */
export class HolidayFilter {
  private readonly delivered = new Set<string>();
  private readonly repeats = new Map<string, { id: number; effective: string; dates: string[] }>();

  admit(item: Item, effectiveDate: string | undefined): boolean {
    if (effectiveDate === undefined) return true;
    const key = `${item.portfolioId} ${effectiveDate}`;
    if (!this.delivered.has(key)) {
      this.delivered.add(key);
      return true;
    }
    const repeat = this.repeats.get(key) ?? { id: item.portfolioId, effective: effectiveDate, dates: [] };
    repeat.dates.push(item.date);
    this.repeats.set(key, repeat);
    return false;
  }

  get count(): number {
    return [...this.repeats.values()].reduce((n, r) => n + r.dates.length, 0);
  }

  notes(): string[] {
    return [...this.repeats.values()].map(({ id, effective, dates }) => {
      const they = dates.length === 1 ? 'its' : 'their';
      return `portfolio ${id}: ${dates.join(', ')} answered with the rows of ${effective} (no data of ${they} own: holiday?); not repeated`;
    });
  }
}
