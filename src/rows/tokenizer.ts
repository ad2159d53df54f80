/**
 * The one row stream: a report body's bytes in, as they arrive, and its rows out as each row object
 * completes. Lossless: a number is a plain `number` where String(n) gives back the text sent, else a
 * JsonNumber of that text (domain.ts); strings are decoded once, straight from the bytes.
 *
 * The body is any RFC 8259 JSON (whitespace anywhere, any key order, escapes, `\u` surrogate pairs,
 * exponents, nested objects; a UTF-8 byte order mark ignored) of the shape `{"report": [row, …]}` or a
 * bare `[row, …]`; an empty body, `[]` and `{"report": []}` have no rows. Anything else is a
 * MalformedBody with the reason, decided as a whole-body parse would (invalid JSON anywhere wins over a
 * wrong shape, a wrong shape over a row nested too deep), so a reason never depends on where the
 * chunks were cut.
 *
 * How: a recursive descent over the bytes of the current chunk (no per-character string building);
 * a step (a row, a wrapper key, a value outside the rows) that runs past the bytes at hand is taken
 * again from its start once more bytes came — at least as many as it had, so a value that spans many
 * chunks costs linear time — and no step may hold more than MAX_STEP bytes: memory is one chunk and
 * one row, whatever the answer's size.
 */
import { isUtf8 } from 'node:buffer';
import { JsonNumber, type Row } from '../domain.js';

/** A report row is flat with a few nested objects; far past that it is no report (and would overflow renderers). */
export const MAX_ROW_DEPTH = 64;

export const NOT_JSON = 'the body is not JSON';
export const NOT_REPORT = 'expected an object with a "report" array';
export const NOT_OBJECTS = 'the report rows are not JSON objects';
export const TOO_DEEP = `a row nests values more than ${MAX_ROW_DEPTH} levels deep`;
export const BODY_TOO_DEEP = `the body nests values more than ${MAX_ROW_DEPTH} levels deep`;
export const NOT_UTF8 = 'the body is not valid UTF-8';
const TWICE = 'the body has more than one "report"';
/** The largest single step (a row, a value outside the rows): no report row comes near it. */
const MAX_STEP = 64 * 1024 * 1024;
const TOO_LARGE = `a value in the body is larger than ${MAX_STEP / 1024 / 1024} MiB`;
/** Nesting this deep is measured no further (a recursion must end somewhere). */
const ABYSS_DEPTH = 1024;

/** Why a body is not a report (the malformed-response ServiceError says it, exit 8). */
export class MalformedBody extends Error {
  override name = 'MalformedBody';
  /**
   * JSON gone wrong — cut short, broken, nested absurdly deep: the service's fault, which no other
   * base URL would mend. (An HTML page or another API's JSON is more likely a wrong base URL.)
   */
  readonly broken: boolean;
  constructor(
    readonly why: string,
    broken: boolean,
  ) {
    super(why);
    this.broken = broken;
  }
}

// Thrown inside a step (constants, not Errors: no stack is captured).
const NEED = 0; // the step ran past the bytes at hand
const SYNTAX = 1; // not JSON
const DEEP = 2; // a row nests deeper than MAX_ROW_DEPTH
const ABYSS = 3; // deeper than ABYSS_DEPTH: measured no further

// Phases between steps.
const BEGIN = 0;
const WRAP_FIRST = 1; // after `{`: a key or `}`
const WRAP_KEY = 2; // after `,` in the wrapper
const WRAP_NEXT = 3; // after a wrapper value: `,` or `}`
const ROWS_FIRST = 4; // after `[`: a row or `]`
const ROW = 5;
const TOP_VALUE = 6; // a top-level value that is neither object nor array
const AFTER_END = 7;
const FAILED = 8; // measured no further

const NONE: Row[] = [];
const EMPTY = Buffer.alloc(0);
const TRUE = Buffer.from('true');
const FALSE = Buffer.from('false');
const NULL = Buffer.from('null');
/** 10^k, exact for k ≤ 22. */
const POW10 = Array.from({ length: 23 }, (_, k) => 10 ** k);

