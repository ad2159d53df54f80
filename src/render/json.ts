// JSON and NDJSON rows as JSON.stringify writes them, from their bytes; --fields rows reduced to the columns.
import type { Row } from '../domain.js';
import { quote, stringifyLossless } from '../json/lossless.js';
import { entryValue, F, Flag, Kind, keys, put, type RowBatch } from '../rows/tape.js';
import { borrowFast, FREE } from '../rows/tokenizer.js';
import type { Bytes } from './bytes.js';
import { type Column, valueAt } from './columns.js';
import type { Lead } from './delimited.js';

// Read once: across the bundle's chunks `keys.json` would be a getter call.
const keyJson = keys.json;

/** A row with escapes or behind a lead member by member; an object where JS orders or merges keys. */
export function writeRow(out: Bytes, batch: RowBatch, i: number, lead?: Lead): void {
  const { b, tape: t } = batch;
  const e = batch.at[i]!;
  if (t[e + F.FLAGS]! & Flag.ODD || (lead && hasKey(t, e, lead.ids))) {
    out.text(stringifyLossless(batch.object(i, lead?.row)));
    return;
  }
  out.byte(123);
  if (lead) out.text(lead.text);
  members(out, b, t, e, lead !== undefined);
  out.byte(125);
}

/**
 * Rows from `i` on that the body had compact and plain, one right after the other (`{…},{…}`): copied
 * at once, `sep` between them. The index after them; `i` for fewer than two.
 */
export function writeRun(out: Bytes, batch: RowBatch, i: number, sep: number): number {
  const { b, tape: t, at } = batch;
  if (t[at[i]! + F.FLAGS]! & (Flag.GAP | Flag.ESC | Flag.ODD)) return i;
  const j = i === 0 && batch.flags === 0 ? at.length : runEnd(t, at, i);
  if (j - i < 2 && batch.flags !== 0) return i;
  const start = t[at[i]! + F.START]!;
  const from = out.n;
  out.copy(b, start, t[at[j - 1]! + F.END]!);
  if (sep !== 44) separate(out.buf, from - start, t, at, i, j, sep);
  return j;
}

// The loops over rows are small functions of their own: V8 optimises what runs hot.

function runEnd(t: Int32Array, at: Int32Array, i: number): number {
  let j = i + 1;
  while (
    j < at.length &&
    !(t[at[j]! + F.FLAGS]! & (Flag.GAP | Flag.ESC | Flag.ODD)) &&
    t[at[j]! + F.START] === t[at[j - 1]! + F.END]! + 1
  )
    j++;
  return j;
}

/** `sep` over the comma after each row from `i` to `j - 1` (at body positions + `shift`). */
function separate(
  buf: Buffer,
  shift: number,
  t: Int32Array,
  at: Int32Array,
  i: number,
  j: number,
  sep: number,
) {
  for (let k = i; k < j - 1; k++) buf[shift + t[at[k]! + F.END]!] = sep;
}

/**
 * Rows from `i` on without escapes and nothing odd, written by fast-rows.wat without the whitespace
 * between their tokens (as JSON.stringify writes them), `sep` between them. The index after them.
 */
export function writeSpaced(out: Bytes, batch: RowBatch, i: number, sep: number): number {
  const { b, tape: t, at } = batch;
  const j = i === 0 && !(batch.flags & (Flag.ESC | Flag.ODD)) ? at.length : plainEnd(t, at, i);
  if (j === i) return i;
  const from = t[at[i]! + F.START]!;
  const bytes = t[at[j - 1]! + F.END]! - from;
  const ranges = FREE + ((bytes + 7) & ~7);
  const output = ranges + 8 * (j - i);
  const fast = borrowFast(output + bytes + (j - i));
  const memory = fast.memory.buffer;
  new Uint8Array(memory).set(b.subarray(from, from + bytes), FREE);
  rowRanges(new Int32Array(memory, ranges, 2 * (j - i)), t, at, i, j, from - FREE);
  out.copy(new Uint8Array(memory), output, fast.compact(ranges, j - i, output, sep));
  return j;
}

function plainEnd(t: Int32Array, at: Int32Array, i: number): number {
  let j = i;
  while (j < at.length && !(t[at[j]! + F.FLAGS]! & (Flag.ESC | Flag.ODD))) j++;
  return j;
}

function rowRanges(
  into: Int32Array,
  t: Int32Array,
  at: Int32Array,
  i: number,
  j: number,
  from: number,
): void {
  for (let k = i; k < j; k++) {
    into[2 * (k - i)] = t[at[k]! + F.START]! - from;
    into[2 * (k - i) + 1] = t[at[k]! + F.END]! - from;
  }
}

function hasKey(t: Int32Array, e: number, ids: readonly number[]): boolean {
  for (let m = e + F.W; m < t[e + F.NEXT]!; m = t[m + F.NEXT]!) if (ids.includes(t[m + F.KEY]!)) return true;
  return false;
}

function members(out: Bytes, b: Buffer, t: Int32Array, e: number, comma: boolean): void {
  for (let m = e + F.W; m < t[e + F.NEXT]!; m = t[m + F.NEXT]!) {
    if (comma) out.byte(44);
    comma = true;
    const key = keyJson[t[m + F.KEY]!]!;
    out.copy(key, 0, key.length);
    value(out, b, t, m);
  }
}

/** Strings without escapes (with their quotes), numbers and literals copied as they came. */
function value(out: Bytes, b: Buffer, t: Int32Array, e: number): void {
  const quoted = t[e] === Kind.STR || t[e] === Kind.STRU ? 1 : 0;
  switch (t[e]) {
    case Kind.STRX:
      out.text(quote(entryValue(b, t, e) as string));
      return;
    case Kind.OBJ:
      out.byte(123);
      members(out, b, t, e, false);
      out.byte(125);
      return;
    case Kind.ARR:
      out.byte(91);
      for (let m = e + F.W; m < t[e + F.NEXT]!; m = t[m + F.NEXT]!) {
        if (m > e + F.W) out.byte(44);
        value(out, b, t, m);
      }
      out.byte(93);
      return;
    default:
      out.copy(b, t[e + F.START]! - quoted, t[e + F.END]! + quoted);
  }
}

/** A row as -f json writes it (after `[` or `,`; indented on a terminal), or as -f ndjson does. */
export function jsonRow(row: Row, format: string, first: boolean, terminal?: boolean): string {
  if (format === 'ndjson') return `${stringifyLossless(row)}\n`;
  // As stringifyLossless(allRows, 2): JSON text holds no raw newline in a string.
  const text = terminal
    ? `\n  ${stringifyLossless(row, 2).replaceAll('\n', '\n  ')}`
    : stringifyLossless(row);
  return `${first ? '[' : ','}${text}`;
}

export const jsonEnd = (rows: number, terminal?: boolean) =>
  rows === 0 ? '[]\n' : terminal ? '\n]\n' : ']\n';

/** Rows keyed by the dotted column names (`{"indexId.Net": …}`), absent values null. */
export function project(rows: readonly Row[], columns: readonly Column[]): Row[] {
  return rows.map((row) => {
    const out: Row = {};
    for (const c of columns) put(out, c.name, valueAt(row, c.path) ?? null);
    return out;
  });
}
