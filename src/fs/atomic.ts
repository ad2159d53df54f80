// Files that are whole or absent: written under a temporary name beside the target, synced, then
// renamed (or, without force, linked: link(2) fails where rename(2) would clobber) into place.
import { once } from 'node:events';
import {
  closeSync,
  constants,
  createReadStream,
  createWriteStream,
  // A getter: node:fs/promises loads only on the paths that use it, not for every request's state writes.
  promises as fsp,
  fsyncSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  utimesSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { FileError, FileExistsError, fileError } from '../errors.js';
import { writeAll } from '../stdout.js';
import { type LockOptions, withLock } from './lock.js';
import { removeStaleTemporaries, tempNameFor } from './temp-names.js';
import { temporaries } from './temporaries.js';

const tempPathFor = (path: string) => join(dirname(path), tempNameFor(basename(path)));

// Some file systems refuse fsync on a directory; the data itself is already synced.
function syncDir(dir: string): void {
  try {
    const fd = openSync(dir, 'r');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch {}
}

interface ReplaceOptions {
  mode?: number;
  /** false: no fsync, for state checked when read and cheap to lose (on every request's path). */
  durable?: boolean;
  /** Asked just before the rename: false (the lock written under was lost) leaves the file as it is. */
  held?: () => boolean;
}

export type Replacement = ReturnType<typeof openReplacement>;

export function openReplacement(path: string, o: ReplaceOptions = {}) {
  const durable = o.durable !== false;
  const temp = tempPathFor(path);
  const fd = openSync(temp, 'wx', o.mode ?? 0o644);
  let open = true;
  const abort = () => {
    if (open) closeSync(fd);
    open = false;
    rmSync(temp, { force: true });
  };
  return {
    fd,
    /** False: not renamed into place, as `held` said. */
    commit(mtimeMs?: number): boolean {
      try {
        if (durable) fsyncSync(fd);
        open = false;
        closeSync(fd);
        if (mtimeMs !== undefined) utimesSync(temp, mtimeMs / 1000, mtimeMs / 1000);
        if (o.held?.() === false) {
          abort();
          return false;
        }
        renameSync(temp, path);
      } catch (err) {
        abort();
        throw err;
      }
      if (durable) syncDir(dirname(path));
      return true;
    },
    abort,
  };
}

/** Synchronous: a second Ctrl-C writes the metrics on the way out. False: not written, as `held` said. */
export function replaceFile(path: string, data: string | Uint8Array, o: ReplaceOptions = {}): boolean {
  const r = openReplacement(path, o);
  try {
    writeAll(r.fd, typeof data === 'string' ? Buffer.from(data) : data);
  } catch (err) {
    r.abort();
    throw err;
  }
  return r.commit();
}

export function readText(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return '';
    throw err;
  }
}

/**
 * Under the file's lock; `fn`'s undefined text leaves the file as it is. A lock lost before the write (this
 * process stalled past its stale time, and another took it over and maybe wrote) is never written under:
 * the file is read and `fn` decides again under a new lock, as a transaction is retried.
 */
export async function updateFile<T>(
  path: string,
  fn: (text: string) => { text?: string; result: T },
  o: ReplaceOptions & LockOptions & { read?: (path: string) => string } = {},
): Promise<T> {
  for (;;) {
    const done = await withLock(
      path,
      (held) => {
        const { text, result } = fn((o.read ?? readText)(path));
        return text === undefined || replaceFile(path, text, { ...o, held }) ? { result } : undefined;
      },
      o,
    );
    if (done) return done.result;
  }
}

const statOf = (path: string) => fsp.stat(path).catch(() => undefined);

/** A device, FIFO or socket: renaming over it would replace the node. */
export async function isSpecialFile(path: string): Promise<boolean> {
  const s = await statOf(path);
  return !!s && !s.isFile() && !s.isDirectory();
}

async function assertDirectory(dir: string): Promise<void> {
  try {
    const s = await fsp.stat(dir);
    if (!s.isDirectory()) throw Object.assign(new Error('not a directory'), { code: 'ENOTDIR' });
    await fsp.access(dir, constants.W_OK);
  } catch (err) {
    throw fileError(err, dir, 'cannot write to');
  }
}

/** export's `--dir` (or `-o FILE`'s) made and checked, dead runs' temporaries gone; the first dir created. */
export async function prepareExportTarget(dir: string, output?: string): Promise<string | undefined> {
  if (output !== undefined) {
    await assertWritableDir(output, true);
    return undefined;
  }
  let created: string | undefined;
  try {
    created = await fsp.mkdir(dir, { recursive: true });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== 'EEXIST' && code !== 'ENOTDIR') throw fileError(err, dir, 'cannot create directory');
  }
  await assertDirectory(dir);
  removeStaleTemporaries(dir);
  return created;
}

