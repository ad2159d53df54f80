import type { Clock } from '../../src/clock.js';
import { InterruptedError } from '../../src/errors.js';

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
