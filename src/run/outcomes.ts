/**
 * What becomes of the items of a run (CLI.md "Runs of many items"): which failures end a run and
 * which only an item, the item's failure line, and the run's summary line. Used by the engine
 * (engine.ts); pure helpers.
 */

import type { Item } from '../domain.js';
import {
  BadRequestError,
  exitCodeFor,
  FileExistsError,
  HttpError,
  ItemsFailedError,
  NotFoundError,
  PrsError,
  ServerError,
  ServiceError,
} from '../errors.js';
import type { IO } from '../io.js';

/** "portfolio 42 on 2024-05-03". */
export function itemLabel(item: Item): string {
  return `portfolio ${item.portfolioId} on ${item.date}`;
}

/**
 * Reports an item's failure as it happens: its line, then its hint the first time that hint comes
 * (twenty unknown portfolios or missing files need not say twenty times what to do). In the JSON log
 * it is one `error` entry with the item's fields and its hint as a field, as the run's final error is
 * (log.ts errorEntry; CLI.md: "`error` (with its hint)"): each record stands alone there.
 */
export function itemFailureReporter(io: IO): (item: Item, error: unknown) => void {
  const hints = new Set<string>();
  return (item, error) => {
    const message = `${itemLabel(item)}: ${(error as Error).message}`;
    const hint = error instanceof PrsError ? error.hint : undefined;
    if (io.logFormat === 'json') {
      io.log({
        level: 'error',
        event: 'error',
        message,
        portfolioId: item.portfolioId,
        date: item.date,
        exitCode: exitCodeFor(error),
        hint,
      });
      return;
    }
    io.err(`prs: ${message}`);
    if (hint && !hints.has(hint)) {
      hints.add(hint);
      io.note(`hint: ${hint}`);
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
  return (
    err instanceof FileExistsError ||
    err instanceof ServiceError ||
    err instanceof NotFoundError ||
    err instanceof BadRequestError ||
    err instanceof ServerError
  );
}

/** A few words on why an item failed, for the summary line: "not found", "file exists". */
export function failureReason(err: unknown): string {
  if (err instanceof NotFoundError) return 'not found';
  if (err instanceof FileExistsError) return 'file exists';
  if (err instanceof BadRequestError) return 'refused as bad request';
  if (err instanceof HttpError) return `service error ${err.status}`;
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
