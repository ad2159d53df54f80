/**
 * Lossless JSON: numbers keep the exact text the service sent. Node 20's JSON.parse gives no access to
 * a number's source text (and has no JSON.rawJSON), so `1234567.123456789012` would lose digits.
 *
 * Representation: a literal whose text survives a round trip through a double (`String(+raw) === raw`:
 * `1302.917413`, `0.25`, `13029174`) becomes a plain JS number; anything else (`1.10`, `-0`, `1e5`,
 * `12345678901234567890`, `1234567.123456789012`) becomes a JsonNumber holding the raw text. Either way
 * the digits printed are the digits received, and rows stay plain data for everything downstream.
 *
 * How (chosen by benchmark, 20,000 constituent rows / 6.4 MB on this machine, cold as a CLI runs it:
 * JSON.parse alone 25 ms, this about 35 ms, a char-code scan instead of the regex 65 ms): a sticky
 * regex skips, in native code, everything that is certainly exact (structure, strings, short plain
 * decimals); only at the other number tokens does JS look (`isExactLiteral`). The rare inexact ones
 * are rewritten into marked strings, native JSON.parse builds the tree, and a walk turns the marked
 * strings into JsonNumbers.
 * Swapping one scalar token for another keeps valid text valid and invalid text invalid. The
 * hand-written parser (`parseLosslessByHand`, same result) takes over when inexact literals are dense
 * (past about one per 64 characters marking costs more than it saves), for the one input the marking
 * cannot represent (text that already contains a `\u0000` escape), and for precise SyntaxError messages.
 */

import { JsonNumber } from '../domain.js';

const fail = (text: string, pos: number, what?: string): never => {
  const found = pos >= text.length ? 'end of JSON input' : `token ${JSON.stringify(text[pos])}`;
  throw new SyntaxError(`${what ?? `Unexpected ${found}`} in JSON at position ${pos}`);
};

/**
 * A cheap sufficient test for `String(+raw) === raw` on a literal without exponent, so the common case
 * skips number-to-string (the costliest step of parsing): at most 15 significant digits (a double tells
 * all such decimals apart, so the shortest round-trip form is the literal itself), no trailing zero in
 * the fraction, not `-0`, and not below 1e-6 (where JS switches to exponent notation).
 */
function isExactDecimal(
  text: string,
  neg: boolean,
  first: number,
  intLen: number,
  fracStart: number,
  fracLen: number,
): boolean {
  if (fracLen === 0) return intLen <= 15 && !(neg && first === 48);
  if (text.charCodeAt(fracStart + fracLen - 1) === 48) return false;
  if (first !== 48) return intLen + fracLen <= 15;
  let zeros = 0;
  while (text.charCodeAt(fracStart + zeros) === 48) zeros++;
  return zeros < 6 && fracLen - zeros <= 15;
}

const NUMBER_LITERAL = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

/**
 * Up to 4096 tokens (bounding the regex engine's backtrack stack) that need no look: runs without a
 * quote, digit or minus; whole strings; and whole number tokens that a double certainly reproduces —
 * `0`, integers of at most 15 digits, decimals with at most 7 + 8 digits ending in a non-zero, and
 * `0.` decimals with at most 5 leading zeros (smaller ones print with an exponent) and 9 significant
 * digits. It stops at anything else: a number token to check, or text that is not valid JSON.
 */