export class RowTokenizer {
  private b: Buffer = EMPTY;
  /** Where a step that spans chunks is put together (see run). */
  private space: Buffer = EMPTY;
  private at = 0;
  private last = false;
  private pending: Uint8Array[] = [];
  private pendingBytes = 0;
  /** Bytes to gather before a stuck step is tried again. */
  private wait = 0;
  private phase = BEGIN;
  private started = false;
  /** The first byte that is not whitespace (a body starting `[` or `{` that breaks is broken JSON). */
  private first = -1;
  /** Depth of the rows: 1 in a bare array, 2 in the wrapper. */
  private base = 1;
  private seenReport = false;
  /** Build rows (false once the body failed: the rest is only checked). */
  private build = true;
  private shape: string | undefined;
  private deepRow = false;
  private bodyDeep = false;
  private fatal: string | undefined;
  private out: Row[] = NONE;
  /** The previous row's keys, to reuse their strings (rows of one answer share their keys). */
  private readonly keyText: string[] = [];
  private readonly keyBytes: Buffer[] = [];

  /** Rows completed by these bytes (the same array object may not be reused by the caller's next call). */
  push(chunk: Uint8Array): Row[] {
    if (chunk.length === 0 || this.phase === FAILED) return NONE;
    this.pending.push(chunk);
    this.pendingBytes += chunk.length;
    if (this.pendingBytes < this.wait) return NONE;
    return this.run();
  }

