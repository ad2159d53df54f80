/**
 * Releasable buffers (src/json/releasable.ts): a body gathered in one buffer grown in place, handed
 * out whole; large ones give their memory back on release (every view then has length 0), small ones
 * are ordinary buffers that release leaves alone.
 */
import { describe, expect, it } from 'vitest';
import { Accumulator, RELEASE_MIN, releasable, release } from '../../../src/json/releasable.js';

const bytes = (n: number, seed = 1) =>
  Buffer.from(Array.from({ length: n }, (_, i) => (i * 31 + seed) & 255));

describe('Accumulator', () => {
  it.each([
    { name: 'empty', chunks: [], hint: 0 },
    { name: 'small, no hint', chunks: [10, 20, 30], hint: 0 },
    { name: 'small, hint exact', chunks: [100, 100], hint: 200 },
    { name: 'large, no hint (grows past its first step)', chunks: [700_000, 700_000, 5], hint: 0 },
    { name: 'large, hint smaller than the body', chunks: [RELEASE_MIN, RELEASE_MIN], hint: 1000 },
    { name: 'large, hint larger than the body', chunks: [RELEASE_MIN + 1], hint: 4 * RELEASE_MIN },
  ])('$name: the bytes received, in order', ({ chunks, hint }) => {
    const into = new Accumulator(8 * 1024 * 1024, hint);
    const parts = chunks.map((n, i) => bytes(n, i));
    for (const p of parts) expect(into.push(p)).toBe(true);
    const got = into.take();
    expect(got.equals(Buffer.concat(parts))).toBe(true);
    const large = got.length >= RELEASE_MIN;
    release(got);
    // Large: the memory is given back (the view is empty now); small: an ordinary buffer, untouched.
    expect(got.length).toBe(large ? 0 : Buffer.concat(parts).length);
  });

  it('refuses a chunk that would pass max, keeping what it has', () => {
    const into = new Accumulator(100);
    expect(into.push(bytes(60))).toBe(true);
    expect(into.push(bytes(41))).toBe(false);
    expect(into.push(bytes(40))).toBe(true);
    expect(into.take().length).toBe(100);
  });
});

describe('releasable', () => {
  it.each([
    [0, false],
    [RELEASE_MIN - 1, false],
    [RELEASE_MIN, true],
  ])('%i bytes: released at once %s', (size, released) => {
    const b = releasable(size);
    expect(b.length).toBe(size);
    b.fill(7);
    const view = b.subarray(0, size);
    release(view);
    expect(b.length).toBe(released ? 0 : size);
  });

  it('release of undefined, or of a slice of the shared pool, does nothing', () => {
    const pooled = Buffer.from('abc');
    release(pooled);
    release(undefined);
    expect(pooled.toString()).toBe('abc');
  });
});
