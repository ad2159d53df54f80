/**
 * Synthetic securities and the rows built from them. Every value is a pure function of
 * (portfolio id, security index, day), so the same request always gives the same bytes and a
 * portfolio of any size can be generated row by row without holding it in memory.
 */

import type { ReportType } from '../domain.js';
import { addDays, dayNumber, nextBusinessDay } from './calendar.js';
import { between, decimal, type Fields, mix, num, type Val } from './values.js';

interface Market {
  country: string;
  currency: string;
  suffix: string;
  exchange: string;
  legal: string;
  /** Index currency (EUR) per unit of this currency, in 1e-6 units, before daily jitter. */
  fxMicro: number;
}

const MARKETS: readonly Market[] = [
  { country: 'DE', currency: 'EUR', suffix: 'GY', exchange: 'XETR', legal: 'AG', fxMicro: 1_000_000 },
  { country: 'FR', currency: 'EUR', suffix: 'FP', exchange: 'XPAR', legal: 'SA', fxMicro: 1_000_000 },
  { country: 'NL', currency: 'EUR', suffix: 'NA', exchange: 'XAMS', legal: 'NV', fxMicro: 1_000_000 },
  { country: 'IT', currency: 'EUR', suffix: 'IM', exchange: 'XMIL', legal: 'SpA', fxMicro: 1_000_000 },
  { country: 'ES', currency: 'EUR', suffix: 'SM', exchange: 'XMAD', legal: 'SA', fxMicro: 1_000_000 },
  { country: 'GB', currency: 'GBP', suffix: 'LN', exchange: 'XLON', legal: 'plc', fxMicro: 1_163_412 },
  { country: 'CH', currency: 'CHF', suffix: 'SW', exchange: 'XSWX', legal: 'AG', fxMicro: 1_032_871 },
  { country: 'US', currency: 'USD', suffix: 'UN', exchange: 'XNYS', legal: 'Inc', fxMicro: 921_334 },
  { country: 'JP', currency: 'JPY', suffix: 'JT', exchange: 'XTKS', legal: 'KK', fxMicro: 6_212 },
];

const FIRST = [
  'Alpine',
  'Baltic',
  'Crown',
  'Delta',
  'Evergreen',
  'Fjord',
  'Granite',
  'Harbor',
  'Iris',
  'Juniper',
  'Keystone',
  'Lumen',
  'Meridian',
  'Northwind',
  'Orion',
  'Pioneer',
  'Quarry',
  'Riverside',
  'Summit',
  'Tidewater',
  'Union',
  'Vantage',
  'Westbrook',
  'Zenith',
];
const SECOND = [
  'Energy',
  'Holdings',
  'Industries',
  'Bank',
  'Motors',
  'Pharma',
  'Telecom',
  'Foods',
  'Insurance',
  'Utilities',
  'Chemicals',
  'Logistics',
  'Software',
  'Mining',
  'Retail',
  'Media',
];
const SECTORS = ['Energy', 'Financials', 'Industrials', 'Health Care', 'Technology', 'Consumer', 'Utilities'];
const ALNUM = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ';
const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';

/** ISIN check digit (ISO 6166: letters to numbers, then Luhn). */
export function isinCheckDigit(body11: string): number {
  // Digits of the body with letters expanded (A=10 … Z=35), summed Luhn-style from the right.
  let digits = '';
  for (let i = 0; i < body11.length; i++) digits += ALNUM.indexOf(body11[i]);
  let sum = 0;
  for (let i = digits.length - 1, double = true; i >= 0; i--, double = !double) {
    let d = (digits.charCodeAt(i) - 48) * (double ? 2 : 1);
    if (d > 9) d -= 9;
    sum += d;
  }
  return (10 - (sum % 10)) % 10;
}

/** `n` characters of `alphabet` drawn from hashes of `parts` (one hash gives six characters). */
function chars(alphabet: string, n: number, ...parts: number[]): string {
  let s = '';
  let h = 0;
  for (let k = 0; k < n; k++) {
    if (k % 6 === 0) h = mix(...parts, k);
    s += alphabet[h % alphabet.length];
    h = Math.floor(h / alphabet.length);
  }
  return s;
}

