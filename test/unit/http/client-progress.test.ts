/** watchProgress (src/http/client.ts): --timeout bounds a body that advances too slowly (issue 18 defect 4). */
import { Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { MIN_PROGRESS_BYTES, watchProgress } from '../../../src/http/client.js';

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

const body = (highWaterMark = 64 * 1024) => new Readable({ read() {}, highWaterMark });
const codeOf = (r: Readable) => (r.errored as NodeJS.ErrnoException | null)?.code;

describe('watchProgress', () => {
  it.each([
    ['a byte every 100 ms', 1, 100, 'UND_ERR_BODY_TIMEOUT'],
    ['1023 bytes a second', MIN_PROGRESS_BYTES - 1, 1000, 'UND_ERR_BODY_TIMEOUT'],
    ['1 kB a second', MIN_PROGRESS_BYTES, 1000, undefined],
    ['64 kB every 100 ms', 64 * 1024, 100, undefined],
  ])('%s, timeout 1 s → %s', (_name, bytes, everyMs, code) => {
    const r = body(1024 * 1024 * 1024);
    r.resume(); // a reader that keeps up
    r.on('error', () => {}); // read from r.errored below
    watchProgress(r, 1000);
    for (let t = 0; t < 3000 && !r.destroyed; t += everyMs) {
      r.push(Buffer.alloc(bytes));
      vi.advanceTimersByTime(everyMs);
    }
    expect(codeOf(r)).toBe(code);
  });

  it('not when the reader is the slow side (its buffer is full)', () => {
    const r = body(16);
    watchProgress(r, 1000);
    r.push(Buffer.alloc(32)); // nobody reads: the buffer stays over its mark
    vi.advanceTimersByTime(5000);
    expect(r.destroyed).toBe(false);
  });

  it('not once the whole body arrived, read or not', () => {
    const r = body();
    watchProgress(r, 1000);
    r.push(Buffer.from('[]'));
    r.push(null);
    vi.advanceTimersByTime(5000);
    expect(r.destroyed).toBe(false);
  });
});
