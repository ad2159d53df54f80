/**
 * What a run shows while it goes (CLI.md "Runs of many items"): the progress line on a terminal
 * (item, ETA, and a countdown through a wait), one plain line per long wait without one (a cron
 * log), and the notice of a run planned to take longer than ten minutes.
 */

import type { Item, WaitReason } from '../domain.js';
import type { IO, Progress } from '../io.js';
import { type RateLimit, rateText } from '../settings.js';

/** "40 s", "51 min", "1 h 05 min". */
export function formatDuration(ms: number): string {
  const s = Math.max(1, Math.ceil(ms / 1000));
  if (s < 60) return `${s} s`;
  const min = Math.ceil(s / 60);
  if (min < 60) return `${min} min`;
  return `${Math.floor(min / 60)} h ${String(min % 60).padStart(2, '0')} min`;
}

/** A wait on the progress line, counted down: "next request in 41 s". */
export function countdownWords(ms: number, reason: WaitReason): string {
  const s = formatDuration(ms);
  return reason === 'rate-limit'
    ? `next request in ${s}`
    : reason === 'retry-after'
      ? `next request in ${s} (the service asked to wait)`
      : `retrying in ${s}`;
}

/**
 * The progress line: "12/220 · 2024-05-03 · portfolio 42 · ETA 51 min"; during a wait
 * "5/22 · 2024-05-03 · portfolio 42 · next request in 41 s · ETA 6 min".
 */
export function progressText(
  n: number,
  total: number,
  item: Item,
  eta?: number,
  wait?: { ms: number; reason: WaitReason },
): string {
  let text = `${n}/${total} · ${item.date} · portfolio ${item.portfolioId}`;
  if (wait) text += ` · ${countdownWords(wait.ms, wait.reason)}`;
  return eta !== undefined && eta >= 1000 ? `${text} · ETA ${formatDuration(eta)}` : text;
}

/** The text of a wait in a log line: "waiting 41 s for the rate limit". */
export function waitWords(ms: number, reason: WaitReason): string {
  const s = formatDuration(ms);
  return reason === 'rate-limit'
    ? `waiting ${s} for the rate limit`
    : reason === 'retry-after'
      ? `waiting ${s}: the service asked to retry later`
      : `retrying in ${s}`;
}

/** Waits shorter than this are shown only on a terminal's progress line. */
export const QUIET_WAIT_MS = 5000;

/** A run planned longer than this says so before its first request. */
export const LONG_RUN_MS = 10 * 60_000;

/**
 * "220 requests at 4/60s: about 54 min (until 07:05)" when the plan is longer than ten minutes,
 * else undefined. The clock time is local, as the user reads it.
 */
export function longRunNotice(
  requests: number,
  rate: RateLimit,
  etaMs: number,
  now: number,
): string | undefined {
  if (etaMs <= LONG_RUN_MS) return undefined;
  const at = new Date(now + etaMs);
  const hhmm = `${String(at.getHours()).padStart(2, '0')}:${String(at.getMinutes()).padStart(2, '0')}`;
  return `${requests} requests at ${rateText(rate)}: about ${formatDuration(etaMs)} (until ${hhmm})`;
}

/** Where an item stands in its run, for its progress line. */
export interface Position {
  n: number;
  total: number;
  item: Item;
  /** The ETA as it was when the item started (ms from `startedAt`). */
  etaMs?: number;
}

export interface RunProgress {
  /** Replace the line with plain text. */
  show(text: string): void;
  /** An item starts: its progress line. */
  at(p: Position): void;
  /**
   * The wait hook of a request: on a terminal the progress line of `p` counts the wait down (a run of
   * one item, `p` undefined, shows just the wait); else one log line per wait longer than 5 s, led by
   * `label` when given.
   */
  onWait(p: Position | undefined, label: string): (ms: number, reason: WaitReason) => void;
  stop(): void;
}

/**
 * Shows a run's state and waits: on a terminal one progress line (replaced as the run goes on);
 * without one, one stderr line per wait longer than 5 s, so a slow job says why. `-q` silences both
 * (io.progress and io.note already obey it).
 */
export function runProgress(io: IO, now: () => number = Date.now): RunProgress {
  let progress: Progress | undefined;
  let ticker: ReturnType<typeof setInterval> | undefined;
  const show = (text: string) => {
    if (progress) progress.update(text);
    else progress = io.progress(text);
  };
  const quiet = () => {
    if (ticker) clearInterval(ticker);
    ticker = undefined;
  };
  /** When each position's ETA runs out (epoch ms), so that a countdown also counts the ETA down. */
  const etaEnd = new WeakMap<Position, number>();
  const etaLeft = (p: Position) => {
    const end = etaEnd.get(p);
    return end === undefined ? undefined : end - now();
  };
  return {
    show(text) {
      quiet();
      show(text);
    },
    at(p) {
      quiet();
      if (p.etaMs !== undefined) etaEnd.set(p, now() + p.etaMs);
      show(progressText(p.n, p.total, p.item, p.etaMs));
    },
    onWait: (p, label) => (ms, reason) => {
      if (!io.isStderrTTY) {
        if (ms > QUIET_WAIT_MS) io.note(label ? `${label}: ${waitWords(ms, reason)}` : waitWords(ms, reason));
        return;
      }
      quiet();
      if (!p) {
        show(waitWords(ms, reason));
        return;
      }
      const end = now() + ms;
      const tick = () => {
        const left = end - now();
        if (left > 0) show(progressText(p.n, p.total, p.item, etaLeft(p), { ms: left, reason }));
        else {
          quiet();
          show(progressText(p.n, p.total, p.item, etaLeft(p)));
        }
      };
      tick();
      // Each second, on a terminal only: the spinner's line is the only thing it touches.
      if (!io.quiet && ms > 1000) {
        ticker = setInterval(tick, 1000);
        ticker.unref?.();
      }
    },
    stop() {
      quiet();
      progress?.stop();
      progress = undefined;
    },
  };
}
