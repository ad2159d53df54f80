/**
 * Files that are whole or absent. Data goes to a temporary file in the target directory (same file
 * system, so the final rename is atomic), is flushed to disk, and only then renamed into place.
 * Without `force` an existing target is never replaced: the final step is link(2), which fails if the
 * target appeared meanwhile, instead of rename(2), which would silently clobber it.
 */
import { once } from 'node:events';
import {
  closeSync,
  constants,
  createReadStream,
  createWriteStream,
  fsyncSync,
  openSync,
  renameSync,
  rmSync,
  type Stats,
  utimesSync,
  type WriteStream,
  writeSync,
} from 'node:fs';
import { access, link, mkdir, rename, rmdir, stat, unlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { FileError, FileExistsError, fileError } from '../errors.js';
import { removeStaleTemporaries, tempNameFor } from './temp-names.js';
import { temporaries } from './temporaries.js';

export interface AtomicFile {
  /** The temporary file being written. */
  readonly tempPath: string;
  /** The final path (the one given to commit, once committed). */
  readonly path: string;
  /** A stream into the temporary file. */
  readonly stream: WriteStream;
  /**
   * Flush, fsync and move into place. Throws FileError (exists without force, disk full, ...).
   * `finalPath` (same directory) renames to a name decided only after the data was written.
   */
  commit(finalPath?: string): Promise<void>;
  /** Remove the temporary file; safe to call more than once and after commit. */
  abort(): Promise<void>;
}

export function tempPathFor(path: string): string {
  return join(dirname(path), tempNameFor(basename(path)));
}

export interface ReplaceOptions {
  /** The new file's mode (before the umask); default 0644. */
  mode?: number;
  /** fsync before the rename: the file survives a power cut whole (state that must not be lost). */
  fsync?: boolean;
  /** The new file's modification time (ms), set before it appears. */
  mtimeMs?: number;
}

/**
 * Replaces `path` whole: the data goes to a temporary beside it (temp-names.ts), which rename(2) then
 * puts in place. A reader sees the old file or the new one, never half of one; a link at `path` is
 * replaced itself, never followed (as root, a link planted in a shared directory must not redirect the
 * write). Synchronous: small state files (metrics, limiter, cache entries, the export manifest), and a
 * second Ctrl-C writes the metrics on the way out. Throws the system error; the temporary is removed.
 */
export function replaceFile(
  path: string,
  data: string | Uint8Array | readonly Uint8Array[],
  o: ReplaceOptions = {},
): void {
  const temp = tempPathFor(path);
  const fd = openSync(temp, 'wx', o.mode ?? 0o644);
  let open = true;
  try {
    for (const chunk of typeof data === 'string'
      ? [Buffer.from(data)]
      : data instanceof Uint8Array
        ? [data]
        : data)
      for (let at = 0; at < chunk.length; ) at += writeSync(fd, chunk, at, chunk.length - at);
    if (o.fsync) fsyncSync(fd);
    open = false;
    closeSync(fd);
    if (o.mtimeMs !== undefined) utimesSync(temp, o.mtimeMs / 1000, o.mtimeMs / 1000);
    renameSync(temp, path);
  } catch (err) {
    if (open) closeSync(fd);
    rmSync(temp, { force: true });
    throw err;
  }
}

/**
 * A device, FIFO or socket (/dev/null, /dev/stdout, a named pipe): it holds no data to clobber, and
 * renaming over it would replace the device node itself (as root, `-o /dev/null --force` would).
 */
export async function isSpecialFile(path: string): Promise<boolean> {
  try {
    const s = await stat(path);
    return !s.isFile() && !s.isDirectory();
  } catch {
    return false;
  }
}

/** Fails early (before any request) unless `dir` is an existing, writable directory (root always passes the last). */
export async function assertDirectory(dir: string): Promise<void> {
  try {
    const s = await stat(dir);
    if (!s.isDirectory()) throw Object.assign(new Error('not a directory'), { code: 'ENOTDIR' });
    await access(dir, constants.W_OK);
  } catch (err) {
    throw fileError(err, dir, 'cannot write to');
  }
}

/**
 * export's target, before any request: `--dir` is created with its parents when missing (as
 * `mkdir -p`, `wget -P` do) and checked; with `-o FILE` its directory is checked (never created, as
 * for report). Either way the temporaries a killed run left there go (removeStaleTemporaries). Returns the
 * first directory it created, if any (removeIfLeftEmpty).
 */
export async function prepareExportTarget(dir: string, output?: string): Promise<string | undefined> {
  if (output !== undefined) {
    await assertWritableDir(output);
    await removeStaleBeside(output);
    return undefined;
  }
  let created: string | undefined;
  try {
    created = await mkdir(dir, { recursive: true });
  } catch (err) {
    // A file in the way (EEXIST, ENOTDIR): assertDirectory says "not a directory".
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== 'EEXIST' && code !== 'ENOTDIR') throw fileError(err, dir, 'cannot create directory');
  }
  await assertDirectory(dir);
  await removeStaleTemporaries(dir);
  return created;
}

/**
 * A directory prepareExportTarget created (`created`: the first of its parents it made) that the run
 * left empty goes again, with the parents it made (CLI.md: a failed export leaves no empty --dir).
 */
