/**
 * The tape of the direct CSV/TSV path (see src/render/direct.ts): one pass over a report body's bytes
 * that checks the JSON strictly and records, per value, its column, byte range and kind. Columns are
 * the dotted key paths in first-seen order, as `seenColumns` gives them. Row 0 is read key by key; a
 * row laid out like it (the very same bytes between the values) is then read against those bytes,
 * checking only its values; any other row is read key by key, each key compared with the previous
 * row's first, so it too costs no string and no map lookup in the usual case.
 */
import { keyEnd, OBJECT, STR_ESC, sameBytes, scanValue, skipWs, valueEnd, valueKind } from '../json/bytes.js';
import { afterRow, END, isWrapped, rowsStart } from '../json/report-body.js';

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

/** The scanner's state between rows. */
export class Tape {
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
export function scanRow(t: Tape, p: number): number {
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

      const v = scanValue(b, p, n);
      if (v === OBJECT) {
        // A key that held a value before would need its objects printed as JSON: the general path's job.
        if (column[node] !== -1 || depth === MAX_DEPTH) return -1;
        isObject[node] = 1;
        t.stack[depth++] = under;
        under = node;
        p = skipWs(b, p + 1, n);
        continue;
      }
      if (v < 0) return -1;
      const q = valueEnd(v);
      const kind = valueKind(v);
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

/**
 * A row's layout: the bytes around its values (before the first, between each two, after the last:
 * keys, colons, commas, braces and whitespace) and each value's column. Taken from row 0, which was
 * read key by key and checked (no duplicate keys, a column per key path).
 */
export interface Template {
  around: Buffer[];
  columns: Int32Array;
}

export function templateOf(t: Tape, rowStart: number, rowEnd: number): Template | undefined {
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
    const v = scanValue(b, p, n);
    if (v < 0) break;
    const q = valueEnd(v);
    const kind = valueKind(v);
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
