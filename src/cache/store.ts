/**
 * The answer cache's store (CLI.md "The answer cache"): one file per report answer, no library.
 *
 * Layout: `<cacheDir>/answers/<profile>/<sha256 of the key>.entry`, directories 0700, files 0600. A
 * directory per profile makes `cache clear` and `logout` a removal of one directory, and the key inside
 * (base URL, realm, client id, user, tenant, portfolio, type, date) keeps another user or tenant out.
 *
 * An entry: `prs-answer 1 <body length> <body sha256> <stored at, epoch ms>\n<key JSON>\n<body>`
 * (the numbers zero-padded to a fixed width: the body is written as it streams in, and its length and
 * digest go into the first line at the end). Written to a temporary file and renamed into place, so
 * two processes writing one entry leave one whole entry (the last rename wins), and a reader never
 * sees half of one. Checked before use, in one streaming pass: another magic, a key that is not the
 * one asked for, a length or digest that does not match → a miss, and the file is removed. The file's mtime is "last used" (set on write and on every hit, from the
 * injected clock), which orders the eviction when the store outgrows `cache-size`: least recently used
 * first. atime is not used: most systems mount with relatime or noatime.
 *
 * A clear (`prs logout`, `prs cache clear`) first leaves a mark, `<cacheDir>/answers.cleared/<profile>`
 * (`all@` for every profile; `@` is never in a profile name): a store created before the mark changed
 * stores nothing more for that profile, so a run that is still going when its profile logs out does
 * not put the tenant's answers back. Checked again after the rename, so a clear in between still wins.
 */

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
  renameSync,
  rmSync,
  statSync,
  unlinkSync,
  utimesSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import type { Clock } from '../clock.js';
import { replaceFile, tempPathFor } from '../fs/atomic.js';

/**
 * SHA-256 of a key or a body. node:crypto is loaded at the first use, not with this module: the
 * answer cache's fast path (hit.ts) is one file whose imports all load at its start, and a
 * report that the cache does not answer should not pay for it (~2 ms).
 */
const sha256 = (data: string | Buffer) =>
  process.getBuiltinModule('node:crypto').createHash('sha256').update(data).digest('hex');

/** Who asked, and for what: everything that makes one answer differ from another. */
export interface AnswerKey {
  baseUrl: string;
  realm: string;
  clientId: string;
  /** The user, the service account, or a digest of PRS_TOKEN (auth/session.ts identityOf). */
  identity: string;
  tenant: string;
  portfolioId: number;
  reportType: string;
  date: string;
}

/** A stored answer, checked: its body is `length` bytes at `offset` of the file at `path`. */
export interface CachedAnswer {
  path: string;
  offset: number;
  length: number;
  storedAt: number;
}

/** An entry being written as the answer streams in; nothing is stored until `commit`. */
export interface EntryWriter {
  write(chunk: Uint8Array): void;
  /** The answer checked out: the entry goes into place (then the store is kept within its bound). */
  commit(): void;
  /** Nothing is stored. */
  abort(): void;
}

export interface StoreInfo {
  directory: string;
  entries: number;
  bytes: number;
  /** Stored-at times of the oldest and newest entries (epoch ms); undefined when empty. */
  oldest?: number;
  newest?: number;
  profiles: Record<string, { entries: number; bytes: number }>;
}

export interface CacheStore {
  /** `<cacheDir>/answers`. */
  readonly root: string;
  /** A fresh entry (stored at most `maxAgeMs` ago), marked used; a corrupt one is removed. */
  get(profile: string, key: AnswerKey, maxAgeMs: number): CachedAnswer | undefined;
  /** Like get, but does not mark it used (--dry-run counts hits without changing the order). */
  peek(profile: string, key: AnswerKey, maxAgeMs: number): boolean;
  /** Stores an answer atomically, then evicts the least recently used entries beyond the bound. */
  put(profile: string, key: AnswerKey, bytes: Buffer): void;
  /** put() for an answer that streams in: errors while writing abandon the entry, silently. */
  writer(profile: string, key: AnswerKey): EntryWriter;
  remove(profile: string, key: AnswerKey): void;
  /** Removes one profile's entries, or every profile's: what was removed. */
  clear(profile?: string): { entries: number; bytes: number };
  info(): StoreInfo;
}

export const MAGIC = 'prs-answer 1';
const EXT = '.entry';
/** A temporary file older than this belongs to a process that died while writing. */
const STALE_TEMP_MS = 60 * 60_000;

