// The table: numbers right-aligned, never cut. On a terminal, until it fits: long text shortened; columns
// left out, least important first (never a key or a --fields one); else one block per record.
import { eastAsianWidth } from 'get-east-asian-width';
import { familyOf, isJsonNumeric, type ReportType, type Row } from '../domain.js';
import { type Column, cellText, NET_PRICE_TOTAL, PORTFOLIO_COLUMN, specColumns, valueAt } from './columns.js';

export interface TableOptions {
  color: boolean;
  /** A terminal's columns. */
  width?: number;
  type?: ReportType;
  picked?: boolean;
}

const MAX_TEXT_WIDTH = 40;
const MIN_SPLIT_WIDTH = 8;
const MIN_NAME_WIDTH = 8;

/**
 * Cut to `max` terminal cells with "…" in the middle, keeping the tail that tells rows apart ("… EUR",
 * "…602"): the last word when short, else an id's last third; prose ending in a long word keeps its start.
 */
export function truncate(s: string, max: number): string {
  if (displayWidth(s) <= max) return s;
  const tail = max >= MIN_SPLIT_WIDTH ? tailOf(s, Math.floor((max - 1) / 3)) : '';
  const out = fitting(s, max - 1 - displayWidth(tail));
  return `${tail ? out.trimEnd() : out}…${tail}`;
}

function fitting(s: string, room: number, fromEnd = false): string {
  let out = '';
  let width = 0;
  for (const ch of fromEnd ? [...s].reverse() : s) {
    width += charWidth(ch);
    if (width > room) break;
    out = fromEnd ? ch + out : out + ch;
  }
  return out;
}

function tailOf(s: string, room: number): string {
  const word = /[^\s\-_/.]+$/u.exec(s)?.[0] ?? '';
  if (word !== '' && displayWidth(word) <= room) return word;
  if (/\s/u.test(s)) return '';
  const tail = fitting(s, room, true);
  // A combining mark whose letter stayed behind would sit on the ellipsis.
  return tail.replace(/^[\p{Mn}\p{Me}\p{Cf}]+/u, '');
}

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

export function renderTable(
  rows: readonly Row[],
  columns: readonly Column[],
  o: TableOptions,
): { text: string; notes: string[] } {
  const numeric = columns.map((c) => isNumericColumn(rows, c));
  const names = columns.map((c) => printable(c.name));
  // Widths are planned on capped texts; the full text is cut once, to its final width.
  const texts = rows.map((row) =>
    columns.map((c, i) => {
      const text = cellText(valueAt(row, c.path));
      return numeric[i] ? text : printable(text);
    }),
  );
  const width = o.width ?? Number.POSITIVE_INFINITY;
  const cap = o.width === undefined ? width : MAX_TEXT_WIDTH;
  const cells = texts.map((r) => r.map((t, i) => (numeric[i] ? t : truncate(t, cap))));
  const natural = names.map((name, i) =>
    cells.reduce((w, r) => Math.max(w, displayWidth(r[i])), displayWidth(name)),
  );
  const { rank, keep } = priorities(names, o.type, o.picked === true);
  const layout = planTable(
    names.map((name, i) => ({ name, natural: natural[i], numeric: numeric[i], header: displayWidth(name) })),
    width,
    rank,
    keep,
  );
  if (layout.kind === 'records')
    return { text: drawRecords(names, texts, numeric, width, o.color), notes: [] };
  const widthOf = new Map(layout.shown.map((i, k) => [i, layout.widths[k]]));
  const fitted = texts.map((r) =>
    r.map((t, i) => (numeric[i] || !widthOf.has(i) ? t : truncate(t, Math.min(cap, widthOf.get(i)!)))),
  );
  const hidden = layout.hidden.map((i) => columns[i].name);
  const notes = hidden.length > 0 ? [hiddenNote(hidden, columns.length)] : [];
  return { text: drawTable(names, fitted, numeric, layout.shown, layout.widths, o.color), notes };
}

// Identifiers and codes (ISIN, SEDOL, tickers, dates) stay whole, or their column goes.
const SHORT_TEXT_WIDTH = 16;
const MIN_TEXT_WIDTH = 10;

/**
 * Each family's columns, most important first (the first `key` of them must stay); those not named rank
 * after them in spec order.
 */