const SAFE_RUN =
  /(?:[^"\-0-9]+|"[^"\\]*(?:\\.[^"\\]*)*"|(?:0|-?[1-9]\d{0,14}|-?[1-9]\d{0,6}\.\d{0,7}[1-9]|-?0\.0{0,5}[1-9](?:\d{0,7}[1-9])?)(?![\d.eE+-])){0,4096}/y;

/**
 * True when `raw` (a token of number characters) is a valid JSON number whose text a double reproduces.
 * The cheap test first: plain decimals of at most 15 characters without a trailing fraction zero.
 */
function isExactLiteral(raw: string): boolean {
  const n = raw.length;
  if (n <= 15) {
    const i = raw.charCodeAt(0) === 45 ? 1 : 0;
    const first = raw.charCodeAt(i);
    let dot = -1;
    let plain = true;
    for (let j = i; j < n; j++) {
      const c = raw.charCodeAt(j);
      if (c === 46 && dot < 0) dot = j;
      else if (c < 48 || c > 57) {
        plain = false;
        break;
      }
    }
    if (plain && n > i) {
      if (dot < 0) return first === 48 ? n === 1 : true; // "0" yes; "-0", "01" no
      if (dot > i && dot < n - 1 && raw.charCodeAt(n - 1) !== 48) {
        if (first !== 48) return true;
        // "0.x": exact unless a leading zero (invalid) or below 1e-6 (JS prints an exponent there)
        if (dot === i + 1) return !raw.startsWith('000000', dot + 1);
      }
    }
  }
  return String(+raw) === raw;
}

/**
 * Parses JSON text into plain objects, arrays, strings, booleans, null, and numbers (JS numbers when
 * exact, JsonNumber otherwise). Throws SyntaxError (with the position) on invalid JSON.
 */
export function parseLossless(text: string): unknown {
  // The marks are strings starting with U+0000, which a parsed string can only hold via this escape.
  if (text.includes('\\u0000')) return parseLosslessByHand(text);
  const len = text.length;
  let parts: string[] | undefined;
  let copied = 0;
  let pos = 0;
  while (pos < len) {
    SAFE_RUN.lastIndex = pos;
    SAFE_RUN.test(text);
    if (SAFE_RUN.lastIndex > pos) {
      pos = SAFE_RUN.lastIndex;
      continue;
    }
    const c = text.charCodeAt(pos);
    if (c === 34) {
      // Skip the string: the next quote not preceded by an odd run of backslashes.
      let q = text.indexOf('"', pos + 1);
      for (;;) {
        if (q < 0) {
          pos = len;
          break;
        }
        let b = q - 1;
        while (text.charCodeAt(b) === 92) b--;
        if ((q - 1 - b) % 2 === 0) {
          pos = q + 1;
          break;
        }
        q = text.indexOf('"', q + 1);
      }
    } else if (c === 45 || (c >= 48 && c <= 57)) {
      const start = pos++;
      while (pos < len) {
        const d = text.charCodeAt(pos);
        if ((d >= 48 && d <= 57) || d === 46 || d === 101 || d === 69 || d === 43 || d === 45) pos++;
        else break;
      }
      const raw = text.slice(start, pos);
      // Only valid literals are marked, so an invalid token still fails in JSON.parse below.
      if (!isExactLiteral(raw) && NUMBER_LITERAL.test(raw)) {
        parts ??= [];
        // Past about one mark per 64 characters the marking costs more than it saves.
        if (parts.length > 512 && parts.length * 32 > pos) return parseLosslessByHand(text);
        parts.push(text.slice(copied, start), `"\\u0000${raw}"`);
        copied = pos;
      }
    } else pos++;
  }
  try {
    if (!parts) return JSON.parse(text);
    parts.push(text.slice(copied));
    return unmark(JSON.parse(parts.join('')));
  } catch {
    return parseLosslessByHand(text); // throws the SyntaxError with its position in the original text
  }
}

/** Replaces the marked strings of parseLossless by JsonNumbers, in place. */
function unmark(v: unknown): unknown {
  if (typeof v === 'string') return v.charCodeAt(0) === 0 ? new JsonNumber(v.slice(1)) : v;
  if (v === null || typeof v !== 'object') return v;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      const x = v[i];
      if (typeof x === 'string' ? x.charCodeAt(0) === 0 : typeof x === 'object') v[i] = unmark(x);
    }
    return v;
  }
  const o = v as Record<string, unknown>;
  for (const k in o) {
    const x = o[k];
    if (typeof x === 'string' ? x.charCodeAt(0) === 0 : typeof x === 'object') o[k] = unmark(x);
  }
  return v;
}

/**
 * The reference parser: one pass over char codes, same result as parseLossless, precise errors.
 * Throws SyntaxError (with the position) on invalid JSON.
 */
