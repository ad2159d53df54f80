/**
 * The terminal table: columns in the order given, numbers right-aligned and never cut; on a terminal
 * the layout (table-layout.ts) shortens text, leaves columns out, or prints one block per record.
 * Drawn by hand: cli-table3 was slow on large reports and cannot rule off only the header.
 */
import { eastAsianWidth } from 'get-east-asian-width';
import { isJsonNumeric, type ReportType, type Row } from '../domain.js';
import { type Column, cellText, valueAt } from './columns.js';
import { hiddenNote, planTable, priorities } from './table-layout.js';

export interface TableOptions {
  /** Colour the header (io.color). */
  color: boolean;
  /** Fit into this many columns (a terminal); undefined: show every column in full. */
  width?: number;
  /** The report type: which columns matter most when not all fit. */
  type?: ReportType;
  /** The columns were asked for (--fields): none is left out. */
  picked?: boolean;
}

export interface TableResult {
  text: string;
  /** Things the user should know on stderr, after the table (columns left out). */
  notes: string[];
}

/** Longest text cell shown on a terminal; longer text ends in "…". */
export const MAX_TEXT_WIDTH = 40;

/**
 * A cell's text cut to `max` terminal cells with "…" in the middle, keeping its tail (numbers are
 * never cut: they are passed whole). Rows often differ only at the end — "Example 600 OG EUR" and
 * "… JPY", ids ending …601 and …602 — so the tail is what tells them apart: the last word when it is
 * short (a third of the room at most), else, for a text without spaces (an id), its last third.
 * Under MIN_SPLIT_WIDTH cells, or for prose ending in a long word, only the start is kept.
 */
export function truncate(s: string, max: number): string {
  if (displayWidth(s) <= max) return s;
  const tail = max >= MIN_SPLIT_WIDTH ? tailOf(s, Math.floor((max - 1) / 3)) : '';
  const budget = max - 1 - displayWidth(tail);
  let out = '';
  let width = 0;
  for (const ch of s) {
    const w = charWidth(ch);
    if (width + w > budget) break;
    out += ch;
    width += w;
  }
  // "Example 6…EUR", not "Example …EUR" with a space before the ellipsis.
  return `${tail ? out.trimEnd() : out}…${tail}`;
}

/** Narrowest cell shortened in the middle; narrower ones keep their start only. */
const MIN_SPLIT_WIDTH = 8;

