/**
 * One export response → whole files in the target directory, or nothing at all. The body streams
 * into a temporary file beside the target (never into memory), is checked, and only then renamed
 * into place; every failure, interruption or corrupt body removes the temporary files.
 */
import { createHash, type Hash } from 'node:crypto';
import { once } from 'node:events';
import { stat, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { addAbortSignal, type Readable, Transform, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ExportFormat } from '../domain.js';
import {
  FileExistsError,
  fileError,
  InterruptedError,
  NetworkError,
  PrsError,
  ServiceError,
} from '../errors.js';
import { type AtomicFile, assertWritableTarget, createAtomicFile } from '../fs/atomic.js';
import type { ExportResponse } from '../service/types.js';
import { JsonArrayScanner, JsonScanError } from './json-scan.js';
import { sha256File } from './manifest.js';
import {
  type DispositionParser,
  disambiguate,
  type ExportKind,
  exportKind,
  fallbackFileName,
  nameFromHeaders,
  nameWordsOf,
  templateFileName,
} from './naming.js';
import { isCsvEntry, memberFileName, verifyZip, type ZipEntry, ZipError } from './zip.js';

export interface SaveContext {
  portfolioId: number;
  date: string;
  format: ExportFormat;
  /** Target directory (ignored with `output`). */
  dir: string;
  /** `-o FILE`: this exact path, whatever the server suggests. */
  output?: string;
  /** --name: the <name> words of the fallback rule. */
  name?: string;
  /** The report type (the template's {type}). */
  type?: string;
  /** --name-template: the file name over {date} {name} {type} {portfolio}, instead of the server's. */
  template?: string;
  force: boolean;
  /** Also write the zip's CSV members beside it. */
  extract: boolean;
  signal: AbortSignal;
  /** Paths this run has written: never replaced by a later export of the same run. */
  written: Set<string>;
  parseDisposition: DispositionParser;
  /** Bytes received so far, for a progress line. */
  onBytes?(bytes: number): void;
  /** Seam for tests (disk full, permission denied). */
  openFile?: typeof createAtomicFile;
  /**
   * --skip-existing: a target that exists already is left alone; when it holds exactly these bytes
   * the item is done ('existing'), else the item fails (exit 10) as without the flag.
   */
  keepExisting?: boolean;
  /**
   * Called once the body is whole and verified, before names are settled and files committed: a run
   * of parallel exports waits here for the earlier items, so names, repeats and commits follow item
   * order. False: the data is a repeat of an earlier item's (a holiday), nothing is written.
   */
  turn?(body: { sha256: string; bytes: number }): Promise<boolean>;
}

/** A file written (or found already there, identical): its path, size and SHA-256. */
export interface SavedFile {
  path: string;
  bytes: number;
  sha256: string;
}

export type SaveResult =
  | { kind: 'written' | 'existing'; paths: string[]; files: SavedFile[] }
  | { kind: 'empty' }
  | { kind: 'repeat'; sha256: string };

const label = (c: Pick<SaveContext, 'portfolioId' | 'date'>) => `portfolio ${c.portfolioId} on ${c.date}`;

/** File-system calls whose failure is the local disk's, not the network's. */
const FS_SYSCALLS = new Set(['open', 'write', 'writev', 'close', 'fsync', 'fdatasync', 'link', 'rename']);

/**
 * Why streaming the body failed, as one of the contract's errors. A body that breaks off midway is
 * a corrupt response (exit 8) — the file would be incomplete — except a stall past the timeout,
 * which is the network's (exit 9).
 */
export function classifyStreamError(
  err: unknown,
  c: Pick<SaveContext, 'portfolioId' | 'date' | 'signal'>,
  path: string,
  bytes: number,
): Error {
  if (c.signal.aborted) return new InterruptedError();
  if (err instanceof PrsError) return err;
  if (err instanceof JsonScanError) return corrupt(c, err.message);
  const e = err as NodeJS.ErrnoException & { cause?: NodeJS.ErrnoException };
  if (e?.syscall && FS_SYSCALLS.has(e.syscall)) return fileError(err, path);
  const code = e?.code ?? e?.cause?.code;
  if (code === 'ENOSPC' || code === 'EDQUOT' || code === 'EFBIG' || code === 'EROFS')
    return fileError(err, path);
  if (code === 'UND_ERR_BODY_TIMEOUT') {
    return new NetworkError(`the download of ${label(c)} stalled after ${bytes} bytes`, { cause: err });
  }
  if (e?.name === 'AbortError') return new InterruptedError();
  return new ServiceError(`the download of ${label(c)} broke off after ${bytes} bytes`, {
    hint: 'nothing was saved; try again',
    cause: err,
  });
}

function corrupt(c: Pick<SaveContext, 'portfolioId' | 'date'>, why: string): ServiceError {
  return new ServiceError(`the export of ${label(c)} is corrupt: ${why}`, { hint: 'nothing was saved' });
}

/** Writes one export response. The body is always consumed or destroyed. */
export async function saveExport(res: ExportResponse, c: SaveContext): Promise<SaveResult> {
  const openFile = c.openFile ?? createAtomicFile;
  // What the caller asked for decides what the body must be, whatever its name or content type say:
  // JSON asked and a zip sent (or the reverse) is a corrupt answer, never a file of the other kind.
  const kind = exportKind(c.format);
  const dir = c.output === undefined ? c.dir : dirname(c.output);
  const files: AtomicFile[] = [];
  const abortAll = () => Promise.all(files.map((f) => f.abort()));
  try {
    // The name, when the headers already decide it: then an existing file fails before the download.
    // (openFile checks it; a name known only later is checked again before and at the commit.)
    // Under --skip-existing an existing target is compared at the end instead.
    let path = c.keepExisting ? undefined : (c.output ?? knownPath(res, c, kind, dir));
    const file = await openFile(path ?? join(dir, `prs-export-${process.pid}-${Date.now()}.${kind}`), {
      force: c.force,
    });
    files.push(file);

    const scanner = kind === 'json' ? new JsonArrayScanner() : undefined;
    let bytes = 0;
    const hash = createHash('sha256');
    const meter = new Transform({
      transform(chunk: Buffer, _enc, done) {
        bytes += chunk.length;
        hash.update(chunk);
        try {
          scanner?.push(chunk);
        } catch (err) {
          // Stop the download at the first bad byte: a corrupt 200 MB body fails fast.
          return done(err as Error);
        }
        c.onBytes?.(bytes);
        done(null, chunk);
      },
    });
    try {
      await pipeline(res.body, meter, file.stream, { signal: c.signal });
    } catch (err) {
      // Before the name is known, the directory is what the user can act on.
      throw classifyStreamError(err, c, path ?? dir, bytes);
    }
    if (bytes === 0) {
      await abortAll();
      return { kind: 'empty' };
    }
    if (res.contentLength !== undefined && bytes !== res.contentLength) {
      throw corrupt(c, `received ${bytes} of ${res.contentLength} bytes`);
    }

    let members: { entry: ZipEntry; path: string }[] = [];
    const extracted: { entry: ZipEntry; out: AtomicFile; hash: Hash; bytes: number }[] = [];
    let indexWords: string[] | undefined;
    let entries: ZipEntry[] = [];
    if (scanner) {
      let result: ReturnType<JsonArrayScanner['end']>;
      try {
        result = scanner.end();
      } catch (err) {
        throw err instanceof JsonScanError ? corrupt(c, err.message) : err;
      }
      // `[]` carries no data either: an empty file helps no one, and `report` treats it the same way.
      if (result.rows === 0) {
        await abortAll();
        return { kind: 'empty' };
      }
      indexWords = result.indexWords;
    } else {
      // --extract: each CSV member goes to a temporary file of its own as the zip is checked (one
      // inflate, not two); the names are settled after the turn, the commits come last.
      const extractInto = async (entry: ZipEntry) => {
        if (!isCsvEntry(entry)) return undefined;
        const out = await openFile(join(dir, `prs-export-${process.pid}-${extracted.length}.csv`), {
          force: c.force,
        });
        files.push(out);
        const member = { entry, out, hash: createHash('sha256'), bytes: 0 };
        extracted.push(member);
        return (d: Uint8Array) => {
          member.hash.update(d);
          member.bytes += d.length;
          return write(out.stream, d);
        };
      };
      try {
        entries = await verifyZipFile(file.tempPath, c, c.extract ? extractInto : undefined);
      } catch (err) {
        throw err instanceof ZipError || !extracted.length ? err : classifyStreamError(err, c, dir, 0);
      }
      for (const m of extracted) m.out.stream.end();
    }
    const sha256 = hash.digest('hex');
    if (c.turn && !(await c.turn({ sha256, bytes }))) {
      await abortAll();
      return { kind: 'repeat', sha256 };
    }
    if (c.signal.aborted) throw new InterruptedError();
    // Names are settled only now (after the turn): which names this run took decides the suffixes.
    if (c.turn && c.output === undefined && !c.keepExisting) path = knownPath(res, c, kind, dir);
    path ??= c.output ?? knownPath(res, c, kind, dir);
    path ??= unique(join(dir, ruleName(c, kind, indexWords)), c);
    if (!scanner && c.extract) {
      if (!entries.some(isCsvEntry)) throw corrupt(c, 'the zip holds no CSV file to extract');
      members = csvMembers(entries, c, dir, path);
    }
    const saved: SavedFile[] = [{ path, bytes, sha256 }];

    // The members (csvMembers keeps extraction's order) were written beside the zip as it was checked.
    for (const [i, m] of members.entries()) {
      saved.push({ path: m.path, bytes: extracted[i]!.bytes, sha256: extracted[i]!.hash.digest('hex') });
    }
    const paths = saved.map((f) => f.path);
    const content = scanner ? undefined : zipContent(entries);
    /** --skip-existing: the targets already there with what the service sent, left as they are. */
    let kept = new Set<string>();
    if (c.keepExisting) {
      kept = await existingCopies(saved, content, c);
      if (kept.size === saved.length) {
        await abortAll();
        return { kind: 'existing', paths, files: saved };
      }
    }
    // Under --skip-existing an existing file is compared (above), not refused, before the commit.
    for (const p of c.output === undefined || c.keepExisting ? paths : paths.slice(1)) {
      if (!kept.has(p)) await assertNew(p, saved, content, c);
    }
    // The commits: link(2) fails if a file appeared meanwhile, so even a late rival is never replaced.
    // The names are this run's from now on: an item downloading alongside (--parallel) whose server
    // names its file as this one's (a holiday answered with this date's rows) must find the name taken
    // from the moment the file can exist, or it would open it as a file in the way (exit 10).
    for (const p of paths) c.written.add(p);
    const committed: string[] = [];
    try {
      if (kept.has(path)) await file.abort();
      else {
        await file.commit(path);
        committed.push(path);
      }
      for (const [i, m] of members.entries()) {
        if (kept.has(m.path)) await extracted[i]!.out.abort();
        else {
          await extracted[i]!.out.commit(m.path);
          committed.push(m.path);
        }
      }
    } catch (err) {
      // Whole or nothing: a CSV that cannot be committed takes back the zip and CSVs committed before
      // it. Without --force each was a new name (link(2) refuses existing ones), so removing it leaves
      // the directory as it was; with --force a replaced file cannot come back and stays replaced.
      if (!c.force) for (const p of committed) await unlink(p).catch(() => {});
      for (const p of paths) if (!committed.includes(p) || !c.force) c.written.delete(p);
      throw err;
    }
    return { kind: 'written', paths, files: saved };
  } catch (err) {
    await abortAll();
    discard(res.body);
    if (c.signal.aborted && !(err instanceof InterruptedError)) throw new InterruptedError();
    throw err;
  }
}

/** Stops a body not (fully) read; undici's emits an error when destroyed, which nobody needs. */
function discard(body: Readable): void {
  body.on('error', () => {});
  body.destroy();
}

/** The target path when the response headers (or --name, or a zip's fallback) decide it. */
function knownPath(res: ExportResponse, c: SaveContext, kind: ExportKind, dir: string): string | undefined {
  const fromServer = nameFromHeaders({
    contentDisposition: res.contentDisposition,
    parse: c.parseDisposition,
    kind,
  });
  // A template names the file whatever the server suggests; {name} of JSON rows needs the file read.
  if (c.template !== undefined) {
    if (kind === 'json' && c.name === undefined && c.template.includes('{name}')) return undefined;
    return unique(join(dir, ruleName(c, kind)), c);
  }
  if (fromServer !== undefined) return unique(join(dir, fromServer), c);
  // A JSON export without --name takes its name from the rows, known only once the file is read.
  if (kind === 'json' && c.name === undefined) return undefined;
  return unique(join(dir, fallbackFileName({ ...c, kind })), c);
}

/** The name by --name-template when there is one, else by the `<date>_<name>_index` rule. */
function ruleName(c: SaveContext, kind: ExportKind, indexWords?: readonly string[]): string {
  if (c.template === undefined) return fallbackFileName({ ...c, kind, indexWords });
  const words = nameWordsOf({ ...c, indexWords });
  return templateFileName(c.template, { ...c, type: c.type ?? '', words, kind });
}

/** A path this run already wrote gets a distinguishing suffix rather than replacing the earlier file. */
function unique(path: string, c: Pick<SaveContext, 'written' | 'portfolioId' | 'date'>): string {
  if (!c.written.has(path)) return path;
  return join(dirname(path), disambiguate(path.slice(dirname(path).length + 1), c.portfolioId, c.date));
}

/** Checks every entry's CRC. */
async function verifyZipFile(tempPath: string, c: SaveContext, sinkFor?: Parameters<typeof verifyZip>[2]) {
  try {
    return await verifyZip(tempPath, c.signal, sinkFor);
  } catch (err) {
    if (err instanceof ZipError) throw corrupt(c, err.message);
    throw err;
  }
}

/** --extract: the CSV members and where each goes. */
function csvMembers(entries: ZipEntry[], c: SaveContext, dir: string, zipPath: string) {
  const members = [];
  const seen = new Set<string>();
  const csv = entries.filter(isCsvEntry);
  // With --name-template the CSV takes the zip's name (several: the zip's name, then the member's),
  // so that the members of two report types' zips stay apart as the zips do.
  const stem = basename(zipPath).replace(/\.zip$/i, '');
  for (const entry of csv) {
    let name: string;
    try {
      name = memberFileName(entry.name);
    } catch (err) {
      throw err instanceof ZipError ? corrupt(c, err.message) : err;
    }
    if (c.template !== undefined) name = csv.length === 1 ? `${stem}.csv` : `${stem}_${name}`;
    const path = unique(join(dir, name), c);
    if (seen.has(path)) throw corrupt(c, `two entries would both be written to ${path}`);
    seen.add(path);
    members.push({ entry, path });
  }
  return members;
}

/**
 * What a zip holds, whatever its own bytes (a zip built per request differs in its timestamps): each
 * entry's name, size and CRC-32 (checked against the inflated bytes by verifyZip).
 */
function zipContent(entries: readonly ZipEntry[]): string {
  return entries.map((e) => `${e.name}\0${e.size}\0${e.crc >>> 0}`).join('\n');
}

/**
 * An existing target against what the service sent: 'same' for the same bytes, or for a zip the same
 * content (zipContent: the CSV member's bytes, whatever the zip's own); 'missing'; else 'different'.
 */
async function compare(
  f: SavedFile,
  content: string | undefined,
  c: SaveContext,
): Promise<'same' | 'missing' | 'different'> {
  const sha = await sha256File(f.path).catch(() => undefined);
  if (sha === undefined) return 'missing';
  if (sha === f.sha256) return 'same';
  if (content === undefined || !f.path.endsWith('.zip')) return 'different';
  const existing = await verifyZip(f.path, c.signal).catch(() => undefined);
  if (existing === undefined || zipContent(existing) !== content) return 'different';
  // Kept as it is: the record (manifest) describes the file on disk.
  f.sha256 = sha;
  f.bytes = (await stat(f.path)).size;
  return 'same';
}

/**
 * --skip-existing: the targets that exist already with what the service sent (see compare); an
 * existing target with other content is never replaced, unless --force is given as well. A target
 * removed by hand is written again.
 */
async function existingCopies(
  files: SavedFile[],
  content: string | undefined,
  c: SaveContext,
): Promise<Set<string>> {
  const kept = new Set<string>();
  for (const f of files) {
    const state = await compare(f, content, c);
    // With --force too, a file that differs is replaced (the commit renames over it).
    if (state === 'different' && !c.force) throw new FileExistsError(f.path, differentHint(c));
    if (state === 'same') kept.add(f.path);
  }
  return kept;
}

/**
 * Without --skip-existing: a target that exists is refused (unless --force), with the hint that
 * helps — --skip-existing only when the file holds what the service sent (it would then count as
 * done), else a name of its own per report type or --force.
 */
async function assertNew(p: string, files: SavedFile[], content: string | undefined, c: SaveContext) {
  try {
    await assertWritableTarget(p, c.force);
  } catch (err) {
    const f = files.find((x) => x.path === p);
    if (!(err instanceof FileExistsError) || !f) throw err;
    const same = (await compare({ ...f }, content, c)) === 'same';
    throw new FileExistsError(p, same ? SAME_HINT : differentHint(c));
  }
}

const SAME_HINT = 'it holds what the service sent: use --skip-existing to keep it (and resume the run)';

function differentHint(c: Pick<SaveContext, 'template'>): string {
  const apart =
    c.template === undefined
      ? "; another report type's? --name-template '{date}_{name}_{type}' names each apart"
      : '';
  return `it differs from what the service sent and was kept${apart}; or move it away, or use --force to overwrite it`;
}

/** One chunk, waiting for the stream to drain when its buffer is full. */
async function write(stream: Writable, chunk: Uint8Array): Promise<void> {
  if (!stream.write(chunk)) await once(stream, 'drain');
}

/**
 * `-o -`: the raw bytes to stdout, with backpressure. Nothing can be checked before it is written;
 * a body that breaks off (short of Content-Length, or an error) still ends in a non-zero exit.
 * Returns the byte count (0 = no data).
 */
export async function streamExport(
  res: ExportResponse,
  out: Writable,
  c: Pick<SaveContext, 'portfolioId' | 'date' | 'signal' | 'onBytes'>,
): Promise<number> {
  let bytes = 0;
  const body: Readable = addAbortSignal(c.signal, res.body);
  try {
    for await (const chunk of body as AsyncIterable<Buffer>) {
      bytes += chunk.length;
      c.onBytes?.(bytes);
      if (!out.write(chunk)) await once(out, 'drain', { signal: c.signal });
    }
  } catch (err) {
    discard(res.body);
    // The reader went away (`prs export -o - | head`): what it wanted, it got.
    if ((err as NodeJS.ErrnoException).code === 'EPIPE') return bytes;
    throw classifyStreamError(err, c, '-', bytes);
  }
  if (res.contentLength !== undefined && bytes !== res.contentLength) {
    throw new ServiceError(
      `the download of ${label(c)} broke off after ${bytes} of ${res.contentLength} bytes`,
    );
  }
  return bytes;
}

/**
 * `--extract -o -`: the zip is downloaded to a private temporary directory and checked whole (every
 * entry's CRC) before anything is written; then its CSV members go to `out` one after another, each
 * with its own header, as a database loader reading a pipe wants them. A zip without a CSV member is a
 * corrupt answer (exit 8) with nothing written. Returns the zip's size (0 = no data).
 */
export async function extractToStdout(
  res: ExportResponse,
  out: Writable,
  c: Pick<SaveContext, 'portfolioId' | 'date' | 'signal' | 'onBytes'>,
): Promise<number> {
  const { mkdtemp, rm } = await import('node:fs/promises');
  const { tmpdir } = await import('node:os');
  const { createWriteStream } = await import('node:fs');
  const dir = await mkdtemp(join(tmpdir(), 'prs-extract-'));
  const zipPath = join(dir, 'export.zip');
  try {
    let bytes = 0;
    const meter = new Transform({
      transform(chunk: Buffer, _enc, done) {
        bytes += chunk.length;
        c.onBytes?.(bytes);
        done(null, chunk);
      },
    });
    try {
      await pipeline(res.body, meter, createWriteStream(zipPath, { mode: 0o600 }), { signal: c.signal });
    } catch (err) {
      discard(res.body);
      throw classifyStreamError(err, c, dir, bytes);
    }
    if (bytes === 0) return 0;
    if (res.contentLength !== undefined && bytes !== res.contentLength) {
      throw corrupt(c, `received ${bytes} of ${res.contentLength} bytes`);
    }
    const check = (err: unknown) => (err instanceof ZipError ? corrupt(c, err.message) : err);
    const entries = await verifyZip(zipPath, c.signal).catch((err) => {
      throw check(err);
    });
    if (!entries.some(isCsvEntry)) throw corrupt(c, 'the zip holds no CSV file to extract');
    let last = 10;
    const send = async (d: Uint8Array) => {
      if (!out.write(d)) await once(out, 'drain', { signal: c.signal });
    };
    try {
      // Checked again as it is read (the file is ours, but a second pass must not trust the first).
      await verifyZip(zipPath, c.signal, async (entry) => {
        if (!isCsvEntry(entry)) return undefined;
        // A member that does not end its last line must not glue the next member's header to it.
        if (last !== 10) await send(Buffer.from('\n'));
        return (d) => {
          last = d[d.length - 1] ?? last;
          return send(d);
        };
      });
    } catch (err) {
      // The reader went away (`| head`): what it wanted, it got.
      if ((err as NodeJS.ErrnoException).code === 'EPIPE') return bytes;
      throw check(err);
    }
    return bytes;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
