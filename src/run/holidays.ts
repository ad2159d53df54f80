import type { Item } from '../domain.js';
/**
 * Holiday answers in a range (CLI.md "Runs of many items"): the service answers a date without data
 * with an earlier day's rows; such a repeat is not delivered twice, and a note names the dates.
 */

/**
 * Holidays: the service answers a date without data with an earlier day's rows. Per portfolio, the
 * effective dates already delivered; an answer for one of them again is a repeat, not delivered twice.
 */
export class HolidayFilter {
  private readonly delivered = new Map<number, Set<string>>();
  /** portfolio → effective date → the requested dates it stood for. */
  private readonly repeats = new Map<number, Map<string, string[]>>();

  /** True when this answer is new (deliver it); false when its effective date was delivered already. */
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

  /** How many answers were repeats. */
  get count(): number {
    let n = 0;
    for (const byDate of this.repeats.values()) for (const dates of byDate.values()) n += dates.length;
    return n;
  }

  /**
   * One note per portfolio and effective date: "portfolio 42: 2024-12-25, 2024-12-26 answered with
   * the rows of 2024-12-24 (no data of their own: holidays?); not repeated".
   */
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
