/**
 * The direct path from a report body to CSV, TSV, JSON or NDJSON bytes, for the shape a service answer has in
 * practice: `{"report":[...]}` (or a bare `[...]`) of rows whose values are strings, numbers, true,
 * false, null or nested objects of those. It builds no row objects and no string per value, which is
 * most of what the general path (lossless parse, then render) spends on 20,000 rows:
 *
 * By job: src/json/report-body.ts knows the `{"report":[…]}` wrapper, src/json/bytes.ts reads JSON
 * tokens from bytes, src/render/tape.ts makes the tape; this module writes the output.
 *
 * 1. `scanReport` (tape.ts) makes one pass over the body's bytes. It checks the JSON strictly and
 *    records, per value, its column, its byte range and its kind (a "tape").
 * 2. `emitDelimited` copies the ranges into one output buffer in the chosen column order. A number is
 *    copied as the digits the service sent, which is exactly what the general path prints too (the
 *    lossless parser makes a JS number only when String() gives back the same text). A string with an
 *    escape is the only value decoded, with JSON.parse, then quoted like any other cell.
 * 3. The usual answer takes one pass instead of these two: when every row after row 0 has row 0's
 *    layout and the columns print in row 0's order (no --fields), `emitRows` writes each row's line as
 *    it reads the row, with no tape (~25% less time than the two passes on 20,000 rows). At the first
 *    row that does not fit, it gives up and the two passes run from the start.
 *
 * Anything outside that shape makes `scanReport` return undefined and the caller takes the general
 * path: invalid JSON or UTF-8, no rows, an array as a value, escapes in keys, keys that look like
 * integers (JS objects list those first) or hold a dot (two paths could share a column name),
 * duplicate keys (JSON.parse keeps the last), and a key that holds an object in one row and a value in
 * another. So the output is byte for byte the general path's; a property test holds the two together.
 * 4. `jsonRows`: JSON and NDJSON are the body's own bytes when they already are the output (with
 *    several portfolios, each row copied with `"portfolioId":N,` first). `jsonFields`: with --fields,
 *    each row reduced to the chosen columns, written from the tape.
 * Outputs go where the caller's `alloc` says (the row stream's arena, json/arena.ts).
 */
import {
  EMPTY_OBJECT,
  FALSE,
  NUM,
  numberEnd,
  STR,
  STR_COMMA,
  STR_ESC,
  scanValue,
  TRUE,
  valueEnd,
  valueKind,
} from '../json/bytes.js';
import { parseLossless, stringifyLossless } from '../json/lossless.js';
import { afterRow, END, isWrapped, rowsStart } from '../json/report-body.js';
import { csvCell, tsvCell } from './delimited.js';
import { type Scan, scanRow, Tape, templateOf } from './tape.js';

/**
 * Where an output goes: `size` bytes, uninitialised (the row stream passes its arena, json/arena.ts).
 * A later call may be handed the same memory: an output abandoned half way is not read again.
 */
export type Alloc = (size: number) => Buffer;

/**
 * The usual answer in one pass: when every row after row 0 has row 0's layout (so every row has every
 * column, in row 0's order) and the output lists the columns in that order, each row is written out
 * as it is read, with no tape between. `header` gets row 0's columns and returns the header line, or
 * undefined when the output's column order is another (--fields, a portfolioId key after others).
 * Undefined whenever the one pass does not fit; the caller then takes scanReport + emitDelimited,
 * which read the body again from the start.
 */
