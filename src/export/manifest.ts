// A `{"key","files"}` line per item whose files were committed (a later line for a key wins), read by
// `export --skip-existing`. A damaged line means a refetch.
import { createHash } from 'node:crypto';
import { closeSync, constants, createReadStream, fstatSync, openSync, readFileSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { FileError, fileError } from '../errors.js';
import { updateFile } from '../fs/atomic.js';

export const MANIFEST_NAME = '.prs-manifest.jsonl';

export type ManifestFile = { name: string; bytes: number; sha256: string; mtimeMs: number };

/** An item across runs; another name template names other files, so it is another item. */
export function exportItemKey(
  settings: { baseUrl?: string; tenant?: string; nameTemplate?: string },
  run: { type: string; format: string; extract: boolean; nameTemplate?: string },
  item: { portfolioId: number; date: string },
): string {
  const template = run.nameTemplate ?? settings.nameTemplate;
  const { baseUrl = '', tenant = '' } = settings;
  const extract = run.extract ? 'extract' : '';
  const key = [baseUrl, tenant, item.portfolioId, run.type, item.date, run.format, extract];
  return (template === undefined ? key : [...key, template]).join('|');
}

/** Only a regular file of this user with one name: never follows a link or waits on a FIFO. */
function readOwn(path: string): string {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0));
  } catch {
    // ELOOP: a link (dangling or not); ENXIO: a FIFO nobody reads; unreadable: everything is fetched.
    return '';
  }
  try {
    const s = fstatSync(fd);
    const uid = process.getuid?.();
    return s.isFile() && s.nlink === 1 && (uid === undefined || s.uid === uid)
      ? readFileSync(fd, 'utf8')
      : '';
  } finally {
    closeSync(fd);
  }
}

/** A missing, unreadable or foreign manifest is empty. */
export async function openManifest(dir: string) {
  const path = join(dir, MANIFEST_NAME);
  const entries = new Map<string, ManifestFile[]>();
  for (const line of readOwn(path).split('\n')) {
    const entry = parseLine(line);
    if (entry) entries.set(entry.key, entry.files);
  }
  return {
    get: (key: string) => entries.get(key),
    async kept(key: string) {
      const recorded = entries.get(key);
      return recorded && (await unchanged(dir, recorded)) ? recorded : undefined;
    },
    async record(key: string, files: ManifestFile[]) {
      // Read again under the lock: another export into this directory may have recorded since.
      await updateFile(
        path,
        // A last line cut short must not swallow the next one.
        (text) => ({
          text: `${text === '' || text.endsWith('\n') ? text : `${text}\n`}${JSON.stringify({ key, files })}\n`,
          result: undefined,
        }),
        { createDir: false, read: readOwn },
      ).catch((err) => {
        throw err instanceof FileError ? err : fileError(err, path);
      });
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

/** Same size, and same mtime or (touched, copied back) content. */
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

export const describeFiles = (files: readonly { path: string; bytes: number; sha256: string }[]) =>
  Promise.all(
    files.map(async ({ path, bytes, sha256 }): Promise<ManifestFile> => {
      return { name: basename(path), bytes, sha256, mtimeMs: (await stat(path)).mtimeMs };
    }),
  );
