// The one row stream: a body's bytes in as they arrive, its rows out as a tape over them (tape.ts).
import { isUtf8 } from 'node:buffer';
import { FAST_ROWS_WASM } from './fast-rows.js';
import { decodeString, F, Flag, Kind, keys, MAX_KEYS, NO_ROWS, RowBatch } from './tape.js';

// Read once: across the bundle's chunks `keys.x` in a hot loop would be a getter call.
const { numeric } = keys;

const MAX_ROW_DEPTH = 64;

const NOT_JSON = 'the body is not JSON';
const NOT_REPORT = 'expected an object with a "report" array';
export const NOT_OBJECTS = 'the report rows are not JSON objects';
const TOO_DEEP = `a row nests values more than ${MAX_ROW_DEPTH} levels deep`;
const BODY_TOO_DEEP = `the body nests values more than ${MAX_ROW_DEPTH} levels deep`;
const NOT_UTF8 = 'the body is not valid UTF-8';
const TWICE = 'the body has more than one "report"';
const MAX_STEP = 64 * 1024 * 1024;
const TOO_LARGE = `a value in the body is larger than ${MAX_STEP / 1024 / 1024} MiB`;
const ABYSS_DEPTH = 1024;

/** Why a body is not a report; `broken`: JSON gone wrong, which no other base URL would mend. */
export class MalformedBody extends Error {
  override name = 'MalformedBody';
  constructor(
    readonly why: string,
    readonly broken: boolean,
  ) {
    super(why);
  }
}

// Thrown inside a step (not Errors: no stack is captured).
const NEED = 0; // the step ran past the bytes at hand
const SYNTAX = 1;
const DEEP = 2; // a row deeper than MAX_ROW_DEPTH
const ABYSS = 3; // deeper than ABYSS_DEPTH: measured no further

const BEGIN = 0;
const WRAP_FIRST = 1; // after `{`: a key or `}`
const WRAP_KEY = 2; // after `,` in the wrapper
const WRAP_NEXT = 3; // after a wrapper value: `,` or `}`
const ROWS_FIRST = 4; // after `[`: a row or `]`
const ROW = 5;
const TOP_VALUE = 6; // neither object nor array
const AFTER_END = 7;
const FAILED = 8;

const EMPTY = Buffer.alloc(0);

const isHex = (c: number) => (c >= 48 && c <= 57) || ((c | 32) >= 97 && (c | 32) <= 102);

export interface FastRows {
  memory: { buffer: ArrayBuffer; grow(pages: number): number };
  rows(...args: number[]): number;
  compact(rows: number, count: number, out: number, sep: number): number;
  delimited(...args: number[]): number;
  end: { value: number };
  count: { value: number };
  high: { value: number };
  loose: { value: number };
  why: { value: number };
}
declare const WebAssembly: {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object) => { exports: unknown };
};
/** Where the module's memory is free: past its tables. */
export const FREE = 24 * 1024;
/** Tape entries' ints per call (the loop is called again when they filled up). */
const TAPE = 64 * 1024;
/** Bytes at hand beyond this (a huge value) take the general descent. */
const MAX_FAST = 4 * 1024 * 1024;
let fast: FastRows | undefined;
/** What the module's memory holds now (tokenizers and writers take turns with it). */
let loadedBody: Uint8Array | undefined;
let loadedTemplate: Uint8Array | undefined;

const instance = () =>
  (fast ??= new WebAssembly.Instance(new WebAssembly.Module(Buffer.from(FAST_ROWS_WASM, 'base64')))
    .exports as FastRows);

/** The one instance with `bytes` of memory, 16 to spare (the module stores 16 at a time); what was in it is gone. */
export function borrowFast(bytes: number): FastRows {
  loadedBody = loadedTemplate = undefined;
  const w = instance();
  const grow = bytes + 16 - w.memory.buffer.byteLength;
  if (grow > 0) w.memory.grow(Math.ceil(grow / 65536));
  return w;
}

function room(a: Int32Array<ArrayBuffer>, need: number, keep = a.length): Int32Array<ArrayBuffer> {
  if (need <= a.length) return a;
  const grown = new Int32Array(Math.max(2 * a.length, need));
  grown.set(a.subarray(0, keep));
  return grown;
}

/** Per object: the serial it stamped on its keys' ids (a key seen twice in one object). */
const stamps = new Int32Array(MAX_KEYS);
let serial = 0;

