/**
 * Checks and reads a zip file on disk in constant memory. The central directory (at the end of the
 * file) is the authoritative list of entries; each entry's data is streamed from its local header
 * through fflate's streaming Inflate, and its CRC-32 and size are compared with the directory's.
 * A truncated download loses the directory, so it fails here before anything is renamed into place.
 */
import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { crc32 } from 'node:zlib';
import { sanitizeFileName } from './naming.js';

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

const EOCD_SIG = 0x06054b50;
const ZIP64_LOCATOR_SIG = 0x07064b50;
const ZIP64_EOCD_SIG = 0x06064b50;
const CENTRAL_SIG = 0x02014b50;
const LOCAL_SIG = 0x04034b50;
const EOCD_MIN = 22;
const MAX_COMMENT = 0xffff;
const READ_CHUNK = 64 * 1024;
/**
 * Compressed bytes fed to Inflate per push, adapted to the compression ratio so that one push
 * inflates to about OUT_TARGET bytes: deflate reaches ~1000:1, and 64 KB of a highly repetitive CSV
 * would otherwise inflate to 64 MB at once.
 */
const PIECE_MIN = 256;
const PIECE_MAX = 64 * 1024;
const OUT_TARGET = 256 * 1024;

/**
 * Inflated bytes between two young-generation collections. fflate's streaming Inflate allocates about
 * four bytes of short-lived typed arrays per byte it puts out (its window and output buffer are copied
 * and grown on every push). Their memory lives outside V8's heap, and V8 collects it only once tens of
 * MB of it have piled up: an --extract run peaked at ~95 MB RSS on Node 20 and ~165 MB on Node 24.
 * A young-generation collection every MB put out (~0.5 ms each, no slower overall: V8 collects that
 * garbage anyway) brings those to ~75 and ~100 MB, whatever the entry's size.
 */
const COLLECT_EVERY = 1024 * 1024;

let youngGc: ((options: { type: 'minor' }) => void) | null | undefined;

/** A young-generation collection, or nothing where V8 does not offer one. */
function collectYoung(): void {
  if (youngGc === undefined) {
    try {
      // gc() is exposed to contexts created after the flag is set: a fresh one, not ours.
      setFlagsFromString('--expose-gc');
      youngGc = (runInNewContext('gc') as typeof youngGc) ?? null;
    } catch {
      youngGc = null;
    }
  }
  youngGc?.({ type: 'minor' });
}

type Handle = Awaited<ReturnType<typeof open>>;

async function readAt(fh: Handle, position: number, length: number): Promise<Buffer> {
  const buf = Buffer.alloc(length);
  const { bytesRead } = await fh.read(buf, 0, length, position);
  if (bytesRead !== length) throw new ZipError('zip file ends early');
  return buf;
}

/** The entries of the central directory. Throws ZipError when the file is not a whole zip. */
export async function readZipEntries(path: string): Promise<ZipEntry[]> {
  const fh = await open(path, 'r');
  try {
    const { size: fileSize } = await fh.stat();
    if (fileSize < EOCD_MIN) throw new ZipError('not a zip file (too short)');
    const tailLength = Math.min(fileSize, EOCD_MIN + MAX_COMMENT);
    const tail = await readAt(fh, fileSize - tailLength, tailLength);
    let eocd = -1;
    for (let i = tail.length - EOCD_MIN; i >= 0; i--) {
      // The comment length must reach exactly to the end: a stray signature inside a comment does not count.
      if (tail.readUInt32LE(i) === EOCD_SIG && i + EOCD_MIN + tail.readUInt16LE(i + 20) === tail.length) {
        eocd = i;
        break;
      }
    }
    if (eocd < 0) throw new ZipError('not a whole zip file (no end of central directory; truncated?)');
    let count = tail.readUInt16LE(eocd + 10);
    let cdSize = tail.readUInt32LE(eocd + 12);
    let cdOffset = tail.readUInt32LE(eocd + 16);
    const eocdPosition = fileSize - tailLength + eocd;
    if (count === 0xffff || cdSize === 0xffffffff || cdOffset === 0xffffffff) {
      ({ count, cdSize, cdOffset } = await readZip64End(fh, eocdPosition));
    }
    if (tail.readUInt16LE(eocd + 4) !== 0 || tail.readUInt16LE(eocd + 6) !== 0) {
      throw new ZipError('multi-part zip files are not supported');
    }
    if (cdOffset + cdSize > eocdPosition) throw new ZipError('zip central directory is out of bounds');
    const cd = await readAt(fh, cdOffset, cdSize);
    const entries: ZipEntry[] = [];
    let p = 0;
    for (let n = 0; n < count; n++) {
      if (p + 46 > cd.length || cd.readUInt32LE(p) !== CENTRAL_SIG) {
        throw new ZipError('zip central directory is corrupt');
      }
      const flags = cd.readUInt16LE(p + 8);
      const nameLength = cd.readUInt16LE(p + 28);
      const extraLength = cd.readUInt16LE(p + 30);
      const commentLength = cd.readUInt16LE(p + 32);
      if (p + 46 + nameLength + extraLength + commentLength > cd.length) {
        throw new ZipError('zip central directory is corrupt');
      }
      const rawName = cd.subarray(p + 46, p + 46 + nameLength);
      const entry: ZipEntry = {
        name: decodeName(rawName, flags),
        method: cd.readUInt16LE(p + 10),
        flags,
        crc: cd.readUInt32LE(p + 16),
        compressedSize: cd.readUInt32LE(p + 20),
        size: cd.readUInt32LE(p + 24),
        localHeaderOffset: cd.readUInt32LE(p + 42),
      };
      applyZip64Extra(entry, cd.subarray(p + 46 + nameLength, p + 46 + nameLength + extraLength));
      if (entry.localHeaderOffset + 30 + entry.compressedSize > cdOffset) {
        throw new ZipError(`zip entry ${JSON.stringify(entry.name)} is out of bounds`);
      }
      entries.push(entry);
      p += 46 + nameLength + extraLength + commentLength;
    }
    return entries;
  } finally {
    await fh.close();
  }
}

