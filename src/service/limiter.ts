/**
 * The client-side rate limiter of the JSON endpoint: a sliding window shared by every prs process on
 * the machine for the same base URL, tenant and user, so parallel cron jobs never cause a 429.
 *
 * State is a small JSON file in the cache dir, `{ v: 1, stamps: [epoch ms...], until?: epoch ms }`,
 * read-modified-written under a cross-process lock and replaced atomically. `stamps` are the send
 * times of recent requests; `until` is set when a 429 arrived anyway (another client, a server with a
 * different window): nobody sharing the state sends before it. A missing or corrupt file counts as
 * empty and is rewritten on the next request.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Clock } from '../clock.js';
import { FileError, fileError, PrsError } from '../errors.js';
import { writeFileAtomic } from '../fs/atomic.js';
import { withLock } from '../fs/lock.js';
import type { RateLimit } from '../settings.js';
import type { CallHooks } from './types.js';

export interface LimiterState {
  stamps: number[];
  until?: number;
}

export type LimiterDecision = { ok: true; state: LimiterState } | { ok: false; waitMs: number };

/**
 * The pure core. Drops stamps older than the window; with room left, records `now` and returns the
 * new state; else the wait until the oldest stamp leaves the window (or until `until`).
 */
export function decide(state: LimiterState, now: number, rate: RateLimit): LimiterDecision {
  // Stamps or blocks far in the future come from a clock that jumped back or a damaged file: ignore them.
  const horizon = now + Math.max(rate.windowMs, 2 * 60_000);
  const until =
    state.until !== undefined && state.until > now && state.until <= horizon ? state.until : undefined;
  if (until !== undefined) return { ok: false, waitMs: until - now };
  const stamps = state.stamps.filter((t) => t > now - rate.windowMs && t <= horizon).sort((a, b) => a - b);
  if (stamps.length < rate.limit) return { ok: true, state: { stamps: [...stamps, now] } };
  const oldest = stamps[stamps.length - rate.limit]!;
  return { ok: false, waitMs: Math.max(1, oldest + rate.windowMs - now) };
}

/** Parses the state file's text; anything unexpected is an empty state. */
export function parseState(text: string): LimiterState {
  try {
    const v = JSON.parse(text) as { stamps?: unknown; until?: unknown };
    const stamps = Array.isArray(v?.stamps) ? v.stamps.filter((t): t is number => Number.isFinite(t)) : [];
    const until = Number.isFinite(v?.until) ? (v.until as number) : undefined;
    return until === undefined ? { stamps } : { stamps, until };
  } catch {
    return { stamps: [] };
  }
}

/**
 * Sending is not instant after a slot is taken (lock release, connection set-up), and a later request
 * may reach the server faster than an earlier one did. Counting a little more than the window keeps
 * the server's own window from ever seeing limit+1: 2% of the window, at least 100 ms, at most 1 s.
 */
export function safetyMarginMs(windowMs: number): number {
  return Math.min(1000, Math.max(100, Math.round(windowMs * 0.02)));
}

/** The state file for one base URL + tenant + user: `limiter-<first 16 hex of sha256>.json`. */
export function limiterFile(cacheDir: string, baseUrl: string, tenant: string, identity: string): string {
  const key = createHash('sha256').update(`${baseUrl}|${tenant}|${identity}`).digest('hex').slice(0, 16);
  return join(cacheDir, `limiter-${key}.json`);
}

export interface Limiter {
  /** Waits (through clock.sleep, reporting onWait 'rate-limit') until a slot is free, and takes it. */
  acquire(hooks?: CallHooks): Promise<void>;
  /** A 429 arrived anyway: no process sharing this state sends during the next `ms`. */
  block(ms: number): Promise<void>;
}

export interface LimiterOptions {
  file: string;
  rate: RateLimit;
  clock: Clock;
  signal?: AbortSignal;
}

export function createLimiter(o: LimiterOptions): Limiter {
  const rate = { limit: o.rate.limit, windowMs: o.rate.windowMs + safetyMarginMs(o.rate.windowMs) };
  const update = <T>(fn: (state: LimiterState, now: number) => { write?: LimiterState; result: T }) =>
    guarded(o.file, () =>
      withLock(o.file, async () => {
        const state = await readState(o.file);
        const { write, result } = fn(state, o.clock.now());
        if (write)
          await writeFileAtomic(o.file, `${JSON.stringify({ v: 1, ...write })}\n`, {
            force: true,
            mode: 0o600,
          });
        return result;
      }),
    );
  return {
    async acquire(hooks = {}) {
      const signal = hooks.signal ?? o.signal;
      for (;;) {
        const waitMs = await update((state, now) => {
          const d = decide(state, now, rate);
          return d.ok ? { write: d.state, result: 0 } : { result: d.waitMs };
        });
        if (waitMs === 0) return;
        // The lock is released while waiting, so other processes can see the same full window.
        hooks.onWait?.(waitMs, 'rate-limit');
        await o.clock.sleep(waitMs, signal);
      }
    },
    async block(ms) {
      await update((state, now) => ({
        write: { stamps: state.stamps, until: Math.max(state.until ?? 0, now + ms) },
        result: undefined,
      }));
    },
  };
}

async function readState(file: string): Promise<LimiterState> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { stamps: [] };
    throw err;
  }
  return parseState(text);
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
