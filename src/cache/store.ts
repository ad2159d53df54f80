// `<cacheDir>/answers/<profile>/<sha256 of the key>.entry` (0600 in 0700): `prs-answer 1 <length> <sha256>
// <stored at>\n<key JSON>\n<body>`, numbers fixed-width so that the first line is written after the body.
// The mtime is "last used" (LRU); a mark in `answers.cleared/` stops stores created before the clear.
import {
  chmodSync,
  closeSync,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  rmSync,
  statSync,
  unlinkSync,
  utimesSync,
} from 'node:fs';
import { join } from 'node:path';
import type { Clock } from '../clock.js';
import { openReplacement, type Replacement, replaceFile } from '../fs/atomic.js';
import { removeStaleTemporaries } from '../fs/temp-names.js';
import { writeAll } from '../stdout.js';

// node:crypto at the first use: the cache's fast path (hit.ts) loads this module at its start.
const hasher = () => process.getBuiltinModule('node:crypto').createHash('sha256');

export type CachedAnswer = Exclude<ReturnType<typeof checkFile>, string>;

export type CacheStore = ReturnType<typeof createCacheStore>;

const EXT = '.entry';
const HEAD = /^prs-answer 1 (\d+) ([0-9a-f]{64}) (\d+)$/;

const KEY_FIELDS = [
  'baseUrl',
  'realm',
  'clientId',
  'identity',
  'tenant',
  'portfolioId',
  'reportType',
  'date',
] as const;
export type AnswerKey = Record<Exclude<(typeof KEY_FIELDS)[number], 'portfolioId'>, string> & {
  portfolioId: number;
};

export const keyText = (k: AnswerKey): string => JSON.stringify(KEY_FIELDS.map((f) => k[f]));

export function entryName(k: AnswerKey): string {
  return `${hasher().update(keyText(k)).digest('hex')}${EXT}`;
}

function entryHead(k: AnswerKey, length: number, digest: string, storedAt: number): Buffer {
  const pad = (n: number) => String(n).padStart(15, '0');
  return Buffer.from(`prs-answer 1 ${pad(length)} ${digest} ${pad(storedAt)}\n${keyText(k)}\n`);
}

const READ_CHUNK = 256 * 1024;

export function* entryChunks(a: CachedAnswer): Generator<Buffer> {
  const fd = openSync(a.path, 'r');
  try {
    for (let at = 0; at < a.length; ) {
      const chunk = Buffer.allocUnsafe(Math.min(READ_CHUNK, a.length - at));
      const n = readSync(fd, chunk, 0, chunk.length, a.offset + at);
      if (n === 0) throw new Error(`${a.path} ended early`);
      at += n;
      yield n === chunk.length ? chunk : chunk.subarray(0, n);
    }
  } finally {
    closeSync(fd);
  }
}

function headOf(fd: number) {
  const head = Buffer.alloc(4096);
  const got = readSync(fd, head, 0, head.length, 0);
  const first = head.indexOf(10);
  const second = head.indexOf(10, first + 1);
  const m = first >= 0 && first <= 200 ? HEAD.exec(head.toString('latin1', 0, first)) : null;
  if (!m || second < 0 || second >= got) return undefined;
  const key = head.toString('utf8', first + 1, second);
  return { length: Number(m[1]), digest: m[2]!, storedAt: Number(m[3]), key, offset: second + 1 };
}

