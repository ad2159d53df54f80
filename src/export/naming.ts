import type { ExportFormat } from '../domain.js';
import { MAX_NAME_BYTES, sanitizeFileName, truncateUtf8 } from '../fs/file-name.js';

export type ExportKind = 'json' | 'zip';

/** The name a Content-Disposition header suggests (RFC 6266: `filename*` wins), unsanitised. Lenient, as the
 * real service needs: unquoted spaces, an unknown charset read as Latin-1, a repeated parameter's first. */
export function dispositionFileName(header = ''): string | undefined {
  const ext = /(?:^|;)\s*filename\*\s*=\s*([\w!#$%&+^`{}~-]+)'[^']*'([^;\s]+)/i.exec(header);
  if (ext) {
    const bytes = ext[2].replace(/%([0-9a-f]{2})/gi, (_m, h) => String.fromCharCode(parseInt(h, 16)));
    const name = Buffer.from(bytes, 'latin1').toString(/^utf-?8$/i.test(ext[1]) ? 'utf8' : 'latin1');
    // Blank: no name, not the ASCII fallback beside it (a "?" per character it could not spell).
    return name.trim() ? name : undefined;
  }
  const quoted = /(?:^|;)\s*filename\s*=\s*"((?:[^"\\]|\\.)*)"/i.exec(header);
  const name = quoted
    ? quoted[1].replace(/\\(.)/g, '$1')
    : /(?:^|;)\s*filename\s*=\s*([^;]+)/i.exec(header)?.[1].trim();
  return name?.trim() ? name : undefined;
}

export function nameWords(text: string): string[] {
  return text
    .normalize('NFC')
    .split(/[^\p{L}\p{N}-]+/u)
    .map((w) => w.replace(/^-+|-+$/g, ''))
    .filter((w) => w !== '');
}

/** Less a trailing currency code ("Example 600 OG JPY" → `…_Example_600_OG_index.json`), never the only word. */
export function dropCurrency(words: readonly string[]): string[] {
  return words.length > 1 && /^[A-Z]{3}$/.test(words[words.length - 1]) ? words.slice(0, -1) : [...words];
}

/** The leading words `words` (the names so far) share with `name`: the name's own for the first one. */
export function commonWords(words: string[] | undefined, name: string): string[] {
  const next = nameWords(name);
  if (words === undefined) return next;
  let i = 0;
  while (i < words.length && i < next.length && words[i] === next[i]) i++;
  return i < words.length ? words.slice(0, i) : words;
}

/** The requested format alone decides, never the answer's content type or name. */
export function exportKind(format: ExportFormat): ExportKind {
  return format === 'csv' ? 'zip' : 'json';
}

export function disambiguate(name: string, portfolioId: number, date: string): string {
  const dot = name.lastIndexOf('.');
  const [stem, ext] = dot > 0 ? [name.slice(0, dot), name.slice(dot)] : [name, ''];
  const tag = `_${portfolioId}_${date}`;
  return (
    sanitizeFileName(`${truncateUtf8(stem, MAX_NAME_BYTES - Buffer.byteLength(tag + ext))}${tag}${ext}`) ??
    name
  );
}

/** The content's extension replaces the name's own (a dot and 1–10 letters or digits, one a letter: not `v1.5`). */
export function nameFromHeaders(
  contentDisposition: string | undefined,
  kind: ExportKind,
): string | undefined {
  const suggested = dispositionFileName(contentDisposition);
  const name = suggested === undefined ? undefined : sanitizeFileName(suggested);
  if (name === undefined || name.toLowerCase().endsWith(`.${kind}`)) return name;
  const ext = /\.(?=[A-Za-z0-9]*[A-Za-z])[A-Za-z0-9]{1,10}$/.exec(name);
  return sanitizeFileName(`${ext ? name.slice(0, ext.index) : name}.${kind}`) ?? `export.${kind}`;
}

export function ruleFileName(o: {
  template?: string;
  date: string;
  portfolioId: number;
  type?: string;
  kind: string;
  name?: string;
  indexWords?: readonly string[];
}): string {
  let words = o.name === undefined ? [] : nameWords(o.name);
  if (words.length === 0 && o.indexWords?.length) words = dropCurrency(o.indexWords);
  if (words.length === 0) words = ['portfolio', String(o.portfolioId)];
  const values: Record<string, string> = {
    date: o.date,
    name: words.join('_'),
    type: o.type ?? '',
    portfolio: String(o.portfolioId),
  };
  const stem = (o.template ?? '{date}_{name}_index').replace(/\{(\w+)\}/g, (_, f: string) => values[f] ?? '');
  return sanitizeFileName(`${truncateUtf8(stem, MAX_NAME_BYTES - 6)}.${o.kind}`) ?? `export.${o.kind}`;
}
