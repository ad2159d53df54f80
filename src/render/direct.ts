/**
 * The direct path from a report body to CSV or TSV bytes, for the shape a service answer has in
 * practice: `{"report":[...]}` (or a bare `[...]`) of rows whose values are strings, numbers, true,
 * false, null or nested objects of those. It builds no row objects and no string per value, which is
 * most of what the general path (lossless parse, then render) spends on 20,000 rows:
 *
 * 1. `scanReport` makes one pass over the body's bytes. It checks the JSON strictly and records, per
 *    value, its column, its byte range and its kind (a "tape"). Columns are the dotted key paths in
 *    first-seen order, as `seenColumns` gives them. Row 0 is read key by key; a row laid out like it
 *    (the very same bytes between the values: keys, colons, commas, braces) is then read against
 *    those bytes, checking only its values. Any other row is read key by key, each key compared with
 *    the previous row's first, so it too costs no string and no map lookup in the usual case.
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
 */
import { isUtf8 } from 'node:buffer';
import { parseLossless, stringifyLossless } from '../json/lossless.js';
import { csvCell, tsvCell } from './delimited.js';

// Value kinds on the tape.
const STR = 0; // a string without escapes or commas: copied as is
const STR_COMMA = 1; // without escapes, with a comma: quoted in CSV
const STR_ESC = 2; // with an escape: decoded by JSON.parse, then made a cell
const NUM = 3;
const TRUE = 4;
const FALSE = 5;
const NULL = 6;
const EMPTY_OBJECT = 7; // `{}`: a value of its own, printed `{}` as cellText does

/** The scanned body: per value its column, byte range and kind; per row where its values end. */
export interface Scan {
  buf: Buffer;
  /** Dotted column names in first-seen order. */
  columns: string[];
  rows: number;
  /** Values on the tape. */
  count: number;
  col: Int32Array;
  start: Int32Array;
  end: Int32Array;
  kind: Uint8Array;
  /** For each row, the tape index just past its last value. */
  rowEnd: Int32Array;
  /** Sum of the values' byte lengths, for sizing the output. */
  valueBytes: number;
  /** Every row has every column, in column order (the usual answer): its values are the cells in order. */
  uniform: boolean;
}

/** Nested objects deeper than this are left to the general path. */
const MAX_DEPTH = 32;

const REPORT_KEY = Buffer.from('report');

/**
 * Scans a JSON report body; undefined when it is outside the direct path (see the module comment).
 * Every `return undefined` is "not this path", never an error.
 */
export function scanReport(b: Buffer): Scan | undefined {
  let p = rowsStart(b);
  if (p < 0) return undefined;
  const wrapped = isWrapped(b);
  const t = new Tape(b);
  for (;;) {
    // The usual row has row 0's keys and layout: read against those bytes, else key by key.
    let q = t.template ? templateRow(t, p) : -1;
    if (q < 0) {
      q = scanRow(t, p);
      if (q < 0) return undefined;
      if (t.rows === 1) t.template = templateOf(t, p, q);
    }
    p = afterRow(b, q, wrapped);
    if (p === END) break;
    if (p < 0) return undefined;
  }
  return {
    buf: b,
    columns: t.tree.columns,
    rows: t.rows,
    count: t.count,
    col: t.col,
    start: t.start,
    end: t.end,
    kind: t.kinds,
    rowEnd: t.rowEnd,
    valueBytes: t.valueBytes,
    uniform: t.uniform,
  };
}

/** The body is `{"report":[...]}` rather than a bare array. */
const isWrapped = (b: Buffer) => b[skipWs(b, 0, b.length)] === 123;

/** The index of the first row's `{`, or -1 when the body is outside the direct path or has no rows. */
function rowsStart(b: Buffer): number {
  const n = b.length;
  if (n === 0 || !isUtf8(b)) return -1;
  let p = skipWs(b, 0, n);
  if (b[p] === 123) {
    p = skipWs(b, p + 1, n);
    if (b[p] !== 34) return -1;
    const ke = keyEnd(b, p + 1, n);
    if (ke - p - 1 !== REPORT_KEY.length || !sameBytes(REPORT_KEY, b, p + 1, REPORT_KEY.length)) return -1;
    p = skipWs(b, ke + 1, n);
    if (b[p] !== 58) return -1;
    p = skipWs(b, p + 1, n);
  }
  if (b[p] !== 91) return -1;
  p = skipWs(b, p + 1, n);
  // No rows: the general path has the no-data rules.
  return b[p] === 93 ? -1 : p;
}

/** afterRow's answer when the rows, and then the body, ended as they should. */
const END = -3;

