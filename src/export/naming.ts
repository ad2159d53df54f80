// File names for exports: the server's Content-Disposition name made safe, else CLI.md's rule.
import type { ExportFormat } from '../domain.js';
import { MAX_NAME_BYTES, sanitizeFileName, truncateUtf8 } from '../fs/file-name.js';

export type ExportKind = 'json' | 'zip';

/** The `filename` of a Content-Disposition header as `parse` reads it (`filename*` wins there). */
export type DispositionParser = (header: string) => { parameters: Record<string, string> };

/**
 * The file name a Content-Disposition header suggests, unsanitised; undefined when there is none.
 * `parse` is the content-disposition package's (RFC 6266; it decodes RFC 5987 `filename*` and prefers
 * it). Headers it rejects (unquoted spaces, unknown charsets) get a lenient second reading, since a
 * slightly malformed header from the real service should still name the file.
 */
export function dispositionFileName(
  header: string | undefined,
  parse: DispositionParser,
): string | undefined {
  if (!header?.trim()) return undefined;
  try {
    const name = parse(header).parameters.filename;
    return name?.trim() ? name : undefined;
  } catch {
    return lenientDispositionFileName(header);
  }
}

export function lenientDispositionFileName(header: string): string | undefined {
  const ext = /filename\*\s*=\s*([\w!#$%&+^`{}~-]+)'[^']*'([^;\s]+)/i.exec(header);
  if (ext) {
    const charset = ext[1].toLowerCase();
    try {
      const bytes = Buffer.from(
        ext[2].replace(/%([0-9a-f]{2})/gi, (_m, h) => String.fromCharCode(parseInt(h, 16))),
        'latin1',
      );
      const name =
        charset === 'utf-8' || charset === 'utf8' ? bytes.toString('utf8') : bytes.toString('latin1');
      if (name.trim()) return name;
    } catch {
      // fall through to the plain parameter
    }
  }
  const quoted = /(?:^|;)\s*filename\s*=\s*"((?:[^"\\]|\\.)*)"/i.exec(header);
  if (quoted) return quoted[1].replace(/\\(.)/g, '$1') || undefined;
  const plain = /(?:^|;)\s*filename\s*=\s*([^;]+)/i.exec(header);
  return plain?.[1].trim() || undefined;
}

/** Free text → words fit for a file name: letters, digits and `-` kept, everything else splits. */
export function nameWords(text: string): string[] {
  return text
    .normalize('NFC')
    .split(/[^\p{L}\p{N}-]+/u)
    .map((w) => w.replace(/^-+|-+$/g, ''))
    .filter((w) => w !== '');
}

/**
 * The `<name>` words less a trailing currency code, as the service's index names end with one: the
 * public example names "Example 600 OG JPY" rows `…_Example_600_OG_index.json`. Never the only word.
 */
export function dropCurrency(words: readonly string[]): string[] {
  return words.length > 1 && /^[A-Z]{3}$/.test(words[words.length - 1]) ? words.slice(0, -1) : [...words];
}

/** The common leading words of names seen one at a time, in constant memory (for a streamed file). */
export class CommonWords {
  private common: string[] | undefined;
  add(name: string): void {
    const words = nameWords(name);
    if (this.common === undefined) {
      this.common = words;
      return;
    }
    let i = 0;
    while (i < this.common.length && i < words.length && this.common[i] === words[i]) i++;
    if (i < this.common.length) this.common = this.common.slice(0, i);
  }
  /** undefined when no name was added. */
  words(): string[] | undefined {
    return this.common && [...this.common];
  }
}

/** `.json` or `.zip`: the requested format alone decides, never the answer's content type or name. */
export function exportKind(format: ExportFormat): ExportKind {
  return format === 'csv' ? 'zip' : 'json';
}

/**
 * The name from the fallback rule: --name, else the rows' index names (JSON, read from the file),
 * else `portfolio_<id>`.
 */
export function fallbackFileName(o: {
  date: string;
  portfolioId: number;
  kind: ExportKind;
  name?: string;
  /** The common leading words of the rows' indexName values (CommonWords), if any. */
  indexWords?: readonly string[];
}): string {
  const words = nameWordsOf(o);
  return (
    sanitizeFileName(`${o.date}_${words.join('_')}_index.${o.kind}`) ??
    `${o.date}_portfolio_${o.portfolioId}_index.${o.kind}`
  );
}

/**
 * The extension follows the content prs checked, whatever the server's name says (CLI.md): `x.zip`
 * for a JSON export is saved as `x.json`, `nosj.exe` as `nosj.json`. A name's own extension (a dot
 * and 1–10 letters or digits, at least one letter) is replaced; a name without one (or ending in a
 * number, `v1.5`) gets the content's added.
 */
export function withExtension(name: string, kind: ExportKind): string {
  if (name.toLowerCase().endsWith(`.${kind}`)) return name;
  const ext = /\.(?=[A-Za-z0-9]*[A-Za-z])[A-Za-z0-9]{1,10}$/.exec(name);
  const stem = ext ? name.slice(0, ext.index) : name;
  return sanitizeFileName(`${stem}.${kind}`) ?? `export.${kind}`;
}

/**
 * Two exports of one run that would get the same name (the server names two dates alike, or --name
 * with several portfolios): the later one gets `_<portfolioId>_<date>` before its extension.
 */
export function disambiguate(name: string, portfolioId: number, date: string): string {
  const dot = name.lastIndexOf('.');
  const [stem, ext] = dot > 0 ? [name.slice(0, dot), name.slice(dot)] : [name, ''];
  const tag = `_${portfolioId}_${date}`;
  return (
    sanitizeFileName(`${truncateUtf8(stem, MAX_NAME_BYTES - Buffer.byteLength(tag + ext))}${tag}${ext}`) ??
    name
  );
}

/** The resolved name of one export: from the server's header, or the rule (maybe needing the rows). */
export function nameFromHeaders(o: {
  contentDisposition?: string;
  parse: DispositionParser;
  kind: ExportKind;
}): string | undefined {
  const suggested = dispositionFileName(o.contentDisposition, o.parse);
  const safe = suggested === undefined ? undefined : sanitizeFileName(suggested);
  return safe === undefined ? undefined : withExtension(safe, o.kind);
}

/**
 * A --name-template filled in: `{date}`, `{name}` (the name words joined by `_`), `{type}`,
 * `{portfolio}`; reduced to a safe plain name, and the content's extension added.
 */
export function templateFileName(
  template: string,
  o: { date: string; words: readonly string[]; type: string; portfolioId: number; kind: ExportKind | 'csv' },
): string {
  const values: Record<string, string> = {
    date: o.date,
    name: o.words.join('_'),
    type: o.type,
    portfolio: String(o.portfolioId),
  };
  const stem = template.replace(/\{(\w+)\}/g, (_, f: string) => values[f] ?? '');
  return sanitizeFileName(`${truncateUtf8(stem, MAX_NAME_BYTES - 6)}.${o.kind}`) ?? `export.${o.kind}`;
}

/** The <name> words: --name, else the rows' index names, else `portfolio <id>`. */
export function nameWordsOf(o: {
  name?: string;
  indexWords?: readonly string[];
  portfolioId: number;
}): string[] {
  let words = o.name === undefined ? [] : nameWords(o.name);
  if (words.length === 0 && o.indexWords?.length) words = dropCurrency(o.indexWords);
  if (words.length === 0) words = ['portfolio', String(o.portfolioId)];
  return words;
}