async function readZip64End(fh: Handle, eocdPosition: number) {
  if (eocdPosition < 20) throw new ZipError('zip64 end locator missing');
  const locator = await readAt(fh, eocdPosition - 20, 20);
  if (locator.readUInt32LE(0) !== ZIP64_LOCATOR_SIG) throw new ZipError('zip64 end locator missing');
  const end = await readAt(fh, Number(locator.readBigUInt64LE(8)), 56);
  if (end.readUInt32LE(0) !== ZIP64_EOCD_SIG) throw new ZipError('zip64 end record is corrupt');
  return {
    count: Number(end.readBigUInt64LE(32)),
    cdSize: Number(end.readBigUInt64LE(40)),
    cdOffset: Number(end.readBigUInt64LE(48)),
  };
}

/** Sizes and offsets too big for 32 bits live in the zip64 extra field (id 1), in this order. */
function applyZip64Extra(entry: ZipEntry, extra: Buffer): void {
  const needed = (['size', 'compressedSize', 'localHeaderOffset'] as const).filter(
    (k) => entry[k] === 0xffffffff,
  );
  if (needed.length === 0) return;
  for (let p = 0; p + 4 <= extra.length; ) {
    const id = extra.readUInt16LE(p);
    const length = extra.readUInt16LE(p + 2);
    if (id === 1) {
      let q = p + 4;
      for (const k of needed) {
        if (q + 8 > p + 4 + length) throw new ZipError('zip64 extra field is corrupt');
        entry[k] = Number(extra.readBigUInt64LE(q));
        q += 8;
      }
      return;
    }
    p += 4 + length;
  }
  throw new ZipError('zip64 extra field missing');
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
export async function readZipEntry(
  path: string,
  entry: ZipEntry,
  onData: (chunk: Uint8Array) => void | Promise<void> = () => {},
  signal?: AbortSignal,
): Promise<void> {
  const label = JSON.stringify(entry.name);
  if (entry.flags & 0x1) throw new ZipError(`zip entry ${label} is encrypted`);
  if (entry.method !== 0 && entry.method !== 8) {
    throw new ZipError(`zip entry ${label} uses an unsupported compression method (${entry.method})`);
  }
  const fh = await open(path, 'r');
  let dataStart: number;
  try {
    const local = await readAt(fh, entry.localHeaderOffset, 30);
    if (local.readUInt32LE(0) !== LOCAL_SIG) throw new ZipError(`zip entry ${label} has no local header`);
    dataStart = entry.localHeaderOffset + 30 + local.readUInt16LE(26) + local.readUInt16LE(28);
  } finally {
    await fh.close();
  }
  let crc = 0;
  let size = 0;
  let pending: Uint8Array[] = [];
  let collectedAt = 0;
  const take = (d: Uint8Array) => {
    if (d.length === 0) return;
    crc = crc32(d, crc);
    size += d.length;
    if (size > entry.size) throw new ZipError(`zip entry ${label} is longer than declared`);
    pending.push(d);
  };
  const flush = async () => {
    const out = pending;
    pending = [];
    for (const d of out) await onData(d);
  };
  const { Inflate } = await import('fflate');
  const inflate = entry.method === 8 ? new Inflate((d) => take(d)) : undefined;
  try {
    if (entry.compressedSize > 0) {
      const stream = createReadStream(path, {
        start: dataStart,
        end: dataStart + entry.compressedSize - 1,
        highWaterMark: READ_CHUNK,
        signal,
      });
      let piece = 1024;
      for await (const chunk of stream as AsyncIterable<Buffer>) {
        if (!inflate) {
          take(chunk);
          await flush();
          continue;
        }
        for (let at = 0; at < chunk.length; ) {
          const before = size;
          inflate.push(chunk.subarray(at, at + piece));
          at += piece;
          const out = size - before;
          if (out > OUT_TARGET) piece = Math.max(PIECE_MIN, piece >> 1);
          else if (out < OUT_TARGET / 4) piece = Math.min(PIECE_MAX, piece << 1);
          await flush();
          if (size - collectedAt >= COLLECT_EVERY) {
            collectedAt = size;
            collectYoung();
          }
        }
      }
    }
    inflate?.push(new Uint8Array(0), true);
    await flush();
  } catch (err) {
    // fs errors (string codes) and aborts pass through; fflate's errors (numeric codes) mean bad data.
    if (err instanceof ZipError || (err as Error).name === 'AbortError') throw err;
    if (typeof (err as NodeJS.ErrnoException).code === 'string') throw err;
    throw new ZipError(`zip entry ${label} is corrupt (${(err as Error).message})`);
  }
  if (size !== entry.size) throw new ZipError(`zip entry ${label} is shorter than declared`);
  if (crc >>> 0 !== entry.crc >>> 0) throw new ZipError(`zip entry ${label} fails its CRC check`);
}

/** Every entry opens and its CRC verifies. Returns the entries. */
export async function verifyZip(path: string, signal?: AbortSignal): Promise<ZipEntry[]> {
  const entries = await readZipEntries(path);
  for (const e of entries) await readZipEntry(path, e, undefined, signal);
  return entries;
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
