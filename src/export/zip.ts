import { isUtf8 } from 'node:buffer';
import { stat } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { crc32, createInflateRaw } from 'node:zlib';
import type { Entry, ZipFile } from 'yauzl';
import { sanitizeFileName } from '../fs/file-name.js';

export class ZipError extends Error {
  override name = 'ZipError';
}

export type ZipEntry = { name: string; crc: number; size: number };

const ZIP64_MARKER = 0xffffffff;

/** Zip-bomb limits, for each member and for the whole archive against its own size. */
const MAX_RATIO = 100;
const RATIO_FLOOR = 1024 * 1024;
const inflatesTooMuch = (inflated: number, compressed: number) =>
  inflated > RATIO_FLOOR && inflated > MAX_RATIO * compressed;

/** Under Buffer.poolSize / 2, inflated pieces come from Buffer's shared pool (docs/performance.md). */
const INFLATE_CHUNK = 4095;

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
  const known = YAUZL_MESSAGES.find(([re]) => re.test(message))?.[1];
  return new ZipError(known ?? `zip ${label ? `entry ${label}` : 'file'} is corrupt (${message})`);
}

async function openZip(path: string): Promise<ZipFile> {
  if ((await stat(path)).size < 22) throw new ZipError('not a zip file (too short)');
  const { default: yauzl } = await import('yauzl');
  const options = { lazyEntries: true, decodeStrings: false, autoClose: false, validateEntrySizes: false };
  const zip = await yauzl.openPromise(path, options).catch((err) => Promise.reject(asZipError(err)));
  // yauzl replaces the end record's offset with the zip64 record's: a marker left means no locator.
  const cdOffset = (zip as unknown as { readEntryCursor: number }).readEntryCursor;
  if (cdOffset >= zip.fileSize) {
    zip.close();
    throw new ZipError(
      cdOffset === ZIP64_MARKER ? 'zip64 end locator missing' : 'zip central directory is out of bounds',
    );
  }
  return zip;
}

function toZipEntry(e: Entry): ZipEntry {
  const marked = [e.uncompressedSize, e.compressedSize, e.relativeOffsetOfLocalHeader].includes(ZIP64_MARKER);
  if (marked && !e.extraFields.some((f) => f.id === 1)) throw new ZipError('zip64 extra field missing');
  return { name: decodeName(e.fileNameRaw, e.generalPurposeBitFlag), crc: e.crc32, size: e.uncompressedSize };
}

function decodeName(raw: Buffer, flags: number): string {
  // Bit 11: UTF-8. Otherwise CP437 in theory; UTF-8 when it decodes, else Latin-1, is what tools do.
  return flags & 0x800 || isUtf8(raw) ? raw.toString('utf8') : raw.toString('latin1');
}

async function streamEntry(
  zip: ZipFile,
  raw: Entry,
  entry: ZipEntry,
  onData: (chunk: Uint8Array) => void | Promise<void>,
  archive: { inflated: number },
  signal?: AbortSignal,
): Promise<void> {
  const label = JSON.stringify(entry.name);
  const method = raw.compressionMethod;
  if (raw.generalPurposeBitFlag & 0x1) throw new ZipError(`zip entry ${label} is encrypted`);
  if (method !== 0 && method !== 8)
    throw new ZipError(`zip entry ${label} uses an unsupported compression method (${method})`);
  const bomb = () =>
    new ZipError(`zip entry ${label} inflates more than ${MAX_RATIO}-fold its compressed size (a zip bomb?)`);
  if (inflatesTooMuch(entry.size, raw.compressedSize)) throw bomb();
  // A CSV member is text: a NUL byte means binary filler (or a bomb's padding), never a cell.
  const text = isCsvEntry(entry);
  let crc = 0;
  let size = 0;
  // The pipeline may report the abort of its other streams instead of what `take` refused.
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
      if (inflatesTooMuch(size, raw.compressedSize)) throw refuse(bomb());
      if (inflatesTooMuch(archive.inflated, zip.fileSize)) {
        throw refuse(new ZipError(`the zip inflates more than ${MAX_RATIO}-fold its size (a zip bomb?)`));
      }
      if (text && d.includes(0))
        throw refuse(new ZipError(`zip entry ${label} holds NUL bytes: not CSV text`));
      await onData(d);
    }
  };
  try {
    const stored: Readable = await zip.openReadStreamPromise(raw, { decodeFileData: false });
    if (method === 8)
      await pipeline(stored, createInflateRaw({ chunkSize: INFLATE_CHUNK }), take, { signal });
    else await pipeline(stored, take, { signal });
  } catch (err) {
    throw refused ?? asZipError(err, label);
  }
  if (size !== entry.size) throw new ZipError(`zip entry ${label} is shorter than declared`);
  if (crc >>> 0 !== entry.crc >>> 0) throw new ZipError(`zip entry ${label} fails its CRC check`);
}

export async function verifyZip(
  path: string,
  signal?: AbortSignal,
  sinkFor?: (entry: ZipEntry) => Promise<((chunk: Uint8Array) => void | Promise<void>) | undefined>,
): Promise<ZipEntry[]> {
  const zip = await openZip(path);
  try {
    const entries: ZipEntry[] = [];
    const archive = { inflated: 0 };
    const each = zip.eachEntry();
    for (;;) {
      const next = await each.next().catch((err) => Promise.reject(asZipError(err)));
      if (next.done) return entries;
      const entry = toZipEntry(next.value);
      await streamEntry(zip, next.value, entry, (await sinkFor?.(entry)) ?? (() => {}), archive, signal);
      entries.push(entry);
    }
  } finally {
    zip.close();
  }
}

/** A folder prefix is dropped; a name that tries to leave the target directory marks the archive hostile. */
export function memberFileName(name: string): string {
  if (/^[/\\]|^[A-Za-z]:|(^|[/\\])\.\.([/\\]|$)|[\u0000-\u001f]/.test(name)) {
    throw new ZipError(`zip entry ${JSON.stringify(name)} points outside the target directory`);
  }
  const safe = sanitizeFileName(name);
  if (safe === undefined) throw new ZipError(`zip entry ${JSON.stringify(name)} has no usable file name`);
  return safe;
}

export const isCsvEntry = (e: ZipEntry): boolean => /\.csv$/i.test(e.name);
