/**
 * CSV content of the export's zip. Constituent types use the spec's columns exactly; the spec shows no
 * columns for the index and corporate-action types, so the sandbox uses its own (documented) ones:
 * the row's spec fields in spec order, nested objects flattened in their key order. Extra fields are
 * never in the CSV (the column set is fixed per type). Lines end in "\n"; cells follow RFC 4180 quoting;
 * null is an empty cell; numbers are the JSON literals verbatim.
 */

import type { ReportType } from '../domain.js';
import { type Fields, get, isNum, type Val } from './values.js';

/** [header, path] pairs: a path is a key or "key.subkey". */
type Columns = readonly (readonly [string, string])[];

const CONSTITUENT: Columns = [
  ['Effective Date', 'effectiveDate'],
  ['ISIN', 'isin'],
  ['Security Name', 'securityName'],
  ['Security Ticker', 'securityTicker'],
  ['Exchange Code', 'exchangeCode'],
  ['Closing Price', 'closingPrice'],
  ['Currency', 'currency'],
  ['Closing Fx', 'closingFx'],
  ['Index Shares', 'indexShares'],
  ['Index Weighting', 'indexWeighting'],
];

const INDEX: Columns = [
  ['Effective Date', 'effectiveDate'],
  ['Index ID', 'indexId'],
  ['Index Name', 'indexName'],
  ['Index Value', 'indexValue'],
  ['Currency', 'currency'],
  ['Close Market Value', 'closeMarketValue'],
  ['Open Market Value', 'openMarketValue'],
  ['Close Divisor', 'closeDivisor'],
  ['Open Divisor', 'openDivisor'],
];

const nested = (label: string, key: string, subs: readonly string[]): Columns =>
  subs.map((s) => [`${label} ${s}`, `${key}.${s}`] as const);

const CORPORATE_ACTIONS: Columns = [
  ...nested('Index ID', 'indexId', ['Net', 'Price', 'Total']),
  ...nested('Index Name', 'indexName', ['Net', 'Price', 'Total']),
  ['ISIN', 'isin'],
  ['SEDOL', 'sedol'],
  ['Security Ticker', 'securityTicker'],
  ['Security RIC', 'securityRic'],
  ['Currency', 'currency'],
  ['Event ID', 'eventId'],
  ['Event Type', 'eventType'],
  ['Event Sub Type', 'eventSubType'],
  ['Mand Vol', 'mandVol'],
  ['Status', 'status'],
  ['Announce Date', 'announceDate'],
  ['Ex Date', 'exDate'],
  ['Record Date', 'recordDate'],
  ['Pay Date', 'payDate'],
  ['Effective Date', 'effectiveDate'],
  ['Rebalance Date', 'rebalanceDate'],
  ...nested('Old Shares', 'oldShares', ['Price', 'Total', 'Net']),
  ...nested('New Shares', 'newShares', ['Price', 'Total', 'Net']),
  ['Old Price', 'oldPrice'],
  ['New Price', 'newPrice'],
  ['PAF', 'paf'],
  ['SAF', 'saf'],
  ['Cash Flow Per Share', 'cashFlowPerShare'],
  ['Cash Flow Per Share Currency', 'cashFlowPerShareCurrency'],
];

export function csvColumns(type: ReportType): Columns {
  if (type === 'index') return INDEX;
  if (type === 'constituent.corporateactions' || type === 'constituent.proformacorporateactions')
    return CORPORATE_ACTIONS;
  return CONSTITUENT;
}

/** RFC 4180: quote a cell holding a comma, a quote or a line break; double the quotes. */
export function csvCell(text: string): string {
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

function cellText(v: Val | undefined): string {
  if (v === undefined || v === null) return '';
  if (typeof v === 'string') return v;
  if (typeof v === 'boolean') return String(v);
  if (isNum(v)) return v.num;
  return ''; // a nested object where a scalar column was expected: nothing sensible to print
}

function lookup(row: Fields, path: string): Val | undefined {
  const dot = path.indexOf('.');
  if (dot < 0) return get(row, path);
  const parent = get(row, path.slice(0, dot));
  return Array.isArray(parent) ? get(parent as Fields, path.slice(dot + 1)) : undefined;
}

export const csvHeader = (type: ReportType): string =>
  `${csvColumns(type)
    .map(([h]) => csvCell(h))
    .join(',')}\n`;

export function csvLine(type: ReportType, row: Fields): string {
  const cols = csvColumns(type);
  let s = '';
  for (let i = 0; i < cols.length; i++) {
    if (i > 0) s += ',';
    s += csvCell(cellText(lookup(row, cols[i][1])));
  }
  return `${s}\n`;
}