/**
 * `{"report": [row, …]}` or a bare `[row, …]` in any RFC 8259 JSON, else MalformedBody with the reason a
 * whole-body parse would give, wherever the chunks were cut. A step (a row, a value outside the rows)
 * that runs past the bytes at hand is taken again once at least as many more came (linear time).
 */
export class RowTokenizer {
  private b: Buffer = EMPTY;
  private space: Buffer = EMPTY;
  private at = 0;
  private last = false;
  private pending: Uint8Array[] = [];
  private pendingBytes = 0;
  private wait = 0;
  private phase = BEGIN;
  private started = false;
  /** The first byte that is not whitespace. */
  first = -1;
  /** Depth of the rows: 1 in a bare array, 2 in the wrapper. */
  private base = 1;
  private seenReport = false;
  /** Record rows (false once the body failed: the rest is only checked). */
  private build = true;
  private shape: string | undefined;
  private deepRow = false;
  private bodyDeep = false;
  private fatal: string | undefined;
  cut = false;
  /** Elements of the rows' array so far, objects or not. */
  elements = 0;
  private tape = new Int32Array(F.W * 1024);
  private n = 0;
  /** This push's rows (tape indexes) and their RowBatch.flags. */
  private rows = new Int32Array(1024);
  private nRows = 0;
  private flags = 0;
  private lastEnd = 0;
  private rowFlags = 0;
  /** The last row read whole as a template for the next: its members' keys, the bytes around its values. */
  private tplN = 0;
  private tplKeys = new Int32Array(0);
  private tplLit: Uint8Array = EMPTY;
  private tplAt = new Int32Array(0);
  private tplFlags = 0;

  push(chunk: Uint8Array): RowBatch {
    if (chunk.length === 0 || this.phase === FAILED) return NO_ROWS;
    this.pending.push(chunk);
    this.pendingBytes += chunk.length;
    if (this.pendingBytes < this.wait) return NO_ROWS;
    return this.run();
  }

  end(): RowBatch {
    this.last = true;
    const rows = this.phase === FAILED ? NO_ROWS : this.run();
    const why = this.verdict();
    if (why !== undefined) {
      const broken =
        why !== NOT_REPORT &&
        why !== NOT_OBJECTS &&
        (why !== NOT_JSON || this.first === 91 || this.first === 123);
      throw new MalformedBody(why, broken);
    }
    return rows;
  }

  /** Found wrong beyond repair: nothing more needs reading before end() says why. */
  get failed(): boolean {
    return this.phase === FAILED;
  }

  private verdict(): string | undefined {
    if (this.fatal !== undefined) return this.fatal;
    if (this.phase !== AFTER_END && this.phase !== BEGIN) return NOT_JSON;
    if (this.shape !== undefined) return this.bodyDeep ? BODY_TOO_DEEP : this.shape;
    if (this.deepRow) return TOO_DEEP;
    return undefined;
  }

  private fail(why: string): void {
    this.fatal ??= why;
    this.build = false;
    this.phase = FAILED;
    this.pending = [];
    this.b = EMPTY;
    this.at = 0;
  }

  private run(): RowBatch {
    const rest = this.b.length - this.at;
    if (this.pending.length === 1 && rest === 0) {
      const c = this.pending[0]!;
      this.b = Buffer.from(c.buffer, c.byteOffset, c.length);
      this.at = 0;
    } else if (this.pending.length > 0) {
      // The stuck step's bytes, then the new ones, in one buffer kept from push to push.
      const need = rest + this.pendingBytes;
      let space = this.space;
      if (space.length < need) space = Buffer.allocUnsafe(Math.max(need, 2 * space.length, 64 * 1024));
      if (this.b.buffer === space.buffer && this.b.byteOffset === space.byteOffset)
        space.copyWithin(0, this.at, this.b.length);
      else this.b.copy(space, 0, this.at);
      let at = rest;
      for (const c of this.pending) {
        space.set(c, at);
        at += c.length;
      }
      this.space = space;
      this.b = space.subarray(0, need);
      this.at = 0;
    }
    this.pending = [];
    this.pendingBytes = 0;
    this.wait = 0;
    this.n = 0;
    this.nRows = 0;
    this.flags = 0;
    for (;;) {
      const mark = this.at;
      const entries = this.n;
      try {
        if (!this.step()) break;
      } catch (e) {
        this.at = mark;
        this.n = entries;
        if (e === NEED) {
          const stuck = this.b.length - mark;
          if (this.last) {
            this.cut = true;
            this.fail(NOT_JSON);
          } else if (stuck > MAX_STEP) this.fail(TOO_LARGE);
          else this.wait = stuck;
          break;
        }
        if (e === SYNTAX) this.fail(NOT_JSON);
        else if (e === DEEP) {
          // Checked on unrecorded: a later syntax error or wrong shape still wins.
          this.deepRow = true;
          this.bodyDeep = true;
          this.build = false;
          continue;
        } else if (e === ABYSS)
          this.fail(this.deepRow && this.shape === undefined ? TOO_DEEP : BODY_TOO_DEEP);
        else throw e;
        break;
      }
    }
    return this.build && this.nRows > 0
      ? new RowBatch(this.b, this.tape, this.rows.subarray(0, this.nRows), this.flags)
      : NO_ROWS;
  }

