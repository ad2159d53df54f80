/**
 * Checks and reads a zip file on disk in constant memory, with yauzl: the central directory (at the
 * end of the file) is the authoritative list of entries, zip64 included; each entry's bytes come
 * through node:zlib's streaming inflateRaw, and their CRC-32 (zlib.crc32) and size are compared with
 * the directory's. A truncated download loses the directory, so it fails here before anything is
 * renamed into place.
 */
import { stat } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { crc32, createInflateRaw } from 'node:zlib';
import type { Entry, ZipFile } from 'yauzl';
import { sanitizeFileName } from '../fs/file-name.js';

export class ZipError extends Error {
  override name = 'ZipError';
}

export interface ZipEntry {
  name: string;
  method: number;
  flags: number;
  crc: number;
  compressedSize: number;
  size: number;
  localHeaderOffset: number;
}

/** The smallest zip: an end-of-central-directory record alone. */
const EOCD_MIN = 22;
/** What a 32-bit size or offset says when the real value is in the zip64 fields. */
const ZIP64_MARKER = 0xffffffff;

/**
 * Zip-bomb limits (CLI.md, zip safety). A member may inflate to at most MAX_RATIO times its
 * compressed size once past RATIO_FLOOR bytes (a small file of blanks may compress far better; a CSV
 * export compresses 5–10-fold): a 4 MB archive of one 3.9 GiB member of NUL bytes is refused after
 * its first MiB instead of being inflated to the end. The whole archive is held to the same rule
 * against its own size, so that many small members (or members sharing their compressed data) are
 * refused too.
 */
export const MAX_RATIO = 100;
export const RATIO_FLOOR = 1024 * 1024;
const inflatesTooMuch = (inflated: number, compressed: number) =>
  inflated > RATIO_FLOOR && inflated > MAX_RATIO * compressed;

/**
 * Inflated bytes per piece. zlib gives each piece a Buffer of this size; under 4 KB (Buffer.poolSize / 2)
 * those come from Buffer's shared 8 KB pool instead of each having an ArrayBuffer of its own, and such
 * garbage, outside V8's heap, is what piles up until V8 collects it. Measured with
 * test/e2e/export-memory.test.ts (120 MB of CSV, --extract), peak RSS: 16 KB pieces (zlib's default)
 * 85 MB on Node 20 and 91 MB on Node 24; these 69–70 and 92 MB.
 */
const INFLATE_CHUNK = 4095;

/** yauzl's messages (plain Errors) in our words; fs and zlib errors keep their own. */
const YAUZL_MESSAGES: [RegExp, string][] = [
  [
    /end of central directory record signature not found|invalid comment length/i,
    'not a whole zip file (no end of central directory; truncated?)',
  ],
  [/zip64 extended information extra field/, 'zip64 extra field is corrupt'],
  [/zip64 end of central directory/, 'zip64 end record is corrupt'],
  [/multi-disk/, 'multi-part zip files are not supported'],
];

function asZipError(err: unknown, label?: string): unknown {
  if (err instanceof ZipError || (err as Error).name === 'AbortError') return err;
  const code = (err as NodeJS.ErrnoException).code;
  const message = (err as Error).message;
  // zlib's codes (Z_DATA_ERROR, ...) mean bad data; other string codes are the file system's.
  if (typeof code === 'string' && !code.startsWith('Z_')) return err;
  const known = YAUZL_MESSAGES.find(([re]) => re.test(message));
  if (known) return new ZipError(known[1]);
  return new ZipError(
    label ? `zip entry ${label} is corrupt (${message})` : `zip file is corrupt (${message})`,
  );
}

/** Opens `path` with yauzl (entries one at a time, names as bytes: we decode and check them ourselves). */
async function openZip(path: string): Promise<ZipFile> {
  if ((await stat(path)).size < EOCD_MIN) throw new ZipError('not a zip file (too short)');
  const { default: yauzl } = await import('yauzl');
  let zip: ZipFile;
  try {
    zip = await yauzl.openPromise(path, {
      lazyEntries: true,
      decodeStrings: false,
      autoClose: false,
      // Sizes are checked as the bytes come (streamEntry), for every method, with our messages.
      validateEntrySizes: false,
    });
  } catch (err) {
    throw asZipError(err);
  }
  // yauzl replaces the end record's offset with the zip64 record's when it finds the zip64 locator: a
  // marker left standing means the locator is missing. (readEntryCursor starts at that offset.)
  const cdOffset = (zip as unknown as { readEntryCursor: number }).readEntryCursor;
  if (cdOffset >= zip.fileSize) {
    zip.close();
    throw new ZipError(
      cdOffset === ZIP64_MARKER ? 'zip64 end locator missing' : 'zip central directory is out of bounds',
    );
  }
  return zip;
}

/** Every entry of the central directory, with yauzl's own (to open it). */
async function* entriesOf(zip: ZipFile): AsyncGenerator<[ZipEntry, Entry]> {
  const it = zip.eachEntry();
  for (;;) {
    let next: IteratorResult<Entry>;
    try {
      next = await it.next();
    } catch (err) {
      throw asZipError(err);
    }
    if (next.done) return;
    yield [toZipEntry(next.value), next.value];
  }
}

function toZipEntry(e: Entry): ZipEntry {
  const entry: ZipEntry = {
    name: decodeName(e.fileNameRaw, e.generalPurposeBitFlag),
    method: e.compressionMethod,
    flags: e.generalPurposeBitFlag,
    crc: e.crc32,
    compressedSize: e.compressedSize,
    size: e.uncompressedSize,
    localHeaderOffset: e.relativeOffsetOfLocalHeader,
  };
  // yauzl reads the zip64 extra field when there is one; a marker left standing means there was none.
  if (
    entry.size === ZIP64_MARKER ||
    entry.compressedSize === ZIP64_MARKER ||
    entry.localHeaderOffset === ZIP64_MARKER
  ) {
    if (!e.extraFields.some((f) => f.id === 1)) throw new ZipError('zip64 extra field missing');
  }
  return entry;
}

