// How a table fits a terminal, in order until it fits: every column at its natural width; long text
// shortened; columns left out, least important first (never a key or a --fields one); else records.
import type { ReportType } from '../domain.js';
import { PORTFOLIO_COLUMN } from './columns.js';

/** Identifiers and codes (ISIN, SEDOL, tickers, dates) stay whole, or their column goes. */
const SHORT_TEXT_WIDTH = 16;
const MIN_TEXT_WIDTH = 10;

const triple = (k: string) => [`${k}.Net`, `${k}.Price`, `${k}.Total`];

/** A report's columns, most important first: the first `key` of them must stay. */
const INDEX = {
  key: 2,
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
};
const CONSTITUENT = {
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
    'closingFx',
  ],
};
const ACTIONS = {
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
    ...triple('newShares'),
    ...triple('oldShares'),
    ...triple('indexName'),
    ...triple('indexId'),
  ],
};

export interface LayoutColumn {
  name: string;
  /** Widest cell or header, in terminal cells. */
  natural: number;
  numeric: boolean;
  header: number;
}

/** "│ a │ b │": one border, then width + 3 each. */
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
  const { key, rank } = type === 'index' ? INDEX : type.endsWith('corporateactions') ? ACTIONS : CONSTITUENT;
  const order = [PORTFOLIO_COLUMN, ...rank];
  const place = (n: string) => {
    const i = order.indexOf(n);
    return i < 0 ? order.length : i;
  };
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
