/** One export response → whole, checked files in the target directory, or nothing at all. */
import { createHash, type Hash } from 'node:crypto';
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm, stat, unlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ExportFormat } from '../domain.js';
import {
  errnoCode,
  FileExistsError,
  fileError,
  InterruptedError,
  NetworkError,
  PrsError,
  ServiceError,
} from '../errors.js';
import { type AtomicFile, assertWritableTarget, createAtomicFile } from '../fs/atomic.js';
import { ExportCheck } from '../rows/answer.js';
import { MalformedBody } from '../rows/tokenizer.js';
import type { ExportResponse } from '../service/types.js';
import { sha256File } from './manifest.js';
import {
  commonWords,
  disambiguate,
  type ExportKind,
  exportKind,
  nameFromHeaders,
  ruleFileName,
} from './naming.js';
import { isCsvEntry, memberFileName, verifyZip, type ZipEntry, ZipError } from './zip.js';

export interface SaveContext {
  portfolioId: number;
  date: string;
  format: ExportFormat;
  dir: string;
  output?: string;
  name?: string;
  type?: string;
  template?: string;
  force: boolean;
  extract: boolean;
  signal: AbortSignal;
  /** Paths this run has written: never replaced by a later export of the same run. */
  written: Set<string>;
  onBytes?(bytes: number): void;
  openFile?: typeof createAtomicFile;
  skipExisting?: boolean;
  /** Parallel exports wait here for the earlier items; false: a repeat of an earlier item's data. */
  turn?(body: { sha256: string; bytes: number }): Promise<boolean>;
}

type SavedFile = { path: string; bytes: number; sha256: string };

const label = (c: Pick<SaveContext, 'portfolioId' | 'date'>) => `portfolio ${c.portfolioId} on ${c.date}`;

type SaveResult =
  | { kind: 'written' | 'existing'; paths: string[]; files: SavedFile[] }
  | { kind: 'empty' }
  | { kind: 'repeat'; sha256: string };

const FS_SYSCALLS = ['open', 'write', 'writev', 'close', 'fsync', 'fdatasync', 'link', 'rename'];
const FS_CODES = ['ENOSPC', 'EDQUOT', 'EFBIG', 'EROFS'];