function decodeName(raw: Buffer, flags: number): string {
  // Bit 11: UTF-8. Otherwise CP437 in theory; UTF-8 when it decodes, else Latin-1, is what tools do.
  if (flags & 0x800) return raw.toString('utf8');
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(raw);
  } catch {
    return raw.toString('latin1');
  }
}

/**
 * Streams one entry's uncompressed bytes to `onData` (awaited, so a slow writer holds the reading
 * back), then checks its CRC-32 and size. Throws ZipError on any mismatch.
 */
async function streamEntry(
  zip: ZipFile,
  raw: Entry,
  entry: ZipEntry,
  onData: (chunk: Uint8Array) => void | Promise<void>,
  archive: { inflated: number },
  signal?: AbortSignal,
): Promise<void> {
  const label = JSON.stringify(entry.name);
  if (entry.flags & 0x1) throw new ZipError(`zip entry ${label} is encrypted`);
  if (entry.method !== 0 && entry.method !== 8) {
    throw new ZipError(`zip entry ${label} uses an unsupported compression method (${entry.method})`);
  }
  const bomb = () =>
    new ZipError(`zip entry ${label} inflates more than ${MAX_RATIO}-fold its compressed size (a zip bomb?)`);
  // The directory's word first (nothing inflated at all); the bytes themselves below, which may not
  // match it: the check stops at the first piece that crosses the line, whatever the header said.
  if (inflatesTooMuch(entry.size, entry.compressedSize)) throw bomb();
  // A CSV member is text: a NUL byte means binary filler (or a bomb's padding), never a cell.
  const text = isCsvEntry(entry);
  let crc = 0;
  let size = 0;
  // What `take` refused, kept aside: the pipeline may report the abort of its other streams instead.
  let refused: ZipError | undefined;
  const refuse = (err: ZipError) => {
    refused = err;
    return err;
  };
  const take = async (source: AsyncIterable<Buffer>) => {
    for await (const d of source) {
      crc = crc32(d, crc);
      size += d.length;
      archive.inflated += d.length;
      if (size > entry.size) throw refuse(new ZipError(`zip entry ${label} is longer than declared`));
      if (inflatesTooMuch(size, entry.compressedSize)) throw refuse(bomb());
      if (inflatesTooMuch(archive.inflated, zip.fileSize)) {
        throw refuse(new ZipError(`the zip inflates more than ${MAX_RATIO}-fold its size (a zip bomb?)`));
      }
      if (text && d.includes(0))
        throw refuse(new ZipError(`zip entry ${label} holds NUL bytes: not CSV text`));
      await onData(d);
    }
  };
  try {
    // The entry's bytes as stored; inflated here, so that the stream, its errors and an abort are ours.
    const stored: Readable = await zip.openReadStreamPromise(raw, { decodeFileData: false });
    if (entry.method === 8)
      await pipeline(stored, createInflateRaw({ chunkSize: INFLATE_CHUNK }), take, { signal });
    else await pipeline(stored, take, { signal });
  } catch (err) {
    throw refused ?? asZipError(err, label);
  }
  if (size !== entry.size) throw new ZipError(`zip entry ${label} is shorter than declared`);
  if (crc >>> 0 !== entry.crc >>> 0) throw new ZipError(`zip entry ${label} fails its CRC check`);
}

/**
 * Every entry opens, its CRC verifies, it stays within the zip-bomb limits (MAX_RATIO past
 * RATIO_FLOOR) and, for a CSV member, holds no NUL byte. Returns the entries. `sinkFor` may take an
 * entry's bytes as they are checked (--extract writes its CSVs in the same pass: one inflate, not
 * two); a refused entry stops the inflating at once, so a bomb costs its first MiB, not its size.
 */
export async function verifyZip(
  path: string,
  signal?: AbortSignal,
  sinkFor?: (entry: ZipEntry) => Promise<((chunk: Uint8Array) => void | Promise<void>) | undefined>,
): Promise<ZipEntry[]> {
  const zip = await openZip(path);
  try {
    const entries: ZipEntry[] = [];
    const archive = { inflated: 0 };
    for await (const [entry, raw] of entriesOf(zip)) {
      await streamEntry(zip, raw, entry, (await sinkFor?.(entry)) ?? (() => {}), archive, signal);
      entries.push(entry);
    }
    return entries;
  } finally {
    zip.close();
  }
}

/**
 * The plain file name an entry is extracted to, or an error: a folder prefix is dropped
 * (`reports/a.csv` → `a.csv`), but a name that tries to leave the target directory (`..` segments,
 * an absolute path, a drive letter) marks the whole archive as hostile.
 */
export function memberFileName(name: string): string {
  if (/^[/\\]|^[A-Za-z]:|(^|[/\\])\.\.([/\\]|$)|[\u0000-\u001f]/.test(name)) {
    throw new ZipError(`zip entry ${JSON.stringify(name)} points outside the target directory`);
  }
  const safe = sanitizeFileName(name);
  if (safe === undefined) throw new ZipError(`zip entry ${JSON.stringify(name)} has no usable file name`);
  return safe;
}

export const isDirectoryEntry = (e: ZipEntry): boolean => e.name.endsWith('/') || e.name.endsWith('\\');
export const isCsvEntry = (e: ZipEntry): boolean => !isDirectoryEntry(e) && /\.csv$/i.test(e.name);
