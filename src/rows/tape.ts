// Rows as the tokenizer leaves them: a tape of entries over the body's bytes, objects only on demand.
import { JsonNumber, type Row } from '../domain.js';
import { quote } from '../json/lossless.js';

/** Kinds of entries. STR: ASCII without escapes; STRU: UTF-8 without escapes; STRX: with escapes. */
export enum Kind {
  STR,
  STRU,
  STRX,
  NUM,
  TRUE,
  FALSE,
  NULL,
  OBJ,
  ARR,
}

/**
 * Fields of an entry (the kind at 0): the value's range (a string's without its quotes), its key's id
 * (-1: none or not interned) and range, the index past its own entries, a row's flags.
 */
export enum F {
  W = 8,
  START = 1,
  END = 2,
  KEY = 3,
  KSTART = 4,
  KEND = 5,
  NEXT = 6,
  FLAGS = 7,
}

/** ODD: what only an object gives right (a key twice, an integer key, an object in an array). */
export enum Flag {
  GAP = 1,
  ESC = 2,
  ODD = 4,
  APART = 8,
}

export const MAX_KEYS = 1 << 16;

/** Every key path seen (the row itself is 0), interned for the process. */
class KeyTable {
  readonly names: string[] = [''];
  /** `"name":` as JSON.stringify writes it. */
  readonly json: Buffer[] = [Buffer.alloc(0)];
  readonly numeric: boolean[] = [false];
  private readonly children: (Map<string, number> | undefined)[] = [undefined];

  /** -1 once there are too many. */
  id(parent: number, name: string): number {
    let m = this.children[parent];
    if (m === undefined) this.children[parent] = m = new Map();
    let id = m.get(name);
    if (id !== undefined) return id;
    if (this.names.length >= MAX_KEYS) return -1;
    id = this.names.length;
    m.set(name, id);
    this.names.push(name);
    this.json.push(Buffer.from(`${quote(name)}:`));
    this.numeric.push(/^[0-9]/.test(name));
    this.children.push(undefined);
    return id;
  }

  path(names: readonly string[]): number {
    let id = 0;
    for (const name of names) {
      id = this.children[id]?.get(name) ?? -1;
      if (id < 0) return -1;
    }
    return id;
  }
}

export const keys = new KeyTable();

/** One push's rows, valid until the next; `flags` theirs together, APART when one did not follow the last. */
export class RowBatch {
  constructor(
    readonly b: Buffer,
    readonly tape: Int32Array,
    readonly at: Int32Array,
    readonly flags: number = Flag.APART,
  ) {}

  get length(): number {
    return this.at.length;
  }

  /** Row `i` as `{...lead, ...row}`. */
  object(i: number, lead?: Row): Row {
    const o: Row = {};
    if (lead) for (const k of Object.keys(lead)) put(o, k, lead[k]);
    return entryValue(this.b, this.tape, this.at[i]!, o) as Row;
  }

  objects(lead?: Row): Row[] {
    const out = new Array<Row>(this.at.length);
    for (let i = 0; i < out.length; i++) out[i] = this.object(i, lead);
    return out;
  }
}

export const NO_ROWS = new RowBatch(Buffer.alloc(0), new Int32Array(0), new Int32Array(0));

/** "__proto__" is an ordinary own key in JSON (as JSON.parse makes it). */
export function put(o: Row, k: string, v: unknown): void {
  if (k === '__proto__')
    Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
  else o[k] = v;
}

export function entryValue(b: Buffer, t: Int32Array, e: number, into?: Row): unknown {
  const start = t[e + F.START]!;
  const end = t[e + F.END]!;
  switch (t[e]) {
    case Kind.STR:
      return b.toString('latin1', start, end);
    case Kind.STRU:
      return b.toString('utf8', start, end);
    case Kind.STRX:
      return decodeString(b, start, end);
    case Kind.NUM:
      return numberAt(b, start, end);
    case Kind.TRUE:
      return true;
    case Kind.FALSE:
      return false;
    case Kind.NULL:
      return null;
    case Kind.OBJ: {
      const o: Row = into ?? {};
      for (let m = e + F.W; m < t[e + F.NEXT]!; m = t[m + F.NEXT]!) {
        const id = t[m + F.KEY]!;
        put(
          o,
          id >= 0 ? keys.names[id]! : decodeString(b, t[m + F.KSTART]!, t[m + F.KEND]!),
          entryValue(b, t, m),
        );
      }
      return o;
    }
    default: {
      const a: unknown[] = [];
      for (let m = e + F.W; m < t[e + F.NEXT]!; m = t[m + F.NEXT]!) a.push(entryValue(b, t, m));
      return a;
    }
  }
}

/** A string with escapes the tokenizer checked, between its quotes (a lone surrogate's escape stays one). */
export function decodeString(b: Buffer, start: number, end: number): string {
  return JSON.parse(b.toString('utf8', start - 1, end + 1)) as string;
}

const POW10 = Array.from({ length: 23 }, (_, k) => 10 ** k);

/** A checked number: a plain one where its text survives a double's round trip, else a JsonNumber. */
export function numberAt(b: Buffer, start: number, end: number): number | JsonNumber {
  let p = start;
  const neg = b[p] === 45;
  if (neg) p++;
  const first = b[p]!;
  let m = 0;
  let intLen = 0;
  while (p < end && b[p]! >= 48 && b[p]! <= 57) {
    m = m * 10 + (b[p]! - 48);
    intLen++;
    p++;
  }
  // Without a string: ≤ 15 significant digits, no trailing fraction zero, not -0, not below 1e-6
  // (JS prints an exponent): then m / 10^k is the correctly rounded double of the text, which prints it.
  if (p === end) {
    if (intLen <= 15 && !(neg && first === 48)) return neg ? -m : m;
  } else if (b[p] === 46) {
    p++;
    let zeros = 0;
    let lead = true;
    let fracLen = 0;
    let last = 0;
    while (p < end && b[p]! >= 48 && b[p]! <= 57) {
      const c = b[p]!;
      m = m * 10 + (c - 48);
      if (lead && c === 48) zeros++;
      else lead = false;
      last = c;
      fracLen++;
      p++;
    }
    if (
      p === end &&
      last !== 48 &&
      (first !== 48 ? intLen + fracLen <= 15 : zeros < 6 && fracLen - zeros <= 15)
    ) {
      const v = m / POW10[fracLen]!;
      return neg ? -v : v;
    }
  }
  const text = b.toString('latin1', start, end);
  const v = +text;
  return String(v) === text ? v : new JsonNumber(text);
}