/** The key as one line of JSON, its fields always in this order: what is stored and compared. */
export function keyText(k: AnswerKey): string {
  return JSON.stringify([
    k.baseUrl,
    k.realm,
    k.clientId,
    k.identity,
    k.tenant,
    k.portfolioId,
    k.reportType,
    k.date,
  ]);
}

/** The entry's file name: the key's SHA-256 (the key holds user and tenant names: not in a path). */
export function entryName(k: AnswerKey): string {
  return `${sha256(keyText(k))}${EXT}`;
}

/** All of `bytes` to a file descriptor (writeSync may write less than it was given). */
function writeAll(fd: number, bytes: Uint8Array): void {
  for (let at = 0; at < bytes.length; ) at += writeSync(fd, bytes, at, bytes.length - at);
}

/** A profile's directory name: profile names are already restricted to [A-Za-z0-9._-] (settings.ts). */
const profileDir = (root: string, profile: string) => join(root, profile);

/** An entry file's first two lines (numbers of a fixed width); the body follows them. */
function entryHead(k: AnswerKey, length: number, digest: string, storedAt: number): Buffer {
  const pad = (n: number) => String(n).padStart(15, '0');
  return Buffer.from(`${MAGIC} ${pad(length)} ${digest} ${pad(storedAt)}\n${keyText(k)}\n`);
}

/** The bytes of an entry file. */
export function encodeEntry(k: AnswerKey, body: Buffer, storedAt: number): Buffer {
  return Buffer.concat([entryHead(k, body.length, sha256(body), storedAt), body]);
}

/** A stored answer's body, read whole (a small one; a large one streams: entryChunks). */
export function entryBody(a: CachedAnswer): Buffer {
  const fd = openSync(a.path, 'r');
  try {
    const body = Buffer.alloc(a.length);
    for (let at = 0; at < a.length; ) {
      const n = readSync(fd, body, at, a.length - at, a.offset + at);
      if (n === 0) throw new Error(`${a.path} ended early`);
      at += n;
    }
    return body;
  } finally {
    closeSync(fd);
  }
}

const READ_CHUNK = 256 * 1024;

/** A stored answer's body in chunks, read synchronously (each chunk a new buffer). */
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

/**
 * The answer in an entry file's bytes, or why it is unusable ('corrupt' or 'other key': a hash
 * collision or a hand-copied file; either way not this answer).
 */
export function decodeEntry(
  file: Buffer,
  k: AnswerKey,
): { bytes: Buffer; storedAt: number } | 'corrupt' | 'other key' {
  const first = file.indexOf(10);
  if (first < 0 || first > 200) return 'corrupt';
  const m = /^prs-answer 1 (\d+) ([0-9a-f]{64}) (\d+)$/.exec(file.toString('latin1', 0, first));
  if (!m) return 'corrupt';
  const second = file.indexOf(10, first + 1);
  if (second < 0) return 'corrupt';
  const body = file.subarray(second + 1);
  if (body.length !== Number(m[1])) return 'corrupt';
  if (sha256(body) !== m[2]) return 'corrupt';
  if (file.toString('utf8', first + 1, second) !== keyText(k)) return 'other key';
  return { bytes: body, storedAt: Number(m[3]) };
}

/** The stored-at time from an entry's first line, without reading the body. */
function storedAtOf(path: string): number | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(path, 'r');
    const head = Buffer.alloc(160);
    const n = readSync(fd, head, 0, head.length, 0);
    const line = head.toString('latin1', 0, n).split('\n', 1)[0]!;
    const m = /^prs-answer 1 \d+ [0-9a-f]{64} (\d+)$/.exec(line);
    return m ? Number(m[1]) : undefined;
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/**
 * An entry file checked in one streaming pass (its first line, its key, its body's length and
 * SHA-256): where its body is, or why it is no answer.
 */
function checkEntry(path: string, k: AnswerKey): CachedAnswer | 'missing' | 'corrupt' | 'other key' {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return 'missing';
  }
  try {
    const size = fstatSync(fd).size;
    const head = Buffer.alloc(Math.min(size, 4096));
    const got = readSync(fd, head, 0, head.length, 0);
    const first = head.indexOf(10);
    if (first < 0 || first > 200 || first >= got) return 'corrupt';
    const m = /^prs-answer 1 (\d+) ([0-9a-f]{64}) (\d+)$/.exec(head.toString('latin1', 0, first));
    if (!m) return 'corrupt';
    const second = head.indexOf(10, first + 1);
    if (second < 0 || second >= got) return 'corrupt';
    const offset = second + 1;
    const length = Number(m[1]);
    if (size - offset !== length) return 'corrupt';
    const hash = process.getBuiltinModule('node:crypto').createHash('sha256');
    const buf = Buffer.allocUnsafe(Math.min(1024 * 1024, Math.max(length, 1)));
    for (let at = 0; at < length; ) {
      const n = readSync(fd, buf, 0, Math.min(buf.length, length - at), offset + at);
      if (n === 0) return 'corrupt';
      hash.update(buf.subarray(0, n));
      at += n;
    }
    if (hash.digest('hex') !== m[2]) return 'corrupt';
    if (head.toString('utf8', first + 1, second) !== keyText(k)) return 'other key';
    return { path, offset, length, storedAt: Number(m[3]) };
  } catch {
    return 'corrupt';
  } finally {
    closeSync(fd);
  }
}