export async function removeIfLeftEmpty(dir: string, created: string | undefined): Promise<void> {
  if (created === undefined) return;
  for (let d = resolve(dir); ; d = dirname(d)) {
    try {
      await rmdir(d); // only an empty directory: anything in it keeps it
    } catch {
      return;
    }
    if (d === resolve(created) || d === dirname(d)) return;
  }
}

/** The temporaries a killed run left beside `output` (`-o FILE`) go; a special file has none. */
export async function removeStaleBeside(output: string): Promise<void> {
  if (!(await isSpecialFile(output))) await removeStaleTemporaries(dirname(output));
}

/** Fails early (before any request) when the file `path` could not be written at all. */
export async function assertWritableDir(path: string): Promise<void> {
  if (await isSpecialFile(path)) return; // /dev/stdout: written in place, its directory never is
  await assertDirectory(dirname(path));
}

/** `path` is a directory: no --force can write a file there (rename(2) would fail with EISDIR). */
const isADirectory = (path: string, cause?: unknown) =>
  new FileError(`cannot write ${path}: it is a directory`, { cause });

/** An -o file, before any request: its directory is writable and nothing is in the way (unless force). */
export async function assertOutputWritable(path: string, force: boolean): Promise<void> {
  await assertWritableDir(path);
  await assertWritableTarget(path, force);
}

/** Fails early (before any download) when `path` is a directory, or exists and `force` is off. */
export async function assertWritableTarget(path: string, force: boolean): Promise<void> {
  let s: Stats;
  try {
    s = await stat(path);
  } catch {
    // Missing (the usual case), or not even stat-able: the write itself will say why.
    return;
  }
  if (s.isDirectory()) throw isADirectory(path);
  if (force || !s.isFile()) return; // a device, FIFO or socket is written in place, never "exists"
  throw new FileExistsError(path);
}

export async function createAtomicFile(
  path: string,
  o: { force: boolean; mode?: number },
): Promise<AtomicFile> {
  await assertWritableTarget(path, o.force);
  // A special file is written in place at commit, from a temporary file elsewhere (its directory,
  // e.g. /dev, is no place for one).
  const special = await isSpecialFile(path);
  const tempPath = special ? tempPathFor(join(tmpdir(), basename(path))) : tempPathFor(path);
  // `flush: true` fsyncs before the descriptor closes, so the rename never publishes unflushed data.
  const stream = createWriteStream(tempPath, { flags: 'wx', mode: o.mode ?? 0o644, flush: true });
  try {
    await once(stream, 'open');
  } catch (err) {
    throw await openError(err, path, dirname(tempPath));
  }
  temporaries.add(tempPath);
  let done = false;
  const abort = async () => {
    if (done) return;
    done = true;
    if (!stream.closed) {
      stream.destroy();
      await once(stream, 'close').catch(() => {});
    }
    await unlink(tempPath).catch(() => {});
    temporaries.delete(tempPath);
  };
  return {
    tempPath,
    get path() {
      return path;
    },
    stream,
    async commit(finalPath = path) {
      if (dirname(finalPath) !== dirname(path)) throw new Error(`commit: ${finalPath} is not beside ${path}`);
      path = finalPath;
      try {
        if (stream.errored) throw stream.errored;
        // A pipeline may have ended the stream already, and then it closed on its own.
        if (!stream.closed) {
          const closed = once(stream, 'close');
          stream.end();
          await closed;
        }
        if (stream.errored) throw stream.errored;
        if (special) {
          const { pipeline } = await import('node:stream/promises');
          await pipeline(createReadStream(tempPath), createWriteStream(path, { flags: 'w' }));
          await unlink(tempPath);
        } else if (o.force) await rename(tempPath, path);
        else {
          await link(tempPath, path);
          await unlink(tempPath);
        }
        temporaries.delete(tempPath);
        done = true;
      } catch (err) {
        await abort();
        if (err instanceof FileError) throw err;
        if ((err as NodeJS.ErrnoException).code === 'EEXIST') {
          throw new FileExistsError(path);
        }
        if ((err as NodeJS.ErrnoException).code === 'EISDIR') throw isADirectory(path, err);
        throw fileError(err, path);
      }
    },
    abort,
  };
}

/**
 * Why a temporary file could not be created in `dir`. ENOENT there means "no such directory" only when
 * the directory is indeed missing: /proc and /sys exist but refuse new files with ENOENT too
 * (`-o /proc/version --force`).
 */
async function openError(err: unknown, path: string, dir: string): Promise<FileError> {
  if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
    const there = await stat(dir).then(
      (s) => s.isDirectory(),
      () => false,
    );
    if (there)
      return new FileError(`cannot write ${path}: ${dir} does not allow new files in it`, { cause: err });
  }
  return fileError(err, path);
}

/** Writes a whole file atomically. */
export async function writeFileAtomic(
  path: string,
  data: string | Uint8Array,
  o: { force: boolean; mode?: number },
): Promise<void> {
  const file = await createAtomicFile(path, o);
  try {
    await new Promise<void>((resolve, reject) => {
      file.stream.write(data, (err) => (err ? reject(err) : resolve()));
    });
  } catch (err) {
    await file.abort();
    throw fileError(err, path);
  }
  await file.commit();
}
