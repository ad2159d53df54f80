/**
 * Eviction's cost (src/cache/store.ts): the store is listed at a store's first write and again only
 * when its count of the store's bytes is over cache-size; which entries go, and when, is as a scan
 * after every write decides (a model of it below).
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { type AnswerKey, createCacheStore, keyText } from '../../../src/cache/store.js';
import { putEntry } from '../../helpers/cache.js';
import { FakeClock } from '../../helpers/clock.js';
import { tempDir } from '../../helpers/run.js';

vi.mock('node:fs', async (importOriginal) => {
  const fs = await importOriginal<typeof import('node:fs')>();
  return { ...fs, readdirSync: vi.fn(fs.readdirSync) };
});

const k = (portfolioId: number): AnswerKey => ({
  baseUrl: 'https://reports.example.com',
  realm: 'r',
  clientId: 'prs-cli',
  identity: 'demo',
  tenant: 'T1',
  portfolioId,
  reportType: 'index',
  date: '2024-05-02',
});
const DAY = 86_400_000;
const headOf = (id: number) =>
  `prs-answer 1 ${'0'.repeat(15)} ${'0'.repeat(64)} ${'0'.repeat(15)}\n${keyText(k(id))}\n`.length;

let tmp: ReturnType<typeof tempDir>;
let clock: FakeClock;
beforeEach(() => {
  tmp = tempDir('prs-cache-evict-');
  clock = new FakeClock(Date.UTC(2024, 4, 10, 12));
});
afterEach(() => tmp.cleanup());

describe('eviction', () => {
  it('writes under the bound list the store once; a write over it lists it again', () => {
    const dir = join(tmp.path, 'answers', 'default');
    const listings = () => vi.mocked(readdirSync).mock.calls.filter(([p]) => p === dir).length;
    const body = Buffer.alloc(100, 32);
    const s = createCacheStore({ cacheDir: tmp.path, maxBytes: 50 * (headOf(50) + 100), clock });
    putEntry(s, 'default', k(1), body);
    const first = listings();
    expect(first).toBeGreaterThan(0);
    for (let id = 2; id <= 50; id++) putEntry(s, 'default', k(id), body);
    expect(listings()).toBe(first);
    putEntry(s, 'default', k(51), body);
    expect(listings()).toBeGreaterThan(first);
    expect(readdirSync(dir).filter((f) => f.endsWith('.entry'))).toHaveLength(50);
  });

  it('which entries go after each write, reads and replacements among them, is what a scan after every write leaves', () => {
    // A model of the store: LRU by the clock, each write brought under the bound at once.
    const model = new Map<number, { size: number; used: number }>();
    const bound = 8 * (headOf(1) + 200);
    const s = createCacheStore({ cacheDir: tmp.path, maxBytes: bound, clock });
    let [evicted, replaced] = [0, 0];
    let seed = 7;
    const next = (n: number) => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return Math.floor(seed / 65_536) % n;
    };
    for (let step = 0; step < 300; step++) {
      clock.advance(1000);
      const id = next(20) + 1;
      if (next(3) === 0) {
        const hit = s.get('default', k(id), DAY) !== undefined;
        expect(hit).toBe(model.has(id));
        if (hit) model.get(id)!.used = clock.now();
        continue;
      }
      const size = 50 + next(400);
      if (model.has(id)) replaced++;
      putEntry(s, 'default', k(id), Buffer.alloc(size, 32));
      model.set(id, { size: headOf(id) + size, used: clock.now() });
      let total = [...model.values()].reduce((n, e) => n + e.size, 0);
      for (const [old, e] of [...model].sort((a, b) => a[1].used - b[1].used)) {
        if (total <= bound) break;
        model.delete(old);
        total -= e.size;
        evicted++;
      }
      const kept = [...Array(20).keys()].map((i) => i + 1).filter((i) => s.peek('default', k(i), DAY));
      expect(kept, `step ${step}`).toEqual([...model.keys()].sort((a, b) => a - b));
    }
    expect(evicted).toBeGreaterThan(50);
    expect(replaced).toBeGreaterThan(20);
  });
});