/** A deterministic UUID-shaped id. */
export function uuid(...parts: number[]): string {
  const hex = [1, 2, 3, 4]
    .map((k) =>
      mix(...parts, k)
        .toString(16)
        .padStart(8, '0'),
    )
    .join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** Relative weight 1..1000 of security `i` (normalised over the portfolio for indexWeighting). */
export const weightOf = (pid: number, i: number): number => between(mix(pid, i, 8), 1, 1000);

export interface Security {
  isin: string;
  name: string;
  ticker: string;
  exchangeCode: string;
  sedol: string | null;
  ric: string | null;
  country: string;
  currency: string;
  sector: string;
  fxMicro: number;
  /** Price in 1e-5 units on the reference day. */
  priceUnits: number;
  /** Index shares in 1e-6 units. */
  sharesUnits: number;
  /** Relative weight 1..1000 (normalised over the portfolio). */
  weight: number;
}

/** Security `i` of portfolio `pid`. */
export function security(pid: number, i: number): Security {
  const h = mix(pid, i);
  const m = MARKETS[h % MARKETS.length];
  const body = m.country + chars(ALNUM, 9, pid, i, 7);
  const isin = body + isinCheckDigit(body);
  const t = mix(pid, i, 11);
  const ticker = chars(LETTERS, 3 + (t % 2), pid, i, 13);
  const hasSedol = t % 5 !== 0;
  const sedol = chars(ALNUM, 7, pid, i, 17);
  return {
    isin,
    name: `${FIRST[mix(pid, i, 1) % FIRST.length]} ${SECOND[mix(pid, i, 2) % SECOND.length]} ${m.legal}`,
    ticker: `${ticker} ${m.suffix}`,
    exchangeCode: i % 17 === 16 ? '' : m.exchange,
    sedol: hasSedol ? sedol : null,
    ric: t % 7 === 0 ? null : `${ticker}.${m.suffix}`,
    country: m.country,
    currency: m.currency,
    sector: SECTORS[mix(pid, i, 3) % SECTORS.length],
    fxMicro: m.fxMicro,
    priceUnits: between(mix(pid, i, 4), 100_000, 90_000_000),
    sharesUnits: between(mix(pid, i, 5), 1_000_000, 2_000_000_000) * 1000 + (mix(pid, i, 6) % 1000),
    weight: weightOf(pid, i),
  };
}

/** A factor 1 ± spread/1e5 for (salt, day), as an integer numerator over 100000. */
const jitter = (spread: number, ...parts: number[]): number =>
  100_000 + (mix(...parts) % (2 * spread + 1)) - spread;

const scale = (units: number, factor: number): number => Math.floor((units * factor) / 100_000);

const TYPE_SALT: Record<string, number> = {
  'constituent.close': 1,
  'constituent.open': 2,
  'constituent.proforma': 3,
};

/** Options for constituent rows. */
export interface RowStyle {
  /** Add fields beyond the spec's list (exchangeCode, sedol, country, sector). */
  extras: boolean;
  /** Sum of all weights of the portfolio, for indexWeighting. */
  totalWeight: number;
}

/** A constituent row (close, open or pro forma): spec fields in spec order, then any extras. */
export function constituentRow(
  pid: number,
  sec: Security,
  i: number,
  type: ReportType,
  eff: string,
  style: RowStyle,
  day = dayNumber(eff),
): Fields {
  const salt = TYPE_SALT[type] ?? 1;
  const price = scale(sec.priceUnits, jitter(3000, pid, i, day, salt));
  const fx = sec.fxMicro === 1_000_000 ? 1_000_000 : scale(sec.fxMicro, jitter(800, day, sec.fxMicro));
  // Pro forma shares anticipate the next rebalance; close and open share the same count.
  const shares = salt === 3 ? scale(sec.sharesUnits, jitter(2000, pid, i, day, 3)) : sec.sharesUnits;
  const weighting = Math.floor((sec.weight * 1e10) / style.totalWeight);
  const row: (readonly [string, Val])[] = [
    ['effectiveDate', eff],
    ['isin', sec.isin],
    ['securityName', sec.name],
    ['securityTicker', sec.ticker],
    ['closingPrice', num(decimal(price, 5))],
    ['currency', sec.currency],
    ['closingFx', num(decimal(fx, 6))],
    ['indexShares', num(decimal(shares, 6))],
    ['indexWeighting', num(decimal(weighting, 10))],
  ];
  if (style.extras) {
    row.push(
      ['exchangeCode', sec.exchangeCode],
      ['sedol', sec.sedol],
      ['country', sec.country],
      ['sector', sec.sector],
    );
  }
  return row;
}

const EVENTS = [
  { type: 'Cash Dividend', sub: 'Regular' },
  { type: 'Cash Dividend', sub: null },
  { type: 'Special Dividend', sub: null },
  { type: 'Stock Split', sub: null },
  { type: 'Rights Issue', sub: 'Renounceable' },
  { type: 'Bonus Issue', sub: null },
] as const;

export interface IndexNames {
  /** Ids and names of the index's Net, Price and Total variants. */
  ids: { Net: string; Price: string; Total: string };
  names: { Net: string; Price: string; Total: string };
}

/** The three index variants a corporate-action row refers to. */
export function indexVariants(pid: number, name: string, currency: string): IndexNames {
  return {
    ids: { Net: uuid(pid, 91), Price: uuid(pid, 92), Total: uuid(pid, 93) },
    names: {
      Net: `${name} NR ${currency}`,
      Price: `${name} ${currency}`,
      Total: `${name} GR ${currency}`,
    },
  };
}

/**
 * Corporate-action row `k` of a day: all spec fields in spec order, nested Net/Price/Total objects, and
 * the nullable fields null on a deterministic share of the rows.
 */
export function corporateActionRow(
  pid: number,
  sec: Security,
  k: number,
  eff: string,
  proforma: boolean,
  index: IndexNames,
): Fields {
  const day = dayNumber(eff);
  const h = mix(pid, k, day, proforma ? 5 : 4);
  const ev = EVENTS[h % EVENTS.length];
  const exDate = proforma ? nextBusinessDay(eff, 1 + (h % 3)) : eff;
  const oldPrice = BigInt(scale(sec.priceUnits, jitter(3000, pid, k, day)));
  const shares = BigInt(sec.sharesUnits);
  let newPrice = oldPrice;
  let newShares = shares;
  let cash = 0n; // 1e-5 units
  if (ev.type === 'Stock Split' || ev.type === 'Bonus Issue') {
    const ratio = ev.type === 'Stock Split' ? BigInt(2 + (h % 3)) : 1n;
    // A bonus issue of 1 for 10: 11/10 shares; a split of r for 1.
    const [mul, div] = ev.type === 'Stock Split' ? [ratio, 1n] : [11n, 10n];
    newShares = (shares * mul) / div;
    newPrice = (oldPrice * div) / mul;
  } else if (ev.type === 'Rights Issue') {
    newShares = (shares * 6n) / 5n;
    newPrice = (oldPrice * 95n) / 100n;
  } else {
    cash = (oldPrice * BigInt(1 + (h % 40))) / 1000n;
    newPrice = oldPrice - cash;
  }
  const paf = oldPrice === 0n ? 10n ** 10n : (newPrice * 10n ** 10n) / oldPrice;
  const saf = (newShares * 10n ** 10n) / shares;
  const nested = (net: string, price: string, total: string): Fields => [
    ['Net', net],
    ['Price', price],
    ['Total', total],
  ];
  const shareSet = (v: bigint): Fields => [
    ['Price', num(decimal(v, 6))],
    ['Total', num(decimal(v, 6))],
    ['Net', num(decimal(v, 6))],
  ];
  return [
    ['indexId', nested(index.ids.Net, index.ids.Price, index.ids.Total)],
    ['indexName', nested(index.names.Net, index.names.Price, index.names.Total)],
    ['isin', sec.isin],
    ['sedol', sec.sedol],
    ['securityTicker', sec.ticker],
    ['securityRic', sec.ric],
    ['currency', sec.currency],
    ['eventId', `CA-${pid}-${eff.replaceAll('-', '')}-${proforma ? 'P' : 'C'}${k + 1}`],
    ['eventType', ev.type],
    ['eventSubType', ev.sub],
    ['mandVol', ev.type === 'Rights Issue' ? 'VOLU' : 'MAND'],
    ['status', proforma ? (h % 2 ? 'Announced' : 'Confirmed') : 'Confirmed'],
    ['announceDate', h % 3 === 0 ? null : addDays(exDate, -14 - (h % 10))],
    ['exDate', exDate],
    ['recordDate', h % 4 === 0 ? null : nextBusinessDay(exDate)],
    ['payDate', h % 5 === 0 || cash === 0n ? null : addDays(exDate, 10 + (h % 20))],
    ['effectiveDate', eff],
    ['rebalanceDate', h % 2 === 0 ? null : addDays(eff, -1)],
    ['oldShares', shareSet(shares)],
    ['newShares', shareSet(newShares)],
    ['oldPrice', num(decimal(oldPrice, 5))],
    ['newPrice', num(decimal(newPrice, 5))],
    ['paf', num(decimal(paf, 10))],
    ['saf', num(decimal(saf, 10))],
    ['cashFlowPerShare', num(decimal(cash, 5))],
    ['cashFlowPerShareCurrency', sec.currency],
  ];
}

/** An index row: spec fields in spec order, then any extras. */
export function indexRow(
  pid: number,
  name: string,
  currency: string,
  variant: number,
  eff: string,
  extras: Fields = [],
): Fields {
  const day = dayNumber(eff);
  const base = between(mix(pid, variant, 21), 800_000_000, 3_000_000_000); // 1e-6 units
  const close = scale(base, jitter(4000, pid, variant, day));
  const open = scale(base, jitter(4000, pid, variant, day - 1));
  const divisor = BigInt(between(mix(pid, variant, 22), 1_000_000_000, 90_000_000_000)) * 1000n;
  const mv = (value: number) => (BigInt(value) * 10_000n) / 1_000_000n;
  return [
    ['effectiveDate', eff],
    ['indexId', uuid(pid, variant, 31)],
    ['indexName', `${name} ${currency}`],
    ['indexValue', num(decimal(close, 6))],
    ['currency', currency],
    ['closeMarketValue', num(mv(close).toString())],
    ['openMarketValue', num(mv(open).toString())],
    ['closeDivisor', num(decimal(divisor, 6))],
    ['openDivisor', num(decimal(divisor + BigInt(mix(pid, variant, day) % 1000), 6))],
    ...extras,
  ];
}
