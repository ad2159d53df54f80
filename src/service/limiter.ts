// The JSON endpoint's sliding window, shared by every process of one account (a file under the cache
// dir, or Redis). A slot is `open` from its send time and moves to `stamps` at its answer.
import { join } from 'node:path';
import type { Clock } from '../clock.js';
import { FileError, fileError } from '../errors.js';
import { readText, updateFile } from '../fs/atomic.js';
import { fnv1a } from '../fs/temp-names.js';
import type { RateLimit } from '../settings.js';
import type { CallHooks, LimiterState } from './types.js';

/** Stamps further ahead come from a clock set back; open slots older belong to a dead process. */
export const spanOf = (rate: RateLimit) => Math.max(rate.windowMs, 2 * 60_000);

export const KEPT = 32;

/** The pure rule: a slot opened at `now`, or the wait for one. */
export function decide(
  state: LimiterState,
  now: number,
  rate: RateLimit,
): { ok: true; state: LimiterState } | { ok: false; waitMs: number } {
  const horizon = now + spanOf(rate);
  if (state.until !== undefined && state.until > now && state.until <= horizon)
    return { ok: false, waitMs: state.until - now };
  const recent = state.stamps.filter((t) => t > now - spanOf(rate) && t <= horizon).sort((a, b) => a - b);
  const kept = recent.slice(-Math.max(KEPT, rate.limit));
  const stamps = kept.filter((t) => t > now - rate.windowMs);
  const open = (state.open ?? []).filter((t) => t > now - spanOf(rate) && t <= horizon);
  const excess = stamps.length + open.length - rate.limit;
  if (excess < 0) return { ok: true, state: { stamps: kept, open: [...open, now] } };
  // An open slot completes later, so it leaves no earlier than a window from now.
  const leaves = excess < stamps.length ? stamps[excess]! + rate.windowMs : now + rate.windowMs;
  return { ok: false, waitMs: Math.max(1, leaves - now) };
}

export function settle(state: LimiterState, sent: number, now: number): LimiterState {
  const open = [...(state.open ?? [])];
  const i = open.indexOf(sent);
  if (i >= 0) open.splice(i, 1);
  return { ...state, stamps: [...state.stamps, now], open };
}

/** Anything unexpected is an empty state. */
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

export function limiterFile(cacheDir: string, baseUrl: string, tenant: string, identity: string): string {
  return join(cacheDir, `limiter-${limiterKey(baseUrl, tenant, identity)}.json`);
}

/** Shared with the Redis limiter (nothing secret goes in). */
export const limiterKey = (baseUrl: string, tenant: string, identity: string): string =>
  fnv1a(`${baseUrl}|${tenant}|${identity}`);

export interface Limiter {
  /** Returns the slot, for `settle`. */
  acquire(hooks?: CallHooks): Promise<number>;
  /** Written in the background; the next acquire() waits for it (and its error). */
  settle(sent: number): void;
  idle(): Promise<void>;
  block(ms: number): Promise<void>;
  /** The state now, changing nothing, and `now` on its clock; `local`: Redis's fallback file. */
  peek(): Promise<{ state: LimiterState; now: number; local?: true }>;
}

/** Where a limiter keeps its state; `take` is one attempt: a slot, or the wait for one. */
export interface Slots extends Pick<Limiter, 'block' | 'peek'> {
  take(): Promise<{ sent: number } | { waitMs: number }>;
  settle(sent: number): Promise<void>;
  close?(): Promise<void>;
}

/** The waiting and ordering that every kind of state shares. */
export function limiterOver(slots: Slots, clock: Clock, signal?: AbortSignal): Limiter {
  let pending: Promise<unknown> | undefined;
  return {
    async acquire(hooks = {}) {
      // A settle still being written lands first: its slot counts from the later time.
      const writing = pending;
      pending = undefined;
      await writing;
      for (;;) {
        const r = await slots.take();
        if ('sent' in r) return r.sent;
        // Nothing is held while waiting: other processes see the same full window.
        hooks.onWait?.(r.waitMs, 'rate-limit');
        await clock.sleep(r.waitMs, hooks.signal ?? signal);
      }
    },
    settle(sent) {
      pending = Promise.all([pending, slots.settle(sent)]);
      pending.catch(() => {});
    },
    async idle() {
      await pending?.catch(() => {});
      await slots.close?.();
    },
    block: (ms) => slots.block(ms),
    peek: () => slots.peek(),
  };
}

export interface FileSlotsOptions {
  /** Absent: this process's state alone, in memory (the cache dir is unusable). */
  file?: string;
  rate: RateLimit;
  clock: Clock;
  /** What this process spent through Redis before it failed. */
  carried?: LimiterState;
  /** With it, an unusable file is one warning and this process's requests counted alone. */
  warn?: (line: string) => void;
}

/** One change of the state, decided at `now` on the state's clock; no `write` leaves the state as it is. */
export type Change<T> = (state: LimiterState, now: number) => { write?: LimiterState; result: T };

/** Taking, settling and blocking a slot, wherever the state is kept: `update` applies a change atomically. */
export function slotsOver(
  rate: RateLimit,
  update: <T>(fn: Change<T>) => Promise<T>,
  peek: Slots['peek'],
): Slots {
  return {
    take: () =>
      update<{ sent: number } | { waitMs: number }>((state, now) => {
        const d = decide(state, now, rate);
        return d.ok ? { write: d.state, result: { sent: now } } : { result: { waitMs: d.waitMs } };
      }),
    settle: (sent) => update((state, now) => ({ write: settle(state, sent, now), result: undefined })),
    block: (ms) =>
      update((state, now) => ({
        write: { ...state, until: Math.max(state.until ?? 0, now + ms) },
        result: undefined,
      })),
    peek,
  };
}

export function fileSlots(o: FileSlotsOptions): Slots {
  let { file, carried } = o;
  let memory: LimiterState = { stamps: [] };
  const withCarried = (s: LimiterState): LimiterState =>
    carried
      ? { ...s, stamps: [...s.stamps, ...carried.stamps], open: [...(s.open ?? []), ...(carried.open ?? [])] }
      : s;
  const apply = <T>(state: LimiterState, fn: Change<T>) => {
    state = withCarried(state);
    const { write, result } = fn(state, o.clock.now());
    return { changed: write ?? (carried ? state : undefined), result };
  };
  /** Without `warn` a FileError; else one warning, and this process's requests counted alone. */
  const unusable = (err: unknown) => {
    const { message } = fileError(err, file!, 'cannot use the rate-limit state');
    if (!o.warn)
      throw new FileError(message, { cause: err, hint: 'set PRS_CACHE_DIR to a writable directory' });
    o.warn(`prs: warning: ${message}; counting this process's requests alone`);
    file = undefined;
  };
  const update = async <T>(fn: Change<T>): Promise<T> => {
    if (file !== undefined) {
      try {
        const result = await updateFile(
          file,
          (text) => {
            const { changed, result } = apply(parseState(text), fn);
            return { text: changed && `${JSON.stringify({ v: 1, ...changed })}\n`, result };
          },
          { mode: 0o600, durable: false },
        );
        carried = undefined;
        return result;
      } catch (err) {
        unusable(err);
      }
    }
    const { changed, result } = apply(memory, fn);
    carried = undefined;
    if (changed) memory = changed;
    return result;
  };
  return slotsOver(o.rate, update, async () => {
    // No lock: the file is only ever replaced whole.
    let state = memory;
    if (file !== undefined)
      try {
        state = parseState(readText(file));
      } catch (err) {
        unusable(err);
      }
    return { state: withCarried(state), now: o.clock.now() };
  });
}
