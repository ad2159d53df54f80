/**
 * Lossless JSON out: numbers are written with the digits the service sent. A JsonNumber (domain.ts)
 * is written as its raw text; everything else exactly as JSON.stringify writes it. (In: the row
 * stream, src/rows/tokenizer.ts.)
 */

import { JsonNumber } from '../domain.js';

/**
 * Serialises a value (rows from the row stream) to JSON text: JsonNumbers are written verbatim, everything
 * else exactly as JSON.stringify(value, null, indent) would write it.
 */
export function stringifyLossless(value: unknown, indent?: number): string {
  const gap = typeof indent === 'number' && indent >= 1 ? ' '.repeat(Math.min(10, Math.floor(indent))) : '';
  const out = gap === '' ? compact(value) : write(value, '', gap, '');
  return out === undefined ? (undefined as unknown as string) : out;
}

/** Keys as `"key":`, kept once seen (a report's rows share a few dozen keys; a hostile body cannot grow it far). */
const keyTexts = new Map<string, string>();

function keyText(k: string): string {
  let t = keyTexts.get(k);
  if (t === undefined) {
    t = `${quote(k)}:`;
    if (keyTexts.size < 4096) keyTexts.set(k, t);
  }
  return t;
}

/**
 * The compact layout of the values rows hold (strings, numbers, JsonNumbers, booleans, null, plain
 * arrays and objects) in one pass without the general walk's checks; anything else (a toJSON, a
 * class instance, undefined) takes the general walk, so the result is still JSON.stringify's.
 */
function compact(value: unknown): string | undefined {
  switch (typeof value) {
    case 'string':
      return quote(value);
    case 'number':
      return Number.isFinite(value) ? String(value) : 'null';
    case 'boolean':
      return value ? 'true' : 'false';
    case 'object': {
      if (value === null) return 'null';
      if (value instanceof JsonNumber) return value.raw;
      if (Array.isArray(value)) {
        if (value.length === 0) return '[]';
        let out = '[';
        for (let i = 0; i < value.length; i++) out += (i === 0 ? '' : ',') + (compact(value[i]) ?? 'null');
        return `${out}]`;
      }
      const proto = Object.getPrototypeOf(value);
      if (
        (proto !== Object.prototype && proto !== null) ||
        typeof (value as { toJSON?: unknown }).toJSON === 'function'
      )
        return write(value, '', '', '');
      let out = '{';
      let first = true;
      for (const k in value) {
        if (!Object.hasOwn(value, k)) continue;
        const v = compact((value as Record<string, unknown>)[k]);
        if (v === undefined) continue;
        out += (first ? '' : ',') + keyText(k) + v;
        first = false;
      }
      return `${out}}`;
    }
    default:
      return write(value, '', '', '');
  }
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
