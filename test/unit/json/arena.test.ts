/**
 * The run's arena (src/json/arena.ts): large buffers reuse one block once released; small ones and a
 * second taker while it is held get memory of their own. A body is gathered in one buffer.
 */
import { describe, expect, it } from 'vitest';
import { Accumulator, Arena, REUSE_MIN } from '../../../src/json/arena.js';

const bytes = (n: number, seed = 1) =>
  Buffer.from(Array.from({ length: n }, (_, i) => (i * 31 + seed) & 255));
const MAX = 8 * 1024 * 1024;

describe('Arena', () => {
  it('hands out its buffer again once released, a new one while held, an ordinary one when small', () => {
    const arena = new Arena(MAX);
    const a = arena.get(REUSE_MIN);
    const b = arena.get(REUSE_MIN); // a is held
    expect([arena.owns(a), arena.owns(b)]).toEqual([true, false]);
    arena.release(b); // not the arena's: a stays held
    expect(arena.owns(arena.get(REUSE_MIN))).toBe(false);
    arena.release(a);
    expect(arena.get(REUSE_MIN).buffer === a.buffer).toBe(true);
    const small = arena.get(REUSE_MIN - 1);
    expect([small.length, arena.owns(small)]).toEqual([REUSE_MIN - 1, false]);
  });

  it('grows its block for a larger request once free; past its max, an ordinary buffer', () => {
    const arena = new Arena(4 * REUSE_MIN);
    const a = arena.get(REUSE_MIN);
    a.fill(7);
    arena.release(a);
    const b = arena.get(2 * REUSE_MIN);
    expect([b.length, arena.owns(b), b[0]]).toEqual([2 * REUSE_MIN, true, 7]);
    arena.release(b);
    const c = arena.get(5 * REUSE_MIN);
    expect([c.length, arena.owns(c)]).toEqual([5 * REUSE_MIN, false]);
  });
});

describe('Accumulator', () => {
  it.each([
    { name: 'empty', chunks: [], hint: 0 },
    { name: 'small, no length', chunks: [10, 20, 30], hint: 0 },
    { name: 'small, length exact', chunks: [100, 100], hint: 200 },
    { name: 'small length, larger body (moves into the arena)', chunks: [1000, REUSE_MIN], hint: 1000 },
    { name: 'large, no length', chunks: [700_000, 700_000, 5], hint: 0 },
    { name: 'large, length exact', chunks: [REUSE_MIN, REUSE_MIN], hint: 2 * REUSE_MIN },
  ])('$name: the bytes received, in order; the arena free again for a small body', ({ chunks, hint }) => {
    const arena = new Arena(MAX);
    const into = new Accumulator(arena, MAX, hint);
    const parts = chunks.map((n, i) => bytes(n, i));
    for (const p of parts) expect(into.push(p)).toBe(true);
    const got = into.take();
    expect(got.equals(Buffer.concat(parts))).toBe(true);
    const large = got.length >= REUSE_MIN;
    // A large body holds the arena until released; a small one was copied out of it.
    expect(arena.owns(arena.get(REUSE_MIN))).toBe(!large);
    if (large) {
      arena.release(got);
      expect(arena.owns(arena.get(REUSE_MIN))).toBe(true);
    }
  });

  it('refuses a chunk that would pass max, keeping what it has', () => {
    const into = new Accumulator(new Arena(100), 100);
    expect(into.push(bytes(60))).toBe(true);
    expect(into.push(bytes(41))).toBe(false);
    expect(into.push(bytes(40))).toBe(true);
    expect(into.take().length).toBe(100);
  });

  it('an abandoned body frees the arena', () => {
    const arena = new Arena(MAX);
    const cut = new Accumulator(arena, MAX);
    cut.push(bytes(REUSE_MIN));
    expect(arena.owns(cut.take())).toBe(true);
    cut.drop();
    const next = new Accumulator(arena, MAX);
    next.push(bytes(REUSE_MIN, 2));
    expect(arena.owns(next.take())).toBe(true);
  });
});