export function emitRows(
  b: Buffer,
  kind: 'csv' | 'tsv',
  header: (columns: string[]) => string | undefined,
  alloc: Alloc = Buffer.allocUnsafe,
): { bytes: Buffer; rows: number } | undefined {
  let p = rowsStart(b);
  if (p < 0) return undefined;
  const wrapped = isWrapped(b);
  const t = new Tape(b);
  const q = scanRow(t, p);
  if (q < 0) return undefined;
  const template = templateOf(t, p, q);
  const m = t.count;
  if (!template || m < 2 || m !== t.tree.columns.length) return undefined;
  const head = header(t.tree.columns);
  if (head === undefined) return undefined;
  const csv = kind === 'csv';
  // A cell is never longer than its value's JSON, and every value comes after a key at least as long
  // as the separator after the cell (see emitDelimited), so the body's length bounds the output.
  const out = alloc(Buffer.byteLength(head) + 1 + b.length);
  let o = out.write(head, 0, 'utf8');
  out[o++] = 10;
  for (let x = 0; x < m; x++) {
    o = writeCell(out, o, b, t.start[x], t.end[x], t.kinds[x], csv);
    out[o++] = x === m - 1 ? 10 : csv ? 44 : 9;
  }
  let rows = 1;
  const at = { o };
  p = afterRow(b, q, wrapped);
  while (p >= 0) {
    p = emitTemplateRow(b, p, template.around, out, at, csv);
    if (p < 0) break;
    o = at.o;
    rows++;
    p = afterRow(b, p, wrapped);
  }
  return p === END ? { bytes: out.subarray(0, o), rows } : undefined;
}

/**
 * A row read against row 0's layout (`around`, see templateRow) and written to `out` at `at.o` (moved on) as one
 * line as it is read. Returns the index just past the row, or -1 when it does not fit (then the whole
 * one-pass attempt is dropped).
 */
function emitTemplateRow(
  b: Buffer,
  p: number,
  around: Buffer[],
  out: Buffer,
  at: { o: number },
  csv: boolean,
): number {
  let o = at.o;
  const n = b.length;
  const m = around.length - 1;
  const sep = csv ? 44 : 9;
  for (let j = 0; ; j++) {
    const bytes = around[j];
    const len = bytes.length;
    // sameBytes, inline: ~5% of this pass, run cold.
    for (let k = 0; k < len; k++) if (bytes[k] !== b[p + k]) return -1;
    p += len;
    if (j === m) break;
    if (j > 0) out[o++] = sep;
    const c0 = b[p];
    if (c0 === 34) {
      // The usual string (no escape) is copied as it is read, then quoted in CSV if it holds a comma.
      let x = p + 1;
      let w = o;
      let comma = false;
      while (x < n) {
        const c = b[x];
        if (c === 34 || c === 92 || c < 32) break;
        if (c === 44) comma = true;
        out[w++] = c;
        x++;
      }
      if (b[x] === 34) {
        if (comma && csv) {
          out.copyWithin(o + 1, o, w);
          out[o] = 34;
          out[w + 1] = 34;
          w += 2;
        }
        o = w;
        p = x + 1;
        continue;
      }
    } else if (c0 === 45 || (c0 >= 48 && c0 <= 57)) {
      // A number is copied as sent.
      const q = numberEnd(b, p);
      if (q < 0) return -1;
      while (p < q) out[o++] = b[p++];
      continue;
    }
    const v = scanValue(b, p, n);
    if (v < 0) return -1;
    const q = valueEnd(v);
    const k = valueKind(v);
    o = k <= STR_ESC ? writeCell(out, o, b, p + 1, q - 1, k, csv) : writeCell(out, o, b, p, q, k, csv);
    p = q;
  }
  out[o++] = 10;
  at.o = o;
  return p;
}

/**
 * The rows of a compact report body as JSON (`[...]`) or NDJSON, when the body's array already is
 * what the general path writes for its rows (stringifyLossless of the parse): then the answer is
 * those very bytes (NDJSON: one row per line). That holds when row 0 is written back as it came (no
 * whitespace, the key order and escapes JSON.stringify gives), every later row has row 0's layout
 * (see templateRow), and every value in them is written back as it came: numbers always are (the
 * digits as sent), plain strings, literals and `{}` too, an escaped string only when JSON.stringify
 * escapes it the same way (checked). Undefined otherwise; the caller then takes the general path.
 * `reuse`: the caller gives `b` up, and the output may be written into it.
 */