/** After a row that ends at `p`: where the next row starts, END, or -1 (not this path). */
function afterRow(b: Buffer, p: number, wrapped: boolean): number {
  const n = b.length;
  p = skipWs(b, p, n);
  const d = b[p];
  if (d === 44) return skipWs(b, p + 1, n);
  if (d !== 93) return -1;
  p = skipWs(b, p + 1, n);
  if (wrapped) {
    if (b[p] !== 125) return -1;
    p = skipWs(b, p + 1, n);
  }
  return p === n ? END : -1;
}

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
  const out = Buffer.allocUnsafe(Buffer.byteLength(head) + 1 + b.length);
  let o = out.write(head, 0, 'utf8');
  out[o++] = 10;
  for (let x = 0; x < m; x++) {
    o = writeCell(out, o, b, t.start[x], t.end[x], t.kinds[x], csv);
    out[o++] = x === m - 1 ? 10 : csv ? 44 : 9;
  }
  let rows = 1;
  p = afterRow(b, q, wrapped);
  while (p >= 0) {
    p = emitTemplateRow(b, p, template.around, out, o, csv);
    if (p < 0) return undefined;
    o = emitted;
    rows++;
    p = afterRow(b, p, wrapped);
  }
  return p === END ? { bytes: out.subarray(0, o), rows } : undefined;
}

/** Where emitTemplateRow's output ends (a second return value, without an allocation). */
let emitted = 0;

/**
 * A row read against row 0's layout (`around`, see templateRow) and written to `out` at `o` as one
 * line as it is read. Returns the index just past the row, or -1 when it does not fit (then the whole
 * one-pass attempt is dropped).
 */
function emitTemplateRow(
  b: Buffer,
  p: number,
  around: Buffer[],
  out: Buffer,
  o: number,
  csv: boolean,
): number {
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
    const q = scanValue(b, p, n);
    if (q < 0) return -1;
    const k = valueKind;
    o = k <= STR_ESC ? writeCell(out, o, b, p + 1, q - 1, k, csv) : writeCell(out, o, b, p, q, k, csv);
    p = q;
  }
  out[o++] = 10;
  emitted = o;
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
): { bytes: Buffer; rows: number } | undefined {
  const first = rowsStart(b);
  if (first < 0 || b[first - 1] !== 91) return undefined;
  const t = new Tape(b);
  let p = scanRow(t, first);
  if (p < 0) return undefined;
  const template = templateOf(t, first, p);
  const row0 = b.toString('utf8', first, p);
  if (!template || stringifyLossless(parseLossless(row0)) !== row0) return undefined;
  const commas: number[] = [];
  while (b[p] === 44) {
    commas.push(p);
    p = checkTemplateRow(b, p + 1, template.around);
    if (p < 0) return undefined;
  }
  if (b[p] !== 93 || afterRow(b, p, isWrapped(b)) !== END) return undefined;
  const rows = commas.length + 1;
  if (!ndjson) {
    // `[rows]` and a newline: in `b` itself when given up and a byte follows the `]` (the wrapper's `}`).
    if (reuse && p + 1 < b.length) {
      b[p + 1] = 10;
      return { bytes: b.subarray(first - 1, p + 2), rows };
    }
    const bytes = Buffer.allocUnsafe(p + 2 - (first - 1));
    b.copy(bytes, 0, first - 1, p + 1);
    bytes[bytes.length - 1] = 10;
    return { bytes, rows };
  }
  // The rows without the brackets, each comma between two rows a newline.
  // The rows without the brackets, each comma between two rows a newline: in `b` itself when the
  // caller hands it over (a run streams many answers: one body's worth of memory less per answer).
  const bytes = reuse ? b.subarray(first, p + 1) : Buffer.allocUnsafe(p - first + 1);
  if (!reuse) b.copy(bytes, 0, first, p);
  for (const c of commas) bytes[c - first] = 10;
  bytes[bytes.length - 1] = 10;
  return { bytes, rows };
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
    const q = scanValue(b, p, n);
    if (q < 0) return -1;
    if (valueKind === STR_ESC) {
      const token = b.toString('utf8', p, q);
      if (JSON.stringify(JSON.parse(token)) !== token) return -1;
    } else if (valueKind === EMPTY_OBJECT && q - p !== 2) return -1; // `{ }` is written `{}`
    p = q;
  }
}

