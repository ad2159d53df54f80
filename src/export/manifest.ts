/**
 * `.prs-manifest.jsonl` in the target directory: one `{"key","files"}` line per item whose files were
 * committed (appended with O_APPEND; a later line for a key wins), read by `export --skip-existing`.
 * Only a regular file of this user with one name is read or appended to; anything else in its place
 * (a link, a hard link, a FIFO) is replaced whole, never followed. A damaged line means a refetch.
 */
import { createHash } from 'node:crypto';
import {
  closeSync,
  constants,
  createReadStream,
  fstatSync,
  fsyncSync,
  openSync,
  readFileSync,
} from 'node:fs';
import { stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { fileError } from '../errors.js';
import { replaceFile, syncDir } from '../fs/atomic.js';
import { writeAll } from '../stdout.js';

export const MANIFEST_NAME = '.prs-manifest.jsonl';

export interface ManifestFile {
  /** File name in the target directory. */
  name: string;
  bytes: number;
  sha256: string;
  mtimeMs: number;
}

/**
 * What identifies an item across runs: the service, the tenant, the request and, when one is set, the
 * name template (another template names other files, so the item is fetched again under those names).
 * Without a template the key is as before templates existed: manifests written then stay valid.
 */
export function exportItemKey(
  settings: { baseUrl?: string; tenant?: string; nameTemplate?: string },
  run: { type: string; format: string; extract: boolean; nameTemplate?: string },
  item: { portfolioId: number; date: string },
): string {
  const { baseUrl = '', tenant = '' } = settings;
  const key = [
    baseUrl,
    tenant,
    item.portfolioId,
    run.type,
    item.date,
    run.format,
    run.extract ? 'extract' : '',
  ];
  const template = run.nameTemplate ?? settings.nameTemplate;
  return (template === undefined ? key : [...key, template]).join('|');
}

export interface Manifest {
  get(key: string): ManifestFile[] | undefined;
  /** The files recorded for `key` when every one is still there unchanged (--skip-existing skips the item). */
  kept(key: string): Promise<ManifestFile[] | undefined>;
  /** Appends the entry once its files are committed. */
  record(key: string, files: ManifestFile[]): Promise<void>;
}

/**
 * Opens `path` without following a link or waiting on a FIFO; the descriptor when what is there is a
 * manifest prs made (a regular file of this user, with no other name), else undefined (closed).
 */
function openOwn(path: string, flags: number): number | undefined {
  let fd: number;
  try {
    fd = openSync(path, flags | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0), 0o644);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    // ELOOP: a link (dangling or not); ENXIO: a FIFO nobody reads. Neither is ours.
    if (code === 'ELOOP' || code === 'ENXIO' || code === 'ENOENT') return undefined;
    throw err;
  }
  const s = fstatSync(fd);
  const uid = process.getuid?.();
  if (s.isFile() && s.nlink === 1 && (uid === undefined || s.uid === uid)) return fd;
  closeSync(fd);
  return undefined;
}

/** Reads the manifest of `dir`; a missing, unreadable or foreign one (see above) is empty. */
export async function openManifest(dir: string): Promise<Manifest> {
  const path = join(dir, MANIFEST_NAME);
  const entries = new Map<string, ManifestFile[]>();
  let text = '';
  let found = false;
  try {
    const fd = openOwn(path, constants.O_RDONLY);
    found = fd !== undefined;
    if (fd !== undefined) {
      try {
        text = readFileSync(fd, 'utf8');
      } finally {
        closeSync(fd);
      }
    }
  } catch {
    // Unreadable: everything is fetched.
  }
  for (const line of text.split('\n')) {
    const entry = parseLine(line);
    if (entry) entries.set(entry.key, entry.files);
  }
  // A last line cut short must not swallow the next one.
  let pendingNewline = text !== '' && !text.endsWith('\n');
  return {
    get: (key) => entries.get(key),
    async kept(key) {
      const recorded = entries.get(key);
      return recorded && (await unchanged(dir, recorded)) ? recorded : undefined;
    },
    async record(key, files) {
      const line = `${JSON.stringify({ key, files })}\n`;
      try {
        const fd = openOwn(path, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT);
        if (fd === undefined) {
          // Not ours: replaced by what this run knows, never written through.
          const all = [...entries]
            .filter(([k]) => k !== key)
            .map(([k, f]) => JSON.stringify({ key: k, files: f }));
          replaceFile(path, [...all, line].join('\n'));
        } else {
          // On disk before the next item, as the files it names are: a crash loses neither.
          try {
            writeAll(fd, Buffer.from(`${pendingNewline ? '\n' : ''}${line}`));
            fsyncSync(fd);
          } finally {
            closeSync(fd);
          }
          if (!found) syncDir(dir);
        }
      } catch (err) {
        throw fileError(err, path);
      }
      pendingNewline = false;
      found = true;
      entries.set(key, files);
    },
  };
}

function parseLine(line: string): { key: string; files: ManifestFile[] } | undefined {
  if (line.trim() === '') return undefined;
  try {
    const v = JSON.parse(line) as { key?: unknown; files?: unknown };
    if (typeof v.key !== 'string' || !Array.isArray(v.files) || v.files.length === 0) return undefined;
    const ok = v.files.every(
      (f: Partial<ManifestFile>) =>
        typeof f?.name === 'string' &&
        !f.name.includes('/') &&
        !f.name.startsWith('.') &&
        typeof f.bytes === 'number' &&
        typeof f.sha256 === 'string' &&
        typeof f.mtimeMs === 'number',
    );
    return ok ? { key: v.key, files: v.files as ManifestFile[] } : undefined;
  } catch {
    return undefined;
  }
}

export async function sha256File(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/**
 * True when every recorded file is still in `dir` as it was written: same size and modification time,
 * or (touched, copied back) same size and content.
 */
export async function unchanged(dir: string, files: readonly ManifestFile[]): Promise<boolean> {
  for (const f of files) {
    const path = join(dir, f.name);
    try {
      const s = await stat(path);
      if (!s.isFile() || s.size !== f.bytes) return false;
      if (s.mtimeMs !== f.mtimeMs && (await sha256File(path)) !== f.sha256) return false;
    } catch {
      return false;
    }
  }
  return true;
}

/** The manifest's record of files just committed. */
export async function describeFiles(
  files: readonly { path: string; bytes: number; sha256: string }[],
): Promise<ManifestFile[]> {
  const out: ManifestFile[] = [];
  for (const f of files) {
    const s = await stat(f.path);
    out.push({ name: basename(f.path), bytes: f.bytes, sha256: f.sha256, mtimeMs: s.mtimeMs });
  }
  return out;
}
