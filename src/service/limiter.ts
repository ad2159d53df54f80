/**
 * The client-side rate limiter of the JSON endpoint: a sliding window shared by every prs process on
 * the machine for the same base URL, tenant and user, so parallel cron jobs never cause a 429.
 *
 * State is a small JSON file in the cache dir, `{ v: 1, stamps: [epoch ms...], open?: [...], until?: epoch ms }`,
 * read-modified-written under a cross-process lock and replaced atomically. A request takes a slot in
 * `open` (stamped with its send time) and, once its response arrives, moves to `stamps` with the
 * completion time: the server received it somewhere between the two, so counting the window from the
 * completion is always safe, for any latency, with no margin. `until` is set when a 429 arrived anyway
 * (another client, a server with a different window): nobody sharing the state sends before it.
 * A missing or corrupt file counts as empty and is rewritten on the next request.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Clock } from '../clock.js';
import { FileError, fileError, PrsError } from '../errors.js';
import { replaceFile } from '../fs/atomic.js';
import { withShortLock } from '../fs/lock.js';
import type { RateLimit } from '../settings.js';
import type { CallHooks, LimiterState } from './types.js';

export type LimiterDecision = { ok: true; state: LimiterState } | { ok: false; waitMs: number };

/**
 * Stamps further ahead than this come from a clock that jumped back or a damaged file; open slots
 * older than this belong to a process that died mid-request.
 */
export const spanOf = (rate: RateLimit) => Math.max(rate.windowMs, 2 * 60_000);

/**
 * Completed requests kept beyond the window, so that a run with a longer window (the same account
 * under another --rate-limit, e.g. 4/1s in a test, then the service's 4/60s) still counts them: the
 * most recent this many within spanOf.
 */
export const KEPT = 32;

/**
 * The pure core. Counts the stamps inside the window and keeps the recent ones beyond it (KEPT),
 * drops open slots older than spanOf (their process died); with room left, opens a slot stamped
 * `now`; else the wait until enough completed requests leave the window (or until `until`). An open
 * slot leaves no earlier than a window from now, since it completes later.
 */
export function decide(state: LimiterState, now: number, rate: RateLimit): LimiterDecision {
  const horizon = now + spanOf(rate);
  const until =
    state.until !== undefined && state.until > now && state.until <= horizon ? state.until : undefined;
  if (until !== undefined) return { ok: false, waitMs: until - now };
  const recent = state.stamps.filter((t) => t > now - spanOf(rate) && t <= horizon).sort((a, b) => a - b);
  const kept = recent.slice(-Math.max(KEPT, rate.limit));
  const stamps = kept.filter((t) => t > now - rate.windowMs);
  const open = (state.open ?? []).filter((t) => t > now - spanOf(rate) && t <= horizon);
  const excess = stamps.length + open.length - rate.limit;
  if (excess < 0) return { ok: true, state: { stamps: kept, open: [...open, now] } };
  const leaves = excess < stamps.length ? stamps[excess]! + rate.windowMs : now + rate.windowMs;
  return { ok: false, waitMs: Math.max(1, leaves - now) };
}

/** The slot opened at `sent` completed at `now`: it counts from `now` on. */
export function settle(state: LimiterState, sent: number, now: number): LimiterState {
  const open = [...(state.open ?? [])];
  const i = open.indexOf(sent);
  if (i >= 0) open.splice(i, 1);
  return { ...state, stamps: [...state.stamps, now], open };
}

/** The file's state with a process's carried requests added (once). */
export function withCarried(state: LimiterState, carried: LimiterState | undefined): LimiterState {
  if (!carried) return state;
  return {
    ...state,
    stamps: [...state.stamps, ...carried.stamps],
    open: [...(state.open ?? []), ...(carried.open ?? [])],
  };
}

/** Parses the state file's text; anything unexpected is an empty state. */
export function parseState(text: string): LimiterState {
  const numbers = (v: unknown) => (Array.isArray(v) ? v.filter((t): t is number => Number.isFinite(t)) : []);
  try {
    const v = JSON.parse(text) as { stamps?: unknown; open?: unknown; until?: unknown };
    const state: LimiterState = { stamps: numbers(v?.stamps) };
    if (Array.isArray(v?.open)) state.open = numbers(v.open);
    if (Number.isFinite(v?.until)) state.until = v.until as number;
    return state;
  } catch {
    return { stamps: [] };
  }
}

/**
 * The state file for one base URL + tenant + user: `limiter-<16 hex>.json`, the key's 64-bit FNV-1a
 * (nothing secret goes in, so no need to load node:crypto at every start).
 */
export function limiterFile(cacheDir: string, baseUrl: string, tenant: string, identity: string): string {
  return join(cacheDir, `limiter-${limiterKey(baseUrl, tenant, identity)}.json`);
}

/** The account's key (shared with the Redis limiter): 16 hex digits. */
export function limiterKey(baseUrl: string, tenant: string, identity: string): string {
  let h = 0xcbf29ce484222325n;
  for (const byte of Buffer.from(`${baseUrl}|${tenant}|${identity}`)) {
    h = ((h ^ BigInt(byte)) * 0x100000001b3n) & 0xffffffffffffffffn;
  }
  return h.toString(16).padStart(16, '0');
}