export function parseLosslessByHand(text: string): unknown {
  let pos = 0;
  const len = text.length;

  const ws = (): void => {
    while (pos < len) {
      const c = text.charCodeAt(pos);
      if (c === 32 || c === 10 || c === 13 || c === 9) pos++;
      else break;
    }
  };

  const parseString = (): string => {
    // pos is just after the opening quote
    const start = pos;
    while (pos < len) {
      const c = text.charCodeAt(pos);
      if (c === 34) {
        const s = text.slice(start, pos);
        pos++;
        return s;
      }
      if (c === 92) break;
      if (c < 32) fail(text, pos, 'Bad control character in string literal');
      pos++;
    }
    if (pos >= len) fail(text, pos, 'Unterminated string');
    // Slow path: escapes present.
    let out = text.slice(start, pos);
    let chunk = pos;
    while (pos < len) {
      const c = text.charCodeAt(pos);
      if (c === 34) {
        out += text.slice(chunk, pos);
        pos++;
        return out;
      }
      if (c < 32) fail(text, pos, 'Bad control character in string literal');
      if (c !== 92) {
        pos++;
        continue;
      }
      out += text.slice(chunk, pos);
      const e = text.charCodeAt(pos + 1);
      switch (e) {
        case 34:
          out += '"';
          break;
        case 92:
          out += '\\';
          break;
        case 47:
          out += '/';
          break;
        case 98:
          out += '\b';
          break;
        case 102:
          out += '\f';
          break;
        case 110:
          out += '\n';
          break;
        case 114:
          out += '\r';
          break;
        case 116:
          out += '\t';
          break;
        case 117: {
          let code = 0;
          for (let i = pos + 2; i < pos + 6; i++) {
            const h = i < len ? text.charCodeAt(i) : -1;
            const d =
              h >= 48 && h <= 57 ? h - 48 : h >= 65 && h <= 70 ? h - 55 : h >= 97 && h <= 102 ? h - 87 : -1;
            if (d < 0) fail(text, i, 'Bad Unicode escape');
            code = code * 16 + d;
          }
          out += String.fromCharCode(code);
          pos += 4;
          break;
        }
        default:
          fail(text, pos + 1, 'Bad escaped character');
      }
      pos += 2;
      chunk = pos;
    }
    return fail(text, pos, 'Unterminated string');
  };

  const digits = (): number => {
    const s = pos;
    while (pos < len) {
      const c = text.charCodeAt(pos);
      if (c >= 48 && c <= 57) pos++;
      else break;
    }
    return pos - s;
  };

  const parseNumber = (): number | JsonNumber => {
    const start = pos;
    const neg = text.charCodeAt(pos) === 45;
    if (neg) pos++;
    const first = text.charCodeAt(pos);
    let intLen = 1;
    if (first === 48) pos++;
    else if (first >= 49 && first <= 57) intLen = digits();
    else fail(text, pos, 'No number after minus sign');
    let c = text.charCodeAt(pos);
    let fracStart = 0;
    let fracLen = 0;
    let exponent = false;
    if (c === 46) {
      pos++;
      fracStart = pos;
      fracLen = digits();
      if (fracLen === 0) fail(text, pos, 'Unterminated fractional number');
      c = text.charCodeAt(pos);
    }
    if (c === 101 || c === 69) {
      exponent = true;
      pos++;
      c = text.charCodeAt(pos);
      if (c === 43 || c === 45) pos++;
      if (digits() === 0) fail(text, pos, 'Exponent part is missing a number');
    }
    const raw = text.slice(start, pos);
    if (!exponent && isExactDecimal(text, neg, first, intLen, fracStart, fracLen)) return +raw;
    // The general rule: exact when printing the double gives back the very same text.
    const n = +raw;
    return String(n) === raw ? n : new JsonNumber(raw);
  };

  const literal = (word: string, value: unknown): unknown => {
    if (text.startsWith(word, pos)) {
      pos += word.length;
      return value;
    }
    for (let i = 0; i < word.length; i++) {
      if (text.charCodeAt(pos + i) !== word.charCodeAt(i)) fail(text, pos + i);
    }
    return fail(text, pos);
  };

  const parseValue = (): unknown => {
    ws();
    const c = text.charCodeAt(pos);
    switch (c) {
      case 123: {
        // {
        pos++;
        const obj: Record<string, unknown> = {};
        ws();
        if (text.charCodeAt(pos) === 125) {
          pos++;
          return obj;
        }
        for (;;) {
          if (text.charCodeAt(pos) !== 34) fail(text, pos, pos < len ? `Expected property name` : undefined);
          pos++;
          const key = parseString();
          ws();
          if (text.charCodeAt(pos) !== 58)
            fail(text, pos, pos < len ? "Expected ':' after property name" : undefined);
          pos++;
          const value = parseValue();
          // JSON.parse makes "__proto__" an own property; plain assignment would set the prototype.
          if (key === '__proto__') {
            Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
          } else obj[key] = value;
          ws();
          const d = text.charCodeAt(pos);
          if (d === 44) {
            pos++;
            ws();
          } else if (d === 125) {
            pos++;
            return obj;
          } else fail(text, pos, pos < len ? "Expected ',' or '}' after property value" : undefined);
        }
      }
      case 91: {
        // [
        pos++;
        const arr: unknown[] = [];
        ws();
        if (text.charCodeAt(pos) === 93) {
          pos++;
          return arr;
        }
        for (;;) {
          arr.push(parseValue());
          ws();
          const d = text.charCodeAt(pos);
          if (d === 44) pos++;
          else if (d === 93) {
            pos++;
            return arr;
          } else fail(text, pos, pos < len ? "Expected ',' or ']' after array element" : undefined);
        }
      }
      case 34:
        pos++;
        return parseString();
      case 116:
        return literal('true', true);
      case 102:
        return literal('false', false);
      case 110:
        return literal('null', null);
      default:
        if (c === 45 || (c >= 48 && c <= 57)) return parseNumber();
        return fail(text, pos);
    }
  };

  const value = parseValue();
  ws();
  if (pos < len) fail(text, pos, `Unexpected non-whitespace character after JSON`);
  return value;
}