interface Found {
  path: string;
  profile: string;
  size: number;
  mtimeMs: number;
}

/** Every entry file under root (temporaries of dead writers removed on the way). */
function scan(root: string, now: number, profiles?: string[]): Found[] {
  const found: Found[] = [];
  for (const profile of profiles ?? listDir(root)) {
    const dir = profileDir(root, profile);
    for (const name of listDir(dir)) {
      const path = join(dir, name);
      let st: ReturnType<typeof statSync>;
      try {
        st = statSync(path);
      } catch {
        continue; // removed meanwhile by another process
      }
      if (name.endsWith(EXT)) found.push({ path, profile, size: st.size, mtimeMs: st.mtimeMs });
      else if (name.endsWith('.tmp') && now - st.mtimeMs > STALE_TEMP_MS) unlinkQuiet(path);
    }
  }
  return found;
}

function listDir(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT' || (err as NodeJS.ErrnoException).code === 'ENOTDIR')
      return [];
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

/** mkdir -p with 0700, and 0700 made so when it was created wider (by hand, or an older umask). */
function privateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  if ((statSync(dir).mode & 0o077) !== 0) chmodSync(dir, 0o700);
}

export interface StoreOptions {
  cacheDir: string;
  /** `cache-size`. */
  maxBytes: number;
  clock: Pick<Clock, 'now'>;
}

const CLEARED = 'answers.cleared';
const ALL = 'all@';

function readMark(cacheDir: string, name: string): string {
  try {
    return readFileSync(join(cacheDir, CLEARED, name), 'utf8');
  } catch {
    return '';
  }
}

/** Every profile's clear mark as it is now (none yet: an empty map). */
function readMarks(cacheDir: string): Map<string, string> {
  try {
    return new Map(listDir(join(cacheDir, CLEARED)).map((name) => [name, readMark(cacheDir, name)]));
  } catch {
    return new Map(); // an unreadable cache dir: every get misses, every put fails (and is skipped)
  }
}

/** Leaves the mark of a clear of `profile` (or all): best effort, the clear itself is what was asked. */
function markCleared(cacheDir: string, profile: string | undefined): void {
  try {
    privateDir(join(cacheDir, CLEARED));
    replaceFile(join(cacheDir, CLEARED, profile ?? ALL), `${Date.now()} ${Math.random()}\n`, { mode: 0o600 });
  } catch {}
}