export async function removeIfLeftEmpty(dir: string, created: string | undefined): Promise<void> {
  if (created === undefined) return;
  for (let d = resolve(dir); ; d = dirname(d)) {
    try {
      await fsp.rmdir(d);
    } catch {
      return;
    }
    if (d === resolve(created) || d === dirname(d)) return;
  }
}

export async function assertWritableDir(path: string, clean = false): Promise<void> {
  if (await isSpecialFile(path)) return; // /dev/stdout
  await assertDirectory(dirname(path));
  if (clean) removeStaleTemporaries(dirname(path));
}

const isADirectory = (path: string, cause?: unknown) =>
  new FileError(`cannot write ${path}: it is a directory`, { cause });

/** True for a special file: it is written in place, and never "exists" (`exists`: that error's hint). */
export async function assertWritableTarget(path: string, force: boolean, exists?: string): Promise<boolean> {
  const s = await statOf(path); // none: the write itself will say why
  if (s?.isDirectory()) throw isADirectory(path);
  if (s?.isFile() && !force) throw new FileExistsError(path, exists);
  return !!s && !s.isFile();
}

export type AtomicFile = Awaited<ReturnType<typeof createAtomicFile>>;

export async function createAtomicFile(path: string, o: { force: boolean; exists?: string }) {
  // A special file is written in place at commit, from a temporary outside /dev.
  const special = await assertWritableTarget(path, o.force, o.exists);
  const tempPath = special ? tempPathFor(join(tmpdir(), basename(path))) : tempPathFor(path);
  const stream = createWriteStream(tempPath, { flags: 'wx', mode: 0o644, flush: true });
  try {
    await once(stream, 'open');
  } catch (err) {
    throw await openError(err, path, dirname(tempPath));
  }
  temporaries.add(tempPath);
  let done = false;
  const abort = async (): Promise<void> => {
    if (done) return;
    done = true;
    if (!stream.closed) {
      stream.destroy();
      await once(stream, 'close').catch(() => {});
    }
    await fsp.unlink(tempPath).catch(() => {});
    temporaries.delete(tempPath);
  };
  /** The stream ended and closed (a pipeline may have done so already); its error thrown as it came. */
  const close = async (): Promise<void> => {
    if (!stream.closed && !stream.errored) {
      const closed = once(stream, 'close');
      stream.end();
      await closed;
    }
    if (stream.errored) throw stream.errored;
  };
  return {
    tempPath,
    get path() {
      return path;
    },
    stream,
    close,
    /** `finalPath`: a name beside `path` decided after writing. */
    async commit(finalPath = path): Promise<void> {
      if (dirname(finalPath) !== dirname(path)) throw new Error(`commit: ${finalPath} is not beside ${path}`);
      path = finalPath;
      try {
        await close();
        if (special) {
          const { pipeline } = await import('node:stream/promises');
          await pipeline(createReadStream(tempPath), createWriteStream(path, { flags: 'w' }));
          await fsp.unlink(tempPath);
        } else {
          if (o.force) await fsp.rename(tempPath, path);
          else {
            await fsp.link(tempPath, path);
            await fsp.unlink(tempPath);
          }
          syncDir(dirname(path));
        }
        temporaries.delete(tempPath);
        done = true;
      } catch (err) {
        await abort();
        const code = (err as NodeJS.ErrnoException).code;
        if (code === 'EEXIST') throw new FileExistsError(path, o.exists);
        if (code === 'EISDIR') throw isADirectory(path, err);
        throw fileError(err, path);
      }
    },
    abort,
  };
}

/** ENOENT in an existing directory: /proc and /sys refuse new files so (`-o /proc/version --force`). */
async function openError(err: unknown, path: string, dir: string): Promise<FileError> {
  if ((err as NodeJS.ErrnoException).code === 'ENOENT' && (await statOf(dir))?.isDirectory())
    return new FileError(`cannot write ${path}: ${dir} does not allow new files in it`, { cause: err });
  return fileError(err, path);
}