/**
 * True when `value` nests arrays/objects more than `max` levels deep. Iterative (an explicit stack),
 * so a hostile body nested 100,000 levels is measured, not a stack overflow: the recursive walks
 * downstream (flattening, stringifyLossless) may then trust their input's depth.
 */
export function deeperThan(value: unknown, max: number): boolean {
  if (value === null || typeof value !== 'object' || value instanceof JsonNumber) return false;
  const stack: unknown[] = [value];
  const depths: number[] = [1];
  while (stack.length > 0) {
    const v = stack.pop() as Record<string, unknown>;
    const d = depths.pop()!;
    if (d > max) return true;
    for (const k in v) {
      const x = v[k];
      if (x !== null && typeof x === 'object' && !(x instanceof JsonNumber)) {
        stack.push(x);
        depths.push(d + 1);
      }
    }
  }
  return false;
}

/**
 * Serialises a value from parseLossless back to JSON text: JsonNumbers are written verbatim, everything
 * else exactly as JSON.stringify(value, null, indent) would write it.
 */
export function stringifyLossless(value: unknown, indent?: number): string {
  const gap = typeof indent === 'number' && indent >= 1 ? ' '.repeat(Math.min(10, Math.floor(indent))) : '';
  const out = write(value, '', gap, '');
  return out === undefined ? (undefined as unknown as string) : out;
}

/** JSON.stringify(s), without the native call for the common string that needs no escape. */
function quote(s: string): string {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 32 || c === 34 || c === 92 || (c >= 0xd800 && c <= 0xdfff)) return JSON.stringify(s);
  }
  return `"${s}"`;
}

function write(value: unknown, key: string, gap: string, indent: string): string | undefined {
  if (value instanceof JsonNumber) return value.raw;
  if (
    value !== null &&
    typeof value === 'object' &&
    typeof (value as { toJSON?: unknown }).toJSON === 'function'
  ) {
    value = (value as { toJSON(k: string): unknown }).toJSON(key);
  }
  switch (typeof value) {
    case 'string':
      return quote(value);
    case 'number':
      return Number.isFinite(value) ? String(value) : 'null';
    case 'boolean':
      return value ? 'true' : 'false';
    case 'bigint':
      throw new TypeError('Do not know how to serialize a BigInt');
    case 'object': {
      if (value === null) return 'null';
      if (value instanceof Number || value instanceof String || value instanceof Boolean) {
        return JSON.stringify(value);
      }
      const inner = indent + gap;
      if (Array.isArray(value)) {
        if (value.length === 0) return '[]';
        const parts = new Array<string>(value.length);
        for (let i = 0; i < value.length; i++) parts[i] = write(value[i], String(i), gap, inner) ?? 'null';
        return gap ? `[\n${inner}${parts.join(`,\n${inner}`)}\n${indent}]` : `[${parts.join(',')}]`;
      }
      const parts: string[] = [];
      const sep = gap ? ': ' : ':';
      for (const k of Object.keys(value)) {
        const v = write((value as Record<string, unknown>)[k], k, gap, inner);
        if (v !== undefined) parts.push(quote(k) + sep + v);
      }
      if (parts.length === 0) return '{}';
      return gap ? `{\n${inner}${parts.join(`,\n${inner}`)}\n${indent}}` : `{${parts.join(',')}}`;
    }
    default:
      return undefined; // undefined, functions, symbols: omitted like JSON.stringify does
  }
}
