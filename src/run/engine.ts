// The one run engine of report and export: items in, `work` per item, outcomes out in item order
// however many are in flight. Item failures go on, run-level ones (and --fail-fast) stop the run.
import pLimit from 'p-limit';
import { type Clock, systemClock } from '../clock.js';
import type { Deps } from '../deps.js';
import type { Item, RunCommand, WaitReason } from '../domain.js';
import { exitCodeFor, InterruptedError } from '../errors.js';
import type { ItemStatus } from '../events.js';
import type { LimiterState } from '../service/types.js';
import type { RateLimit } from '../settings.js';
import { type Failure, isItemFailure, itemFailureReporter, itemLabel } from './outcomes.js';
import { planRequests } from './plan.js';
import { longRunNotice, type Position, runProgress } from './progress.js';

export interface ItemDone {
  status: Exclude<ItemStatus, 'failed'>;
  paths?: string[];
  bytes?: number;
}

export interface Outcome {
  item: Item;
  index: number;
  status: ItemStatus;
  paths: string[];
  bytes?: number;
  error?: unknown;
  exitCode?: number;
}

export interface ItemContext {
  index: number;
  /** Aborted by an interrupt, a stdout gone, or another item's run-level failure. */
  signal: AbortSignal;
  onWait(ms: number, reason: WaitReason): void;
  turn(): Promise<void>;
  progress: { show(text: string): void; stop(): void };
}

/** The run's part of Deps (`{ ...deps, command }`). */
export interface RunOptions extends Pick<Deps, 'io' | 'events' | 'signal'> {
  command: RunCommand;
  clock?: Pick<Clock, 'now'>;
  parallel?: number;
  failFast?: boolean;
  /** report's: the ETA and the 10-minute notice. */
  rate?: RateLimit;
  /** So the ETA counts the shared limiter's slots already taken. */
  limiterState?: () => Promise<{ state: LimiterState; now: number } | undefined>;
  /** False for an item that will send no request (a cache hit): the ETA counts only those that do. */
  asks?: (index: number) => boolean;
  /** In item order; a promise holds the item's slot until it settles. */
  onOutcome?(o: Outcome): void | Promise<void>;
}

export async function runItems(
  items: readonly Item[],
  work: (item: Item, ctx: ItemContext) => Promise<ItemDone>,
  o: RunOptions,
) {
  const { io } = o;
  const now = () => (o.clock ?? systemClock).now();
  const total = items.length;
  const stopOnAny = !!o.failFast || total === 1;
  // The items' signal: a run-level failure aborts it (halt), and so does an interrupt or a stdout
  // gone (outside), forwarded by hand: AbortSignal.any's first call is a cost of every start.
  const stop = new AbortController();
  const signal = stop.signal;
  const outside = [o.signal, io.stdoutGone];
  const outsideAborted = () => outside.some((s) => s.aborted);
  const forward = () => stop.abort(outside.find((s) => s.aborted)!.reason);
  for (const s of outside) s.addEventListener('abort', forward);
  if (outsideAborted()) forward();
  let stopped: { error: unknown; last: number } | undefined;
  const halt = (error: unknown, last: number) => {
    stopped ??= { error, last };
    stop.abort(error);
  };
  const outsideError = () =>
    io.stdoutGone.aborted
      ? io.stdoutGone.reason
      : o.signal.reason instanceof InterruptedError
        ? o.signal.reason
        : new InterruptedError();

  const progress = runProgress(io, now);
  const reportFailure = itemFailureReporter(io);
  // The requests still to send from each item on (the last entry: none).
  const toSend = new Array<number>(total + 1).fill(0);
  for (let i = total - 1; i >= 0; i--) toSend[i] = toSend[i + 1]! + (o.asks?.(i) === false ? 0 : 1);
  const etaOf = async (requests: number) => {
    if (!o.rate) return undefined;
    // Nothing to send, nothing to wait for: the limiter (and the service behind it) stays unbuilt.
    if (requests === 0) return 0;
    const live = await o.limiterState?.().catch(() => undefined);
    return planRequests(requests, live?.state ?? { stamps: [] }, live?.now ?? now(), o.rate).waitMs;
  };
  const requests = toSend[0]!;
  const eta = (await etaOf(requests)) ?? 0;
  o.events.emit({ event: 'start', command: o.command, items: total, requests, etaMs: eta });
  const notice = o.rate && longRunNotice(requests, o.rate, eta, now());
  if (notice) io.note(notice);

  const limit = pLimit(Math.min(8, Math.max(1, o.parallel ?? 1)));
  const outcomes: Outcome[] = [];
  let started = 0;

  const deliver = (outcome: Outcome) => {
    const { item, status, error } = outcome;
    outcomes.push(outcome);
    // The failure that stops the run is printed once, by main.
    if (status === 'failed' && !stopOnAny && stopped?.error !== error) {
      progress.stop();
      reportFailure(item, error);
    }
    const written = o.onOutcome?.(outcome);
    o.events.emit({
      event: 'item',
      item: { portfolioId: item.portfolioId, date: item.date },
      status,
      ...(outcome.paths[0] !== undefined && { path: outcome.paths[0] }),
      ...(outcome.bytes !== undefined && { bytes: outcome.bytes }),
      ...(status === 'failed' && {
        exitCode: outcome.exitCode,
        message: error instanceof Error ? error.message : String(error),
      }),
    });
    return written;
  };

  const doOne = async (item: Item, index: number, turn: () => Promise<void>) => {
    if (signal.aborted) return undefined;
    const n = ++started;
    const eta = await etaOf(toSend[index]!);
    const at: Position = { n, total, item, etaAt: eta === undefined ? undefined : now() + eta };
    if (total > 1) progress.at(at);
    const onWait = (ms: number, reason: WaitReason) => {
      o.events.emit({ event: 'wait', waitMs: ms, reason, item: { ...item } });
      // The service asked for a pause: fewer items at once from now on.
      if (reason !== 'rate-limit') limit.concurrency = Math.max(1, Math.ceil(limit.concurrency / 2));
      // A single report's error names the item anyway.
      const label = total > 1 || o.command === 'export' ? itemLabel(item) : '';
      progress.onWait(total > 1 ? at : undefined, label)(ms, reason);
    };
    try {
      const r = await work(item, { index, signal, onWait, turn, progress });
      return { item, index, status: r.status, paths: r.paths ?? [], bytes: r.bytes };
    } catch (error) {
      if (outsideAborted()) {
        halt(outsideError(), -1);
        return undefined;
      }
      // Stopped by another item: this one's error is a consequence, not an outcome.
      if (stop.signal.aborted) return undefined;
      if (stopOnAny || !isItemFailure(error)) halt(error, index);
      return { item, index, status: 'failed', paths: [], error, exitCode: exitCodeFor(error) } as Outcome;
    }
  };

  let previous = Promise.resolve();
  const runs = items.map((item, index) => {
    const before = previous;
    const turn = () => before;
    // Delivered before the slot is given back: an item's line and event come before the next item starts.
    const mine = limit(async () => {
      const outcome = await doOne(item, index, turn);
      await before;
      if (outcome && (!stopped || index <= stopped.last)) await deliver(outcome);
    });
    previous = mine.catch(() => {});
    return mine;
  });
  try {
    await Promise.all(runs);
  } finally {
    progress.stop();
  }
  if (!stopped && outsideAborted()) stopped = { error: outsideError(), last: -1 };
  const failures: Failure[] = outcomes.filter((r) => r.status === 'failed');
  return { outcomes, failures, stopped: stopped?.error as unknown };
}

export type RunEnd = Awaited<ReturnType<typeof runItems>>;
