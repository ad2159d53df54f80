import formatDisposition from 'content-disposition';
import { Zip, ZipDeflate, ZipPassThrough } from 'fflate';
import { familyOf, JsonNumber, type ReportType, specFields } from '../domain.js';

/** A JSON number as the exact text to send: rows may hold literals a double cannot represent. */
export const num = (text: string): JsonNumber => new JsonNumber(text);
export type Val = string | null | boolean | JsonNumber | Row;
export type Row = { readonly [key: string]: Val };

// Most strings need no escaping; skipping JSON.stringify for them makes big exports much faster.
const NEEDS_ESCAPE = /["\\\u0000-\u001f\u2028\u2029\ud800-\udfff]/;
const quote = (s: string): string => (NEEDS_ESCAPE.test(s) ? JSON.stringify(s) : `"${s}"`);

/** JSON text of a value: compact as Jackson writes it, or `spaced` as Python's json.dumps does. */
export function toJson(v: Val, spaced = false): string {
  if (v === null || typeof v === 'boolean') return String(v);
  if (typeof v === 'string') return quote(v);
  if (v instanceof JsonNumber) return v.raw;
  let s = '';
  for (const k in v)
    s += `${s ? (spaced ? ', ' : ',') : ''}${quote(k)}${spaced ? ': ' : ':'}${toJson(v[k]!, spaced)}`;
  return `{${s}}`;
}

function* chunks(head: string, rows: Iterable<Row>, line: (row: Row, i: number) => string, tail = '') {
  let buf = head;
  let i = 0;
  for (const row of rows) {
    buf += line(row, i++);
    if (buf.length >= 64 * 1024) {
      yield buf;
      buf = '';
    }
  }
  if (buf + tail) yield buf + tail;
}

export const jsonChunks = (rows: Iterable<Row>, open: string, close: string, spaced = false) =>
  chunks(open, rows, (row, i) => (i ? (spaced ? ', ' : ',') : '') + toJson(row, spaced), close);

export const csvChunks = (type: ReportType, rows: Iterable<Row>) =>
  chunks(csvHeader(type), rows, (row) => csvLine(type, row));

/** [header, key, nested key]; the header is the key in words ("closingFx" → "Closing Fx"). */
type Columns = readonly (readonly [string, string, string?])[];
const ACRONYM = /\b(Id|Isin|Sedol|Ric|Paf|Saf)\b/g;
const upper = (word: string) => word.toUpperCase();
const columns = (paths: readonly string[]): Columns =>
  paths.map((path) => {
    const [key, sub] = path.split('.') as [string, string?];
    const words = path.replace(/([a-z])([A-Z])/g, '$1 $2').replace('.', ' ');
    return [words.replace(/\b[a-z]/g, upper).replace(ACRONYM, upper), key, sub];
  });

/** The spec's fields, and in a constituent CSV the exchange code after the ticker. */
const CSV_COLUMNS = {
  index: columns(specFields('index')),
  constituents: columns(
    specFields('constituents').flatMap((f) => (f === 'securityTicker' ? [f, 'exchangeCode'] : f)),
  ),
  'corporate actions': columns(specFields('corporate actions')),
};

export const csvColumns = (type: ReportType): Columns => CSV_COLUMNS[familyOf(type)];

export const csvCell = (text: string): string =>
  /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;

const isRow = (v: Val | undefined): v is Row => !!v && typeof v === 'object' && !(v instanceof JsonNumber);

/** Null, a missing field and an object where a value was expected are empty cells. */
function cellText(row: Row, key: string, sub?: string): string {
  const v = sub === undefined ? row[key] : isRow(row[key]) ? row[key][sub] : undefined;
  return v instanceof JsonNumber ? v.raw : v === undefined || v === null || isRow(v) ? '' : String(v);
}

export const csvHeader = (type: ReportType): string => `${csvColumns(type).map(([h]) => csvCell(h))}\n`;

export const csvLine = (type: ReportType, row: Row): string =>
  `${csvColumns(type).map(([, key, sub]) => csvCell(cellText(row, key, sub)))}\n`;

type ZipEntry = { member: string; date: string; store?: boolean };
export function* zipChunks(text: Iterable<string>, o: ZipEntry): Generator<Uint8Array> {
  const out: Uint8Array[] = [];
  // Called synchronously within push and end: an error is thrown from there.
  const zip = new Zip((err, data) => {
    if (err) throw err;
    out.push(data);
  });
  const file = o.store ? new ZipPassThrough(o.member) : new ZipDeflate(o.member, { level: 6 });
  const [y, m, d] = o.date.split('-').map(Number);
  // fflate writes DOS time from local components: a local noon gives the same bytes in every time zone.
  file.mtime = new Date(y, m - 1, d, 12, 0, 0);
  zip.add(file);
  for (const chunk of text) {
    file.push(Buffer.from(chunk));
    yield* out.splice(0);
  }
  file.push(new Uint8Array(0), true);
  zip.end();
  yield* out.splice(0);
}

export const exportFileName = (date: string, name: string, ext: string): string =>
  `${date}_${name.split(/\s+/).filter(Boolean).join('_')}_index.${ext}`;

export const asciiFallback = (name: string): string =>
  name
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^\x20-\x7e]|["\\]/g, '_');

export const contentDisposition = (fileName: string): string =>
  formatDisposition(fileName, { fallback: asciiFallback(fileName) });
