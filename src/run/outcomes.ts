import type { Item } from '../domain.js';
import {
  exitCodeFor,
  FileExistsError,
  HttpError,
  ItemsFailedError,
  PrsError,
  ServiceError,
} from '../errors.js';
import type { IO } from '../io.js';

export function itemLabel(item: Item): string {
  return `portfolio ${item.portfolioId} on ${item.date}`;
}

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
      io.hint(hint);
    }
  };
}

export function itemsOf(portfolioIds: readonly number[], dates: readonly string[]): Item[] {
  return portfolioIds.flatMap((portfolioId) => dates.map((date) => ({ portfolioId, date })));
}

/** This item's own failure named for the summary; undefined for one that stops the run. */
function itemFailure(err: unknown): string | undefined {
  const status = err instanceof HttpError ? err.status : 0;
  if (status === 404) return 'not found';
  if (err instanceof FileExistsError) return 'file exists';
  if (status === 400) return 'refused as bad request';
  if (status >= 500) return `service error ${status}`;
  if (err instanceof ServiceError) return 'service error';
}

export const isItemFailure = (err: unknown): boolean => itemFailure(err) !== undefined;

function failureReason(err: unknown): string {
  if (err instanceof HttpError) return itemFailure(err) ?? `service error ${err.status}`;
  return itemFailure(err) ?? (err instanceof PrsError ? err.message : 'failed');
}

export interface Failure {
  item: Item;
  error?: unknown;
}

/** "18 written, 1 empty, 1 failed: portfolio 999 on 2024-05-02 (not found)"; zero counts left out. */
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

export function runFailure(
  counts: readonly (readonly [number, string])[],
  failures: readonly Failure[],
): ItemsFailedError | undefined {
  return failures.length > 0
    ? new ItemsFailedError(summaryLine(counts, failures), failures[0]!.error)
    : undefined;
}