/** The end of `s` that fits in `room` cells: its last word if short enough, else its last characters. */
function tailOf(s: string, room: number): string {
  const word = /[^\s\-_/.]+$/u.exec(s)?.[0] ?? '';
  if (word !== '' && displayWidth(word) <= room) return word;
  // Prose whose last word is long: a fragment ("…ration") would tell less than the start alone.
  if (/\s/u.test(s)) return '';
  const chars = [...s];
  let tail = '';
  let width = 0;
  for (let i = chars.length - 1; i >= 0; i--) {
    const w = charWidth(chars[i]);
    if (width + w > room) break;
    tail = chars[i] + tail;
    width += w;
  }
  // A combining mark whose letter stayed behind would sit on the ellipsis.
  return tail.replace(/^[\p{Mn}\p{Me}\p{Cf}]+/u, '');
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

export function renderTable(rows: readonly Row[], columns: readonly Column[], o: TableOptions): TableResult {
  const numeric = columns.map((c) => isNumericColumn(rows, c));
  const names = columns.map((c) => printable(c.name));
  // The full texts, and (on a terminal) those capped at MAX_TEXT_WIDTH: their widths plan the layout;
  // a narrower column shortens the full text again, so that the middle cut is made once.
  const texts = rows.map((row) =>
    columns.map((c, i) => {
      const text = cellText(valueAt(row, c.path));
      return numeric[i] ? text : printable(text);
    }),
  );
  const cells =
    o.width === undefined
      ? texts
      : texts.map((r) => r.map((t, i) => (numeric[i] ? t : truncate(t, MAX_TEXT_WIDTH))));
  const natural = names.map((name, i) =>
    cells.reduce((w, r) => Math.max(w, displayWidth(r[i])), displayWidth(name)),
  );
  const all = columns.map((_, i) => i);
  if (o.width === undefined)
    return { text: drawTable(names, cells, numeric, all, natural, o.color), notes: [] };
  const { rank, keep } = priorities(
    columns.map((c) => c.name),
    o.type,
    o.picked === true,
  );
  const layout = planTable(
    names.map((name, i) => ({ name, natural: natural[i], numeric: numeric[i], header: displayWidth(name) })),
    o.width,
    rank,
    keep,
  );
  if (layout.kind === 'records')
    return { text: drawRecords(names, texts, numeric, o.width, o.color), notes: [] };
  const widthOf = new Map(layout.shown.map((i, k) => [i, layout.widths[k]]));
  const fitted = texts.map((r) =>
    r.map((t, i) =>
      numeric[i] || !widthOf.has(i) ? t : truncate(t, Math.min(MAX_TEXT_WIDTH, widthOf.get(i)!)),
    ),
  );
  const notes =
    layout.hidden.length > 0
      ? [
          hiddenNote(
            layout.hidden.map((i) => columns[i].name),
            columns.length,
          ),
        ]
      : [];
  return { text: drawTable(names, fitted, numeric, layout.shown, layout.widths, o.color), notes };
}

/** Narrowest the name column of records gets before names are shortened. */
const MIN_NAME_WIDTH = 8;

const boldOf = (color: boolean) => (color ? (s: string) => `\x1b[1m${s}\x1b[22m` : (s: string) => s);

/** The box: header, rule, one line per row, of the `shown` columns (indexes) at `widths`. */
function drawTable(
  names: readonly string[],
  cells: readonly string[][],
  numeric: readonly boolean[],
  shown: readonly number[],
  widths: readonly number[],
  color: boolean,
): string {
  const rule = (l: string, m: string, r: string) => `${l}${widths.map((w) => '─'.repeat(w + 2)).join(m)}${r}`;
  const line = (texts: readonly string[], style: (s: string) => string = (s) => s) => {
    let out = '│';
    for (let k = 0; k < shown.length; k++) {
      const i = shown[k];
      const t = texts[i];
      const pad = ' '.repeat(Math.max(0, widths[k] - displayWidth(t)));
      out += numeric[i] ? ` ${pad}${style(t)} │` : ` ${style(t)}${pad} │`;
    }
    return out;
  };
  const lines = [rule('┌', '┬', '┐'), line(names, boldOf(color)), rule('├', '┼', '┤')];
  for (const r of cells) lines.push(line(r));
  lines.push(rule('└', '┴', '┘'));
  return `${lines.join('\n')}\n`;
}

/**
 * One block per record, every column on its own line (as psql's `\x`): a rule naming the record, then
 * `name │ value`, text values shortened to the terminal's width (numbers whole).
 */
function drawRecords(
  names: readonly string[],
  cells: readonly string[][],
  numeric: readonly boolean[],
  width: number,
  color: boolean,
): string {
  // Names take at most half the width; values the rest.
  const nameWidth = Math.min(
    Math.max(0, ...names.map(displayWidth)),
    Math.max(MIN_NAME_WIDTH, Math.floor(width / 2)),
  );
  const valueWidth = Math.max(1, width - nameWidth - 3);
  const bold = boldOf(color);
  const lines: string[] = [];
  cells.forEach((r, n) => {
    const title = `─[ ${n + 1} of ${cells.length} ]`;
    lines.push(
      title + '─'.repeat(Math.max(0, Math.min(width, nameWidth + 3 + valueWidth) - displayWidth(title))),
    );
    names.forEach((name, i) => {
      const label = truncate(name, nameWidth);
      const value = numeric[i] ? r[i] : truncate(r[i], Math.min(MAX_TEXT_WIDTH, valueWidth));
      lines.push(`${bold(label)}${' '.repeat(nameWidth - displayWidth(label))} │ ${value}`.trimEnd());
    });
  });
  return `${lines.join('\n')}\n`;
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

/** Combining marks, enclosing marks and format characters (zero-width joiner, ...): no cell of their own. */
const ZERO_WIDTH = /^[\p{Mn}\p{Me}\p{Cf}]$/u;

/** Terminal cells one code point takes: 0 for marks that combine, 2 for East Asian wide and full-width. */
function charWidth(ch: string): number {
  const cp = ch.codePointAt(0)!;
  if (cp < 0x300) return 1;
  if (ZERO_WIDTH.test(ch)) return 0;
  return eastAsianWidth(cp);
}

/** Terminal cells a (printable) text takes, as a terminal draws it. */
export function displayWidth(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    // The usual case, Latin text, without building strings.
    if (s.charCodeAt(i) < 0x300) {
      n++;
      continue;
    }
    const cp = s.codePointAt(i)!;
    const ch = String.fromCodePoint(cp);
    if (cp > 0xffff) i++;
    n += charWidth(ch);
  }
  return n;
}