  /** False when the bytes at hand are all taken. */
  private step(): boolean {
    const b = this.b;
    const n = b.length;
    switch (this.phase) {
      case BEGIN: {
        if (!this.started) {
          // A UTF-8 byte order mark (RFC 8259 §8.1).
          if (n < 3 && !this.last && b[0] === 0xef && (n < 2 || b[1] === 0xbb)) throw NEED;
          if (b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf) this.at = 3;
          this.started = true;
        }
        if (!this.skipWsOrEnd()) return false;
        const c = b[this.at]!;
        this.first = c;
        if (c === 123) {
          this.at++;
          this.base = 2;
          this.phase = WRAP_FIRST;
        } else if (c === 91) {
          this.at++;
          this.phase = ROWS_FIRST;
        } else {
          this.wrongShape(NOT_REPORT);
          this.phase = TOP_VALUE;
        }
        return true;
      }
      case WRAP_FIRST:
        if (this.ws() !== 125) return this.wrapperKey();
        this.at++;
        return this.wrapperEnd();
      case WRAP_KEY:
        this.ws();
        return this.wrapperKey();
      case WRAP_NEXT: {
        const c = this.ws();
        this.at++;
        if (c === 125) return this.wrapperEnd();
        if (c !== 44) throw SYNTAX;
        this.phase = WRAP_KEY;
        return true;
      }
      case ROWS_FIRST:
        if (this.ws() === 93) {
          this.at++;
          this.phase = this.base === 2 ? WRAP_NEXT : AFTER_END;
        } else this.phase = ROW;
        return true;
      case ROW: {
        if (this.tplN > 0 && this.build) {
          if (this.fastRows()) return true;
          if (this.wait > 0) return false;
        }
        const c = this.ws();
        let row = -1;
        if (c !== 123) this.wrongShape(NOT_OBJECTS);
        if (this.build) {
          this.rowFlags = 0;
          row = this.entry(0, 0, 0);
          this.object(1, 0, row);
          this.tape[row + F.FLAGS] = this.rowFlags;
          this.template(row);
        } else this.value(this.base, -1, 0, 0);
        const d = this.ws();
        this.at++;
        if (d === 93) this.phase = this.base === 2 ? WRAP_NEXT : AFTER_END;
        else if (d !== 44) throw SYNTAX;
        if (row >= 0) this.addRows([row]);
        this.elements++;
        return true;
      }
      case TOP_VALUE:
        this.value(0, -1, 0, 0);
        this.phase = AFTER_END;
        return true;
      case AFTER_END:
        if (!this.skipWsOrEnd()) return false;
        throw SYNTAX;
      default:
        return false;
    }
  }

