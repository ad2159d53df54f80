/**
 * A cross-process lock around a file (the credential store, the limiter's state): a `<file>.lock`
 * directory (mkdir is atomic: exactly one process creates it) whose mtime the holder refreshes while it
 * works, so a crashed holder's lock goes stale and is taken over instead of blocking cron jobs forever.
 * The same protocol as proper-lockfile, without its load time at every start.
 */
import fs, { mkdirSync, rmdirSync, statSync } from 'node:fs';
import { dirname } from 'node:path';

// fs.promises is read when the async lock is used, not at import: withLockSync (the limiter, on every
// request) then never loads it (~1.3 ms).
const fsp = () => fs.promises;

export interface LockOptions {
  /** How long to keep trying before giving up (ms); then the error's code is ELOCKED. */
  waitMs?: number;
  /** A lock not refreshed for this long is considered abandoned (ms, min 5000). */
  staleMs?: number;
}

export async function withLock<T>(file: string, fn: () => Promise<T> | T, o: LockOptions = {}): Promise<T> {
  const lock = `${file}.lock`;
  const staleMs = Math.max(5000, o.staleMs ?? 10_000);
  const deadline = Date.now() + (o.waitMs ?? 30_000);
  await fsp().mkdir(dirname(file), { recursive: true, mode: 0o700 });
  while (!(await tryLock(lock, staleMs))) {
    if (Date.now() >= deadline) {
      throw Object.assign(new Error(`${lock} is held by another process`), { code: 'ELOCKED' });
    }
    await new Promise((r) => setTimeout(r, 10 + Math.random() * 30));
  }
  const refresh = setInterval(() => {
    const now = new Date();
    fsp()
      .utimes(lock, now, now)
      .catch(() => {});
  }, staleMs / 2);
  refresh.unref();
  try {
    return await fn();
  } finally {
    clearInterval(refresh);
    await fsp()
      .rmdir(lock)
      .catch(() => {});
  }
}

/** Takes the lock, or removes it when stale (the next try takes it); false while someone holds it. */
async function tryLock(lock: string, staleMs: number): Promise<boolean> {
  try {
    await fsp().mkdir(lock);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  const s = await fsp()
    .stat(lock)
    .catch(() => undefined);
  if (s && Date.now() - s.mtimeMs > staleMs)
    await fsp()
      .rmdir(lock)
      .catch(() => {});
  return false;
}

/**
 * withLock for a critical section that is synchronous and short (the limiter's read-modify-write of a
 * small file): when the lock is free it is taken, used and released at once, without a trip through
 * the event loop for each file operation (those trips are most of the cost, and they wait behind
 * whatever the main thread is doing). Waiting for another holder still sleeps asynchronously.
 */
export async function withLockSync<T>(file: string, fn: () => T, o: LockOptions = {}): Promise<T> {
  const lock = `${file}.lock`;
  const staleMs = Math.max(5000, o.staleMs ?? 10_000);
  const deadline = Date.now() + (o.waitMs ?? 30_000);
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  while (!tryLockSync(lock, staleMs)) {
    if (Date.now() >= deadline) {
      throw Object.assign(new Error(`${lock} is held by another process`), { code: 'ELOCKED' });
    }
    await new Promise((r) => setTimeout(r, 10 + Math.random() * 30));
  }
  try {
    return fn();
  } finally {
    try {
      rmdirSync(lock);
    } catch {
      // Already gone (taken over as stale): nothing to release.
    }
  }
}

/** tryLock, synchronously. */
function tryLockSync(lock: string, staleMs: number): boolean {
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
  if (mtimeMs !== undefined && Date.now() - mtimeMs > staleMs) {
    try {
      rmdirSync(lock);
    } catch {
      // Someone else took it over first.
    }
  }
  return false;
}
