/**
 * Response bodies as lazy chunk sequences, so any number of rows can be sent with flat memory: rows are
 * generated, serialised into ~64 KiB chunks and (for csv) deflated into a streaming zip one chunk at a
 * time, while the server writes each chunk with backpressure.
 */
import { Zip, ZipDeflate, ZipPassThrough } from 'fflate';
import type { ReportType } from '../domain.js';
import { csvHeader, csvLine } from './csv.js';
import { type Fields, toJson } from './values.js';

const CHUNK = 64 * 1024;

/** The first row and an iterable over all rows (first included), or undefined when there are none. */
export function peek(rows: Iterable<Fields>): Iterable<Fields> | undefined {
  const it = rows[Symbol.iterator]();
  const first = it.next();
  if (first.done) return undefined;
  return {
    *[Symbol.iterator]() {
      yield first.value;
      for (let r = it.next(); !r.done; r = it.next()) yield r.value;
    },
  };
}

/**
 * `open` + rows as JSON joined by commas + `close`, in chunks; `spaced`: a space after every `:` and
 * `,`, as Python's json.dumps writes it (`{"a": 1, "b": 2}`).
 */
export function* jsonChunks(
  rows: Iterable<Fields>,
  open: string,
  close: string,
  spaced = false,
): Generator<string> {
  let buf = open;
  let first = true;
  for (const row of rows) {
    buf += first ? toJson(row, spaced) : `${spaced ? ', ' : ','}${toJson(row, spaced)}`;
    first = false;
    if (buf.length >= CHUNK) {
      yield buf;
      buf = '';
    }
  }
  yield buf + close;
}

export function* csvChunks(type: ReportType, rows: Iterable<Fields>): Generator<string> {
  let buf = csvHeader(type);
  for (const row of rows) {
    buf += csvLine(type, row);
    if (buf.length >= CHUNK) {
      yield buf;
      buf = '';
    }
  }
  if (buf) yield buf;
}

export interface ZipOptions {
  /** Name of the one member. */
  member: string;
  /** The effective date: the member's modification time (noon, local), so the bytes never vary. */
  date: string;
  /** Store the member uncompressed (fast, for big exports) instead of deflating it. */
  store?: boolean;
}

/** A zip archive with one member holding `text` (deflated unless `store`), emitted while `text` is consumed. */
export function* zipChunks(text: Iterable<string>, o: ZipOptions): Generator<Uint8Array> {
  const out: Uint8Array[] = [];
  let failure: Error | null = null;
  const zip = new Zip((err, data) => {
    if (err) failure = err;
    else out.push(data);
  });
  const file = o.store ? new ZipPassThrough(o.member) : new ZipDeflate(o.member, { level: 6 });
  const [y, m, d] = o.date.split('-').map(Number);
  // fflate writes DOS time from local components: a local noon gives the same bytes in every time zone.
  file.mtime = new Date(y, m - 1, d, 12, 0, 0);
  zip.add(file);
  const enc = new TextEncoder();
  const flush = function* () {
    if (failure) throw failure;
    while (out.length) yield out.shift()!;
  };
  for (const chunk of text) {
    file.push(enc.encode(chunk));
    yield* flush();
  }
  file.push(new Uint8Array(0), true);
  zip.end();
  yield* flush();
}
