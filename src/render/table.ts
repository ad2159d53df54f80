/**
 * The terminal table. Columns come in the spec's order; numbers are right-aligned and never cut; long
 * text is shortened with "…"; when the columns are wider than the terminal, the trailing ones are left
 * out and a note names them.
 *
 * Drawn here rather than with cli-table3: cli-table3 took about 0.3 ms per row (7 s for a 20,000-row
 * constituent report) and cannot rule off the header without ruling every row; this draws the same
 * box characters in a few milliseconds.
 */
import { isJsonNumeric } from '../json/lossless.js';
import type { Row } from '../service/types.js';
import { type Column, cellText, valueAt } from './columns.js';

export interface TableOptions {
  /** Colour the header (io.color). */
  color: boolean;
  /** Fit into this many columns (a terminal); undefined: show every column in full. */
  width?: number;
}

export interface TableResult {
  text: string;
  /** Things the user should know on stderr (columns left out). */
  notes: string[];
}

/** Longest text cell shown on a terminal; longer text ends in "…". */
export const MAX_TEXT_WIDTH = 40;

/** A cell's text cut to `max` terminal cells with "…" (numbers are never cut: they are passed whole). */
export function truncate(s: string, max: number): string {
  if (displayWidth(s) <= max) return s;
  let out = '';
  let width = 0;
  for (const ch of s) {
    const w = isWide(ch.codePointAt(0)!) ? 2 : 1;
    if (width + w > max - 1) break;
    out += ch;
    width += w;
  }
  return `${out}…`;
}

/** A column is numeric when every value present is a number. */
export function isNumericColumn(rows: readonly Row[], c: Column): boolean {
  let any = false;
  for (const row of rows) {
    const v = valueAt(row, c.path);
    if (v === null || v === undefined) continue;
    if (!isJsonNumeric(v)) return false;
    any = true;
  }
  return any;
}

/**
 * How many leading columns fit in `width`, given each column's content width. A row is "│ a │ b │":
 * one border, then per column its width plus two of padding and one border. At least one.
 */
export function fittingColumns(widths: readonly number[], width: number): number {
  let total = 1;
  let n = 0;
  for (const w of widths) {
    total += w + 3;
    if (total > width && n > 0) break;
    n++;
  }
  return n;
}

export function renderTable(rows: readonly Row[], columns: readonly Column[], o: TableOptions): TableResult {
  const notes: string[] = [];
  const numeric = columns.map((c) => isNumericColumn(rows, c));
  const cells = rows.map((row) =>
    columns.map((c, i) => {
      if (numeric[i]) return cellText(valueAt(row, c.path));
      const text = printable(cellText(valueAt(row, c.path)));
      return o.width !== undefined ? truncate(text, MAX_TEXT_WIDTH) : text;
    }),
  );
  const natural = columns.map((c, i) =>
    cells.reduce((w, r) => Math.max(w, displayWidth(r[i])), displayWidth(c.name)),
  );
  let shown = columns.length;
  if (o.width !== undefined) {
    shown = fittingColumns(natural, o.width);
    if (shown < columns.length) {
      const hidden = columns.slice(shown).map((c) => c.name);
      const list = hidden.length > 6 ? `${hidden.slice(0, 6).join(', ')}, …` : hidden.join(', ');
      notes.push(
        `${hidden.length} of ${columns.length} columns did not fit the terminal: ${list} — pick columns with --fields, or use -f csv`,
      );
    }
  }
  const shownColumns = columns.slice(0, shown);
  const widths = natural.slice(0, shown);
  const rule = (l: string, m: string, r: string) => `${l}${widths.map((w) => '─'.repeat(w + 2)).join(m)}${r}`;
  const line = (texts: readonly string[], style?: (s: string) => string) => {
    let out = '│';
    for (let i = 0; i < widths.length; i++) {
      const t = texts[i];
      const pad = ' '.repeat(widths[i] - displayWidth(t));
      const shownText = style ? style(t) : t;
      out += numeric[i] ? ` ${pad}${shownText} │` : ` ${shownText}${pad} │`;
    }
    return out;
  };
  const bold = o.color ? (s: string) => `\x1b[1m${s}\x1b[22m` : undefined;
  const lines = [
    rule('┌', '┬', '┐'),
    line(
      shownColumns.map((c) => printable(c.name)),
      bold,
    ),
    rule('├', '┼', '┤'),
  ];
  for (const r of cells) lines.push(line(r));
  lines.push(rule('└', '┴', '┘'));
  return { text: `${lines.join('\n')}\n`, notes };
}

/**
 * Text safe to put in a table row: control characters (newlines, tabs, and ESC, which would let data
 * drive the terminal) become spaces.
 */
export function printable(s: string): string {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 32 || c === 127 || (c >= 0x80 && c < 0xa0))
      return s.replace(/[\u0000-\u001f\u007f-\u009f]/g, ' ');
  }
  return s;
}

/** True for code points a terminal draws two cells wide (CJK, Hangul, full-width forms, most emoji). */
export function isWide(cp: number): boolean {
  return (
    cp >= 0x1100 &&
    (cp <= 0x115f ||
      (cp >= 0x2e80 && cp <= 0x303e) ||
      (cp >= 0x3041 && cp <= 0x33ff) ||
      (cp >= 0x3400 && cp <= 0x4dbf) ||
      (cp >= 0x4e00 && cp <= 0x9fff) ||
      (cp >= 0xa000 && cp <= 0xa4cf) ||
      (cp >= 0xac00 && cp <= 0xd7a3) ||
      (cp >= 0xf900 && cp <= 0xfaff) ||
      (cp >= 0xfe30 && cp <= 0xfe4f) ||
      (cp >= 0xff00 && cp <= 0xff60) ||
      (cp >= 0xffe0 && cp <= 0xffe6) ||
      (cp >= 0x1f300 && cp <= 0x1f64f) ||
      (cp >= 0x1f900 && cp <= 0x1f9ff) ||
      (cp >= 0x20000 && cp <= 0x3fffd))
  );
}

/** Terminal cells a text takes: one per code point, two for wide ones (an approximation of wcwidth). */
export function displayWidth(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x1100) n++;
    else {
      const cp = s.codePointAt(i)!;
      if (cp > 0xffff) i++;
      n += isWide(cp) ? 2 : 1;
    }
  }
  return n;
}