  /** The body ended: its last rows, or MalformedBody. */
  end(): Row[] {
    this.last = true;
    const rows = this.phase === FAILED ? NONE : this.run();
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

  /** The body is found wrong beyond repair: nothing more needs reading before end() says why. */
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

  private run(): Row[] {
    const rest = this.b.length - this.at;
    if (this.pending.length === 1 && rest === 0) {
      // Read in place: the chunk is ours until the next push.
      const c = this.pending[0]!;
      this.b = Buffer.from(c.buffer, c.byteOffset, c.length);
      this.at = 0;
    } else if (this.pending.length > 0) {
      // The stuck step's bytes, then the new ones, in one buffer kept from chunk to chunk (a new one
      // per chunk would be garbage the size of the answer).
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
    const out: Row[] = [];
    this.out = out;
    for (;;) {
      const mark = this.at;
      try {
        if (!this.step()) break;
      } catch (e) {
        this.at = mark;
        if (e === NEED) {
          const stuck = this.b.length - mark;
          if (this.last) this.fail(NOT_JSON);
          else if (stuck > MAX_STEP) this.fail(TOO_LARGE);
          else this.wait = stuck;
          break;
        }
        if (e === SYNTAX) this.fail(NOT_JSON);
        else if (e === DEEP) {
          // Checked to the end without being built: a later syntax error or wrong shape still wins.
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
    this.out = NONE;
    return this.build ? out : NONE;
  }

  /** One step from the current phase; false when the bytes at hand are all taken. */
  private step(): boolean {
    const b = this.b;
    const n = b.length;
    switch (this.phase) {
      case BEGIN: {
        if (!this.started) {
          // A UTF-8 byte order mark (RFC 8259 §8.1: a parser may ignore it).
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
        if (this.ws() === 125) {
          this.at++;
          if (!this.seenReport) this.wrongShape(NOT_REPORT);
          this.phase = AFTER_END;
          return true;
        }
        return this.wrapperKey();
      case WRAP_KEY:
        this.ws();
        return this.wrapperKey();
      case WRAP_NEXT: {
        const c = this.ws();
        this.at++;
        if (c === 44) this.phase = WRAP_KEY;
        else if (c === 125) {
          if (!this.seenReport) this.wrongShape(NOT_REPORT);
          this.phase = AFTER_END;
        } else throw SYNTAX;
        return true;
      }
      case ROWS_FIRST:
        if (this.ws() === 93) {
          this.at++;
          this.phase = this.base === 2 ? WRAP_NEXT : AFTER_END;
        } else this.phase = ROW;
        return true;
      case ROW: {
        const c = this.ws();
        let row: Row | undefined;
        if (c !== 123) {
          this.wrongShape(NOT_OBJECTS);
          this.value(this.base);
        } else if (this.build) row = this.object(1);
        else this.value(this.base);
        const d = this.ws();
        this.at++;
        if (d === 93) this.phase = this.base === 2 ? WRAP_NEXT : AFTER_END;
        else if (d !== 44) throw SYNTAX;
        if (row !== undefined) this.out.push(row);
        return true;
      }
      case TOP_VALUE:
        this.value(0);
        this.phase = AFTER_END;
        return true;
      case AFTER_END:
        if (!this.skipWsOrEnd()) return false;
        throw SYNTAX;
      default:
        return false;
    }
  }

  /** A key of the wrapper object, its `:` and what follows: the rows' `[`, or a value taken whole. */
  private wrapperKey(): boolean {
    if (this.b[this.at] !== 34) throw SYNTAX;
    const report = this.string() === 'report';
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
      this.value(1);
    } finally {
      this.build = build && this.shape === undefined;
    }
    if (report) this.seenReport = true;
    this.phase = WRAP_NEXT;
    return true;
  }

  private wrongShape(why: string): void {
    this.shape ??= why;
    this.build = false;
  }

  /** Skips whitespace; the byte there (NEED when the bytes ran out). */
  private ws(): number {
    const b = this.b;
    const n = b.length;
    let p = this.at;
    while (p < n) {
      const c = b[p]!;
      if (c !== 32 && c !== 10 && c !== 13 && c !== 9) {
        this.at = p;
        return c;
      }
      p++;
    }
    this.at = p;
    throw NEED;
  }

  /** Skips whitespace; false at the end of the bytes at hand. */
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

  /**
   * A value inside a container at `depth` (its own containers one deeper): relative to the row while
   * building (the row is 1), absolute while only checking (the top value is 1).
   */
  private value(depth: number): unknown {
    const b = this.b;
    const c = b[this.at];
    switch (c) {
      case 34:
        return this.build ? this.string() : this.skipString();
      case 123:
        return this.object(depth + 1);
      case 91:
        return this.array(depth + 1);
      case 116:
        return this.word(TRUE, true);
      case 102:
        return this.word(FALSE, false);
      case 110:
        return this.word(NULL, null);
      default:
        if (c === 45 || (c !== undefined && c >= 48 && c <= 57)) return this.number();
        if (c === undefined) throw NEED;
        throw SYNTAX;
    }
  }

  /** `true`, `false` or `null`. */
  private word(w: Buffer, v: boolean | null): boolean | null {
    const b = this.b;
    const p = this.at;
    const end = Math.min(p + w.length, b.length);
    for (let i = p; i < end; i++) if (b[i] !== w[i - p]) throw SYNTAX;
    if (end < p + w.length) throw NEED;
    this.at = end;
    this.delimited();
    return v;
  }

  /** A scalar must be followed by a delimiter before we know it ended (`truex` is no literal). */
  private delimited(): void {
    const c = this.b[this.at];
    if (c === undefined) {
      if (!this.last) throw NEED;
      return;
    }
    if (c !== 44 && c !== 93 && c !== 125 && c !== 32 && c !== 10 && c !== 13 && c !== 9 && c !== 58)
      throw SYNTAX;
  }

  private object(depth: number): Row | undefined {
    if (this.build ? depth > MAX_ROW_DEPTH : depth > ABYSS_DEPTH) throw this.build ? DEEP : ABYSS;
    if (depth + (this.build ? this.base : 0) > MAX_ROW_DEPTH) this.bodyDeep = true;
    this.at++;
    const build = this.build;
    const top = depth === 1 && build;
    const o: Row | undefined = build ? {} : undefined;
    let c = this.ws();
    if (c === 125) {
      this.at++;
      return o;
    }
    for (let i = 0; ; i++) {
      if (c !== 34) throw SYNTAX;
      const key = top ? this.rowKey(i) : build ? this.string() : this.skipString();
      if (this.ws() !== 58) throw SYNTAX;
      this.at++;
      this.ws();
      const v = this.value(depth);
      if (o !== undefined) {
        // "__proto__" is an ordinary own key in JSON (as JSON.parse makes it), not the prototype.
        if (key === '__proto__')
          Object.defineProperty(o, key, { value: v, enumerable: true, writable: true, configurable: true });
        else o[key as string] = v;
      }
      c = this.ws();
      this.at++;
      if (c === 125) return o;
      if (c !== 44) throw SYNTAX;
      c = this.ws();
    }
  }

  private array(depth: number): unknown[] | undefined {
    if (this.build ? depth > MAX_ROW_DEPTH : depth > ABYSS_DEPTH) throw this.build ? DEEP : ABYSS;
    if (depth + (this.build ? this.base : 0) > MAX_ROW_DEPTH) this.bodyDeep = true;
    this.at++;
    const a: unknown[] | undefined = this.build ? [] : undefined;
    let c = this.ws();
    if (c === 93) {
      this.at++;
      return a;
    }
    for (;;) {
      const v = this.value(depth);
      a?.push(v);
      c = this.ws();
      this.at++;
      if (c === 93) return a;
      if (c !== 44) throw SYNTAX;
      this.ws();
    }
  }

  /** A key of a row: the previous row's string when the bytes are the same (no new string). */
  private rowKey(i: number): string {
    const b = this.b;
    const n = b.length;
    const start = this.at + 1;
    let p = start;
    for (;;) {
      if (p >= n) throw NEED;
      const c = b[p]!;
      if (c === 34) break;
      if (c === 92 || c < 32 || c >= 128) return this.string();
      p++;
    }
    const len = p - start;
    const known = this.keyBytes[i];
    if (known !== undefined && known.length === len) {
      let same = true;
      for (let j = 0; j < len; j++) {
        if (known[j] !== b[start + j]) {
          same = false;
          break;
        }
      }
      if (same) {
        this.at = p + 1;
        return this.keyText[i]!;
      }
    }
    const key = b.toString('latin1', start, p);
    this.keyBytes[i] = Buffer.from(b.subarray(start, p));
    this.keyText[i] = key;
    this.at = p + 1;
    return key;
  }

  /** Skips a string (its opening quote at `at`); returns ''. */
  private skipString(): string {
    const b = this.b;
    const n = b.length;
    let p = this.at + 1;
    let high = false;
    for (;;) {
      if (p >= n) throw NEED;
      const c = b[p]!;
      if (c === 34) break;
      if (c === 92) {
        p = this.escapeEnd(p);
        continue;
      }
      if (c < 32) throw SYNTAX;
      if (c >= 128) high = true;
      p++;
    }
    if (high && !isUtf8(b.subarray(this.at + 1, p))) this.notUtf8();
    this.at = p + 1;
    return '';
  }

  private notUtf8(): never {
    this.fail(NOT_UTF8);
    throw SYNTAX;
  }

  /** Just past the escape at `p` (a backslash). */
  private escapeEnd(p: number): number {
    const b = this.b;
    const n = b.length;
    if (p + 1 >= n) throw NEED;
    const e = b[p + 1]!;
    if (e === 117) {
      if (p + 6 > n) {
        for (let i = p + 2; i < n; i++) if (hex(b[i]!) < 0) throw SYNTAX;
        throw NEED;
      }
      for (let i = p + 2; i < p + 6; i++) if (hex(b[i]!) < 0) throw SYNTAX;
      return p + 6;
    }
    if (e === 34 || e === 92 || e === 47 || e === 98 || e === 102 || e === 110 || e === 114 || e === 116)
      return p + 2;
    throw SYNTAX;
  }

  /** A string (its opening quote at `at`), decoded. */
  private string(): string {
    const b = this.b;
    const n = b.length;
    const start = this.at + 1;
    let p = start;
    let high = false;
    for (;;) {
      if (p >= n) throw NEED;
      const c = b[p]!;
      if (c === 34) break;
      if (c === 92) return this.escapedString(start, p, high);
      if (c < 32) throw SYNTAX;
      if (c >= 128) high = true;
      p++;
    }
    this.at = p + 1;
    if (!high) return b.toString('latin1', start, p);
    if (!isUtf8(b.subarray(start, p))) this.notUtf8();
    return b.toString('utf8', start, p);
  }

  /** The rest of a string from its first escape at `p`: pieces joined once. */
  private escapedString(start: number, p: number, high: boolean): string {
    const b = this.b;
    const n = b.length;
    const parts: string[] = [];
    let from = start;
    const piece = (to: number) => {
      if (to > from) parts.push(high ? b.toString('utf8', from, to) : b.toString('latin1', from, to));
    };
    for (;;) {
      if (p >= n) throw NEED;
      const c = b[p]!;
      if (c === 34) break;
      if (c < 32) throw SYNTAX;
      if (c >= 128) {
        high = true;
        p++;
        continue;
      }
      if (c !== 92) {
        p++;
        continue;
      }
      piece(p);
      const end = this.escapeEnd(p);
      const e = b[p + 1]!;
      if (e === 117) {
        // One UTF-16 code unit each: a surrogate pair's two escapes make one character when joined,
        // and a lone surrogate stays what JSON.parse makes of it.
        parts.push(
          String.fromCharCode(
            (hex(b[p + 2]!) << 12) | (hex(b[p + 3]!) << 8) | (hex(b[p + 4]!) << 4) | hex(b[p + 5]!),
          ),
        );
      } else parts.push(ESCAPED[e]!);
      p = end;
      from = p;
    }
    piece(p);
    this.at = p + 1;
    if (high && !isUtf8(b.subarray(start, p))) this.notUtf8();
    return parts.join('');
  }

  /** A number: a plain one where its text survives a double's round trip, else a JsonNumber of the text. */
  private number(): number | JsonNumber | undefined {
    const b = this.b;
    const n = b.length;
    const start = this.at;
    let p = start;
    const neg = b[p] === 45;
    if (neg) p++;
    if (p >= n) throw NEED;
    let m = 0;
    let intLen = 0;
    const first = b[p]!;
    if (first === 48) {
      p++;
      intLen = 1;
    } else if (first >= 49 && first <= 57) {
      while (p < n) {
        const c = b[p]!;
        if (c < 48 || c > 57) break;
        m = m * 10 + (c - 48);
        intLen++;
        p++;
      }
    } else throw SYNTAX;
    let fracLen = 0;
    let zeros = 0;
    let lastDigit = 0;
    let exponent = false;
    if (p < n && b[p] === 46) {
      p++;
      let lead = true;
      while (p < n) {
        const c = b[p]!;
        if (c < 48 || c > 57) break;
        m = m * 10 + (c - 48);
        if (lead && c === 48) zeros++;
        else lead = false;
        lastDigit = c;
        fracLen++;
        p++;
      }
      if (fracLen === 0) {
        if (p >= n) throw NEED;
        throw SYNTAX;
      }
    }
    if (p < n && (b[p] === 101 || b[p] === 69)) {
      exponent = true;
      p++;
      if (p < n && (b[p] === 43 || b[p] === 45)) p++;
      const digits = p;
      while (p < n && b[p]! >= 48 && b[p]! <= 57) p++;
      if (p === digits) {
        if (p >= n) throw NEED;
        throw SYNTAX;
      }
    }
    if (p >= n && !this.last) throw NEED;
    this.at = p;
    this.delimited();
    if (!this.build) return undefined;
    // The common case without a string: at most 15 significant digits, no trailing fraction zero, not
    // -0, not below 1e-6 (where JS prints an exponent). Then m / 10^k is the correctly rounded double
    // of the text (m and 10^k are exact), and the shortest text that prints it is the text itself.
    if (!exponent) {
      if (fracLen === 0) {
        if (intLen <= 15 && !(neg && first === 48)) return neg ? -m : m;
      } else if (
        lastDigit !== 48 &&
        (first !== 48 ? intLen + fracLen <= 15 : zeros < 6 && fracLen - zeros <= 15)
      ) {
        const v = m / POW10[fracLen]!;
        return neg ? -v : v;
      }
    }
    const text = b.toString('latin1', start, p);
    const v = +text;
    return String(v) === text ? v : new JsonNumber(text);
  }
}

const ESCAPED: Record<number, string> = {
  34: '"',
  92: '\\',
  47: '/',
  98: '\b',
  102: '\f',
  110: '\n',
  114: '\r',
  116: '\t',
};

function hex(h: number): number {
  return h >= 48 && h <= 57 ? h - 48 : h >= 65 && h <= 70 ? h - 55 : h >= 97 && h <= 102 ? h - 87 : -1;
}

/** The rows of a whole body, or why it is not a report (tests, and callers holding a body already). */
export function rowsOf(body: string | Uint8Array): Row[] | string {
  const t = new RowTokenizer();
  try {
    const rows = t.push(typeof body === 'string' ? Buffer.from(body) : body);
    const more = t.end();
    return more.length === 0 ? rows : rows.concat(more);
  } catch (err) {
    if (err instanceof MalformedBody) return err.why;
    throw err;
  }
}