  /** Row `e` (just read) as the template of the next rows, when it is flat and its keys plain. */
  private template(e: number): void {
    const t = this.tape;
    const b = this.b;
    const end = t[e + F.NEXT]!;
    const n = (end - e) / F.W - 1;
    this.tplN = 0;
    if (t[e + F.FLAGS]! & Flag.ODD || n === 0) return;
    if (this.tplAt.length < n + 2) {
      this.tplKeys = new Int32Array(n);
      this.tplAt = new Int32Array(n + 2);
    }
    let from = t[e + F.START]!;
    const parts: Uint8Array[] = [];
    let at = 0;
    let flags = 0;
    for (let i = 0, m = e + F.W; m < end; i++, m += F.W) {
      const kind = t[m]!;
      if (kind >= Kind.OBJ || t[m + F.KEY]! < 0) return;
      const quoted = kind <= Kind.STRX ? 1 : 0;
      const begin = t[m + F.START]! - quoted;
      parts.push(b.subarray(from, begin));
      this.tplKeys[i] = t[m + F.KEY]!;
      this.tplAt[i] = at;
      at += begin - from;
      from = t[m + F.END]! + quoted;
    }
    parts.push(b.subarray(from, t[e + F.END]!));
    this.tplAt[n] = at;
    this.tplAt[n + 1] = at + t[e + F.END]! - from;
    const lit = Buffer.concat(parts);
    for (const c of lit) {
      if (c === 32 || c === 10 || c === 13 || c === 9) flags |= Flag.GAP;
      else if (c === 92) flags |= Flag.ESC;
    }
    this.tplLit = lit;
    this.tplFlags = flags;
    this.tplN = n;
  }

  /**
   * Rows like the template with scalar values without escapes, read by fast-rows.wat; false when it read
   * none, `wait` set when the bytes ran out in a row like it (at the end the general descent says why).
   */
  private fastRows(): boolean {
    const b = this.b;
    if (b.length > MAX_FAST) return false;
    const members = this.tplN;
    const per = (members + 1) * F.W;
    const tapeAt = (FREE + b.length + 7) & ~7;
    const rowsAt = tapeAt + 4 * TAPE;
    const tplAt = rowsAt + (4 * TAPE) / (2 * F.W);
    const lit = this.tplLit;
    const litAt = (tplAt + lit.length + 3) & ~3;
    const loaded = loadedBody === b && loadedTemplate === lit;
    const w = loaded ? instance() : borrowFast(tplAt + lit.length + 8 * (members + 2));
    if (!loaded) {
      const u8 = new Uint8Array(w.memory.buffer);
      u8.set(b, FREE);
      u8.set(lit, tplAt);
      new Int32Array(w.memory.buffer, litAt, members + 2).set(this.tplAt.subarray(0, members + 2));
      new Int32Array(w.memory.buffer, litAt + 4 * (members + 2), members).set(
        this.tplKeys.subarray(0, members),
      );
      loadedBody = b;
      loadedTemplate = lit;
    }
    let any = false;
    for (;;) {
      const end = w.rows(
        FREE + this.at,
        FREE + b.length,
        tplAt,
        litAt,
        litAt + 4 * (members + 2),
        members,
        this.tplFlags,
        tapeAt,
        tapeAt + 4 * TAPE,
        -FREE,
        this.n,
        rowsAt,
      );
      let count = w.count.value;
      const why = w.why.value;
      if (count > 0) {
        const entries = count * per;
        this.tape = room(this.tape, this.n + entries);
        const t = this.tape;
        t.set(new Int32Array(w.memory.buffer, tapeAt, entries), this.n);
        if (w.high.value > 0) count = this.validUtf8(count, per);
        this.addRows(new Int32Array(w.memory.buffer, rowsAt, count), w.loose.value === 1);
        this.n += count * per;
        this.elements += count;
        any ||= count > 0;
        if (count < w.count.value) {
          this.at = t[this.n + F.START]!;
          return any;
        }
        this.at = end - FREE;
        if (why === 3) this.phase = this.base === 2 ? WRAP_NEXT : AFTER_END;
      }
      if (why !== 2) {
        if (why === 1 && !any && !this.last) this.wait = b.length - this.at;
        return any;
      }
    }
  }

  private addRows(entries: ArrayLike<number>, loose = false): void {
    if (entries.length === 0) return;
    const t = this.tape;
    const e = entries[0]!;
    this.flags |= t[e + F.FLAGS]!;
    if (loose || (this.nRows > 0 && t[e + F.START] !== this.lastEnd + 1)) this.flags |= Flag.APART;
    this.lastEnd = t[entries[entries.length - 1]! + F.END]!;
    const need = this.nRows + entries.length;
    this.rows = room(this.rows, need, this.nRows);
    this.rows.set(entries, this.nRows);
    this.nRows = need;
  }

  private validUtf8(count: number, per: number): number {
    const t = this.tape;
    for (let r = 0, e = this.n; r < count; r++, e += per)
      for (let m = e + F.W; m < e + per; m += F.W)
        if (t[m] === Kind.STRU && !isUtf8(this.b.subarray(t[m + F.START]!, t[m + F.END]!))) return r;
    return count;
  }

