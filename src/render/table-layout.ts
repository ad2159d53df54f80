/**
 * How a table fits a terminal: which columns it keeps, how wide each is, or whether it turns into one
 * block per record (as psql's `\x auto`). Pure decisions on column widths; drawing is table.ts's.
 *
 * In order, until it fits:
 * 1. every column at its natural width (text already capped at MAX_TEXT_WIDTH);
 * 2. long text (wider than SHORT_TEXT_WIDTH) shortened with "…", down to its header or MIN_TEXT_WIDTH;
 * 3. columns left out, least important first (RANK), never the type's KEY columns nor a `--fields` one;
 * 4. otherwise records: every column on its own line.
 * Shown columns keep the order they came in (the spec's, or the user's --fields order).
 */

import type { ReportType } from '../domain.js';
import { PORTFOLIO_COLUMN } from './columns.js';

/**
 * Text this wide or narrower is never shortened: identifiers and codes (an ISIN's 12 characters, SEDOL,
 * tickers, dates, statuses, most event types) stay whole, or their column goes.
 */
export const SHORT_TEXT_WIDTH = 16;
/** Narrowest longer text (names, UUIDs) is shortened to, unless its header is wider. */
export const MIN_TEXT_WIDTH = 10;

const CONSTITUENT_KEY = ['isin', 'securityTicker', 'closingPrice', 'indexWeighting'];
const CONSTITUENT_RANK = [
  ...CONSTITUENT_KEY,
  'securityName',
  'currency',
  'effectiveDate',
  'indexShares',
  'closingFx',
];
const ACTIONS_KEY = ['isin', 'securityTicker', 'eventType', 'exDate', 'status'];
const triple = (k: string) => [`${k}.Net`, `${k}.Price`, `${k}.Total`];
const ACTIONS_RANK = [
  ...ACTIONS_KEY,
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
  ...triple('newShares'),
  ...triple('oldShares'),
  ...triple('indexName'),
  ...triple('indexId'),
];

/**
 * Per report type: the columns that identify a row and matter most (KEY: a terminal too narrow for
 * them gets records instead), then the rest by importance (RANK: the first left out are last here).
 * Columns not listed (a report configuration's extra fields) come after every listed one.
 */
export const COLUMN_PRIORITY: Record<ReportType, { key: readonly string[]; rank: readonly string[] }> = {
  index: {
    key: ['indexName', 'indexValue'],
    rank: [
      'indexName',
      'indexValue',
      'effectiveDate',
      'currency',
      'closeMarketValue',
      'openMarketValue',
      'indexId',
      'closeDivisor',
      'openDivisor',
    ],
  },
  'constituent.close': { key: CONSTITUENT_KEY, rank: CONSTITUENT_RANK },
  'constituent.open': { key: CONSTITUENT_KEY, rank: CONSTITUENT_RANK },
  'constituent.proforma': { key: CONSTITUENT_KEY, rank: CONSTITUENT_RANK },
  'constituent.corporateactions': { key: ACTIONS_KEY, rank: ACTIONS_RANK },
  'constituent.proformacorporateactions': { key: ACTIONS_KEY, rank: ACTIONS_RANK },
};

/** A column as the layout sees it. */
export interface LayoutColumn {
  name: string;
  /** Widest cell or header, in terminal cells (text capped at MAX_TEXT_WIDTH). */
  natural: number;
  /** Numbers are never shortened. */
  numeric: boolean;
  /** Widest header (never shortened). */
  header: number;
}

export type Layout =
  /** `shown`: indexes into the columns, in their order; `widths` beside them; `hidden` left out. */
  { kind: 'table'; shown: number[]; widths: number[]; hidden: number[] } | { kind: 'records' };

/** Width of a table row with these content widths: "│ a │ b │" is one border, then width + 3 each. */
export const rowWidth = (widths: readonly number[]): number => widths.reduce((n, w) => n + w + 3, 1);

/** The narrowest a column may be drawn. */
export const minWidth = (c: LayoutColumn): number =>
  c.numeric || c.natural <= SHORT_TEXT_WIDTH ? c.natural : Math.max(c.header, MIN_TEXT_WIDTH);

/**
 * Which columns must stay and in what order the others are given up. With --fields (`picked`) every
 * column is asked for; otherwise the type's priorities, `portfolioId` first of all.
 */
export function priorities(
  names: readonly string[],
  type: ReportType | undefined,
  picked: boolean,
): { rank: number[]; keep: number } {
  const all = names.map((_, i) => i);
  if (picked) return { rank: all, keep: all.length };
  if (type === undefined) return { rank: all, keep: Math.min(1, all.length) };
  const { key, rank } = COLUMN_PRIORITY[type];
  const order = [PORTFOLIO_COLUMN, ...rank];
  const place = (n: string) => {
    const i = order.indexOf(n);
    return i < 0 ? order.length : i;
  };
  // Stable: unlisted columns keep their own order after the listed ones.
  const ranked = [...all].sort((a, b) => place(names[a]) - place(names[b]));
  const required = new Set([PORTFOLIO_COLUMN, ...key]);
  return { rank: ranked, keep: names.filter((n) => required.has(n)).length };
}

/**
 * The layout of `columns` in `width` terminal cells. `rank` lists column indexes most important
 * first; its first `keep` may not be left out (when they cannot all fit: records).
 */
export function planTable(
  columns: readonly LayoutColumn[],
  width: number,
  rank: readonly number[],
  keep: number,
): Layout {
  const natural = columns.map((c) => c.natural);
  const all = columns.map((_, i) => i);
  if (rowWidth(natural) <= width) return { kind: 'table', shown: all, widths: natural, hidden: [] };
  const min = columns.map(minWidth);
  const total = (set: readonly number[]) => rowWidth(set.map((i) => min[i]));
  const chosen = rank.slice(0, keep);
  if (total(chosen) > width) return { kind: 'records' };
  // The others by importance: each one that still fits (a narrow one may fit where a wide one did not).
  for (const i of rank.slice(keep)) if (total([...chosen, i]) <= width) chosen.push(i);
  const shown = chosen.sort((a, b) => a - b);
  // Room left goes back to shortened text, most important column first.
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

/** The note for columns left out, shown after the table. */
export function hiddenNote(hidden: readonly string[], total: number): string {
  const list = hidden.length > 6 ? `${hidden.slice(0, 6).join(', ')}, …` : hidden.join(', ');
  return `${hidden.length} of ${total} columns did not fit the terminal: ${list} — pick columns with --fields, or use -f csv`;
}
