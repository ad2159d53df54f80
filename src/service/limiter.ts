// The JSON endpoint's sliding window, shared by every process of one account (a file under the cache
// dir, or Redis). A slot is `open` from its send time and moves to `stamps` at its answer.
import { join } from 'node:path';
import type { Clock } from '../clock.js';
import { fileError } from '../errors.js';
import { readText, updateFile } from '../fs/atomic.js';
import { fnv1a } from '../fs/temp-names.js';
import type { RateLimit } from '../settings.js';
import type { CallHooks, LimiterState } from './types.js';

/** Stamps further ahead come from a clock set back; open slots older belong to a dead process. */
export const spanOf = (rate: RateLimit) => Math.max(rate.windowMs, 2 * 60_000);

const KEPT = 32;

/** What of a state counts at `now`: a pause in force, the stamps kept and those in the window, open slots. */
export function counted(state: LimiterState, now: number, rate: RateLimit) {
  const span = spanOf(rate);
  const current = (t: number) => t > now - span && t <= now + span;
  const recent = state.stamps.filter(current).sort((a, b) => a - b);
  const kept = recent.slice(-Math.max(KEPT, rate.limit));
  const paused = state.until !== undefined && state.until > now && current(state.until);
  const stamps = kept.filter((t) => t > now - rate.windowMs);
  return { until: paused ? state.until : undefined, kept, stamps, open: (state.open ?? []).filter(current) };
}

export function decide(
  state: LimiterState,
  now: number,
  rate: RateLimit,
): { ok: true; state: LimiterState } | { ok: false; waitMs: number } {
  const { until, kept, stamps, open } = counted(state, now, rate);
  if (until !== undefined) return { ok: false, waitMs: until - now };
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

export const limiterKey = (baseUrl: string, tenant: string, identity: string): string =>
  fnv1a(`${baseUrl}|${tenant}|${identity}`);

/** One change of the state, decided at `now` on the state's clock; no `write` leaves the state as it is. */
export type Change<T> = (state: LimiterState, now: number) => { write?: LimiterState; result: T };

export interface Slots {
  update<T>(fn: Change<T>): Promise<T>;
  peek(): Promise<{ state: LimiterState; now: number; local?: true }>;
  close?(): Promise<void>;
}

export type Limiter = ReturnType<typeof limiterOver>;

export function limiterOver(slots: Slots, rate: RateLimit, clock: Clock, signal?: AbortSignal) {
  let pending: Promise<unknown> | undefined;
  return {
    async acquire(hooks: CallHooks = {}): Promise<number> {
      // A settle still being written lands first: its slot counts from the later time.
      const writing = pending;
      pending = undefined;
      await writing;
      for (;;) {
        const r = await slots.update<{ sent: number } | { waitMs: number }>((state, now) => {
          const d = decide(state, now, rate);
          return d.ok ? { write: d.state, result: { sent: now } } : { result: { waitMs: d.waitMs } };
        });
        if ('sent' in r) return r.sent;
        // Nothing is held while waiting: other processes see the same full window.
        hooks.onWait?.(r.waitMs, 'rate-limit');
        await clock.sleep(r.waitMs, hooks.signal ?? signal);
      }
    },
    /** Written in the background; the next acquire() waits for it. */
    settle(sent: number) {
      const written = slots.update((state, now) => ({ write: settle(state, sent, now), result: undefined }));
      pending = Promise.all([pending, written]);
      pending.catch(() => {});
    },
    async idle() {
      await pending?.catch(() => {});
      await slots.close?.();
    },
    block: (ms: number) =>
      slots.update((state, now) => ({
        write: { ...state, until: Math.max(state.until ?? 0, now + ms) },
        result: undefined,
      })),
    peek: () => slots.peek(),
  };
}

export interface FileSlotsOptions {
  /** Absent: this process's state alone, in memory (the cache dir is unusable). */
  file?: string;
  clock: Clock;
  warn?: (line: string) => void;
  /** What Redis held when it failed: added by the first change. */
  seed?: LimiterState;
}

export function fileSlots(o: FileSlotsOptions): Slots {
  let { file, seed } = o;
  let memory: LimiterState = { stamps: [] };
  const seeded = (s: LimiterState): LimiterState =>
    seed
      ? { ...s, stamps: [...s.stamps, ...seed.stamps], open: [...(s.open ?? []), ...(seed.open ?? [])] }
      : s;
  const apply = <T>(state: LimiterState, fn: Change<T>) => {
    const { write, result } = fn(seeded(state), o.clock.now());
    return { write: write ?? (seed && seeded(state)), result };
  };
  const unusable = (err: unknown) => {
    // Two writes that failed together warn once.
    if (file === undefined) return;
    const { message } = fileError(err, file, 'cannot use the rate-limit state');
    o.warn?.(`prs: warning: ${message}; counting this process's requests alone`);
    file = undefined;
  };
  return {
    async update(fn) {
      if (file !== undefined)
        try {
          const result = await updateFile(
            file,
            (text) => {
              const { write, result } = apply(parseState(text), fn);
              return { text: write && `${JSON.stringify({ v: 1, ...write })}\n`, result };
            },
            { mode: 0o600, durable: false },
          );
          seed = undefined;
          return result;
        } catch (err) {
          unusable(err);
        }
      const { write, result } = apply(memory, fn);
      seed = undefined;
      if (write) memory = write;
      return result;
    },
    async peek() {
      let state = memory;
      if (file !== undefined)
        try {
          state = parseState(readText(file));
        } catch (err) {
          unusable(err);
        }
      return { state: seeded(state), now: o.clock.now() };
    },
  };
}
