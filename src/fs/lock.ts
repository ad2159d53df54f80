/**
 * A cross-process lock around a file (the credential store, the limiter's state), via proper-lockfile:
 * a `<file>.lock` directory whose mtime is refreshed while held, so a crashed holder's lock goes stale
 * and is taken over instead of blocking cron jobs forever.
 */
import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';

export interface LockOptions {
  /** How long to keep trying before giving up (ms). */
  waitMs?: number;
  /** A lock not refreshed for this long is considered abandoned (ms, min 5000). */
  staleMs?: number;
}

export async function withLock<T>(file: string, fn: () => Promise<T> | T, o: LockOptions = {}): Promise<T> {
  const { default: lockfile } = await import('proper-lockfile');
  await mkdir(dirname(file), { recursive: true, mode: 0o700 });
  const waitMs = o.waitMs ?? 30_000;
  const release = await lockfile.lock(file, {
    realpath: false,
    stale: Math.max(5000, o.staleMs ?? 10_000),
    retries: { retries: Math.ceil(waitMs / 25), factor: 1, minTimeout: 10, maxTimeout: 40, randomize: true },
    onCompromised: () => {
      // Another process took over a lock we held too long; our write is still atomic, so carry on.
    },
  });
  try {
    return await fn();
  } finally {
    await release().catch(() => {});
  }
}
