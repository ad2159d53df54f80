/** Time as a dependency, so retry delays, token expiry and the limiter can be tested with a fake clock. */
import { InterruptedError } from './errors.js';

export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Resolves after `ms`; rejects with InterruptedError when `signal` aborts first. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/** A time as ISO 8601 to the second, "2024-05-02T06:00:00Z": how prs shows an instant to users. */
export function isoSeconds(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(new InterruptedError());
      const onAbort = () => {
        clearTimeout(timer);
        reject(new InterruptedError());
      };
      const timer = setTimeout(
        () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
        Math.max(0, ms),
      );
      signal?.addEventListener('abort', onAbort, { once: true });
    }),
};

/** A clock that only moves when told to; `sleep` advances it instantly and records the delay. */
export class FakeClock implements Clock {
  readonly sleeps: number[] = [];
  constructor(private t = Date.UTC(2024, 4, 1, 6, 0, 0)) {}
  now(): number {
    return this.t;
  }
  advance(ms: number): void {
    this.t += ms;
  }
  async sleep(ms: number, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) throw new InterruptedError();
    this.sleeps.push(ms);
    this.t += Math.max(0, ms);
  }
}