export function jsonRows(
  b: Buffer,
  ndjson: boolean,
  reuse = false,
  alloc: Alloc = Buffer.allocUnsafe,
  portfolioId?: number,
): { bytes: Buffer; rows: number } | undefined {
  const first = rowsStart(b);
  if (first < 0 || b[first - 1] !== 91) return undefined;
  const t = new Tape(b);
  let p = scanRow(t, first);
  if (p < 0) return undefined;
  const template = templateOf(t, first, p);
  const row0 = b.toString('utf8', first, p);
  if (!template || stringifyLossless(parseLossless(row0)) !== row0) return undefined;
  // A row's own portfolioId would take the lead key's value (the general path spreads the row after it).
  if (
    portfolioId !== undefined &&
    t.tree.columns.some((c) => c === 'portfolioId' || c.startsWith('portfolioId.'))
  )
    return undefined;
  const commas: number[] = [];
  while (b[p] === 44) {
    commas.push(p);
    p = checkTemplateRow(b, p + 1, template.around);
    if (p < 0) return undefined;
  }
  if (b[p] !== 93 || afterRow(b, p, isWrapped(b)) !== END) return undefined;
  const rows = commas.length + 1;
  if (portfolioId !== undefined) return withPortfolio(b, first, p, commas, ndjson, portfolioId, alloc);
  if (!ndjson) {
    // `[rows]` and a newline: in `b` itself when given up and a byte follows the `]` (the wrapper's `}`).
    if (reuse && p + 1 < b.length) {
      b[p + 1] = 10;
      return { bytes: b.subarray(first - 1, p + 2), rows };
    }
    const bytes = alloc(p + 2 - (first - 1));
    b.copy(bytes, 0, first - 1, p + 1);
    bytes[bytes.length - 1] = 10;
    return { bytes, rows };
  }
  // The rows without the brackets, each comma between two rows a newline.
  // The rows without the brackets, each comma between two rows a newline: in `b` itself when the
  // caller hands it over (a run streams many answers: one body's worth of memory less per answer).
  const bytes = reuse ? b.subarray(first, p + 1) : alloc(p - first + 1);
  if (!reuse) b.copy(bytes, 0, first, p);
  for (const c of commas) bytes[c - first] = 10;
  bytes[bytes.length - 1] = 10;
  return { bytes, rows };
}

/**
 * jsonRows for several portfolios: each row (b[first, end) split at `commas`, each with a key) with
 * `"portfolioId":N,` first, as the general path writes `{portfolioId, ...row}`. Longer than the
 * body, so never in it.
 */
function withPortfolio(
  b: Buffer,
  first: number,
  end: number,
  commas: number[],
  ndjson: boolean,
  portfolioId: number,
  alloc: Alloc,
): { bytes: Buffer; rows: number } {
  const lead = Buffer.from(`{"portfolioId":${portfolioId},`);
  const rows = commas.length + 1;
  const out = alloc(end - first + rows * (lead.length - 1) + (ndjson ? 1 : 3));
  let o = 0;
  if (!ndjson) out[o++] = 91;
  let s = first;
  for (let r = 0; r < rows; r++) {
    const e = r < commas.length ? commas[r] : end;
    o += lead.copy(out, o);
    o += b.copy(out, o, s + 1, e);
    out[o++] = r < commas.length ? (ndjson ? 10 : 44) : ndjson ? 10 : 93;
    s = e + 1;
  }
  if (!ndjson) out[o++] = 10;
  return { bytes: out.subarray(0, o), rows };
}

/**
 * JSON or NDJSON of a scan reduced to --fields (`names`, the tape columns `pick`; -1: a column the
 * data lacks), as project() + stringifyLossless write them: each row `{"name":value,...}` in `names`
 * order, a value written as JSON.stringify writes it (numbers as sent), null where the row lacks it.
 * A name given twice counts once, at its first place (project() sets the same key twice).
 */
