import { spawn } from 'node:child_process';
import { once } from 'node:events';
import {
  existsSync,
  mkdirSync,
  readFileSync,
  rmdirSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { updateFile } from '../../../src/fs/atomic.js';
import { withLock } from '../../../src/fs/lock.js';
import { tempDir } from '../../helpers/run.js';

let dir: { path: string; cleanup: () => void };
beforeEach(() => {
  dir = tempDir();
});
afterEach(() => dir.cleanup());

// The same protocol with an async critical section and a synchronous one.
describe.each([
  ['withLock, async fn', ((file, fn, o) => withLock(file, async (held) => fn(held), o)) as typeof withLock],
  ['withLock, synchronous fn', withLock],
])('%s (<file>.lock)', (_name, withLock) => {
  it('creates the directory of the file, holds <file>.lock (naming its owner) while fn runs, returns its result', async () => {
    const file = join(dir.path, 'sub', 'state.json');
    const result = await withLock(file, (held) => {
      expect(readFileSync(`${file}.lock`, 'utf8')).toMatch(
        new RegExp(`^${process.pid} ${hostname()} [0-9a-f]{4} \\w+\n$`),
      );
      expect(held()).toBe(true);
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

const ageBy = (path: string, ms: number) => {
  const at = new Date(Date.now() - ms);
  utimesSync(path, at, at);
};
const staleAt = (path: string) => ageBy(path, 60_000);

describe('a stale lock taken over', () => {
  it('while another process is taking it over (its claim fresh): left to that one', async () => {
    const file = join(dir.path, 'state.json');
    writeFileSync(`${file}.lock`, '');
    staleAt(`${file}.lock`);
    writeFileSync(`${file}.lock.claim`, '');
    const err = await withLock(file, () => 'took over', { waitMs: 100 }).catch((e) => e);
    expect(err).toMatchObject({ name: 'FileError', message: `another prs process holds ${file}.lock` });
    expect(existsSync(`${file}.lock`)).toBe(true);
  });

  // A claim lives for a stat and an unlink; two takers that find it stale must not both remove it (the
  // later would remove the claim a third made meanwhile): it is removed under its own claim.
  it("a stale claim while another process removes it (the claim's claim fresh): left to that one", async () => {
    const file = join(dir.path, 'state.json');
    for (const p of [`${file}.lock`, `${file}.lock.claim`]) {
      writeFileSync(p, '');
      staleAt(p);
    }
    writeFileSync(`${file}.lock.claim.claim`, '');
    const err = await withLock(file, () => 'took over', { waitMs: 100 }).catch((e) => e);
    expect(err).toMatchObject({ name: 'FileError', message: `another prs process holds ${file}.lock` });
    expect(existsSync(`${file}.lock.claim`)).toBe(true);
  });

  // A claim left by a taker that died: older than a second (not the lock's ten), or further ahead than
  // that (a clock set back, a touch); a lock further ahead than its stale time likewise.
  it.each([
    ['a claim a few seconds old', `.lock.claim`, -3000],
    ['a claim a minute ahead', `.lock.claim`, 60_000],
    ['a claim that is stale too', `.lock.claim`, -60_000],
    ['a stale claim with a stale claim of its own', `.lock.claim.claim`, -60_000],
  ])('%s: removed, and the lock taken over', async (_name, claimed, ms) => {
    const file = join(dir.path, 'state.json');
    for (let p = `${file}.lock`; p.length <= `${file}${claimed}`.length; p += '.claim') {
      writeFileSync(p, '');
      ageBy(p, p === `${file}.lock` ? 60_000 : -ms);
    }
    expect(await withLock(file, () => 'took over', { waitMs: 5000 })).toBe('took over');
    for (const p of ['.lock', '.lock.claim', '.lock.claim.claim'])
      expect(existsSync(`${file}${p}`)).toBe(false);
  });

  it('a lock a minute ahead (a clock set back, a touch) is stale', async () => {
    const file = join(dir.path, 'state.json');
    writeFileSync(`${file}.lock`, '');
    ageBy(`${file}.lock`, -60_000);
    expect(await withLock(file, () => 'took over', { waitMs: 5000 })).toBe('took over');
  });

  it('a lock a few seconds ahead (clocks a little apart) is not', async () => {
    const file = join(dir.path, 'state.json');
    writeFileSync(`${file}.lock`, '');
    ageBy(`${file}.lock`, -5000);
    const err = await withLock(file, () => 'took over', { waitMs: 100 }).catch((e) => e);
    expect(err).toMatchObject({ name: 'FileError', message: `another prs process holds ${file}.lock` });
  });

  it("a live holder's lock names it in the hint", async () => {
    const file = join(dir.path, 'state.json');
    writeFileSync(`${file}.lock`, '4242 build-7 k2j5d\n');
    const err = await withLock(file, () => 1, { waitMs: 100 }).catch((e) => e);
    expect(err.hint).toBe('if no other prs is running (pid 4242 on build-7 holds it), remove it');
  });
});

// A holder whose event loop was blocked past the stale time, so that another process took its lock over.
describe('a lock lost while held', () => {
  it("its holder learns it (held() false) and leaves the next holder's lock in place", async () => {
    const file = join(dir.path, 'state.json');
    const lock = `${file}.lock`;
    let entered = () => {};
    let leave = () => {};
    const inside = new Promise<void>((r) => {
      entered = r;
    });
    let next: Promise<void> | undefined;
    await withLock(file, async (held) => {
      staleAt(lock);
      // Another process takes the stale lock over, and is still inside when this one finishes.
      next = withLock(
        file,
        () =>
          new Promise<void>((r) => {
            leave = r;
            entered();
          }),
      );
      await inside;
      expect(held()).toBe(false);
    });
    expect(existsSync(lock)).toBe(true);
    leave();
    await next;
    expect(existsSync(lock)).toBe(false);
  });

  it('updateFile writes nothing under it: it reads the file again and decides anew (as a transaction is retried)', async () => {
    const file = join(dir.path, 'state.json');
    const lock = `${file}.lock`;
    writeFileSync(file, 'a');
    const seen: string[] = [];
    const result = await updateFile(file, (text) => {
      seen.push(text);
      if (seen.length === 1) {
        // Meanwhile another process took the stale lock over, wrote, and (soon) leaves.
        rmSync(lock);
        writeFileSync(lock, '4242 elsewhere k2j5d\n');
        writeFileSync(file, 'ab');
        setTimeout(() => rmSync(lock), 0);
      }
      return { text: `${text}c`, result: seen.length };
    });
    expect(seen).toEqual(['a', 'ab']);
    expect(result).toBe(2);
    expect(readFileSync(file, 'utf8')).toBe('abc');
  });
});

// Every half of the stale time while an async fn runs: on a fake clock, one refresh is one step of it.
describe('the refresh of a lock held', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval', 'Date'] });
  });
  afterEach(() => vi.useRealTimers());
  const mtimeOf = (path: string) => statSync(path).mtimeMs;
  const settled = () => Promise.resolve();

  it('keeps its own lock fresh', async () => {
    const file = join(dir.path, 'state.json');
    const lock = `${file}.lock`;
    await withLock(file, async () => {
      await settled(); // the refresh starts once fn has returned its promise
      ageBy(lock, 8000);
      vi.advanceTimersByTime(5000);
      expect(Math.abs(mtimeOf(lock) - Date.now())).toBeLessThan(1000);
      expect(vi.getTimerCount()).toBe(1);
    });
    expect(vi.getTimerCount()).toBe(0);
  });

  it('never touches a lock another process took over, and stops', async () => {
    const file = join(dir.path, 'state.json');
    const lock = `${file}.lock`;
    await withLock(file, async (held) => {
      await settled();
      expect(vi.getTimerCount()).toBe(1);
      // This one stalled past the stale time; another took the lock over and has not refreshed it yet.
      rmSync(lock);
      writeFileSync(lock, '4242 elsewhere k2j5d\n');
      ageBy(lock, 8000);
      const taken = mtimeOf(lock);
      vi.advanceTimersByTime(5000);
      expect(mtimeOf(lock)).toBe(taken);
      expect(vi.getTimerCount()).toBe(0);
      expect(held()).toBe(false);
    });
    expect(readFileSync(lock, 'utf8')).toBe('4242 elsewhere k2j5d\n');
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

/** A script for plain node children (they cannot import TypeScript) running `code` with `src/fs/*`. */
async function worker(code: string): Promise<string> {
  const script = join(dir.path, 'worker.mjs');
  await build({
    stdin: {
      contents: `
        import { updateFile } from ${JSON.stringify(join(process.cwd(), 'src/fs/atomic.ts'))};
        import { withLock } from ${JSON.stringify(join(process.cwd(), 'src/fs/lock.ts'))};
        const [file, n] = process.argv.slice(2);
        ${code}
      `,
      resolveDir: process.cwd(),
      loader: 'ts',
    },
    bundle: true,
    platform: 'node',
    format: 'esm',
    outfile: script,
    logLevel: 'silent',
  });
  return script;
}

const exitOf = async (...args: string[]) =>
  (await once(spawn(process.execPath, args, { stdio: 'inherit' }), 'exit'))[0];

it('a fresh lock whose holder on this machine died (killed inside) is taken over at once', async () => {
  const file = join(dir.path, 'state.json');
  expect(
    await exitOf(await worker('await withLock(file, () => process.kill(process.pid, "SIGKILL"));'), file),
  ).toBe(null);
  expect(existsSync(`${file}.lock`)).toBe(true);
  expect(await withLock(file, () => 'took over', { waitMs: 5000 })).toBe('took over');
});

// Real processes, each counting under the lock from a start where a dead process left it stale and a
// dead taker left its claim stale: every count lands once, and nothing is left behind.
it('processes contending for a stale lock and a stale claim lose no update', async () => {
  const file = join(dir.path, 'count');
  const script = await worker(`
    for (let i = 0; i < Number(n); i++)
      await updateFile(file, (t) => ({ text: String(Number(t || 0) + 1), result: undefined }));
  `);
  for (const p of [`${file}.lock`, `${file}.lock.claim`]) {
    writeFileSync(p, '');
    staleAt(p);
  }
  const codes = await Promise.all(Array.from({ length: 4 }, () => exitOf(script, file, '25')));
  expect(codes).toEqual([0, 0, 0, 0]);
  expect(readFileSync(file, 'utf8')).toBe('100');
  for (const p of ['.lock', '.lock.claim', '.lock.claim.claim'])
    expect(existsSync(`${file}${p}`)).toBe(false);
}, 60_000);
