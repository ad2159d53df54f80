// `<cacheDir>/answers/<profile>/<sha256 of the key>.entry` (0600 in 0700): `prs-answer 1 <length> <sha256>
// <stored at>\n<key JSON>\n<body>`, numbers fixed-width so that the first line is written after the body.
// The mtime is "last used" (LRU); a mark in `answers.cleared/` stops stores created before the clear.
import type { Hash } from 'node:crypto';
import {
  chmodSync,
  closeSync,
  fstatSync,
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
const sha256 = (data: string | Buffer) => hasher().update(data).digest('hex');

/** Its body is `length` bytes at `offset` of the file at `path`. */
export interface CachedAnswer {
  path: string;
  offset: number;
  length: number;
  storedAt: number;
}

interface StoreInfo {
  directory: string;
  entries: number;
  bytes: number;
  oldest?: number;
  newest?: number;
  profiles: Record<string, { entries: number; bytes: number }>;
}

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
/** An answer's identity: another user, tenant, portfolio, type or date is another entry. */
export type AnswerKey = Record<Exclude<(typeof KEY_FIELDS)[number], 'portfolioId'>, string> & {
  portfolioId: number;
};

export const keyText = (k: AnswerKey): string => JSON.stringify(KEY_FIELDS.map((f) => k[f]));

/** The key holds user and tenant names, which stay out of paths. */
export function entryName(k: AnswerKey): string {
  return `${sha256(keyText(k))}${EXT}`;
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

/** The first line's fields and the key line, from the file's first 4 KiB. */
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

/** One streaming pass over first line, key, length and SHA-256 ('other key': a hash collision). */
function checkFile(path: string, k: AnswerKey): CachedAnswer | 'missing' | 'corrupt' | 'other key' {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return 'missing';
  }
  try {
    const h = headOf(fd);
    if (!h || fstatSync(fd).size - h.offset !== h.length) return 'corrupt';
    const entry = { path, offset: h.offset, length: h.length, storedAt: h.storedAt };
    const hash = hasher();
    for (const chunk of entryChunks(entry)) hash.update(chunk);
    if (hash.digest('hex') !== h.digest) return 'corrupt';
    return h.key === keyText(k) ? entry : 'other key';
  } catch {
    return 'corrupt';
  } finally {
    closeSync(fd);
  }
}

function storedAtOf(path: string): number | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(path, 'r');
    return headOf(fd)?.storedAt;
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

interface Found {
  path: string;
  profile: string;
  size: number;
  mtimeMs: number;
}

/** Temporaries of dead writers go on the way. */
function scan(root: string, profiles?: string[]): Found[] {
  const found: Found[] = [];
  for (const profile of profiles ?? listDir(root)) {
    removeStaleTemporaries(join(root, profile));
    for (const name of listDir(join(root, profile))) {
      const path = join(root, profile, name);
      const st = name.endsWith(EXT) && statSync(path, { throwIfNoEntry: false });
      // Removed meanwhile by another process: gone from the count too.
      if (st) found.push({ path, profile, size: st.size, mtimeMs: st.mtimeMs });
    }
  }
  return found;
}

function listDir(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return [];
    throw err;
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

interface StoreOptions {
  cacheDir: string;
  maxBytes: number;
  clock: Pick<Clock, 'now'>;
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

function readMarks(cacheDir: string): Map<string, string> {
  try {
    return new Map(listDir(join(cacheDir, CLEARED)).map((name) => [name, readMark(cacheDir, name)]));
  } catch {
    return new Map(); // an unreadable cache dir: every get misses, every put fails
  }
}

/** Best effort: the clear itself is what was asked. */
function markCleared(cacheDir: string, profile: string | undefined): void {
  try {
    privateDir(join(cacheDir, CLEARED));
    replaceFile(join(cacheDir, CLEARED, profile ?? ALL), `${Date.now()} ${Math.random()}\n`, { mode: 0o600 });
  } catch {}
}

export function createCacheStore(o: StoreOptions) {
  const root = join(o.cacheDir, 'answers');
  const marks = readMarks(o.cacheDir);
  const clearedSince = (profile: string) =>
    [ALL, profile].some((name) => readMark(o.cacheDir, name) !== (marks.get(name) ?? ''));
  const loggedOut = () => new Error('the profile was logged out or its cache cleared during this run');
  const pathOf = (profile: string, k: AnswerKey) => join(root, profile, entryName(k));

  const read = (profile: string, k: AnswerKey, maxAgeMs: number): CachedAnswer | undefined => {
    const path = pathOf(profile, k);
    const entry = checkFile(path, k);
    if (entry === 'corrupt') unlinkQuiet(path);
    if (typeof entry === 'string') return undefined;
    // A stored-at time in the future (a clock set back) is no reason to trust the entry longer.
    const age = o.clock.now() - entry.storedAt;
    return age >= 0 && age < maxAgeMs ? entry : undefined;
  };

  /** The least recently used entries go until the store fits its bound (each write scans it: a miss's cost). */
  const evict = () => {
    const all = scan(root);
    let total = all.reduce((sum, f) => sum + f.size, 0);
    all.sort((a, b) => a.mtimeMs - b.mtimeMs || a.path.localeCompare(b.path));
    for (const f of all) {
      if (total <= o.maxBytes) break;
      if (unlinkQuiet(f.path)) total -= f.size;
    }
  };

  return {
    root,
    /** A fresh entry, marked used; a corrupt one is removed. */
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
    /** Not marked used (--dry-run). */
    peek(profile: string, k: AnswerKey, maxAgeMs: number): boolean {
      return read(profile, k, maxAgeMs) !== undefined;
    },
    /** Errors while writing abandon the entry, silently. */
    writer(profile: string, k: AnswerKey) {
      const path = pathOf(profile, k);
      const placeholder = entryHead(k, 0, '0'.repeat(64), 0);
      let file: Replacement | undefined;
      let size = 0;
      let hash: Hash | undefined;
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
        hash = hasher();
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
            hash!.update(chunk);
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
            const head = entryHead(k, size, hash!.digest('hex'), now);
            writeAll(f.fd, head, 0);
            file = undefined;
            f.commit(now);
            if (clearedSince(profile)) {
              unlinkQuiet(path);
              throw loggedOut();
            }
          } catch (err) {
            abandon();
            throw err;
          }
          evict();
        },
        abort: abandon,
      };
    },
    remove(profile: string, k: AnswerKey): void {
      unlinkQuiet(pathOf(profile, k));
    },
    clear(profile?: string): { entries: number; bytes: number } {
      markCleared(o.cacheDir, profile);
      // This store's own clear does not stop it.
      for (const name of [ALL, profile ?? ALL]) marks.set(name, readMark(o.cacheDir, name));
      const found = scan(root, profile === undefined ? undefined : [profile]);
      const removed = { entries: found.length, bytes: found.reduce((sum, f) => sum + f.size, 0) };
      rmSync(profile === undefined ? root : join(root, profile), { recursive: true, force: true });
      return removed;
    },
    info(): StoreInfo {
      const info: StoreInfo = { directory: root, entries: 0, bytes: 0, profiles: {} };
      for (const f of scan(root)) {
        info.entries++;
        info.bytes += f.size;
        info.profiles[f.profile] ??= { entries: 0, bytes: 0 };
        const p = info.profiles[f.profile]!;
        p.entries++;
        p.bytes += f.size;
        const at = storedAtOf(f.path);
        if (at === undefined) continue;
        if (info.oldest === undefined || at < info.oldest) info.oldest = at;
        if (info.newest === undefined || at > info.newest) info.newest = at;
      }
      return info;
    },
  };
}

/** Needs no settings: a deleted profile's entries can go too. */
export function clearAnswers(cacheDir: string, profile?: string): { entries: number; bytes: number } {
  return createCacheStore({ cacheDir, maxBytes: 1, clock: { now: Date.now } }).clear(profile);
}
