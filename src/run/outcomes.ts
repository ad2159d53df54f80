/**
 * Runs of many items (CLI.md "Runs of many items"), shared by `report` and `export`: which failures
 * end a run and which only an item, the summary line, holiday answers that are not repeated, and the
 * progress and wait lines. Pure helpers; the commands own the loop.
 */
import {
  FileExistsError,
  ForbiddenError,
  HttpError,
  ItemsFailedError,
  NotFoundError,
  PrsError,
  RateLimitError,
  ServiceError,
} from './errors.js';
import type { IO, Progress } from './io.js';
import type { CallHooks } from './service/types.js';

/** One portfolio × date of a run. */
export interface Item {
  portfolioId: number;
  date: string;
}

/** "portfolio 42 on 2024-05-03". */
export function itemLabel(item: Item): string {
  return `portfolio ${item.portfolioId} on ${item.date}`;
}

/**
 * Reports an item's failure as it happens: its line, then its hint the first time that hint comes
 * (twenty unknown portfolios or missing files need not say twenty times what to do).
 */
export function itemFailureReporter(io: IO): (item: Item, error: unknown) => void {
  const hints = new Set<string>();
  return (item, error) => {
    io.err(`prs: ${itemLabel(item)}: ${(error as Error).message}`);
    const hint = error instanceof PrsError ? error.hint : undefined;
    if (hint && !hints.has(hint)) {
      hints.add(hint);
      io.note(hint);
    }
  };
}

/** Every portfolio × date, portfolio first then date: the order rows and files come out in. */
export function itemsOf(portfolioIds: readonly number[], dates: readonly string[]): Item[] {
  return portfolioIds.flatMap((portfolioId) => dates.map((date) => ({ portfolioId, date })));
}

/**
 * A failure of this item only, after retries: the service refused (400) or has no such portfolio
 * (404), failed (5xx), or sent a corrupt answer; or the item's file already exists. Everything else
 * (authentication, 403, a 429 that persists, network, local files, interrupt) would fail every
 * other item the same way: it stops the run.
 */
export function isItemFailure(err: unknown): boolean {
  if (err instanceof FileExistsError || err instanceof ServiceError || err instanceof NotFoundError)
    return true;
  if (err instanceof ForbiddenError || err instanceof RateLimitError) return false;
  if (err instanceof HttpError) return err.status === 400 || err.status >= 500;
  return false;
}

/** A few words on why an item failed, for the summary line: "not found", "file exists". */
export function failureReason(err: unknown): string {
  if (err instanceof NotFoundError) return 'not found';
  if (err instanceof FileExistsError) return 'file exists';
  if (err instanceof HttpError)
    return err.status === 400 ? 'refused as bad request' : `service error ${err.status}`;
  if (err instanceof ServiceError) return 'service error';
  return err instanceof PrsError ? err.message : 'failed';
}

export interface Failure {
  item: Item;
  error: unknown;
}

/**
 * The run's closing line: "18 written, 1 empty, 1 failed: portfolio 999 on 2024-05-02 (not found)".
 * `counts` in the order to print; zero counts are left out (all of them zero: "nothing to do").
 * At most `max` failures are named.
 */
export function summaryLine(
  counts: readonly (readonly [number, string])[],
  failures: readonly Failure[],
  max = 3,
): string {
  const parts = counts.filter(([n]) => n > 0).map(([n, word]) => `${n} ${word}`);
  if (failures.length > 0) {
    const named = failures
      .slice(0, max)
      .map((f) => `${itemLabel(f.item)} (${failureReason(f.error)})`)
      .join('; ');
    const more = failures.length > max ? ` and ${failures.length - max} more` : '';
    parts.push(`${failures.length} failed: ${named}${more}`);
  }
  return parts.length > 0 ? parts.join(', ') : 'nothing to do';
}

/**
 * What a run ends with once every item was tried: an ItemsFailedError (message: the summary line,
 * exit code: the first failure's) when an item failed, else undefined.
 */
export function runFailure(
  counts: readonly (readonly [number, string])[],
  failures: readonly Failure[],
): ItemsFailedError | undefined {
  return failures.length > 0
    ? new ItemsFailedError(summaryLine(counts, failures), failures[0]!.error)
    : undefined;
}

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

/** "40 s", "51 min", "1 h 05 min". */
export function formatDuration(ms: number): string {
  const s = Math.max(1, Math.ceil(ms / 1000));
  if (s < 60) return `${s} s`;
  const min = Math.ceil(s / 60);
  if (min < 60) return `${min} min`;
  return `${Math.floor(min / 60)} h ${String(min % 60).padStart(2, '0')} min`;
}

/**
 * How long `remaining` more requests take at `limit` per `windowMs` once the current one is sent:
 * each full window's worth waits one window. An estimate (other processes may share the limit).
 */
export function etaMs(remaining: number, limit: number, windowMs: number): number {
  return remaining <= 0 || limit <= 0 ? 0 : Math.floor(remaining / limit) * windowMs;
}

/** The progress line: "12/220 · 2024-05-03 · portfolio 42 · ETA 51 min". */
export function progressText(n: number, total: number, item: Item, eta?: number): string {
  const base = `${n}/${total} · ${item.date} · portfolio ${item.portfolioId}`;
  return eta !== undefined && eta >= 1000 ? `${base} · ETA ${formatDuration(eta)}` : base;
}

/** The text of a wait: "waiting 41 s for the rate limit". */
export function waitWords(ms: number, reason: Parameters<NonNullable<CallHooks['onWait']>>[1]): string {
  const s = formatDuration(ms);
  return reason === 'rate-limit'
    ? `waiting ${s} for the rate limit`
    : reason === 'retry-after'
      ? `waiting ${s}: the service asked to retry later`
      : `retrying in ${s}`;
}

/** Waits shorter than this are shown only on a terminal's progress line. */
export const QUIET_WAIT_MS = 5000;

/**
 * Shows a run's state and waits: on a terminal one progress line (replaced as the run goes on);
 * without one (a cron log), one stderr line per wait longer than 5 s, so a slow job says why.
 * `-q` silences both (io.progress and io.note already obey it).
 */
export function runProgress(io: IO): {
  show(text: string): void;
  onWait(context: string): NonNullable<CallHooks['onWait']>;
  stop(): void;
} {
  let progress: Progress | undefined;
  const show = (text: string) => {
    if (progress) progress.update(text);
    else progress = io.progress(text);
  };
  return {
    show,
    onWait: (context) => (ms, reason) => {
      const words = waitWords(ms, reason);
      if (io.isStderrTTY) show(context ? `${context} · ${words}` : words);
      else if (ms > QUIET_WAIT_MS) io.note(context ? `${context}: ${words}` : words);
    },
    stop: () => {
      progress?.stop();
      progress = undefined;
    },
  };
}