function withFile<T>(path: string, fn: (fd: number) => T): T {
  const fd = openSync(path, 'r');
  try {
    return fn(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * One streaming pass over first line, key, length and SHA-256 ('other key': a hash collision);
 * `whole` false: the body is not hashed.
 */
function checkFile(path: string, k: AnswerKey, whole = true) {
  try {
    return withFile(path, (fd) => {
      const h = headOf(fd);
      if (!h || fstatSync(fd).size - h.offset !== h.length) return 'corrupt';
      const entry = { path, offset: h.offset, length: h.length, storedAt: h.storedAt };
      if (!whole) return h.key === keyText(k) ? entry : 'other key';
      const hash = hasher();
      for (const chunk of entryChunks(entry)) hash.update(chunk);
      if (hash.digest('hex') !== h.digest) return 'corrupt';
      return h.key === keyText(k) ? entry : 'other key';
    });
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'missing' : 'corrupt';
  }
}

function storedAtOf(path: string): number | undefined {
  try {
    return withFile(path, headOf)?.storedAt;
  } catch {
    return undefined;
  }
}

function scan(root: string, profiles = listDir(root)) {
  return profiles.flatMap((profile) => {
    removeStaleTemporaries(join(root, profile));
    return listDir(join(root, profile)).flatMap((name) => {
      const path = join(root, profile, name);
      const st = name.endsWith(EXT) && statSync(path, { throwIfNoEntry: false });
      return st ? [{ path, profile, size: st.size, mtimeMs: st.mtimeMs }] : [];
    });
  });
}

/** A directory that is not there is empty; one that cannot be read is an error, not an empty store. */
function listDir(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return [];
    throw err;
  }
}

/** 0 for a file that is not there (or cannot be looked at). */
function sizeAt(path: string): number {
  try {
    return statSync(path, { throwIfNoEntry: false })?.size ?? 0;
  } catch {
    return 0;
  }
}

function unlinkQuiet(path: string): boolean {
  try {
    unlinkSync(path);
    return true;
  } catch {
    return false;
  }
}

function privateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  if ((statSync(dir).mode & 0o077) !== 0) chmodSync(dir, 0o700);
}

const CLEARED = 'answers.cleared';
const ALL = 'all@'; // `@` is never in a profile name

function readMark(cacheDir: string, name: string): string {
  try {
    return readFileSync(join(cacheDir, CLEARED, name), 'utf8');
  } catch {
    return '';
  }
}

function markCleared(cacheDir: string, profile: string | undefined): void {
  try {
    privateDir(join(cacheDir, CLEARED));
    replaceFile(join(cacheDir, CLEARED, profile ?? ALL), `${Date.now()} ${Math.random()}\n`, { mode: 0o600 });
  } catch {}
}

export function createCacheStore(o: { cacheDir: string; maxBytes: number; clock: Pick<Clock, 'now'> }) {
  const root = join(o.cacheDir, 'answers');
  // An unreadable cache dir: every get misses and every put fails, but a report still runs.
  const marks = new Map<string, string>();
  try {
    for (const name of listDir(join(o.cacheDir, CLEARED))) marks.set(name, readMark(o.cacheDir, name));
  } catch {}
  const clearedSince = (profile: string) =>
    [ALL, profile].some((name) => readMark(o.cacheDir, name) !== (marks.get(name) ?? ''));
  const loggedOut = () => new Error('the profile was logged out or its cache cleared during this run');
  const pathOf = (profile: string, k: AnswerKey) => join(root, profile, entryName(k));

  const read = (profile: string, k: AnswerKey, maxAgeMs: number, whole = true): CachedAnswer | undefined => {
    const path = pathOf(profile, k);
    const entry = checkFile(path, k, whole);
    if (entry === 'corrupt') unlinkQuiet(path);
    if (typeof entry === 'string') return undefined;
    // A stored-at time in the future (a clock set back) is no reason to trust the entry longer.
    const age = o.clock.now() - entry.storedAt;
    return age >= 0 && age < maxAgeMs ? entry : undefined;
  };

  // The store's bytes as this store last scanned them plus what its writes added since: a scan at the
  // first write and then only when that count is over the bound, where the scan decides which go. A
  // removal elsewhere only makes the count high (a scan that finds nothing to do); another process's
  // writes are counted at its own scans, and at this one's next.
  let counted: number | undefined;

  /** Least recently used first, until the store fits. */
  const evict = (added: number) => {
    if (counted !== undefined) {
      counted += added;
      if (counted <= o.maxBytes) return;
    }
    const all = scan(root);
    let total = sizeOf(all);
    all.sort((a, b) => a.mtimeMs - b.mtimeMs || a.path.localeCompare(b.path));
    for (const f of all) {
      if (total <= o.maxBytes) break;
      if (unlinkQuiet(f.path)) total -= f.size;
    }
    counted = total;
  };

  return {
    root,
    get(profile: string, k: AnswerKey, maxAgeMs: number): CachedAnswer | undefined {
      const entry = read(profile, k, maxAgeMs);
      if (entry) {
        const t = o.clock.now() / 1000;
        try {
          utimesSync(pathOf(profile, k), t, t);
        } catch {
          // Evicted meanwhile by another process: the answer in hand is still whole.
        }
      }
      return entry;
    },
    peek(profile: string, k: AnswerKey, maxAgeMs: number): boolean {
      return read(profile, k, maxAgeMs) !== undefined;
    },
    /** As peek, reading the head alone: an estimate (a body damaged since is still a miss at get). */
    likely(profile: string, k: AnswerKey, maxAgeMs: number): boolean {
      return read(profile, k, maxAgeMs, false) !== undefined;
    },
    writer(profile: string, k: AnswerKey) {
      const path = pathOf(profile, k);
      const placeholder = entryHead(k, 0, '0'.repeat(64), 0);
      let file: Replacement | undefined;
      let size = 0;
      let replaced = 0;
      const hash = hasher();
      let dead = false;
      const abandon = () => {
        dead = true;
        file?.abort();
        file = undefined;
      };
      const open = () => {
        privateDir(root);
        privateDir(join(root, profile));
        file = openReplacement(path, { mode: 0o600, durable: false });
        writeAll(file.fd, placeholder);
        return file;
      };
      return {
        write(chunk: Uint8Array): void {
          if (dead || chunk.length === 0) return;
          try {
            const f = file ?? open();
            size += chunk.length;
            // An answer larger than the whole store would only push everything out, then itself.
            if (placeholder.length + size > o.maxBytes) {
              abandon();
              return;
            }
            hash.update(chunk);
            writeAll(f.fd, chunk);
          } catch {
            abandon();
          }
        },
        commit(): void {
          if (dead) return;
          const now = o.clock.now();
          try {
            if (clearedSince(profile)) throw loggedOut();
            const f = file ?? open(); // an empty body: the entry is its head alone
            const head = entryHead(k, size, hash.digest('hex'), now);
            writeAll(f.fd, head, 0);
            file = undefined;
            replaced = sizeAt(path);
            f.commit(now);
            if (clearedSince(profile)) {
              unlinkQuiet(path);
              throw loggedOut();
            }
          } catch (err) {
            abandon();
            throw err;
          }
          evict(placeholder.length + size - replaced);
        },
        abort: abandon,
      };
    },
    remove(profile: string, k: AnswerKey): void {
      unlinkQuiet(pathOf(profile, k));
    },
    info() {
      const found = scan(root);
      const profiles: Record<string, { entries: number; bytes: number }> = {};
      for (const f of found) {
        const p = profiles[f.profile] ?? { entries: 0, bytes: 0 };
        profiles[f.profile] = { entries: p.entries + 1, bytes: p.bytes + f.size };
      }
      const times = found.map((f) => storedAtOf(f.path)).filter((t) => t !== undefined);
      times.sort((a, b) => a - b);
      const [oldest, newest] = [times[0], times.at(-1)];
      return { directory: root, entries: found.length, bytes: sizeOf(found), profiles, oldest, newest };
    },
  };
}

const sizeOf = (found: { size: number }[]) => found.reduce((sum, f) => sum + f.size, 0);

/** `profile` undefined: every profile. Stores open now (a run elsewhere) store nothing more of it. */
export function clearAnswers(cacheDir: string, profile?: string): { entries: number; bytes: number } {
  const root = join(cacheDir, 'answers');
  markCleared(cacheDir, profile);
  const found = scan(root, profile === undefined ? undefined : [profile]);
  const target = profile === undefined ? root : join(root, profile);
  // Under an `answers` that is a file: ENOTDIR, which Node 24's rmSync (unlike Node 20's) passes over.
  lstatSync(target, { throwIfNoEntry: false });
  rmSync(target, { recursive: true, force: true });
  return { entries: found.length, bytes: sizeOf(found) };
}