export function createCacheStore(o: StoreOptions): CacheStore {
  const root = join(o.cacheDir, 'answers');
  const marks = readMarks(o.cacheDir);
  /** The profile's answers were cleared (logout) since this store was created. */
  const clearedSince = (profile: string) =>
    [ALL, profile].some((name) => readMark(o.cacheDir, name) !== (marks.get(name) ?? ''));
  const loggedOut = () => new Error('the profile was logged out or its cache cleared during this run');
  const pathOf = (profile: string, k: AnswerKey) => join(profileDir(root, profile), entryName(k));
  /** The store's size as this process knows it: scanned at the first write, then kept up to date. */
  let total: number | undefined;

  const read = (profile: string, k: AnswerKey, maxAgeMs: number): CachedAnswer | undefined => {
    const path = pathOf(profile, k);
    const entry = checkEntry(path, k);
    if (entry === 'missing' || entry === 'other key') return undefined;
    if (entry === 'corrupt') {
      unlinkQuiet(path);
      return undefined;
    }
    // A stored-at time in the future (a clock set back) is no reason to trust the entry longer.
    const age = o.clock.now() - entry.storedAt;
    return age >= 0 && age < maxAgeMs ? entry : undefined;
  };

  const evict = () => {
    const now = o.clock.now();
    const all = scan(root, now);
    total = all.reduce((sum, f) => sum + f.size, 0);
    if (total <= o.maxBytes) return;
    all.sort((a, b) => a.mtimeMs - b.mtimeMs || a.path.localeCompare(b.path));
    for (const f of all) {
      if (total <= o.maxBytes) break;
      if (unlinkQuiet(f.path)) total -= f.size;
    }
  };

  return {
    root,
    get(profile, k, maxAgeMs) {
      const entry = read(profile, k, maxAgeMs);
      if (entry) {
        const t = o.clock.now() / 1000;
        try {
          utimesSync(pathOf(profile, k), t, t);
        } catch {
          // Removed meanwhile (another process evicted it): the answer in hand is still whole.
        }
      }
      return entry;
    },
    peek(profile, k, maxAgeMs) {
      return read(profile, k, maxAgeMs) !== undefined;
    },
    put(profile, k, body) {
      const w = this.writer(profile, k);
      w.write(body);
      w.commit();
    },
    writer(profile, k) {
      const dir = profileDir(root, profile);
      const path = pathOf(profile, k);
      const temp = tempPathFor(path);
      const placeholder = entryHead(k, 0, '0'.repeat(64), 0);
      let fd: number | undefined;
      let size = 0;
      let hash: Hash | undefined;
      /** Writing failed or outgrew the store: nothing will be stored. */
      let dead = false;
      const abandon = () => {
        dead = true;
        if (fd !== undefined) {
          try {
            closeSync(fd);
          } catch {}
          fd = undefined;
          unlinkQuiet(temp);
        }
      };
      const open = () => {
        privateDir(root);
        privateDir(dir);
        fd = openSync(temp, 'wx', 0o600);
        hash = process.getBuiltinModule('node:crypto').createHash('sha256');
      };
      return {
        write(chunk) {
          if (dead || chunk.length === 0) return;
          try {
            if (fd === undefined) {
              open();
              writeAll(fd!, placeholder);
            }
            size += chunk.length;
            // An answer larger than the whole store would only push everything else out, then itself.
            if (placeholder.length + size > o.maxBytes) return abandon();
            hash!.update(chunk);
            writeAll(fd!, chunk);
          } catch {
            abandon();
          }
        },
        commit() {
          if (dead) return;
          const now = o.clock.now();
          try {
            if (clearedSince(profile)) throw loggedOut();
            // An empty body: the entry is its head alone.
            if (fd === undefined) open();
            const head = entryHead(k, size, hash!.digest('hex'), now);
            for (let at = 0; at < head.length; ) at += writeSync(fd!, head, at, head.length - at, at);
            closeSync(fd!);
            fd = undefined;
            if (total === undefined) total = scan(root, now).reduce((sum, f) => sum + f.size, 0);
            let before = 0;
            try {
              before = statSync(path).size;
            } catch {
              // A new entry.
            }
            utimesSync(temp, now / 1000, now / 1000);
            renameSync(temp, path);
            if (clearedSince(profile)) {
              unlinkQuiet(path);
              throw loggedOut();
            }
            total += head.length + size - before;
          } catch (err) {
            abandon();
            throw err;
          }
          if (total > o.maxBytes) evict();
        },
        abort: abandon,
      };
    },
    remove(profile, k) {
      unlinkQuiet(pathOf(profile, k));
    },
    clear(profile) {
      markCleared(o.cacheDir, profile);
      // This store's own clear does not stop it.
      for (const name of [ALL, profile ?? ALL]) marks.set(name, readMark(o.cacheDir, name));
      const found = scan(root, o.clock.now(), profile === undefined ? undefined : [profile]);
      const removed = { entries: found.length, bytes: found.reduce((sum, f) => sum + f.size, 0) };
      rmSync(profile === undefined ? root : profileDir(root, profile), { recursive: true, force: true });
      total = undefined;
      return removed;
    },
    info() {
      const found = scan(root, o.clock.now());
      const info: StoreInfo = { directory: root, entries: 0, bytes: 0, profiles: {} };
      for (const f of found) {
        info.entries++;
        info.bytes += f.size;
        const p = info.profiles[f.profile] ?? { entries: 0, bytes: 0 };
        info.profiles[f.profile] = p;
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

/**
 * Removes one profile's entries (or every profile's): how many there were and their size. Needs no
 * settings (`prs cache clear`, `prs logout`): a profile deleted since can still have its entries cleared.
 */
export function clearAnswers(cacheDir: string, profile?: string): { entries: number; bytes: number } {
  return createCacheStore({ cacheDir, maxBytes: 1, clock: { now: Date.now } }).clear(profile);
}