/** A body that breaks off is a corrupt response (exit 8); a stall past the timeout the network's (9). */
function classifyStreamError(
  err: unknown,
  c: Pick<SaveContext, 'portfolioId' | 'date' | 'signal'>,
  path: string,
  bytes: number,
): Error {
  if (c.signal.aborted) return new InterruptedError();
  if (err instanceof PrsError) return err;
  if (err instanceof MalformedBody) return corrupt(c, err.why);
  const e = err as NodeJS.ErrnoException;
  const code = errnoCode(err);
  if (FS_SYSCALLS.includes(e?.syscall ?? '') || FS_CODES.includes(code)) return fileError(err, path);
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

async function download(
  res: ExportResponse,
  dest: Writable,
  c: Pick<SaveContext, 'portfolioId' | 'date' | 'signal' | 'onBytes'>,
  where: string,
  onChunk?: (chunk: Buffer) => void,
  end = true,
): Promise<number> {
  let bytes = 0;
  async function* meter(body: AsyncIterable<Buffer>) {
    for await (const chunk of body) {
      bytes += chunk.length;
      onChunk?.(chunk);
      c.onBytes?.(bytes);
      yield chunk;
    }
  }
  try {
    await pipeline(res.body, meter, dest, { signal: c.signal, end });
  } catch (err) {
    discard(res.body);
    throw classifyStreamError(err, c, where, bytes);
  }
  if (res.contentLength !== undefined && bytes !== res.contentLength) {
    throw corrupt(c, `received ${bytes} of ${res.contentLength} bytes`);
  }
  return bytes;
}

export async function saveExport(res: ExportResponse, c: SaveContext): Promise<SaveResult> {
  const openFile = c.openFile ?? createAtomicFile;
  const kind = exportKind(c.format);
  const dir = c.output === undefined ? c.dir : dirname(c.output);
  // Aborted at the end, whatever happened: a committed file's abort does nothing.
  const files: AtomicFile[] = [];
  try {
    // A known name fails on an existing file before the download; --skip-existing compares at the end.
    const early = c.skipExisting ? undefined : (c.output ?? knownPath(res, c, kind, dir));
    // A file in the way gets export's hint (with --skip-existing, keptTargets's says how it compares).
    const opening = { force: c.force, exists: c.skipExisting ? undefined : existsHint() };
    const file = await openFile(
      early ?? join(dir, `prs-export-${process.pid}-${Date.now()}.${kind}`),
      opening,
    );
    files.push(file);

    let indexWords: string[] | undefined;
    const scanner =
      kind === 'json'
        ? new ExportCheck((name) => {
            indexWords = commonWords(indexWords, name);
          })
        : undefined;
    const hash = createHash('sha256');
    const bytes = await download(res, file.stream, c, early ?? dir, (chunk) => {
      hash.update(chunk);
      scanner?.push(chunk);
    });
    if (bytes === 0) return { kind: 'empty' };

    const extracted: { out: AtomicFile; hash: Hash; bytes: number }[] = [];
    let entries: ZipEntry[] = [];
    if (scanner) {
      if (scanner.end() === 0) return { kind: 'empty' };
    } else {
      const extractInto = async (entry: ZipEntry) => {
        if (!isCsvEntry(entry)) return undefined;
        const out = await openFile(join(dir, `prs-export-${process.pid}-${extracted.length}.csv`), opening);
        files.push(out);
        const member = { out, hash: createHash('sha256'), bytes: 0 };
        extracted.push(member);
        return (d: Uint8Array) => {
          member.hash.update(d);
          member.bytes += d.length;
          return write(out.stream, d);
        };
      };
      try {
        entries = await verifyZip(file.tempPath, c.signal, c.extract ? extractInto : undefined);
      } catch (err) {
        throw err instanceof ZipError || !extracted.length ? err : classifyStreamError(err, c, dir, 0);
      }
      for (const m of extracted) m.out.stream.end();
    }
    const sha256 = hash.digest('hex');
    if (c.turn && !(await c.turn({ sha256, bytes }))) return { kind: 'repeat', sha256 };
    if (c.signal.aborted) throw new InterruptedError();
    // Names are settled after the turn: which names this run took decides the suffixes.
    const path =
      c.output ??
      knownPath(res, c, kind, dir) ??
      unique(join(dir, ruleFileName({ ...c, kind, indexWords })), c);
    const targets = [{ file, saved: { path, bytes, sha256 } }];
    if (!scanner && c.extract) {
      if (!entries.some(isCsvEntry)) throw corrupt(c, 'the zip holds no CSV file to extract');
      for (const [i, p] of memberPaths(entries, c, dir, path).entries()) {
        const { out, hash, bytes } = extracted[i]!;
        targets.push({ file: out, saved: { path: p, bytes, sha256: hash.digest('hex') } });
      }
    }
    const saved: SavedFile[] = targets.map((t) => t.saved);
    const paths = saved.map((f) => f.path);
    const content = scanner ? undefined : zipContent(entries);
    const kept = await keptTargets(saved, content, c);
    if (kept.size === saved.length) return { kind: 'existing', paths, files: saved };
    // The names are taken from the moment the files can exist: a parallel item named alike must find them.
    for (const p of paths) c.written.add(p);
    const committed: string[] = [];
    try {
      for (const { file: f, saved: s } of targets) {
        if (kept.has(s.path)) continue;
        await f.commit(s.path);
        committed.push(s.path);
      }
    } catch (err) {
      // Whole or nothing; with --force a replaced file cannot come back and stays replaced.
      if (!c.force) for (const p of committed) await unlink(p).catch(() => {});
      for (const p of paths) if (!committed.includes(p) || !c.force) c.written.delete(p);
      throw err;
    }
    return { kind: 'written', paths, files: saved };
  } catch (err) {
    discard(res.body);
    if (c.signal.aborted && !(err instanceof InterruptedError)) throw new InterruptedError();
    throw asCorrupt(err, c);
  } finally {
    await Promise.all(files.map((f) => f.abort()));
  }
}

function asCorrupt(err: unknown, c: Pick<SaveContext, 'portfolioId' | 'date'>): unknown {
  if (err instanceof MalformedBody) return corrupt(c, err.why);
  return err instanceof ZipError ? corrupt(c, err.message) : err;
}

function discard(body: Readable): void {
  body.on('error', () => {});
  body.destroy();
}

/** The target path when the headers, a template or --name decide it (not the rows' index names). */
function knownPath(res: ExportResponse, c: SaveContext, kind: ExportKind, dir: string): string | undefined {
  const fromServer = c.template === undefined ? nameFromHeaders(res.contentDisposition, kind) : undefined;
  if (fromServer !== undefined) return unique(join(dir, fromServer), c);
  if (kind === 'json' && c.name === undefined && (c.template ?? '{name}').includes('{name}'))
    return undefined;
  return unique(join(dir, ruleFileName({ ...c, kind })), c);
}

function unique(path: string, c: Pick<SaveContext, 'written' | 'portfolioId' | 'date'>): string {
  if (!c.written.has(path)) return path;
  return join(dirname(path), disambiguate(path.slice(dirname(path).length + 1), c.portfolioId, c.date));
}

function memberPaths(entries: ZipEntry[], c: SaveContext, dir: string, zipPath: string): string[] {
  const members: string[] = [];
  const csv = entries.filter(isCsvEntry);
  // With --name-template the CSV takes the zip's name, so two report types' members stay apart.
  const stem = basename(zipPath).replace(/\.zip$/i, '');
  for (const entry of csv) {
    let name = memberFileName(entry.name);
    if (c.template !== undefined) name = csv.length === 1 ? `${stem}.csv` : `${stem}_${name}`;
    const path = unique(join(dir, name), c);
    if (members.includes(path)) throw corrupt(c, `two entries would both be written to ${path}`);
    members.push(path);
  }
  return members;
}

/** A zip built per request differs in its timestamps: compared by what it holds. */
function zipContent(entries: readonly ZipEntry[]): string {
  return entries.map((e) => `${e.name}\0${e.size}\0${e.crc >>> 0}`).join('\n');
}

async function holdsSame(f: SavedFile, content: string | undefined, c: SaveContext): Promise<boolean> {
  const sha = await sha256File(f.path).catch(() => undefined);
  if (sha === f.sha256) return true;
  if (sha === undefined || content === undefined || !f.path.endsWith('.zip')) return false;
  const existing = await verifyZip(f.path, c.signal).catch(() => undefined);
  if (existing === undefined || zipContent(existing) !== content) return false;
  f.sha256 = sha;
  f.bytes = (await stat(f.path)).size;
  return true;
}

/** Targets already there: kept when they hold what the service sent (--skip-existing), else refused unless --force. */
async function keptTargets(files: SavedFile[], content: string | undefined, c: SaveContext) {
  const kept = new Set<string>();
  for (const f of files) {
    if (c.skipExisting && (await holdsSame(f, content, c))) kept.add(f.path);
    else
      await assertWritableTarget(f.path, c.force).catch(async (err) => {
        if (!(err instanceof FileExistsError)) throw err;
        const same = !c.skipExisting && (await holdsSame({ ...f }, content, c));
        throw new FileExistsError(f.path, existsHint(same ? 'same' : 'different', c.template));
      });
  }
  return kept;
}

export function existsHint(holds?: 'same' | 'different', template?: string): string {
  if (holds === 'same')
    return 'it holds what the service sent: use --skip-existing to keep it (and resume the run)';
  const apart =
    template === undefined
      ? "another report type's? --name-template '{date}_{name}_{type}' names each apart; "
      : '';
  return holds === 'different'
    ? `it differs from what the service sent and was kept; ${apart}or move it away, or use --force to overwrite it`
    : `an earlier run's? --skip-existing keeps it (and resumes the run); ${apart}--force overwrites it`;
}

async function write(stream: Writable, chunk: Uint8Array, signal?: AbortSignal): Promise<void> {
  if (!stream.write(chunk)) await once(stream, 'drain', { signal });
}

/** `-o -`: raw bytes, unchecked; a body that breaks off still ends in a non-zero exit. 0 = no data. */
export const streamExport = (
  res: ExportResponse,
  out: Writable,
  c: Pick<SaveContext, 'portfolioId' | 'date' | 'signal' | 'onBytes'>,
) => download(res, out, c, '-', undefined, false);

/** `--extract -o -`: the zip checked whole in a private directory, then each CSV member to `out`. */
export async function extractToStdout(
  res: ExportResponse,
  out: Writable,
  c: Pick<SaveContext, 'portfolioId' | 'date' | 'signal' | 'onBytes'>,
): Promise<number> {
  const dir = await mkdtemp(join(tmpdir(), 'prs-extract-'));
  const zipPath = join(dir, 'export.zip');
  try {
    const bytes = await download(res, createWriteStream(zipPath, { mode: 0o600 }), c, dir);
    if (bytes === 0) return 0;
    const entries = await verifyZip(zipPath, c.signal);
    if (!entries.some(isCsvEntry)) throw corrupt(c, 'the zip holds no CSV file to extract');
    let last = 10;
    // Checked again as it is read: a second pass must not trust the first.
    await verifyZip(zipPath, c.signal, async (entry) => {
      if (!isCsvEntry(entry)) return undefined;
      // A member that does not end its last line must not glue the next member's header to it.
      if (last !== 10) await write(out, Buffer.from('\n'), c.signal);
      return (d) => {
        last = d[d.length - 1] ?? last;
        return write(out, d, c.signal);
      };
    });
    return bytes;
  } catch (err) {
    throw asCorrupt(err, c);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
