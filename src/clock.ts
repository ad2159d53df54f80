import { setTimeout as delay } from 'node:timers/promises';
import { InterruptedError } from './errors.js';

export interface Clock {
  now(): number;
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export function isoSeconds(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** "0 s", "40 s", "51 min", "1 h 05 min": a wait rounded up, time left rounded down. */
export function durationText(ms: number, round: 'up' | 'down' = 'up'): string {
  const to = round === 'up' ? Math.ceil : Math.floor;
  const s = Math.max(0, to(ms / 1000));
  if (s < 60) return `${s} s`;
  const min = to(s / 60);
  if (min < 60) return `${min} min`;
  return `${Math.floor(min / 60)} h ${String(min % 60).padStart(2, '0')} min`;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) =>
    delay(Math.max(0, ms), undefined, { signal }).catch(() => {
      throw new InterruptedError();
    }),
};
