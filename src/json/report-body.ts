/**
 * The JSON endpoint's answer: `{"report":[row, …]}`. The no-data answer is unspecified, so an empty
 * body, `[]` and `{"report":[]}` all mean no rows, and a bare `[row, …]` is accepted as well. This
 * module alone knows that wrapper: `rowsOf` for the parsed rows (the service), `rowsStart`/`afterRow`
 * for the rows' bytes (the direct renderers), `effectiveDateOf` for the date the rows are for.
 */
import { isUtf8 } from 'node:buffer';
import type { Row } from '../domain.js';
import { jsonValueEnd, keyEnd, sameBytes, skipWs } from './bytes.js';
import { deeperThan, parseLossless } from './lossless.js';

/** A report row is flat with a few nested objects; far past that it is no report (and would overflow renderers). */
const MAX_ROW_DEPTH = 64;

const NOT_JSON = 'the body is not JSON';
const TOO_DEEP = `a row nests values more than ${MAX_ROW_DEPTH} levels deep`;
const BODY_TOO_DEEP = `the body nests values more than ${MAX_ROW_DEPTH} levels deep`;

/** The rows of a body, or why it is not a report (for the malformed-response error, exit 8). */
export function rowsOf(body: string): Row[] | string {
  if (body.trim() === '') return [];
  let value: unknown;
  try {
    value = parseLossless(body);
  } catch {
    return NOT_JSON;
  }
  const rows = Array.isArray(value) ? value : isRecord(value) ? value.report : undefined;
  // A wrong shape nested absurdly deep (`[[[…]]]` 100,000 levels) is JSON gone wrong, not another
  // API's answer: measured only once the shape is wrong, so a report's rows are walked once.
  const wrong = (why: string) => (deeperThan(value, MAX_ROW_DEPTH) ? BODY_TOO_DEEP : why);
  if (!Array.isArray(rows)) return wrong('expected an object with a "report" array');
  if (!rows.every(isRecord)) return wrong('the report rows are not JSON objects');
  if (rows.some((row) => deeperThan(row, MAX_ROW_DEPTH))) return TOO_DEEP;
  return rows;
}

/**
 * Whether a body rowsOf refused (`why`) is JSON gone wrong — cut short, broken, nested absurdly deep:
 * the service's fault, which no other base URL would mend. An HTML page or another API's JSON is
 * more likely a wrong base URL.
 */
export function isBrokenJson(body: string, why: string): boolean {
  return why === TOO_DEEP || why === BODY_TOO_DEEP || (why === NOT_JSON && /^\s*[[{]/.test(body));
}

function isRecord(v: unknown): v is Record<string, unknown> {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

const REPORT_KEY = Buffer.from('report');

/** The body is `{"report":[...]}` rather than a bare array. */
export const isWrapped = (b: Buffer) => b[skipWs(b, 0, b.length)] === 123;

/** The index of the first row's `{`, or -1 when the body is outside the direct path or has no rows. */
export function rowsStart(b: Buffer): number {
  const n = b.length;
  if (n === 0 || !isUtf8(b)) return -1;
  let p = skipWs(b, 0, n);
  if (b[p] === 123) {
    p = skipWs(b, p + 1, n);
    if (b[p] !== 34) return -1;
    const ke = keyEnd(b, p + 1, n);
    if (ke - p - 1 !== REPORT_KEY.length || !sameBytes(REPORT_KEY, b, p + 1, REPORT_KEY.length)) return -1;
    p = skipWs(b, ke + 1, n);
    if (b[p] !== 58) return -1;
    p = skipWs(b, p + 1, n);
  }
  if (b[p] !== 91) return -1;
  p = skipWs(b, p + 1, n);
  // No rows: the general path has the no-data rules.
  return b[p] === 93 ? -1 : p;
}

/** afterRow's answer when the rows, and then the body, ended as they should. */
export const END = -3;

/** After a row that ends at `p`: where the next row starts, END, or -1 (not this path). */
export function afterRow(b: Buffer, p: number, wrapped: boolean): number {
  const n = b.length;
  p = skipWs(b, p, n);
  const d = b[p];
  if (d === 44) return skipWs(b, p + 1, n);
  if (d !== 93) return -1;
  p = skipWs(b, p + 1, n);
  if (wrapped) {
    if (b[p] !== 125) return -1;
    p = skipWs(b, p + 1, n);
  }
  return p === n ? END : -1;
}

/**
 * Whether a body is a report by rowsOf's rules, read from its bytes without building a row (a stored
 * answer's check, cache/answers.ts: a 200,000-row answer parsed whole cost ~150 MB): true or false,
 * or undefined for the shapes this reader leaves to rowsOf (no rows, a key before "report" or after
 * the rows, a body that is not UTF-8).
 */
export function isReportBytes(b: Buffer): boolean | undefined {
  let p = rowsStart(b);
  if (p < 0) return undefined;
  const wrapped = isWrapped(b);
  for (;;) {
    if (b[p] !== 123) return false;
    const end = jsonValueEnd(b, p, b.length, MAX_ROW_DEPTH);
    if (end < 0) return false;
    p = afterRow(b, end, wrapped);
    if (p === END) return true;
    if (p < 0) return undefined;
  }
}

const EFFECTIVE_DATE = Buffer.from('"effectiveDate"');
const ISO_DATE = /^"(\d{4}-\d{2}-\d{2})"/;

/**
 * The date an answer's rows are for (its first `effectiveDate`), read from the bytes without parsing
 * the body; undefined when there is none (no rows, or no such field).
 */
export function effectiveDateOf(bytes: Buffer): string | undefined {
  const at = bytes.indexOf(EFFECTIVE_DATE);
  if (at < 0) return undefined;
  let p = at + EFFECTIVE_DATE.length;
  const ws = (c: number | undefined) => c === 32 || c === 9 || c === 10 || c === 13;
  while (ws(bytes[p])) p++;
  if (bytes[p] !== 58) return undefined;
  p++;
  while (ws(bytes[p])) p++;
  return ISO_DATE.exec(bytes.toString('latin1', p, p + 12))?.[1];
}