/** The scanner's state between rows. */
class Tape {
  readonly b: Buffer;
  readonly n: number;
  readonly tree = new KeyTree();
  // The tape and rowEnd start small on purpose: they grow in the first rows, while V8 still collects
  // type feedback. Growing first after the code is optimised would deoptimise it (~10 ms, cold).
  cap = 16;
  col = new Int32Array(16);
  start = new Int32Array(16);
  end = new Int32Array(16);
  kinds = new Uint8Array(16);
  count = 0;
  valueBytes = 0;
  rowEnd = new Int32Array(1);
  rows = 0;
  /** See Scan.uniform; `inOrder` is for the row being read. */
  uniform = true;
  inOrder = true;
  /** Row 0's layout, for templateRow. */
  template: Template | undefined;
  /** The parents of the nested objects being read. */
  readonly stack = new Int32Array(MAX_DEPTH);
  /** The previous row's key nodes in order, and this row's: the guess for each next key. */
  prev = new Int32Array(1);
  prevLen = 0;
  cur = new Int32Array(1);

  constructor(b: Buffer) {
    this.b = b;
    this.n = b.length;
  }

  grow(): void {
    const cap = this.cap * 2;
    this.cap = cap;
    this.col = grow32(this.col, cap);
    this.start = grow32(this.start, cap);
    this.end = grow32(this.end, cap);
    const k = new Uint8Array(cap);
    k.set(this.kinds);
    this.kinds = k;
  }
}

/**
 * One row from its `{`; returns the index just past its `}`, or -1 when the row is outside the direct
 * path. The row's state lives in locals; what outlives the row is on the Tape. A CLI runs this cold:
 * the first thousand rows or so run in V8's interpreter (~10 µs a row), the rest optimised (<1 µs).
 */
function scanRow(t: Tape, p: number): number {
  const b = t.b;
  const n = t.n;
  const { parent, names, stamp, column, isObject } = t.tree;
  const prev = t.prev;
  const prevLen = t.prevLen;
  let cur = t.cur;
  let curLen = 0;
  const r = t.rows;
  const first = t.count;
  t.inOrder = true;
  if (b[p] !== 123) return -1;
  p = skipWs(b, p + 1, n);
  let under = 0; // the node whose keys are being read: 0 is the row
  let depth = 0;
  if (b[p] === 125) p++;
  else {
    members: for (;;) {
      if (b[p] !== 34) return -1;
      const ks = p + 1;
      // The guess holds when its bytes are here, then a quote: a known key, checked when first seen.
      let node = -1;
      let ke = -1;
      if (curLen < prevLen) {
        const guess = prev[curLen];
        const name = names[guess];
        const len = name.length;
        if (parent[guess] === under && b[ks + len] === 34 && sameBytes(name, b, ks, len)) {
          node = guess;
          ke = ks + len;
        }
      }
      if (node < 0) {
        ke = keyEnd(b, ks, n);
        if (ke < 0) return -1;
        node = t.tree.lookup(under, b, ks, ke);
      }
      if (curLen === cur.length) cur = grow32(cur);
      cur[curLen++] = node;
      // The same key twice in one object: JSON.parse keeps the last, at the first one's place.
      if (stamp[node] === r) return -1;
      stamp[node] = r;
      p = skipWs(b, ke + 1, n);
      if (b[p] !== 58) return -1;
      p = skipWs(b, p + 1, n);

      const q = scanValue(b, p, n);
      if (q === OBJECT) {
        // A key that held a value before would need its objects printed as JSON: the general path's job.
        if (column[node] !== -1 || depth === MAX_DEPTH) return -1;
        isObject[node] = 1;
        t.stack[depth++] = under;
        under = node;
        p = skipWs(b, p + 1, n);
        continue;
      }
      if (q < 0) return -1;
      const kind = valueKind;
      // A string's range is inside its quotes; other values' ranges are their whole token.
      const vs = kind <= STR_ESC ? p + 1 : p;
      const ve = kind <= STR_ESC ? q - 1 : q;
      p = q;

      if (isObject[node] === 1) return -1;
      let ci = column[node];
      if (ci === -1) ci = t.tree.addColumn(node);
      const i = t.count;
      if (ci !== i - first) t.inOrder = false;
      if (i === t.cap) t.grow();
      t.col[i] = ci;
      t.start[i] = vs;
      t.end[i] = ve;
      t.kinds[i] = kind;
      t.count = i + 1;
      t.valueBytes += ve - vs;

      // After a value: the next key, or the end of this object (and maybe of the objects around it).
      for (;;) {
        p = skipWs(b, p, n);
        const d = b[p];
        if (d === 44) {
          p = skipWs(b, p + 1, n);
          continue members;
        }
        if (d !== 125) return -1;
        p++;
        if (depth === 0) break members;
        under = t.stack[--depth];
      }
    }
  }
  // Uniform so far: in order and complete, with no column that the rows before lacked.
  const columns = t.tree.columns.length;
  if (!t.inOrder || t.count - first !== columns || (r > 0 && columns !== t.rowEnd[0])) t.uniform = false;
  if (r === t.rowEnd.length) t.rowEnd = grow32(t.rowEnd);
  t.rowEnd[r] = t.count;
  t.rows = r + 1;
  t.prev = cur;
  t.prevLen = curLen;
  t.cur = prev;
  return p;
}

