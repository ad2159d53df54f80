import { existsSync, mkdirSync, rmdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { takeOver, withLock } from '../../../src/fs/lock.js';
import { tempDir } from '../../helpers/run.js';

let dir: { path: string; cleanup: () => void };
beforeEach(() => {
  dir = tempDir();
});
afterEach(() => dir.cleanup());

// The same protocol with an async critical section and a synchronous one.
describe.each([
  ['withLock, async fn', ((file, fn, o) => withLock(file, async () => fn(), o)) as typeof withLock],
  ['withLock, synchronous fn', withLock],
])('%s (<file>.lock)', (_name, withLock) => {
  it('creates the directory of the file, holds <file>.lock while fn runs, returns its result', async () => {
    const file = join(dir.path, 'sub', 'state.json');
    const result = await withLock(file, () => {
      expect(existsSync(`${file}.lock`)).toBe(true);
      return 42;
    });
    expect(result).toBe(42);
    expect(existsSync(`${file}.lock`)).toBe(false);
  });

  it('releases the lock when fn throws', async () => {
    const file = join(dir.path, 'state.json');
    await expect(
      withLock(file, () => {
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(existsSync(`${file}.lock`)).toBe(false);
  });

  // A lock is an O_EXCL file; an older prs's is a directory, honoured the same way.
  const holdLock = {
    file: (path: string) => writeFileSync(path, ''),
    "an older prs's directory": (path: string) => mkdirSync(path),
  };

  it.each(Object.entries(holdLock))(
    'a lock held by another process (fresh, %s) → a FileError naming it once waitMs is over',
    async (_kind, hold) => {
      const file = join(dir.path, 'state.json');
      hold(`${file}.lock`);
      let ran = false;
      const err = await withLock(
        file,
        () => {
          ran = true;
        },
        { waitMs: 100 },
      ).catch((e) => e);
      expect(err).toMatchObject({ name: 'FileError', message: `another prs process holds ${file}.lock` });
      expect(err.hint).toBe('if no other prs is running, remove it');
      expect(ran).toBe(false);
      expect(existsSync(`${file}.lock`)).toBe(true); // not ours to remove
    },
  );

  it.each(Object.entries(holdLock))(
    'a stale lock (%s, not refreshed for 10 s) is taken over',
    async (_kind, hold) => {
      const file = join(dir.path, 'state.json');
      hold(`${file}.lock`);
      const old = new Date(Date.now() - 60_000);
      utimesSync(`${file}.lock`, old, old);
      expect(await withLock(file, () => 'took over', { waitMs: 1000 })).toBe('took over');
      expect(existsSync(`${file}.lock`)).toBe(false);
    },
  );

  it('a directory that cannot be created is a FileError with the fs error as its cause', async () => {
    const file = join(dir.path, 'missing', 'state.json');
    writeFileSync(join(dir.path, 'missing'), '');
    const err = await withLock(file, () => 1).catch((e) => e);
    // mkdir -p reports a file in the way as EEXIST (ENOTDIR on some systems).
    expect(err.name).toBe('FileError');
    expect(err.cause.code).toMatch(/^E(EXIST|NOTDIR)$/);
  });
});

describe('withLock, synchronous fn', () => {
  it('with the lock free, runs and releases before returning (no trip through the event loop)', () => {
    const file = join(dir.path, 'state.json');
    let ran = false;
    const done = withLock(file, () => {
      ran = true;
    });
    expect(ran).toBe(true);
    expect(existsSync(`${file}.lock`)).toBe(false);
    return done;
  });

  it('with the lock held, waits (asynchronously) for its release', async () => {
    const file = join(dir.path, 'state.json');
    mkdirSync(`${file}.lock`);
    let ran = false;
    const done = withLock(file, () => {
      ran = true;
    });
    expect(ran).toBe(false);
    setTimeout(() => rmdirSync(`${file}.lock`), 50);
    await done;
    expect(ran).toBe(true);
  });
});

describe('a stale lock taken over', () => {
  const staleAt = (path: string) => {
    const old = new Date(Date.now() - 60_000);
    utimesSync(path, old, old);
  };

  it('by two processes that both found it stale: the later leaves the lock the first made meanwhile', async () => {
    const file = join(dir.path, 'state.json');
    writeFileSync(`${file}.lock`, '');
    staleAt(`${file}.lock`);
    // The first took it over and holds a lock of its own; the second acts on what it found a moment ago.
    await withLock(file, async () => {
      takeOver(`${file}.lock`);
      expect(existsSync(`${file}.lock`)).toBe(true);
    });
    expect(existsSync(`${file}.lock.claim`)).toBe(false);
  });

  it('while another process is taking it over (its claim fresh): left to that one', async () => {
    const file = join(dir.path, 'state.json');
    writeFileSync(`${file}.lock`, '');
    staleAt(`${file}.lock`);
    writeFileSync(`${file}.lock.claim`, '');
    const err = await withLock(file, () => 'took over', { waitMs: 100 }).catch((e) => e);
    expect(err).toMatchObject({ name: 'FileError', message: `another prs process holds ${file}.lock` });
    expect(existsSync(`${file}.lock`)).toBe(true);
  });

  it('a claim whose taker died (stale too) is removed, and the lock taken over', async () => {
    const file = join(dir.path, 'state.json');
    writeFileSync(`${file}.lock`, '');
    staleAt(`${file}.lock`);
    writeFileSync(`${file}.lock.claim`, '');
    staleAt(`${file}.lock.claim`);
    expect(await withLock(file, () => 'took over', { waitMs: 1000 })).toBe('took over');
    expect(existsSync(`${file}.lock`)).toBe(false);
    expect(existsSync(`${file}.lock.claim`)).toBe(false);
  });
});

describe('withLock', () => {
  it('serialises critical sections in one process', async () => {
    const file = join(dir.path, 'state.json');
    const order: string[] = [];
    await Promise.all(
      ['a', 'b', 'c'].map((id) =>
        withLock(file, async () => {
          order.push(`${id}+`);
          await new Promise((r) => setTimeout(r, 20));
          order.push(`${id}-`);
        }),
      ),
    );
    for (let i = 0; i < order.length; i += 2) expect(order[i].slice(0, 1)).toBe(order[i + 1].slice(0, 1));
    expect(existsSync(`${file}.lock`)).toBe(false);
  });
});
