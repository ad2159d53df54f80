import type { Item } from '../domain.js';

/** The service answers a date without data with an earlier day's rows: such a repeat is delivered once. */
export class HolidayFilter {
  private readonly delivered = new Map<number, Set<string>>();
  /** portfolio → effective date → the requested dates it stood for. */
  private readonly repeats = new Map<number, Map<string, string[]>>();

  /** False when its effective date was delivered already. */
  admit(item: Item, effectiveDate: string | undefined): boolean {
    if (effectiveDate === undefined) return true;
    const seen = this.delivered.get(item.portfolioId) ?? new Set<string>();
    this.delivered.set(item.portfolioId, seen);
    if (!seen.has(effectiveDate)) {
      seen.add(effectiveDate);
      return true;
    }
    const byDate = this.repeats.get(item.portfolioId) ?? new Map<string, string[]>();
    this.repeats.set(item.portfolioId, byDate);
    byDate.set(effectiveDate, [...(byDate.get(effectiveDate) ?? []), item.date]);
    return false;
  }

  get count(): number {
    let n = 0;
    for (const byDate of this.repeats.values()) for (const dates of byDate.values()) n += dates.length;
    return n;
  }

  /** One note per portfolio and effective date. */
  notes(): string[] {
    const out: string[] = [];
    for (const [id, byDate] of this.repeats) {
      for (const [effective, dates] of byDate) {
        const they = dates.length === 1 ? 'its' : 'their';
        out.push(
          `portfolio ${id}: ${dates.join(', ')} answered with the rows of ${effective} (no data of ${they} own: holiday?); not repeated`,
        );
      }
    }
    return out;
  }
}
