/**
 * Row values for the sandbox. Numbers are carried as the exact JSON text to send, never as JS numbers,
 * so rows can hold literals a double cannot represent (12345678901234567890, 1234567.123456789012) and
 * clients can be tested for number fidelity. Objects are ordered field lists: key order is wire order.
 */

/** A JSON number literal, written verbatim. */
export interface Num {
  readonly num: string;
}
export type Val = string | null | boolean | Num | Fields;
export type Fields = readonly (readonly [string, Val])[];

export const num = (text: string): Num => ({ num: text });

export const isNum = (v: Val): v is Num => typeof v === 'object' && v !== null && !Array.isArray(v);

/** JSON text of a value, compact like Jackson's default output. */
export function toJson(v: Val, spaced = false): string {
  if (v === null) return 'null';
  if (typeof v === 'string') return quote(v);
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (Array.isArray(v)) {
    let s = '{';
    for (let i = 0; i < v.length; i++) {
      if (i > 0) s += spaced ? ', ' : ',';
      s += `${quote(v[i][0])}${spaced ? ': ' : ':'}${toJson(v[i][1], spaced)}`;
    }
    return `${s}}`;
  }
  return (v as Num).num;
}

// Most strings need no escaping; skipping JSON.stringify for them makes big exports much faster.
const NEEDS_ESCAPE = /["\\\u0000-\u001f\u2028\u2029\ud800-\udfff]/;
const quote = (s: string): string => (NEEDS_ESCAPE.test(s) ? JSON.stringify(s) : `"${s}"`);

/** The value at a key, or undefined. */
export function get(row: Fields, key: string): Val | undefined {
  for (const [k, v] of row) if (k === key) return v;
  return undefined;
}

/**
 * Fixed-point decimal text of `units / 10^decimals`, trailing zeros dropped ("996.57944", "1").
 * Built from integers so no floating-point formatting ever changes the digits.
 */
export function decimal(units: bigint | number, decimals: number): string {
  const neg = units < 0;
  const abs = neg ? -units : units;
  const s = abs.toString().padStart(decimals + 1, '0');
  const int = s.slice(0, s.length - decimals);
  let end = s.length;
  while (end > s.length - decimals && s.charCodeAt(end - 1) === 48) end--;
  const frac = s.slice(s.length - decimals, end);
  return `${neg ? '-' : ''}${int}${frac ? `.${frac}` : ''}`;
}

/** A deterministic 32-bit hash of integers (splitmix-style mixing); the sandbox's only "randomness". */
export function mix(...parts: number[]): number {
  let h = 0x9e3779b9;
  for (const p of parts) {
    h = Math.imul(h ^ (p | 0), 0x85ebca6b);
    h ^= h >>> 13;
    h = Math.imul(h, 0xc2b2ae35);
    h ^= h >>> 16;
  }
  return h >>> 0;
}

/** A deterministic integer in [lo, hi] from a hash. */
export const between = (h: number, lo: number, hi: number): number => lo + (h % (hi - lo + 1));