/** scanValue's answer for a non-empty object, which only scanRow can take (it knows the key). */
const OBJECT = -2;
/** The kind of the value scanValue read last (a second return value, without an allocation). */
let valueKind = NULL;

/**
 * The scalar value (or `{}`) that starts at `p`: returns the index just past it, with its kind in
 * valueKind; OBJECT when a non-empty object starts there; -1 when no valid value does.
 */
function scanValue(b: Buffer, p: number, n: number): number {
  const c = b[p];
  if (c === 34) {
    const x = stringEnd(b, p + 1, n);
    if (x < 0) return -1;
    valueKind = x & 3;
    return (x >>> 2) + 1;
  }
  if (c === 45 || (c >= 48 && c <= 57)) {
    valueKind = NUM;
    return numberEnd(b, p);
  }
  if (c === 116) {
    if (b[p + 1] !== 114 || b[p + 2] !== 117 || b[p + 3] !== 101) return -1;
    valueKind = TRUE;
    return p + 4;
  }
  if (c === 102) {
    if (b[p + 1] !== 97 || b[p + 2] !== 108 || b[p + 3] !== 115 || b[p + 4] !== 101) return -1;
    valueKind = FALSE;
    return p + 5;
  }
  if (c === 110) {
    if (b[p + 1] !== 117 || b[p + 2] !== 108 || b[p + 3] !== 108) return -1;
    valueKind = NULL;
    return p + 4;
  }
  if (c === 123) {
    const q = skipWs(b, p + 1, n);
    if (b[q] !== 125) return b[q] === 34 ? OBJECT : -1;
    valueKind = EMPTY_OBJECT;
    return q + 1;
  }
  return -1;
}

/**
 * A row's layout: the bytes around its values (before the first, between each two, after the last:
 * keys, colons, commas, braces and whitespace) and each value's column. Taken from row 0, which was
 * read key by key and checked (no duplicate keys, a column per key path).
 */
interface Template {
  around: Buffer[];
  columns: Int32Array;
}

function templateOf(t: Tape, rowStart: number, rowEnd: number): Template | undefined {
  const m = t.count;
  if (m === 0) return undefined;
  const around: Buffer[] = [];
  let from = rowStart;
  for (let e = 0; e < m; e++) {
    const str = t.kinds[e] <= STR_ESC;
    around.push(t.b.subarray(from, str ? t.start[e] - 1 : t.start[e]));
    from = str ? t.end[e] + 1 : t.end[e];
  }
  around.push(t.b.subarray(from, rowEnd));
  return { around, columns: t.col.slice(0, m) };
}

/**
 * A row read against row 0's layout: the same bytes around the values, any values between them. The
 * bytes vouch for the keys and the structure, so only the values are checked. Returns the index just
 * past the row, or -1 (the row then is read key by key).
 */
function templateRow(t: Tape, p: number): number {
  const b = t.b;
  const n = t.n;
  const { around, columns } = t.template!;
  const m = columns.length;
  const first = t.count;
  const valueBytes = t.valueBytes;
  for (let j = 0; j <= m; j++) {
    const bytes = around[j];
    const len = bytes.length;
    if (!sameBytes(bytes, b, p, len)) break;
    p += len;
    if (j === m) {
      if (t.count - first !== t.tree.columns.length) t.uniform = false; // a later column than row 0's
      const r = t.rows;
      if (r === t.rowEnd.length) t.rowEnd = grow32(t.rowEnd);
      t.rowEnd[r] = t.count;
      t.rows = r + 1;
      return p;
    }
    const q = scanValue(b, p, n);
    if (q < 0) break;
    const kind = valueKind;
    const i = t.count;
    if (i === t.cap) t.grow();
    t.col[i] = columns[j];
    t.start[i] = kind <= STR_ESC ? p + 1 : p;
    t.end[i] = kind <= STR_ESC ? q - 1 : q;
    t.kinds[i] = kind;
    t.count = i + 1;
    t.valueBytes += q - p;
    p = q;
  }
  t.count = first;
  t.valueBytes = valueBytes;
  return -1;
}