const RANKS: Record<ReturnType<typeof familyOf>, { key: number; rank: string[] }> = {
  index: {
    key: 2,
    rank: ['indexName', 'indexValue', 'effectiveDate', 'currency', 'closeMarketValue', 'openMarketValue'],
  },
  constituents: {
    key: 4,
    rank: [
      'isin',
      'securityTicker',
      'closingPrice',
      'indexWeighting',
      'securityName',
      'currency',
      'effectiveDate',
      'indexShares',
    ],
  },
  'corporate actions': {
    key: 5,
    rank: [
      'isin',
      'securityTicker',
      'eventType',
      'exDate',
      'status',
      'effectiveDate',
      'currency',
      'eventSubType',
      'mandVol',
      'payDate',
      'recordDate',
      'announceDate',
      'paf',
      'saf',
      'oldPrice',
      'newPrice',
      'cashFlowPerShare',
      'cashFlowPerShareCurrency',
      'eventId',
      'sedol',
      'securityRic',
      'rebalanceDate',
      ...['newShares', 'oldShares', 'indexName', 'indexId'].flatMap(NET_PRICE_TOTAL),
    ],
  },
};

export interface LayoutColumn {
  name: string;
  natural: number;
  numeric: boolean;
  header: number;
}

export const rowWidth = (widths: readonly number[]): number => widths.reduce((n, w) => n + w + 3, 1);

export const minWidth = (c: LayoutColumn): number =>
  c.numeric || c.natural <= SHORT_TEXT_WIDTH ? c.natural : Math.max(c.header, MIN_TEXT_WIDTH);

export function priorities(
  names: readonly string[],
  type: ReportType | undefined,
  picked: boolean,
): { rank: number[]; keep: number } {
  const all = names.map((_, i) => i);
  if (picked) return { rank: all, keep: all.length };
  if (type === undefined) return { rank: all, keep: Math.min(1, all.length) };
  const { key, rank } = RANKS[familyOf(type)];
  const order = [PORTFOLIO_COLUMN, ...rank, ...specColumns(type).filter((c) => !rank.includes(c))];
  const place = (n: string) => (order.includes(n) ? order.indexOf(n) : order.length);
  const ranked = [...all].sort((a, b) => place(names[a]) - place(names[b]));
  return { rank: ranked, keep: names.filter((n) => place(n) <= key).length };
}

/** `rank`: column indexes, most important first; its first `keep` may not be left out. */
export function planTable(
  columns: readonly LayoutColumn[],
  width: number,
  rank: readonly number[],
  keep: number,
): { kind: 'table'; shown: number[]; widths: number[]; hidden: number[] } | { kind: 'records' } {
  const natural = columns.map((c) => c.natural);
  const all = columns.map((_, i) => i);
  if (rowWidth(natural) <= width) return { kind: 'table', shown: all, widths: natural, hidden: [] };
  const min = columns.map(minWidth);
  const total = (set: readonly number[]) => rowWidth(set.map((i) => min[i]));
  const chosen = rank.slice(0, keep);
  if (total(chosen) > width) return { kind: 'records' };
  for (const i of rank.slice(keep)) if (total([...chosen, i]) <= width) chosen.push(i);
  const shown = chosen.sort((a, b) => a - b);
  let spare = width - total(shown);
  const widths = new Map(shown.map((i) => [i, min[i]]));
  for (const i of rank) {
    if (!widths.has(i) || spare <= 0) continue;
    const more = Math.min(spare, natural[i] - min[i]);
    widths.set(i, min[i] + more);
    spare -= more;
  }
  return {
    kind: 'table',
    shown,
    widths: shown.map((i) => widths.get(i)!),
    hidden: all.filter((i) => !widths.has(i)),
  };
}

export function hiddenNote(hidden: readonly string[], total: number): string {
  const list = hidden.length > 6 ? `${hidden.slice(0, 6).join(', ')}, …` : hidden.join(', ');
  return `${hidden.length} of ${total} columns did not fit the terminal: ${list} — pick columns with --fields, or use -f csv`;
}

const boldOf = (color: boolean) => (color ? (s: string) => `\x1b[1m${s}\x1b[22m` : (s: string) => s);

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

/** As psql's `\x`. */
function drawRecords(
  names: readonly string[],
  cells: readonly string[][],
  numeric: readonly boolean[],
  width: number,
  color: boolean,
): string {
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

/** Control characters (ESC would let data drive the terminal) become spaces. */
export const printable = (s: string): string => s.replace(/[\u0000-\u001f\u007f-\u009f]/g, ' ');

function charWidth(ch: string): number {
  const cp = ch.codePointAt(0)!;
  if (cp < 0x300) return 1;
  // Built at first use, not when a run loads this file: a Unicode property class is costly to build.
  if (/^[\p{Mn}\p{Me}\p{Cf}]$/u.test(ch)) return 0;
  return eastAsianWidth(cp);
}

export function displayWidth(s: string): number {
  if (/^[\u0000-\u02ff]*$/.test(s)) return s.length;
  let n = 0;
  for (const ch of s) n += charWidth(ch);
  return n;
}
