/**
 * A streaming check that a JSON export is whole: one top-level array, well-formed to the last byte
 * (RFC 8259 grammar, valid UTF-8), in constant memory — no row is ever materialised, so a 200 MB file
 * costs a few kilobytes. On the way it counts the rows and gathers the rows' `indexName` values
 * (strings, or the string values of an object like {Net, Price, Total}) for the file-name rule.
 */
import { CommonWords } from './naming.js';

export class JsonScanError extends Error {
  override name = 'JsonScanError';
}

export interface JsonScanResult {
  /** Elements of the top-level array. */
  rows: number;
  /** Common leading words of the rows' indexName values; undefined when no row had one. */
  indexWords?: string[];
}

// States of the scanner.
const START = 0;
const VALUE = 1;
const ARRAY_FIRST = 2;
const OBJECT_FIRST = 3;
const OBJECT_KEY = 4;
const COLON = 5;
const AFTER = 6;
const DONE = 7;
const STRING = 8;
const ESCAPE = 9;
const UNICODE = 10;
const NUMBER = 11;
const LITERAL = 12;

// Number sub-states; the ones marked "end" may end the number.
const N_MINUS = 0;
const N_ZERO = 1; // end
const N_INT = 2; // end
const N_DOT = 3;
const N_FRAC = 4; // end
const N_E = 5;
const N_E_SIGN = 6;
const N_EXP = 7; // end

const ARRAY = 1;
const OBJECT = 2;

/** Names longer than this are cut: they only feed a file name. */
const MAX_CAPTURE = 512;
const CAPTURE_KEY = 'indexName';

const isWs = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
const isDigit = (c: number) => c >= 0x30 && c <= 0x39;
const isHex = (c: number) => isDigit(c) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);

const ESCAPES: Record<number, string> = {
  34: '"',
  92: '\\',
  47: '/',
  98: '\b',
  102: '\f',
  110: '\n',
  114: '\r',
  116: '\t',
};

export class JsonArrayScanner {
  private readonly decoder = new TextDecoder('utf-8', { fatal: true });
  private state = START;
  private numState = N_MINUS;
  private literal = '';
  private literalAt = 0;
  private hexLeft = 0;
  private hex = 0;
  /** Container kinds, outermost first. */
  private readonly stack: number[] = [];
  /** The current key of the object at each depth, for depths 0..2 (deeper ones never matter). */
  private readonly keys: (string | undefined)[] = [];
  private stringIsKey = false;
  private capturing = false;
  private captured = '';
  private position = 0;
  private rows = 0;
  private readonly names = new CommonWords();
  private sawName = false;

  /** Feed the next chunk of bytes. Throws JsonScanError at the first byte that breaks the grammar. */
  push(chunk: Uint8Array): void {
    let text: string;
    try {
      text = this.decoder.decode(chunk, { stream: true });
    } catch {
      throw new JsonScanError(`invalid UTF-8 near character ${this.position}`);
    }
    this.scan(text);
  }

  /** The input is complete: throws when it ended early, else returns what was seen. */
  end(): JsonScanResult {
    let rest: string;
    try {
      rest = this.decoder.decode();
    } catch {
      throw new JsonScanError('invalid UTF-8 at the end');
    }
    this.scan(rest);
    if (this.state === START) throw new JsonScanError('empty JSON');
    if (this.state !== DONE) throw new JsonScanError(`JSON ends early, at character ${this.position}`);
    return { rows: this.rows, indexWords: this.sawName ? this.names.words() : undefined };
  }

  private fail(c: number, what?: string): never {
    const ch = c < 0x20 || c > 0x7e ? `U+${c.toString(16).padStart(4, '0')}` : `'${String.fromCharCode(c)}'`;
    throw new JsonScanError(what ?? `unexpected ${ch} at character ${this.position}`);
  }

  /** A value begins at the current depth: count rows, decide whether its strings are wanted. */
  private beginValue(): void {
    const depth = this.stack.length;
    if (depth === 1) this.rows++;
    this.capturing =
      (depth === 2 && this.stack[1] === OBJECT && this.keys[1] === CAPTURE_KEY) ||
      (depth === 3 && this.stack[1] === OBJECT && this.keys[1] === CAPTURE_KEY && this.stack[2] === OBJECT);
  }

  private open(kind: number): void {
    this.stack.push(kind);
    if (this.stack.length <= 3) this.keys[this.stack.length - 1] = undefined;
    this.state = kind === ARRAY ? ARRAY_FIRST : OBJECT_FIRST;
  }

  private close(c: number): void {
    const top = this.stack.pop();
    if ((c === 0x5d && top !== ARRAY) || (c === 0x7d && top !== OBJECT)) this.fail(c);
    this.state = this.stack.length === 0 ? DONE : AFTER;
  }

  private endString(): void {
    if (this.stringIsKey) {
      if (this.stack.length <= 3)
        this.keys[this.stack.length - 1] = this.capturing ? this.captured : undefined;
      this.state = COLON;
    } else {
      if (this.capturing && this.captured.trim() !== '') {
        this.names.add(this.captured);
        this.sawName = true;
      }
      this.state = AFTER;
    }
    this.capturing = false;
    this.captured = '';
  }