export interface Limiter {
  /**
   * Waits (through clock.sleep, reporting onWait 'rate-limit') until a slot is free, and takes it.
   * Returns the slot's send stamp, for `settle`.
   */
  acquire(hooks?: CallHooks): Promise<number>;
  /**
   * The request sent in slot `sent` got its answer (or failed): the slot counts from now on. Written
   * at once when the lock is free, else in the background so the answer is not held up; the next
   * acquire() waits for it (and throws its error), and idle() waits for every write.
   */
  settle(sent: number): void;
  /** Resolves once background writes are done (a failed one only leaves its slot open until it expires). */
  idle(): Promise<void>;
  /** A 429 arrived anyway: no process sharing this state sends during the next `ms`. */
  block(ms: number): Promise<void>;
  /**
   * The shared state as it is now, changing nothing (`prs quota`, --dry-run): every process's
   * requests, and `now` on the clock that state is kept by (Redis's own, for the Redis limiter).
   * `local`: a Redis limiter found Redis unusable and read its local file instead.
   */
  peek(): Promise<{ state: LimiterState; now: number; local?: true }>;
}

export interface LimiterOptions {
  /** The state file; absent: the state is this process's alone, in memory (the cache dir is unusable). */
  file?: string;
  rate: RateLimit;
  clock: Clock;
  signal?: AbortSignal;
  /**
   * What this process already spent through the Redis limiter before Redis failed (completion
   * times, and send times still in flight): added to the file's state at the first update, so the
   * switch does not start from an empty window while the service still counts those requests.
   */
  carried?: LimiterState;
}

export function createLimiter(o: LimiterOptions): Limiter {
  const rate = o.rate;
  let carried = o.carried;
  let memory: LimiterState = { stamps: [] };
  const file = o.file;
  const read = () => (file === undefined ? memory : readState(file));
  const change = <T>(fn: (state: LimiterState, now: number) => { write?: LimiterState; result: T }) => {
    const state = withCarried(read(), carried);
    const { write, result } = fn(state, o.clock.now());
    const changed = write ?? (carried ? state : undefined);
    carried = undefined;
    if (changed && file === undefined) memory = changed;
    else if (changed) writeState(file!, changed);
    return result;
  };
  const update = <T>(fn: (state: LimiterState, now: number) => { write?: LimiterState; result: T }) =>
    file === undefined
      ? Promise.resolve(change(fn))
      : guarded(file, () =>
          // Synchronous under the lock: a few small file operations, done before anything else runs.
          withShortLock(file, () => change(fn)),
        );
  let pending: Promise<void> | undefined;
  return {
    async acquire(hooks = {}) {
      const signal = hooks.signal ?? o.signal;
      // A settle still being written must land first: its slot counts from the later time.
      const writing = pending;
      pending = undefined;
      await writing;
      for (;;) {
        const { sent, waitMs } = await update((state, now) => {
          const d = decide(state, now, rate);
          return d.ok
            ? { write: d.state, result: { sent: now, waitMs: 0 } }
            : { result: { sent: 0, waitMs: d.waitMs } };
        });
        if (waitMs === 0) return sent;
        // The lock is released while waiting, so other processes can see the same full window.
        hooks.onWait?.(waitMs, 'rate-limit');
        await o.clock.sleep(waitMs, signal);
      }
    },
    settle(sent) {
      const now = o.clock.now();
      const write = update((state) => ({ write: settle(state, sent, now), result: undefined }));
      // Every write is waited on (not chained after a failed one, which would leave its own failure
      // unhandled); the first failure is the next acquire()'s error, never an unhandled rejection.
      pending = Promise.all([pending, write]).then(() => undefined);
      pending.catch(() => {});
    },
    async idle() {
      await pending?.catch(() => {});
    },
    async block(ms) {
      await update((state, now) => ({
        write: { ...state, until: Math.max(state.until ?? 0, now + ms) },
        result: undefined,
      }));
    },
    async peek() {
      // No lock: the file is only ever replaced whole (writeState), so a read sees one state.
      const now = async () => ({ state: withCarried(read(), carried), now: o.clock.now() });
      return file === undefined ? now() : guarded(file, now);
    },
  };
}

function readState(file: string): LimiterState {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { stamps: [] };
    throw err;
  }
  return parseState(text);
}

/** Replaced whole, so a reader without the lock sees one state; no fsync: after a power cut an empty window is as good as any. */
function writeState(file: string, state: LimiterState): void {
  replaceFile(file, `${JSON.stringify({ v: 1, ...state })}\n`, { mode: 0o600 });
}

async function guarded<T>(file: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof PrsError) throw err;
    const { message } = fileError(err, file, 'cannot use the rate-limit state');
    throw new FileError(message, { cause: err, hint: 'set PRS_CACHE_DIR to a writable directory' });
  }
}
