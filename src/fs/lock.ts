// proper-lockfile's protocol without its load time: a `<file>.lock` made with O_EXCL (an empty file: a
// directory's block made and freed cost each lock milliseconds) whose mtime the holder refreshes, so a
// crashed holder's lock goes stale and is taken over. Taking and releasing are synchronous, waiting is not.
import { closeSync, mkdirSync, openSync, rmdirSync, statSync, unlinkSync, utimes } from 'node:fs';
import { dirname } from 'node:path';
import { FileError, fileError } from '../errors.js';

export interface LockOptions {
  waitMs?: number;
  createDir?: boolean;
  /** True: no lock can be made here at all (`code`: EACCES, EROFS, …), so `fn` runs without one. */
  unlockable?: (code: string) => boolean;
}

/** A synchronous `fn` with the lock free runs and releases before this returns; an async one refreshes it. */
export async function withLock<T>(file: string, fn: () => T, o: LockOptions = {}): Promise<Awaited<T>> {
  const lock = `${file}.lock`;
  try {
    if (o.createDir !== false) mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    // Free: `fn` runs now, in this tick.
    if (!tryLock(lock)) await waitFor(lock, Date.now() + (o.waitMs ?? 30_000));
  } catch (err) {
    if (err instanceof FileError) throw err;
    const code = (err as NodeJS.ErrnoException).code ?? '';
    if (!o.unlockable?.(code)) throw fileError(err, lock, 'cannot lock');
    return await fn();
  }
  let refresh: NodeJS.Timeout | undefined;
  try {
    const result = fn();
    if (!(result instanceof Promise)) return result as Awaited<T>;
    refresh = setInterval(() => {
      const now = new Date();
      utimes(lock, now, now, () => {});
    }, STALE_MS / 2).unref();
    return await result;
  } finally {
    clearInterval(refresh);
    release(lock);
  }
}

/** A lock not refreshed for this long belongs to a dead holder and is taken over. */
const STALE_MS = 10_000;

async function waitFor(lock: string, deadline: number): Promise<void> {
  do {
    if (Date.now() >= deadline)
      throw new FileError(`another prs process holds ${lock}`, {
        hint: 'if no other prs is running, remove it',
      });
    await new Promise((r) => setTimeout(r, 10 + Math.random() * 30));
  } while (!tryLock(lock));
}

function tryLock(lock: string): boolean {
  try {
    closeSync(openSync(lock, 'wx', 0o600));
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  if (isStale(lock)) takeOver(lock);
  return false;
}

function isStale(path: string): boolean {
  const mtimeMs = statSync(path, { throwIfNoEntry: false })?.mtimeMs;
  return mtimeMs !== undefined && Date.now() - mtimeMs > STALE_MS;
}

// Two processes that found one lock stale must not both remove it (the later would remove the lock the
// first made meanwhile): the remover holds `<lock>.claim` (O_EXCL) and looks again under it.
export function takeOver(lock: string): void {
  const claim = `${lock}.claim`;
  try {
    closeSync(openSync(claim, 'wx', 0o600));
  } catch {
    if (isStale(claim)) release(claim);
    return;
  }
  try {
    if (isStale(lock)) release(lock);
  } finally {
    release(claim);
  }
}

/** Also an older prs's `<file>.lock` directory, once stale. */
function release(lock: string): void {
  try {
    unlinkSync(lock);
  } catch {
    try {
      rmdirSync(lock);
    } catch {}
  }
}
