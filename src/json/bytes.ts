/**
 * JSON read byte by byte, for the direct paths (src/render/direct.ts, src/render/tape.ts): whitespace,
 * keys, strings, numbers and scalar values, each answering an index (or -1 where the grammar, or the
 * direct path's narrower shape, does not hold). No allocation: a CLI runs these over every byte of a
 * large answer, cold.
 */

// Value kinds.
// Value kinds on the tape.
export const STR = 0; // a string without escapes or commas: copied as is
export const STR_COMMA = 1; // without escapes, with a comma: quoted in CSV
export const STR_ESC = 2; // with an escape: decoded by JSON.parse, then made a cell
export const NUM = 3;
export const TRUE = 4;
export const FALSE = 5;
export const NULL = 6;
export const EMPTY_OBJECT = 7; // `{}`: a value of its own, printed `{}` as cellText does

/** scanValue's answer for a non-empty object, which only scanRow can take (it knows the key). */
export const OBJECT = -2;

/**
 * The scalar value (or `{}`) that starts at `p`: the index just past it × 8 + its kind (one number,
 * so the hot loops allocate nothing; bodies are at most 256 MiB, so it stays below 2^31); OBJECT when
 * a non-empty object starts there; -1 when no valid value does. Read it with valueEnd / valueKind.
 */
export function scanValue(b: Buffer, p: number, n: number): number {
  const c = b[p];
  if (c === 34) {
    const x = stringEnd(b, p + 1, n);
    if (x < 0) return -1;
    return ((x >>> 2) + 1) * 8 + (x & 3);
  }
  if (c === 45 || (c >= 48 && c <= 57)) {
    const q = numberEnd(b, p);
    return q < 0 ? -1 : q * 8 + NUM;
  }
  if (c === 116) {
    if (b[p + 1] !== 114 || b[p + 2] !== 117 || b[p + 3] !== 101) return -1;
    return (p + 4) * 8 + TRUE;
  }
  if (c === 102) {
    if (b[p + 1] !== 97 || b[p + 2] !== 108 || b[p + 3] !== 115 || b[p + 4] !== 101) return -1;
    return (p + 5) * 8 + FALSE;
  }
  if (c === 110) {
    if (b[p + 1] !== 117 || b[p + 2] !== 108 || b[p + 3] !== 108) return -1;
    return (p + 4) * 8 + NULL;
  }
  if (c === 123) {
    const q = skipWs(b, p + 1, n);
    if (b[q] !== 125) return b[q] === 34 ? OBJECT : -1;
    return (q + 1) * 8 + EMPTY_OBJECT;
  }
  return -1;
}

/** The index just past the value of a scanValue answer (≥ 0). */
export const valueEnd = (v: number): number => v >>> 3;
/** The kind of the value of a scanValue answer (≥ 0). */
export const valueKind = (v: number): number => v & 7;

export function skipWs(b: Buffer, p: number, n: number): number {
  while (p < n) {
    const c = b[p];
    if (c !== 32 && c !== 10 && c !== 13 && c !== 9) break;
    p++;
  }
  return p;
}

/** The `len` bytes of `name` are at `b[ks..]`. */
export function sameBytes(name: Buffer, b: Buffer, ks: number, len: number): boolean {
  for (let j = 0; j < len; j++) if (name[j] !== b[ks + j]) return false;
  return true;
}

/**
 * The closing quote of a key that starts at `ks`, or -1 for a key the direct path leaves alone: an
 * escape, a control character, a dot, or a digit first (integer-like keys come first in JS objects).
 */
export function keyEnd(b: Buffer, ks: number, n: number): number {
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
export function stringEnd(b: Buffer, p: number, n: number): number {
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
export function numberEnd(b: Buffer, p: number): number {
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
 * Just past the JSON value that starts at `p`, or -1 when the JSON grammar does not hold there or it
 * nests more than `depth` levels. Allocates nothing: it tells a large body's shape without parsing it
 * (report-body.ts isReportBytes).
 */
export function jsonValueEnd(b: Buffer, p: number, n: number, depth: number): number {
  const c = b[p];
  if (c !== 123 && c !== 91) {
    const v = scanValue(b, p, n);
    return v < 0 ? -1 : valueEnd(v);
  }
  if (depth === 0) return -1;
  const close = c === 123 ? 125 : 93;
  p = skipWs(b, p + 1, n);
  if (b[p] === close) return p + 1;
  for (;;) {
    if (c === 123) {
      if (b[p] !== 34) return -1;
      const k = stringEnd(b, p + 1, n);
      if (k < 0) return -1;
      p = skipWs(b, (k >>> 2) + 1, n);
      if (b[p] !== 58) return -1;
      p = skipWs(b, p + 1, n);
    }
    p = jsonValueEnd(b, p, n, depth - 1);
    if (p < 0) return -1;
    p = skipWs(b, p, n);
    if (b[p] === close) return p + 1;
    if (b[p] !== 44) return -1;
    p = skipWs(b, p + 1, n);
  }
}
