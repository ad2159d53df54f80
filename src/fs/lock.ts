// proper-lockfile's protocol without its load time: a `<file>.lock` made with O_EXCL (a file, not a
// directory: a directory's block made and freed cost each lock milliseconds) whose mtime the holder
// refreshes, so a crashed holder's lock goes stale and is taken over. It names its owner (pid, host, a
// token of this taking): a holder taken over knows it, and leaves the next one's lock; one that died on
// this machine is taken over at once. Taking and releasing are synchronous, waiting is not.
import {
  closeSync,
  futimesSync,
  mkdirSync,
  openSync,
  readFileSync,
  rmdirSync,
  statSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { hostname } from 'node:os';
import { dirname } from 'node:path';
import { FileError, fileError } from '../errors.js';
import { hostTagOf, processAlive } from './temp-names.js';

export interface LockOptions {
  waitMs?: number;
  createDir?: boolean;
  /** True: no lock can be made here at all (`code`: EACCES, EROFS, …), so `fn` runs without one. */
  unlockable?: (code: string) => boolean;
}

/** A synchronous `fn` with the lock free runs and releases before this returns; an async one refreshes it. */
export async function withLock<T>(
  file: string,
  /** `held()` false: another process took the lock over (it went stale while this one held it). */
  fn: (held: () => boolean) => T,
  o: LockOptions = {},
): Promise<Awaited<T>> {
  const lock = `${file}.lock`;
  const owner = newOwner();
  try {
    if (o.createDir !== false) mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    // Free: `fn` runs now, in this tick.
    if (!tryLock(lock, owner, STALE_MS)) await waitFor(lock, owner, Date.now() + (o.waitMs ?? 30_000));
  } catch (err) {
    if (err instanceof FileError) throw err;
    const code = (err as NodeJS.ErrnoException).code ?? '';
    if (!o.unlockable?.(code)) throw fileError(err, lock, 'cannot lock');
    return await fn(() => true);
  }
  const held = () => ownerOf(lock) === owner;
  let refresh: NodeJS.Timeout | undefined;
  try {
    const result = fn(held);
    if (!(result instanceof Promise)) return result as Awaited<T>;
    refresh = setInterval(() => {
      if (!refreshOurs(lock, owner)) clearInterval(refresh);
    }, STALE_MS / 2).unref();
    return await result;
  } finally {
    clearInterval(refresh);
    release(lock, owner);
  }
}

/** A lock not refreshed for this long belongs to a dead holder and is taken over. */
const STALE_MS = 10_000;
/** A claim lives for a stat and an unlink: one this old belongs to a taker that died. */
const CLAIM_STALE_MS = 1000;

async function waitFor(lock: string, owner: string, deadline: number): Promise<void> {
  do {
    if (Date.now() >= deadline) {
      const [pid, host] = ownerOf(lock)?.split(' ') ?? [];
      const who = host ? ` (pid ${pid} on ${host} holds it)` : '';
      throw new FileError(`another prs process holds ${lock}`, {
        hint: `if no other prs is running${who}, remove it`,
      });
    }
    await new Promise((r) => setTimeout(r, 10 + Math.random() * 30));
  } while (!tryLock(lock, owner, STALE_MS));
}

function tryLock(path: string, owner: string, staleMs: number): boolean {
  let fd: number;
  try {
    fd = openSync(path, 'wx', 0o600);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    if (isStale(path, staleMs)) takeOver(path, staleMs);
    return false;
  }
  try {
    writeSync(fd, owner);
  } catch (err) {
    // A full disk: no lock left behind that is nobody's.
    unlinkSync(path);
    throw err;
  } finally {
    closeSync(fd);
  }
  return true;
}

/**
 * Not refreshed for `staleMs`, or as far ahead (a clock set back, or touched by hand), or its holder gone:
 * one on this machine and pid namespace (its tag: see temp-names) whose pid is not running.
 */
function isStale(path: string, staleMs: number): boolean {
  const mtimeMs = statSync(path, { throwIfNoEntry: false })?.mtimeMs;
  if (mtimeMs === undefined) return false;
  if (Math.abs(Date.now() - mtimeMs) > staleMs) return true;
  const [pid, , tag] = ownerOf(path)?.split(' ') ?? [];
  return tag === hostTagOf() && !processAlive(Number(pid));
}

// Two processes that found one lock stale must not both remove it (the later would remove the lock the
// first made meanwhile): the remover holds `<path>.claim`, taken as a lock is (a dead taker's claim is
// removed the same way, under `<path>.claim.claim`), and looks again under it.
function takeOver(path: string, staleMs: number): void {
  const claim = `${path}.claim`;
  const owner = newOwner();
  if (!tryLock(claim, owner, CLAIM_STALE_MS)) return;
  try {
    if (isStale(path, staleMs)) remove(path);
  } finally {
    release(claim, owner);
  }
}

const newOwner = () => `${process.pid} ${hostname()} ${hostTagOf()} ${Math.random().toString(36).slice(2)}\n`;

const ownerOf = (lock: string): string | undefined => {
  try {
    return readFileSync(lock, 'utf8');
  } catch {
    return undefined;
  }
};

/**
 * Its mtime made now if it is still ours. Read and touched through one open file: a lock that another
 * process took over between the two is never kept fresh by us (ours, removed meanwhile, is touched unseen).
 */
function refreshOurs(path: string, owner: string): boolean {
  let fd: number | undefined;
  try {
    fd = openSync(path, 'r');
    if (readFileSync(fd, 'utf8') !== owner) return false;
    const now = new Date();
    futimesSync(fd, now, now);
    return true;
  } catch {
    return false;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** Only our own: one taken over meanwhile is the next holder's. */
function release(path: string, owner: string): void {
  if (ownerOf(path) === owner) remove(path);
}

/** Also an older prs's `<file>.lock` directory, once stale. */
function remove(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    try {
      rmdirSync(path);
    } catch {}
  }
}