  private scan(s: string): void {
    const n = s.length;
    let i = 0;
    while (i < n) {
      const c = s.charCodeAt(i);
      switch (this.state) {
        case STRING: {
          // The hot loop: most bytes of an export are inside strings.
          if (!this.capturing) {
            let j = i;
            let d = c;
            while (d !== 0x22 && d !== 0x5c && d >= 0x20) {
              if (++j === n) break;
              d = s.charCodeAt(j);
            }
            this.position += j - i;
            i = j;
            if (i === n) return;
          }
          const d = s.charCodeAt(i);
          if (d === 0x22) this.endString();
          else if (d === 0x5c) this.state = ESCAPE;
          else if (d < 0x20) this.fail(d, `control character in a string at character ${this.position}`);
          else if (this.captured.length < MAX_CAPTURE) this.captured += s[i];
          break;
        }
        case ESCAPE:
          if (c === 0x75) {
            this.state = UNICODE;
            this.hexLeft = 4;
            this.hex = 0;
          } else {
            const e = ESCAPES[c];
            if (e === undefined) this.fail(c, `bad escape at character ${this.position}`);
            if (this.capturing) this.captured += e;
            this.state = STRING;
          }
          break;
        case UNICODE:
          if (!isHex(c)) this.fail(c, `bad \\u escape at character ${this.position}`);
          this.hex = this.hex * 16 + parseInt(s[i], 16);
          if (--this.hexLeft === 0) {
            if (this.capturing) this.captured += String.fromCharCode(this.hex);
            this.state = STRING;
          }
          break;
        case NUMBER:
          if (!this.number(c)) continue; // the number ended: this character belongs to what follows
          break;
        case LITERAL:
          if (c !== this.literal.charCodeAt(this.literalAt)) this.fail(c);
          if (++this.literalAt === this.literal.length) this.state = AFTER;
          break;
        case START:
          if (c === 0x5b) {
            this.open(ARRAY);
          } else if (!isWs(c)) this.fail(c, 'not a JSON array');
          break;
        case DONE:
          if (!isWs(c)) this.fail(c, `data after the end of the array at character ${this.position}`);
          break;
        case COLON:
          if (c === 0x3a) this.state = VALUE;
          else if (!isWs(c)) this.fail(c);
          break;
        case OBJECT_FIRST:
        case OBJECT_KEY:
          if (c === 0x22) {
            this.stringIsKey = true;
            // Only the keys of the rows themselves matter (depth 2: array > row object).
            this.capturing = this.stack.length === 2;
            this.captured = '';
            this.state = STRING;
          } else if (c === 0x7d && this.state === OBJECT_FIRST) this.close(c);
          else if (!isWs(c)) this.fail(c);
          break;
        case AFTER:
          if (c === 0x2c) this.state = this.stack[this.stack.length - 1] === ARRAY ? VALUE : OBJECT_KEY;
          else if (c === 0x5d || c === 0x7d) this.close(c);
          else if (!isWs(c)) this.fail(c);
          break;
        case ARRAY_FIRST:
          if (c === 0x5d) {
            this.close(c);
            break;
          }
          this.value(c);
          break;
        case VALUE:
          this.value(c);
          break;
      }
      i++;
      this.position++;
    }
  }

  private value(c: number): void {
    if (isWs(c)) return;
    this.beginValue();
    if (c === 0x22) {
      this.stringIsKey = false;
      this.captured = '';
      this.state = STRING;
    } else if (c === 0x5b) this.open(ARRAY);
    else if (c === 0x7b) this.open(OBJECT);
    else if (c === 0x2d || isDigit(c)) {
      this.state = NUMBER;
      this.numState = c === 0x2d ? N_MINUS : c === 0x30 ? N_ZERO : N_INT;
    } else if (c === 0x74 || c === 0x66 || c === 0x6e) {
      this.literal = c === 0x74 ? 'true' : c === 0x66 ? 'false' : 'null';
      this.literalAt = 1;
      this.state = LITERAL;
    } else this.fail(c);
  }

  /** One character of a number; false when the number ended just before it. */
  private number(c: number): boolean {
    const digit = isDigit(c);
    switch (this.numState) {
      case N_MINUS:
        if (!digit) this.fail(c);
        this.numState = c === 0x30 ? N_ZERO : N_INT;
        return true;
      case N_ZERO:
      case N_INT:
        if (digit && this.numState === N_INT) return true;
        if (c === 0x2e) this.numState = N_DOT;
        else if (c === 0x65 || c === 0x45) this.numState = N_E;
        else if (digit) this.fail(c, `leading zero at character ${this.position}`);
        else return this.endNumber();
        return true;
      case N_DOT:
        if (!digit) this.fail(c);
        this.numState = N_FRAC;
        return true;
      case N_FRAC:
        if (digit) return true;
        if (c === 0x65 || c === 0x45) {
          this.numState = N_E;
          return true;
        }
        return this.endNumber();
      case N_E:
        if (c === 0x2b || c === 0x2d) this.numState = N_E_SIGN;
        else if (digit) this.numState = N_EXP;
        else this.fail(c);
        return true;
      case N_E_SIGN:
        if (!digit) this.fail(c);
        this.numState = N_EXP;
        return true;
      default:
        if (digit) return true;
        return this.endNumber();
    }
  }

  private endNumber(): false {
    this.state = AFTER;
    return false;
  }
}

/** Scan a whole in-memory document (tests, small bodies). */
export function scanJsonArray(data: string | Uint8Array): JsonScanResult {
  const s = new JsonArrayScanner();
  s.push(typeof data === 'string' ? Buffer.from(data) : data);
  return s.end();
}