export function jsonFields(
  s: Scan,
  pick: Int32Array,
  names: readonly string[],
  ndjson: boolean,
  alloc: Alloc = Buffer.allocUnsafe,
): Buffer {
  const keep: number[] = [];
  const seen = new Set<string>();
  for (let i = 0; i < names.length; i++) {
    if (seen.has(names[i])) continue;
    seen.add(names[i]);
    keep.push(i);
  }
  // `{"name":` or `,"name":` before each value; ahead of the rows, as bytes.
  const keys = keep.map((i, k) => Buffer.from(`${k === 0 ? '{' : ','}${JSON.stringify(names[i])}:`));
  const cols = Int32Array.from(keep, (i) => pick[i]);
  const fixed = keys.reduce((n, k) => n + k.length, 0) + 2;
  // A value is at most its token (an escape never restringifies longer), null 4 bytes, `{}` 2.
  const size = 2 + s.rows * (fixed + 4 * cols.length) + s.valueBytes + 2 * s.count;
  const out = alloc(size);
  const { buf, col, start, end } = s;
  const kinds = s.kind;
  const slot = new Int32Array(s.columns.length);
  const inRow = new Int32Array(s.columns.length).fill(-1);
  let o = 0;
  if (!ndjson) out[o++] = 91;
  let e = 0;
  for (let r = 0; r < s.rows; r++) {
    const last = s.rowEnd[r];
    for (; e < last; e++) {
      slot[col[e]] = e;
      inRow[col[e]] = r;
    }
    for (let k = 0; k < cols.length; k++) {
      o += keys[k].copy(out, o);
      const c = cols[k];
      if (c < 0 || inRow[c] !== r) {
        o += out.write('null', o, 'latin1');
        continue;
      }
      const x = slot[c];
      const kind = kinds[x];
      if (kind === STR_ESC) {
        const token = buf.toString('utf8', start[x] - 1, end[x] + 1);
        o += out.write(JSON.stringify(JSON.parse(token)), o, 'utf8');
      } else if (kind === EMPTY_OBJECT) {
        out[o++] = 123;
        out[o++] = 125;
      } else if (kind <= STR_ESC) {
        o += buf.copy(out, o, start[x] - 1, end[x] + 1); // the string with its quotes
      } else {
        o += buf.copy(out, o, start[x], end[x]); // a number or a literal, as sent
      }
    }
    out[o++] = 125;
    if (r < s.rows - 1) out[o++] = ndjson ? 10 : 44;
  }
  if (!ndjson) out[o++] = 93;
  out[o++] = 10;
  return out.subarray(0, o);
}

/** A row with row 0's layout whose values are all written back as they came; else -1. */
function checkTemplateRow(b: Buffer, p: number, around: Buffer[]): number {
  const n = b.length;
  const m = around.length - 1;
  for (let j = 0; ; j++) {
    const bytes = around[j];
    const len = bytes.length;
    for (let k = 0; k < len; k++) if (bytes[k] !== b[p + k]) return -1;
    p += len;
    if (j === m) return p;
    const v = scanValue(b, p, n);
    if (v < 0) return -1;
    const q = valueEnd(v);
    const kind = valueKind(v);
    if (kind === STR_ESC) {
      const token = b.toString('utf8', p, q);
      if (JSON.stringify(JSON.parse(token)) !== token) return -1;
    } else if (kind === EMPTY_OBJECT && q - p !== 2) return -1; // `{ }` is written `{}`
    p = q;
  }
}

/**
 * The CSV or TSV bytes of a scan: `header` (already made cells), then one line per row with the tape
 * columns `pick` (-1: a column the data lacks, always empty). Same rules as renderDelimited.
 */