/** The key tree: node 0 is the row; every other node is a key under a parent node. */
class KeyTree {
  readonly names: Buffer[] = [Buffer.alloc(0)];
  readonly parent: number[] = [-1];
  /** The node's column once it has held a value, else -1. */
  readonly column: number[] = [-1];
  /** 1 once the node has held a non-empty object. */
  readonly isObject: number[] = [1];
  /** The last row the node was seen in. */
  readonly stamp: number[] = [-1];
  readonly dotted: string[] = [''];
  readonly byKey = new Map<string, number>();
  /** Dotted column names in first-seen order. */
  readonly columns: string[] = [];

  lookup(under: number, b: Buffer, ks: number, ke: number): number {
    const name = b.toString('utf8', ks, ke);
    const key = `${under}:${name}`;
    let node = this.byKey.get(key);
    if (node === undefined) {
      node = this.names.length;
      this.names.push(b.subarray(ks, ke));
      this.parent.push(under);
      this.column.push(-1);
      this.isObject.push(0);
      this.stamp.push(-1);
      this.dotted.push(under === 0 ? name : `${this.dotted[under]}.${name}`);
      this.byKey.set(key, node);
    }
    return node;
  }

  addColumn(node: number): number {
    const c = this.columns.length;
    this.column[node] = c;
    this.columns.push(this.dotted[node]);
    return c;
  }
}

function grow32(a: Int32Array, size = a.length * 2): Int32Array<ArrayBuffer> {
  const b = new Int32Array(size);
  b.set(a);
  return b;
}

function skipWs(b: Buffer, p: number, n: number): number {
  while (p < n) {
    const c = b[p];
    if (c !== 32 && c !== 10 && c !== 13 && c !== 9) break;
    p++;
  }
  return p;
}

/** The `len` bytes of `name` are at `b[ks..]`. */
function sameBytes(name: Buffer, b: Buffer, ks: number, len: number): boolean {
  for (let j = 0; j < len; j++) if (name[j] !== b[ks + j]) return false;
  return true;
}

/**
 * The closing quote of a key that starts at `ks`, or -1 for a key the direct path leaves alone: an
 * escape, a control character, a dot, or a digit first (integer-like keys come first in JS objects).
 */
function keyEnd(b: Buffer, ks: number, n: number): number {
  const first = b[ks];
  if (first >= 48 && first <= 57) return -1;
  for (let p = ks; p < n; p++) {
    const c = b[p];
    if (c === 34) return p;
    if (c === 92 || c === 46 || c < 32) return -1;
  }
  return -1;
}

/** From just after a string's opening quote: its closing quote's index × 4 + its kind, or -1 if invalid. */
function stringEnd(b: Buffer, p: number, n: number): number {
  let kind = STR;
  while (p < n) {
    const c = b[p];
    if (c === 34) return p * 4 + kind;
    if (c === 92) {
      kind = STR_ESC;
      const e = b[p + 1];
      if (e === 117) {
        for (let i = p + 2; i < p + 6; i++) {
          const h = b[i];
          if (!((h >= 48 && h <= 57) || ((h | 32) >= 97 && (h | 32) <= 102))) return -1;
        }
        p += 6;
      } else if (
        e === 34 ||
        e === 92 ||
        e === 47 ||
        e === 98 ||
        e === 102 ||
        e === 110 ||
        e === 114 ||
        e === 116
      ) {
        p += 2;
      } else return -1;
    } else {
      if (c < 32) return -1;
      if (c === 44 && kind === STR) kind = STR_COMMA;
      p++;
    }
  }
  return -1;
}

/** Just past a JSON number that starts at `p`, or -1 when the grammar does not hold. */
function numberEnd(b: Buffer, p: number): number {
  if (b[p] === 45) p++;
  if (b[p] === 48) p++;
  else if (isDigit(b[p])) p = digitsEnd(b, p);
  else return -1;
  if (b[p] === 46) {
    if (!isDigit(b[p + 1])) return -1;
    p = digitsEnd(b, p + 1);
  }
  const c = b[p];
  if (c === 101 || c === 69) {
    p++;
    if (b[p] === 43 || b[p] === 45) p++;
    if (!isDigit(b[p])) return -1;
    p = digitsEnd(b, p);
  }
  return p;
}

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

/** Just past the run of digits at `p`. */
function digitsEnd(b: Buffer, p: number): number {
  while (isDigit(b[p])) p++;
  return p;
}

/**
 * The CSV or TSV bytes of a scan: `header` (already made cells), then one line per row with the tape
 * columns `pick` (-1: a column the data lacks, always empty). Same rules as renderDelimited.
 */
export function emitDelimited(s: Scan, pick: Int32Array, header: string, kind: 'csv' | 'tsv'): Buffer {
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
  const out = Buffer.allocUnsafe(size);
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
