import { JsonNumber } from '../domain.js';

/** JSON.stringify(value, null, indent) of a JSON value, with JsonNumbers written verbatim. */
export function stringifyLossless(value: unknown, indent?: number): string {
  const gap = typeof indent === 'number' && indent >= 1 ? ' '.repeat(Math.min(10, Math.floor(indent))) : '';
  return write(value, gap, '') as string;
}

function write(value: unknown, gap: string, indent: string): string | undefined {
  if (value instanceof JsonNumber) return value.raw;
  switch (typeof value) {
    case 'string':
      return quote(value);
    case 'number':
      return Number.isFinite(value) ? String(value) : 'null';
    case 'boolean':
      return value ? 'true' : 'false';
    case 'object': {
      if (value === null) return 'null';
      const inner = indent + gap;
      const open = gap ? `\n${inner}` : '';
      const sep = gap ? `,\n${inner}` : ',';
      const close = gap ? `\n${indent}` : '';
      if (Array.isArray(value)) {
        if (value.length === 0) return '[]';
        const parts = value.map((v) => write(v, gap, inner) ?? 'null');
        return `[${open}${parts.join(sep)}${close}]`;
      }
      const parts: string[] = [];
      for (const k of Object.keys(value)) {
        const v = write((value as Record<string, unknown>)[k], gap, inner);
        if (v !== undefined) parts.push(quote(k) + (gap ? ': ' : ':') + v);
      }
      return parts.length === 0 ? '{}' : `{${open}${parts.join(sep)}${close}}`;
    }
    default:
      return undefined; // undefined, functions, symbols: omitted like JSON.stringify does
  }
}

/** JSON.stringify(s), without the native call for the common string that needs no escape. */
export function quote(s: string): string {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 32 || c === 34 || c === 92 || (c >= 0xd800 && c <= 0xdfff)) return JSON.stringify(s);
  }
  return `"${s}"`;
}