export function emitDelimited(
  s: Scan,
  pick: Int32Array,
  header: string,
  kind: 'csv' | 'tsv',
  alloc: Alloc = Buffer.allocUnsafe,
): Buffer {
  const csv = kind === 'csv';
  const n = pick.length;
  // The most any column is printed per row (--fields may name one twice), to bound the output.
  const times = new Int32Array(s.columns.length);
  let most = 1;
  for (const c of pick) if (c >= 0) most = Math.max(most, ++times[c]);
  // A cell is at most its value's bytes plus two quotes (an escape never decodes longer than itself;
  // `\"` → `""`), plus a separator or newline each; `{}`/true/false are at most 5 bytes.
  const size =
    Buffer.byteLength(header) +
    1 +
    s.rows * (n + 1) +
    most * (s.valueBytes + 7 * s.count) +
    (n === 1 && csv ? 2 * s.rows : 0);
  const out = alloc(size);
  let o = out.write(header, 0, 'utf8');
  out[o++] = 10;
  if (s.uniform && n > 1 && n === s.columns.length && pick.every((c, i) => c === i)) {
    return out.subarray(0, emitUniform(s, out, o, csv, n));
  }
  const em: Emit = {
    s,
    out,
    o,
    pick,
    csv,
    slot: new Int32Array(s.columns.length),
    seen: new Int32Array(s.columns.length).fill(-1),
    e: 0,
  };
  for (let r = 0; r < s.rows; r++) emitRow(em, r);
  return out.subarray(0, em.o);
}

/** All rows of a uniform scan in their own order: the tape's values are the cells, one after another. */
function emitUniform(s: Scan, out: Buffer, o: number, csv: boolean, n: number): number {
  const { buf, start, end, count } = s;
  const kinds = s.kind;
  const sep = csv ? 44 : 9;
  let cell = 0;
  for (let x = 0; x < count; x++) {
    o = writeCell(out, o, buf, start[x], end[x], kinds[x], csv);
    if (++cell === n) {
      out[o++] = 10;
      cell = 0;
    } else out[o++] = sep;
  }
  return o;
}

/** The output being written, between rows. */
interface Emit {
  s: Scan;
  out: Buffer;
  o: number;
  pick: Int32Array;
  csv: boolean;
  /** Per tape column, the tape index of its value in the current row... */
  slot: Int32Array;
  /** ...valid when `seen` holds the current row. */
  seen: Int32Array;
  /** The tape index of the current row's first value. */
  e: number;
}

/** One row's line, its cells in `pick` order. */
function emitRow(em: Emit, r: number): void {
  const { s, out, pick, slot, seen, csv } = em;
  const { buf, col, start, end } = s;
  const kinds = s.kind;
  const last = s.rowEnd[r];
  for (let e = em.e; e < last; e++) {
    slot[col[e]] = e;
    seen[col[e]] = r;
  }
  em.e = last;
  const n = pick.length;
  let o = em.o;
  const lineStart = o;
  for (let i = 0; i < n; i++) {
    if (i > 0) out[o++] = csv ? 44 : 9;
    const c = pick[i];
    if (c < 0 || seen[c] !== r) continue;
    const x = slot[c];
    o = writeCell(out, o, buf, start[x], end[x], kinds[x], csv);
  }
  // A lone empty cell would be a blank line, which CSV readers skip: quote it.
  if (o === lineStart && n === 1 && csv) {
    out[o++] = 34;
    out[o++] = 34;
  }
  out[o++] = 10;
  em.o = o;
}

/** One value's cell at `o` (the value is buf[s, e), of kind `k`); returns the index after it. */
function writeCell(
  out: Buffer,
  o: number,
  buf: Buffer,
  s: number,
  e: number,
  k: number,
  csv: boolean,
): number {
  if (k === STR || k === NUM || (k === STR_COMMA && !csv)) return copy(out, o, buf, s, e);
  if (k === STR_COMMA) {
    out[o] = 34;
    o = copy(out, o + 1, buf, s, e);
    out[o] = 34;
    return o + 1;
  }
  if (k === STR_ESC) {
    const text = JSON.parse(buf.toString('utf8', s - 1, e + 1)) as string;
    return o + out.write(csv ? csvCell(text) : tsvCell(text), o, 'utf8');
  }
  if (k === TRUE) return o + out.write('true', o, 'latin1');
  if (k === FALSE) return o + out.write('false', o, 'latin1');
  if (k === EMPTY_OBJECT) return o + out.write('{}', o, 'latin1');
  return o; // NULL: an empty cell
}

/** Copies buf[s, e) to out at `o`; returns the index after. */
function copy(out: Buffer, o: number, buf: Buffer, s: number, e: number): number {
  for (let j = s; j < e; j++) out[o++] = buf[j];
  return o;
}