  /** A key of the wrapper, its `:` and what follows: the rows' `[`, or a value taken whole. */
  private wrapperKey(): boolean {
    if (this.b[this.at] !== 34) throw SYNTAX;
    const from = this.at + 1;
    this.scanString();
    const report = decodeString(this.b, from, this.at - 1) === 'report';
    if (this.ws() !== 58) throw SYNTAX;
    this.at++;
    const c = this.ws();
    if (report) {
      if (this.seenReport) {
        this.fail(TWICE);
        return false;
      }
      if (c === 91) {
        this.seenReport = true;
        this.at++;
        this.phase = ROWS_FIRST;
        return true;
      }
      this.wrongShape(NOT_REPORT);
    }
    const build = this.build;
    this.build = false;
    try {
      this.value(1, -1, 0, 0);
    } finally {
      this.build = build && this.shape === undefined;
    }
    if (report) this.seenReport = true;
    this.phase = WRAP_NEXT;
    return true;
  }

  private wrapperEnd(): boolean {
    if (!this.seenReport) this.wrongShape(NOT_REPORT);
    this.phase = AFTER_END;
    return true;
  }

  private wrongShape(why: string): void {
    this.shape ??= why;
    this.build = false;
  }

  private ws(): number {
    const c = this.b[this.at];
    return c !== undefined && c > 32 ? c : this.gapWs();
  }

  private gapWs(): number {
    const from = this.at;
    if (!this.skipWsOrEnd()) throw NEED;
    if (this.at !== from) this.rowFlags |= Flag.GAP;
    return this.b[this.at]!;
  }

  private skipWsOrEnd(): boolean {
    const b = this.b;
    const n = b.length;
    let p = this.at;
    while (p < n) {
      const c = b[p]!;
      if (c !== 32 && c !== 10 && c !== 13 && c !== 9) break;
      p++;
    }
    this.at = p;
    return p < n;
  }

  private entry(key: number, ks: number, ke: number): number {
    const e = this.n;
    this.tape = room(this.tape, e + F.W);
    const t = this.tape;
    t[e + F.KEY] = key;
    t[e + F.KSTART] = ks;
    t[e + F.KEND] = ke;
    this.n = e + F.W;
    return e;
  }

  private close(e: number, kind: number, start: number, end: number): void {
    const t = this.tape;
    t[e] = kind;
    t[e + F.START] = start;
    t[e + F.END] = end;
    t[e + F.NEXT] = this.n;
  }

  /** `depth`: relative to the row while recording (the row is 1), else absolute. */
  private value(depth: number, key: number, ks: number, ke: number): void {
    const c = this.b[this.at];
    let start = this.at;
    let kind: number;
    switch (c) {
      case 34:
        kind = this.scanString();
        start++;
        break;
      case 123:
        this.object(depth + 1, key, this.build ? this.entry(key, ks, ke) : -1);
        return;
      case 91:
        this.array(depth + 1, this.build ? this.entry(key, ks, ke) : -1);
        return;
      case 116:
        kind = this.word('true', Kind.TRUE);
        break;
      case 102:
        kind = this.word('false', Kind.FALSE);
        break;
      case 110:
        kind = this.word('null', Kind.NULL);
        break;
      default:
        if (c === 45 || (c !== undefined && c >= 48 && c <= 57)) kind = this.number();
        else if (c === undefined) throw NEED;
        else throw SYNTAX;
    }
    if (this.build) this.close(this.entry(key, ks, ke), kind, start, c === 34 ? this.at - 1 : this.at);
  }

  private word(w: string, kind: number): number {
    const b = this.b;
    const p = this.at;
    const end = Math.min(p + w.length, b.length);
    for (let i = p; i < end; i++) if (b[i] !== w.charCodeAt(i - p)) throw SYNTAX;
    if (end < p + w.length) throw NEED;
    this.at = end;
    this.delimited();
    return kind;
  }

  /** A scalar ended only at a delimiter (`truex` is no literal). */
  private delimited(): void {
    const c = this.b[this.at];
    if (c === undefined) {
      if (!this.last) throw NEED;
      return;
    }
    if (c !== 44 && c !== 93 && c !== 125 && c !== 32 && c !== 10 && c !== 13 && c !== 9 && c !== 58)
      throw SYNTAX;
  }

