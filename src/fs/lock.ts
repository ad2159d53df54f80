/**
 * A cross-process lock around a file (the credential store, the limiter's state): a `<file>.lock`
 * directory (mkdir is atomic: exactly one process creates it) whose mtime the holder refreshes while it
 * works, so a crashed holder's lock goes stale and is taken over instead of blocking cron jobs forever.
 * The same protocol as proper-lockfile, without its load time at every start.
 *
 * Taking and releasing are a few synchronous file operations on a local directory: cheaper than a
 * trip through the event loop for each. Only waiting for another holder is asynchronous.
 */
import { mkdirSync, rmdirSync, statSync, utimes } from 'node:fs';
import { dirname } from 'node:path';

export interface LockOptions {
  /** How long to keep trying before giving up (ms); then the error's code is ELOCKED. */
  waitMs?: number;
  /** A lock not refreshed for this long is considered abandoned (ms, min 5000). */
  staleMs?: number;
}

/** Runs `fn` holding the lock on `file`, refreshing it while `fn` runs (it may take long: a sign-in). */
export async function withLock<T>(file: string, fn: () => Promise<T> | T, o: LockOptions = {}): Promise<T> {
  const lock = `${file}.lock`;
  const staleMs = staleOf(o);
  const taking = take(file, o);
  if (taking !== true) await taking;
  const refresh = setInterval(() => {
    const now = new Date();
    utimes(lock, now, now, () => {});
  }, staleMs / 2);
  refresh.unref();
  try {
    return await fn();
  } finally {
    clearInterval(refresh);
    release(lock);
  }
}

/**
 * withLock for a critical section that is synchronous and short (the limiter's read-modify-write of a
 * small file): when the lock is free it is taken, used and released before this returns, so the
 * caller's state is written before anything else runs. A Promise all the same: taking it may wait.
 */
export async function withShortLock<T>(file: string, fn: () => T, o: LockOptions = {}): Promise<T> {
  const taking = take(file, o);
  if (taking !== true) await taking;
  try {
    return fn();
  } finally {
    release(`${file}.lock`);
  }
}

const staleOf = (o: LockOptions) => Math.max(5000, o.staleMs ?? 10_000);

/** Takes the lock now (true), or waits until it can (ELOCKED once waitMs is over). */
function take(file: string, o: LockOptions): true | Promise<void> {
  const lock = `${file}.lock`;
  const staleMs = staleOf(o);
  const deadline = Date.now() + (o.waitMs ?? 30_000);
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  if (tryLock(lock, staleMs)) return true;
  return (async () => {
    do {
      if (Date.now() >= deadline) {
        throw Object.assign(new Error(`${lock} is held by another process`), { code: 'ELOCKED' });
      }
      await new Promise((r) => setTimeout(r, 10 + Math.random() * 30));
    } while (!tryLock(lock, staleMs));
  })();
}

/** Takes the lock, or removes it when stale (the next try takes it); false while someone holds it. */
function tryLock(lock: string, staleMs: number): boolean {
  try {
    mkdirSync(lock);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  let mtimeMs: number | undefined;
  try {
    mtimeMs = statSync(lock).mtimeMs;
  } catch {
    // Released meanwhile: the next try takes it.
  }
  if (mtimeMs !== undefined && Date.now() - mtimeMs > staleMs) release(lock);
  return false;
}

function release(lock: string): void {
  try {
    rmdirSync(lock);
  } catch {
    // Already gone (taken over as stale): nothing to release.
  }
}
