import { durationText } from '../clock.js';
import type { Item, WaitReason } from '../domain.js';
import type { IO, Progress } from '../io.js';
import { type RateLimit, rateText } from '../settings.js';

const WAIT_WORDS: Record<WaitReason, readonly [string, string]> = {
  'rate-limit': ['next request in %', 'waiting % for the rate limit'],
  'retry-after': [
    'next request in % (the service asked to wait)',
    'waiting %: the service asked to retry later',
  ],
  backoff: ['retrying in %', 'retrying in %'],
};
const words = (i: 0 | 1, ms: number, reason: WaitReason) =>
  WAIT_WORDS[reason][i].replace('%', durationText(ms));

/** "5/22 · 2024-05-03 · portfolio 42 · next request in 41 s · ETA 6 min". */
export function progressText(
  n: number,
  total: number,
  item: Item,
  eta?: number,
  wait?: { ms: number; reason: WaitReason },
): string {
  let text = `${n}/${total} · ${item.date} · portfolio ${item.portfolioId}`;
  if (wait) text += ` · ${words(0, wait.ms, wait.reason)}`;
  return eta !== undefined && eta >= 1000 ? `${text} · ETA ${durationText(eta)}` : text;
}

/** Shorter waits are shown only on a terminal's progress line. */
const QUIET_WAIT_MS = 5000;

const LONG_RUN_MS = 10 * 60_000;

/** "220 requests at 4/60s: about 54 min (until 07:05)", local time. */
export function longRunNotice(
  requests: number,
  rate: RateLimit,
  etaMs: number,
  now: number,
): string | undefined {
  if (etaMs <= LONG_RUN_MS) return undefined;
  const hhmm = new Date(now + etaMs).toTimeString().slice(0, 5);
  return `${requests} requests at ${rateText(rate)}: about ${durationText(etaMs)} (until ${hhmm})`;
}

export interface Position {
  n: number;
  total: number;
  item: Item;
  etaAt?: number;
}

export function runProgress(io: IO, now: () => number = Date.now) {
  let progress: Progress | undefined;
  let ticker: ReturnType<typeof setInterval> | undefined;
  const show = (text: string) => {
    if (progress) progress.update(text);
    else progress = io.progress(text);
  };
  const quiet = () => clearInterval(ticker);
  const textOf = (p: Position, wait?: { ms: number; reason: WaitReason }) =>
    progressText(p.n, p.total, p.item, p.etaAt === undefined ? undefined : p.etaAt - now(), wait);
  return {
    show(text: string) {
      quiet();
      show(text);
    },
    at(p: Position) {
      quiet();
      show(textOf(p));
    },
    /** A countdown on a terminal (`p` undefined: one item), else a line led by `label` per wait over 5 s. */
    onWait: (p: Position | undefined, label: string) => (ms: number, reason: WaitReason) => {
      if (!io.isStderrTTY) {
        if (ms > QUIET_WAIT_MS) io.note(label ? `${label}: ${words(1, ms, reason)}` : words(1, ms, reason));
        return;
      }
      quiet();
      if (!p) return show(words(1, ms, reason));
      const end = now() + ms;
      const tick = () => {
        const left = end - now();
        if (left > 0) show(textOf(p, { ms: left, reason }));
        else {
          quiet();
          show(textOf(p));
        }
      };
      tick();
      if (!io.quiet && ms > 1000) ticker = setInterval(tick, 1000).unref();
    },
    stop() {
      quiet();
      progress?.stop();
      progress = undefined;
    },
  };
}