  /** `id`: its key path's (tape.ts keys), -1 when its keys are not interned (in an array). */
  private object(depth: number, id: number, e: number): void {
    const build = this.build;
    this.enter(depth);
    const start = this.at++;
    const mine = ++serial;
    let c = this.ws();
    if (c === 125) this.at++;
    else
      for (;;) {
        if (c !== 34) throw SYNTAX;
        const ks = this.at + 1;
        let key = -1;
        if (build && id >= 0) key = this.key(id);
        else this.scanString();
        if (build && (key < 0 || stamps[key] === mine || numeric[key])) this.rowFlags |= Flag.ODD;
        else if (key >= 0) stamps[key] = mine;
        const ke = this.at - 1;
        if (this.ws() !== 58) throw SYNTAX;
        this.at++;
        this.ws();
        this.value(depth, key, ks, ke);
        c = this.ws();
        this.at++;
        if (c === 125) break;
        if (c !== 44) throw SYNTAX;
        c = this.ws();
      }
    if (e >= 0) this.close(e, Kind.OBJ, start, this.at);
  }

  private enter(depth: number): void {
    if (this.build ? depth > MAX_ROW_DEPTH : depth > ABYSS_DEPTH) throw this.build ? DEEP : ABYSS;
    if (depth + (this.build ? this.base : 0) > MAX_ROW_DEPTH) this.bodyDeep = true;
  }

  private array(depth: number, e: number): void {
    this.enter(depth);
    const start = this.at++;
    let c = this.ws();
    if (c === 93) this.at++;
    else
      for (;;) {
        this.value(depth, -1, 0, 0);
        c = this.ws();
        this.at++;
        if (c === 93) break;
        if (c !== 44) throw SYNTAX;
        this.ws();
      }
    if (e >= 0) this.close(e, Kind.ARR, start, this.at);
  }

  private key(parent: number): number {
    const from = this.at + 1;
    const kind = this.scanString();
    const to = this.at - 1;
    return keys.id(
      parent,
      kind === Kind.STR ? this.b.toString('latin1', from, to) : decodeString(this.b, from, to),
    );
  }

  private scanString(): number {
    const b = this.b;
    const n = b.length;
    let p = this.at + 1;
    let high = false;
    let escaped = false;
    for (;;) {
      if (p >= n) throw NEED;
      const c = b[p]!;
      if (c === 34) break;
      if (c === 92) {
        p = this.escapeEnd(p);
        escaped = true;
        continue;
      }
      if (c < 32) throw SYNTAX;
      if (c >= 128) high = true;
      p++;
    }
    if (high && !isUtf8(b.subarray(this.at + 1, p))) {
      this.fail(NOT_UTF8);
      throw SYNTAX;
    }
    this.at = p + 1;
    if (escaped) {
      this.rowFlags |= Flag.ESC;
      return Kind.STRX;
    }
    return high ? Kind.STRU : Kind.STR;
  }

  private escapeEnd(p: number): number {
    const b = this.b;
    const n = b.length;
    if (p + 1 >= n) throw NEED;
    const e = b[p + 1]!;
    if (e === 117) {
      for (let i = p + 2; i < p + 6 && i < n; i++) if (!isHex(b[i]!)) throw SYNTAX;
      if (p + 6 > n) throw NEED;
      return p + 6;
    }
    if ('"\\/bfnrt'.includes(String.fromCharCode(e))) return p + 2;
    throw SYNTAX;
  }

  private number(): number {
    const b = this.b;
    let p = this.at;
    if (b[p] === 45) p++;
    if (p >= b.length) throw NEED;
    if (b[p] === 48) p++;
    else if (b[p]! >= 49 && b[p]! <= 57) p = this.digits(p);
    else throw SYNTAX;
    if (b[p] === 46) p = this.digits(p + 1);
    if (b[p] === 101 || b[p] === 69) p = this.digits(b[p + 1] === 43 || b[p + 1] === 45 ? p + 2 : p + 1);
    if (p >= b.length && !this.last) throw NEED;
    this.at = p;
    this.delimited();
    return Kind.NUM;
  }

  /** Past the digits from `p`, at least one. */
  private digits(p: number): number {
    const b = this.b;
    let q = p;
    while (q < b.length && b[q]! >= 48 && b[q]! <= 57) q++;
    if (q === p) throw q >= b.length ? NEED : SYNTAX;
    return q;
  }
}
