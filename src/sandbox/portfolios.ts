// Every value is a pure function of (portfolio, security, day): the same request gives the same bytes.
import type { ReportType } from '../domain.js';
import { addDays, dayNumber, nextBusinessDay, weekday } from './calendar.js';
import { num, type Row } from './wire.js';

/** Decimal text of `units / 10^decimals`, trailing zeros dropped: digits never pass a double. */
export function decimal(units: bigint | number, decimals: number): string {
  const s = (units < 0 ? -units : units).toString().padStart(decimals + 1, '0');
  const frac = s.slice(s.length - decimals).replace(/0+$/, '');
  return `${units < 0 ? '-' : ''}${s.slice(0, s.length - decimals)}${frac ? `.${frac}` : ''}`;
}
const dec = (units: bigint, decimals: number) => num(decimal(units, decimals));

export function mix(...parts: number[]): number {
  let h = 0x9e3779b9;
  for (const p of parts) {
    h = Math.imul(h ^ (p | 0), 0x85ebca6b);
    h ^= h >>> 13;
    h = Math.imul(h, 0xc2b2ae35);
    h ^= h >>> 16;
  }
  return h >>> 0;
}

const between = (h: number, lo: number, hi: number): number => lo + (h % (hi - lo + 1));
const jitter = (spread: number, ...parts: number[]): number =>
  100_000 + (mix(...parts) % (2 * spread + 1)) - spread;
const scale = (units: number, factor: number): number => Math.floor((units * factor) / 100_000);
const saltOf = (type: ReportType) =>
  type === 'constituent.open' ? 2 : type === 'constituent.proforma' ? 3 : 1;

// country, currency, ticker suffix, exchange, legal form, EUR per unit in 1e-6 units (before daily jitter)
const MARKETS = `DE EUR GY XETR AG 1000000, FR EUR FP XPAR SA 1000000, NL EUR NA XAMS NV 1000000,
  IT EUR IM XMIL SpA 1000000, ES EUR SM XMAD SA 1000000, GB GBP LN XLON plc 1163412,
  CH CHF SW XSWX AG 1032871, US USD UN XNYS Inc 921334, JP JPY JT XTKS KK 6212`
  .split(',')
  .map((m) => {
    const [country, currency, suffix, exchange, legal, fx] = m.trim().split(' ');
    return { country, currency, suffix, exchange, legal, fxMicro: Number(fx) };
  });
const FIRST =
  `Alpine Baltic Crown Delta Evergreen Fjord Granite Harbor Iris Juniper Keystone Lumen Meridian Northwind
  Orion Pioneer Quarry Riverside Summit Tidewater Union Vantage Westbrook Zenith`.split(/\s+/);
const SECOND =
  `Energy Holdings Industries Bank Motors Pharma Telecom Foods Insurance Utilities Chemicals Logistics
  Software Mining Retail Media`.split(/\s+/);
const SECTORS = ['Energy', 'Financials', 'Industrials', 'Health Care', 'Technology', 'Consumer', 'Utilities'];
const ALNUM = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ';
const LUHN_DOUBLED = [0, 2, 4, 6, 8, 1, 3, 5, 7, 9];

/** ISO 6166: letters to numbers (A=10 … Z=35), then Luhn from the right. */
export function isinCheckDigit(body11: string): number {
  const digits = [...[...body11].map((c) => ALNUM.indexOf(c)).join('')].reverse().map(Number);
  const sum = digits.reduce((s, d, i) => s + (i % 2 ? d : LUHN_DOUBLED[d]), 0);
  return (10 - (sum % 10)) % 10;
}

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

export function uuid(...parts: number[]): string {
  const hex = [1, 2, 3, 4].map((k) => (2 ** 32 + mix(...parts, k)).toString(16).slice(1)).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

const weightOf = (pid: number, i: number): number => between(mix(pid, i, 8), 1, 1000);

/** Security `i` of portfolio `pid`; prices in 1e-5 units, shares in 1e-6 units. */
export function security(pid: number, i: number) {
  const m = MARKETS[mix(pid, i) % MARKETS.length];
  const body = m.country + chars(ALNUM, 9, pid, i, 7);
  const t = mix(pid, i, 11);
  const ticker = chars(ALNUM.slice(10), 3 + (t % 2), pid, i, 13);
  return {
    isin: body + isinCheckDigit(body),
    name: `${FIRST[mix(pid, i, 1) % FIRST.length]} ${SECOND[mix(pid, i, 2) % SECOND.length]} ${m.legal}`,
    ticker: `${ticker} ${m.suffix}`,
    exchangeCode: i % 17 === 16 ? '' : m.exchange,
    sedol: t % 5 !== 0 ? chars(ALNUM, 7, pid, i, 17) : null,
    ric: t % 7 === 0 ? null : `${ticker}.${m.suffix}`,
    country: m.country,
    currency: m.currency,
    sector: SECTORS[mix(pid, i, 3) % SECTORS.length],
    fxMicro: m.fxMicro,
    priceUnits: between(mix(pid, i, 4), 100_000, 90_000_000),
    sharesUnits: between(mix(pid, i, 5), 1_000_000, 2_000_000_000) * 1000 + (mix(pid, i, 6) % 1000),
  };
}
type Security = ReturnType<typeof security>;

const fxOn = (sec: Security, day: number): number =>
  sec.fxMicro === 1_000_000 ? 1_000_000 : scale(sec.fxMicro, jitter(800, day, sec.fxMicro));

type Listing = Pick<Security, 'isin' | 'name' | 'ticker' | 'currency'>;
const constituent = (eff: string, sec: Listing, [price, fx, shares, weighting]: string[]): Row => ({
  effectiveDate: eff,
  isin: sec.isin,
  securityName: sec.name,
  securityTicker: sec.ticker,
  closingPrice: num(price),
  currency: sec.currency,
  closingFx: num(fx),
  indexShares: num(shares),
  indexWeighting: num(weighting),
});

const indexVariants = (pid: number, name: string, ccy: string) => ({
  pid,
  ids: { Net: uuid(pid, 91), Price: uuid(pid, 92), Total: uuid(pid, 93) },
  names: { Net: `${name} NR ${ccy}`, Price: `${name} ${ccy}`, Total: `${name} GR ${ccy}` },
});
type IndexVariants = ReturnType<typeof indexVariants>;

const shareSet = (units: bigint): Row => ({ Price: dec(units, 6), Total: dec(units, 6), Net: dec(units, 6) });

type Change = { shares: bigint[]; prices: bigint[]; cash: bigint };

/** A split, bonus or rights issue resizes shares and price; any other event pays `cashPerMille` of the price. */
function changeOf(type: string, shares: bigint, price: bigint, mul: bigint, cashPerMille: bigint): Change {
  const resize: Record<string, bigint[]> = {
    'Stock Split': [mul, 1n, 1n, mul],
    'Bonus Issue': [11n, 10n, 10n, 11n],
    'Rights Issue': [6n, 5n, 95n, 100n],
  };
  const [sm, sd, pm, pd] = resize[type] ?? [1n, 1n, 1n, 1n];
  const cash = resize[type] ? 0n : (price * cashPerMille) / 1000n;
  return { shares: [shares, (shares * sm) / sd], prices: [price, (price * pm) / pd - cash], cash };
}

function actionRow(v: IndexVariants, sec: Security, { shares, prices, cash }: Change, event: Row): Row {
  const ratio = (a: bigint, b: bigint) => dec(b === 0n ? 10n ** 10n : (a * 10n ** 10n) / b, 10);
  return {
    indexId: v.ids,
    indexName: v.names,
    isin: sec.isin,
    sedol: sec.sedol,
    securityTicker: sec.ticker,
    securityRic: sec.ric,
    currency: sec.currency,
    ...event,
    oldShares: shareSet(shares[0]),
    newShares: shareSet(shares[1]),
    oldPrice: dec(prices[0], 5),
    newPrice: dec(prices[1], 5),
    paf: ratio(prices[1], prices[0]),
    saf: ratio(shares[1], shares[0]),
    cashFlowPerShare: dec(cash, 5),
    cashFlowPerShareCurrency: sec.currency,
  };
}

const EVENTS =
  'Cash Dividend/Regular,Cash Dividend,Special Dividend,Stock Split,Rights Issue/Renounceable,Bonus Issue';

function corporateActionRow(v: IndexVariants, sec: Security, k: number, eff: string, proforma: boolean) {
  const pid = v.pid;
  const day = dayNumber(eff);
  const h = mix(pid, k, day, proforma ? 5 : 4);
  const events = EVENTS.split(',');
  const [type, sub = null] = events[h % events.length].split('/');
  const exDate = proforma ? nextBusinessDay(eff, 1 + (h % 3)) : eff;
  const oldPrice = BigInt(scale(sec.priceUnits, jitter(3000, pid, k, day)));
  const change = changeOf(type, BigInt(sec.sharesUnits), oldPrice, BigInt(2 + (h % 3)), BigInt(1 + (h % 40)));
  return actionRow(v, sec, change, {
    eventId: `CA-${pid}-${eff.replaceAll('-', '')}-${proforma ? 'P' : 'C'}${k + 1}`,
    eventType: type,
    eventSubType: sub,
    mandVol: type === 'Rights Issue' ? 'VOLU' : 'MAND',
    status: proforma && h % 2 ? 'Announced' : 'Confirmed',
    announceDate: h % 3 === 0 ? null : addDays(exDate, -14 - (h % 10)),
    exDate,
    recordDate: h % 4 === 0 ? null : nextBusinessDay(exDate),
    payDate: h % 5 === 0 || change.cash === 0n ? null : addDays(exDate, 10 + (h % 20)),
    effectiveDate: eff,
    rebalanceDate: h % 2 === 0 ? null : addDays(eff, -1),
  });
}

function indexFields(eff: string, id: string, name: string, ccy: string, values: string[]): Row {
  const [indexValue, closeMarketValue, openMarketValue, closeDivisor, openDivisor] = values.map(num);
  const head = { effectiveDate: eff, indexId: id, indexName: `${name} ${ccy}`, indexValue, currency: ccy };
  return { ...head, closeMarketValue, openMarketValue, closeDivisor, openDivisor };
}

/** Close, open, divisor and open divisor in 1e-6 units; market value = value × 10,000. */
function indexValues(units: bigint[]): string[] {
  const [value, , divisor, openDivisor] = units.map((u) => decimal(u, 6));
  return [value, `${units[0] / 100n}`, `${units[1] / 100n}`, divisor, openDivisor];
}
function indexRow(pid: number, name: string, ccy: string, v: number, eff: string, extras: Row = {}) {
  const day = dayNumber(eff);
  const base = between(mix(pid, v, 21), 800_000_000, 3_000_000_000);
  const value = (d: number) => BigInt(scale(base, jitter(4000, pid, v, d)));
  const divisor = BigInt(between(mix(pid, v, 22), 1_000_000_000, 90_000_000_000)) * 1000n;
  const values = [value(day), value(day - 1), divisor, divisor + BigInt(mix(pid, v, day) % 1000)];
  return { ...indexFields(eff, uuid(pid, v, 31), name, ccy, indexValues(values)), ...extras };
}

export interface Portfolio {
  id: number;
  /** The index name without its currency word, for file names. */
  name: string;
  inception: string;
  failStatus?: number;
  index?(eff: string): Iterable<Row>;
  actions?(eff: string, proforma: boolean): Iterable<Row>;
  constituents?(type: ReportType, eff: string): Iterable<Row>;
}

export function rowsOf(p: Portfolio, type: ReportType, eff: string): Iterable<Row> {
  if (type === 'index') return p.index?.(eff) ?? [];
  if (type.endsWith('corporateactions')) return p.actions?.(eff, type.includes('proforma')) ?? [];
  return p.constituents?.(type, eff) ?? [];
}

function universe(
  id: number,
  name: string,
  inception: string,
  size: number,
  currencies: string[],
  extras: boolean,
  actions: [number, number],
): Portfolio {
  let totalWeight = 0;
  for (let i = 0; i < size; i++) totalWeight += weightOf(id, i);
  const variants = indexVariants(id, name, currencies[0]);
  return {
    id,
    name,
    inception,
    index: (eff) =>
      currencies.map((ccy, v) => {
        const more = { indexType: v % 2 ? 'Net Return' : 'Price', numberOfConstituents: num(String(size)) };
        return indexRow(id, name, ccy, v, eff, extras ? more : {});
      }),
    actions(eff, proforma) {
      const day = dayNumber(eff);
      const n = size > 0 ? between(mix(id, day, proforma ? 2 : 1), actions[0], actions[1]) : 0;
      const sec = (k: number) => security(id, mix(id, day, k) % size);
      return Array.from({ length: n }, (_, k) => corporateActionRow(variants, sec(k), k, eff, proforma));
    },
    *constituents(type, eff) {
      const day = dayNumber(eff);
      const salt = saltOf(type);
      for (let i = 0; i < size; i++) {
        const sec = security(id, i);
        const price = scale(sec.priceUnits, jitter(3000, id, i, day, salt));
        // Pro forma shares anticipate the next rebalance; close and open share the same count.
        const shares = salt === 3 ? scale(sec.sharesUnits, jitter(2000, id, i, day, 3)) : sec.sharesUnits;
        const weighting = decimal(Math.floor((weightOf(id, i) * 1e10) / totalWeight), 10);
        const fx = decimal(fxOn(sec, day), 6);
        const row = constituent(eff, sec, [decimal(price, 5), fx, decimal(shares, 6), weighting]);
        const { exchangeCode, sedol, country, sector } = sec;
        yield extras ? { ...row, exchangeCode, sedol, country, sector } : row;
      }
    },
  };
}

function anchored(units: bigint, eff: string, anchor: string, ...salt: number[]): bigint {
  if (eff === anchor) return units;
  return (units * BigInt(100_000 + (mix(...salt, dayNumber(eff)) % 8001) - 4000)) / 100_000n;
}

const ANCHOR = '2023-06-29';
const EXAMPLE_INDEX = [
  ['EUR', 1302917413n, 10000000000000n, 'a3f1c2d4-5b6e-4f70-8a91-b2c3d4e5f601'],
  ['JPY', 204584097214n, 1366099984339n, 'a3f1c2d4-5b6e-4f70-8a91-b2c3d4e5f602'],
] as const;
// isin|name (its last word the currency)|ticker|price (1e-5 units)|shares|weighting
const EXAMPLE_CONSTITUENTS = [
  'EU0009654569|STOXX Example 600 OIL & GAS NET EUR|SXER Index|99657944|6549.996509|0.500998',
  'CH0102878927|STOXX EXAMPLE 600 OIL & GAS GROSS EUR|SXEGR Index|24276633|13417.402222|0.25',
  'EU000A0C3QF0|STOXX Example 600 OIL & GAS PRICE EUR|SXEP Index|40122871|5560.118832|0.149001',
  'XS0000000009|STOXX Example 600 OIL & GAS NET USD|SXEUSDR Index|108740212|1509.270011|0.100001',
].map((row) => row.split('|'));
const EXAMPLE_VARIANTS = indexVariants(42, 'Example 600 OG', 'EUR');

/** Portfolio 42, modelled on the public docs' example: on 2023-06-29 (and 30) its rows carry the docs' values. */
const EXAMPLE_600: Portfolio = {
  id: 42,
  name: 'Example 600 OG',
  inception: '2018-01-02',
  index: (eff) =>
    EXAMPLE_INDEX.map(([ccy, units, divisor, id], v) => {
      const value = anchored(units, eff, ANCHOR, 42, v);
      return indexFields(eff, id, 'Example 600 OG', ccy, indexValues([value, value, divisor, divisor]));
    }),
  actions: (eff, proforma) =>
    [0, 1].map((k) =>
      corporateActionRow(EXAMPLE_VARIANTS, security(42, k + (proforma ? 10 : 0)), k, eff, proforma),
    ),
  constituents: (type, eff) =>
    EXAMPLE_CONSTITUENTS.map(([isin, name, ticker, price, shares, weight], i) => {
      const salt = saltOf(type);
      // The close rows carry the docs' values on their anchor day: the 30th for the CSV example's row.
      const anchor = salt !== 1 ? '' : i === 1 ? '2023-06-30' : ANCHOR;
      const currency = name.slice(-3);
      const fx = currency === 'EUR' ? '1' : decimal(anchored(916784n, eff, anchor, 42, 99), 6);
      const closing = decimal(anchored(BigInt(price), eff, anchor, 42, i, salt), 5);
      return constituent(eff, { isin, name, ticker, currency }, [closing, fx, shares, weight]);
    }),
};

// isin|name|ticker|currency|price|fx|shares|weighting, and fields past the spec's
const PRECISION_CONSTITUENTS: [string, Row][] = [
  [
    'FR0000130809|Société Générale, "A" Shares|GLE FP|EUR|1234567.123456789012|1.0|12345678901234567890|0.333333333333333333333',
    { exchangeCode: 'XPAR', comment: 'line one\nline two', flags: { esg: true, adr: false } },
  ],
  [
    'JP3633400001|トヨタ自動車 (Toyota Motor)|7203 JT|JPY|9007199254740993|0.006212345678901234567|0.1|0.333333333333333333333',
    { exchangeCode: 'XTKS', comment: null },
  ],
  [
    'GB00B03MLX29|Zero & Tiny; "Quoted" Co|ZTC LN|GBP|0.00000001|1.163412000000000000001|1E-7|0.333333333333333333334',
    { exchangeCode: '' },
  ],
];
const PRECISION_INDEX =
  '1234567.123456789012 12345678901234567890 98765432109876543210 0.000000000000000001 6.02214076E+23';

/** Portfolio 13: literals a double cannot hold, written verbatim, and text that needs CSV quoting. */
const PRECISION: Portfolio = {
  id: 13,
  name: 'Précision Stress',
  inception: '2020-01-02',
  index: (eff) => [
    {
      ...indexFields(eff, uuid(13, 1), 'Précision Stress', 'EUR', PRECISION_INDEX.split(' ')),
      dailyReturn: num('-0.0001234567890123456789'),
      isProvisional: false,
      revision: { source: 'sandbox', number: num('3') },
      note: null,
    },
  ],
  actions: (eff, proforma) => [
    {
      ...corporateActionRow(indexVariants(13, 'Précision Stress', 'EUR'), security(13, 0), 0, eff, proforma),
      oldShares: {
        Price: num('12345678901234567890'),
        Total: num('12345678901234567890.000001'),
        Net: num('1E+20'),
      },
      oldPrice: num('1234567.123456789012'),
      paf: num('0.99999999999999999999'),
    },
  ],
  constituents: (_, eff) =>
    PRECISION_CONSTITUENTS.map(([fields, extras]) => {
      const [isin, name, ticker, currency, ...values] = fields.split('|');
      return { ...constituent(eff, { isin, name, ticker, currency }, values), ...extras };
    }),
};

// Portfolio 77 changes composition (`prs diff`); pro forma is the next business day's at today's prices.
const ID = 77;
const NAME = 'Rebalance Demo';
const FIRST_YEAR = 2020;
const MEMBERS = 6;

/** The effective date of rebalance `p` (1: March 2020, 2: June 2020, …): the Monday after the third Friday. */
function rebalanceDate(p: number): string {
  const year = FIRST_YEAR + Math.floor((p - 1) / 4);
  const month = 3 * (((p - 1) % 4) + 1);
  const firstFriday = 1 + ((5 - new Date(Date.UTC(year, month - 1, 1)).getUTCDay() + 7) % 7);
  return `${year}-${String(month).padStart(2, '0')}-${firstFriday + 17}`;
}

function periodOf(eff: string): number {
  const p = (Number(eff.slice(0, 4)) - FIRST_YEAR) * 4 + Math.floor(Number(eff.slice(5, 7)) / 3);
  return Math.max(0, p > 0 && rebalanceDate(p) > eff ? p - 1 : p);
}

/** The day member `i` splits 2-for-1: two business days after rebalance i-3 (none for i < 4). */
const splitDate = (i: number) => (i >= 4 ? nextBusinessDay(rebalanceDate(i - 3), 2) : undefined);
const splitBy = (i: number, eff: string) => (splitDate(i) ?? '9999') <= eff;

const DUAL_BODY = 'GB00B7K3N9Q';
const dual = (listing: 0 | 1): Security => ({
  ...security(ID, 1000 + listing),
  isin: DUAL_BODY + isinCheckDigit(DUAL_BODY),
  name: 'Orion Maritime plc',
  ticker: listing === 0 ? 'ORN LN' : 'ORN NA',
  currency: listing === 0 ? 'GBP' : 'EUR',
  fxMicro: listing === 0 ? 1_163_412 : 1_000_000,
});

type Member = { i: number; sec: Security };
const members = (p: number): Member[] => [
  ...Array.from({ length: MEMBERS }, (_, k) => ({ i: p + k, sec: security(ID, p + k) })),
  { i: 1000, sec: dual(0) },
  { i: 1001, sec: dual(1) },
];

const sharesOf = (m: Member, p: number, eff: string) =>
  scale(m.sec.sharesUnits, jitter(2000, ID, m.i, p, 9)) * (splitBy(m.i, eff) ? 2 : 1);

const priceOf = (m: Member, day: string, salt: number, splitDay: string) =>
  Math.floor(
    scale(m.sec.priceUnits, jitter(3000, ID, m.i, dayNumber(day), salt)) / (splitBy(m.i, splitDay) ? 2 : 1),
  );

const VARIANTS = indexVariants(ID, NAME, 'EUR');

/** The events on `event` (reported on `eff`): a split two days after a rebalance, a dividend on Fridays. */
function corporateActions(eff: string, proforma: boolean): Row[] {
  const event = proforma ? nextBusinessDay(eff) : eff;
  const p = periodOf(event);
  const action = (m: Member, id: string, [type, sub]: [string, string | null], day: string) => {
    const change = changeOf(type, BigInt(sharesOf(m, p, day)), BigInt(priceOf(m, day, 1, day)), 2n, 10n);
    return actionRow(VARIANTS, m.sec, change, {
      eventId: `CA-${ID}-${event.replaceAll('-', '')}-${id}`,
      eventType: type,
      eventSubType: sub,
      mandVol: 'MAND',
      status: proforma ? 'Announced' : 'Confirmed',
      announceDate: addDays(event, -14),
      exDate: event,
      recordDate: nextBusinessDay(event),
      payDate: change.cash > 0n ? addDays(event, 10) : null,
      effectiveDate: eff,
      rebalanceDate: null,
    });
  };
  const splitting = members(p).find((m) => splitDate(m.i) === event);
  const paying = weekday(event) === 5 ? members(p)[dayNumber(event) % MEMBERS] : undefined;
  return [
    ...(splitting ? [action(splitting, 'S1', ['Stock Split', null], addDays(event, -1))] : []),
    ...(paying ? [action(paying, 'D1', ['Cash Dividend', 'Regular'], event)] : []),
  ];
}

const REBALANCE: Portfolio = {
  id: ID,
  name: NAME,
  inception: '2020-01-02',
  index(eff) {
    // Literals a double cannot tell apart, alternating day by day (2024-03-14 → 2024-03-15).
    const odd = dayNumber(eff) % 2 === 1;
    const extras = {
      totalReturnIndex: num(odd ? '12.3456789012345679' : '12.3456789012345678'),
      trackingError: num(odd ? '5E-13' : '0.049999999999'),
    };
    return [indexRow(ID, NAME, 'EUR', 0, eff, extras)];
  },
  actions: corporateActions,
  constituents(type, eff) {
    const at = type === 'constituent.proforma' ? nextBusinessDay(eff) : eff;
    const p = periodOf(at);
    const list = members(p);
    const raw = list.map((m) => between(mix(ID, m.i, p, 8), 100, 1000));
    const total = raw.reduce((a, b) => a + b, 0);
    return list.map((m, k) =>
      constituent(eff, m.sec, [
        decimal(priceOf(m, eff, type === 'constituent.open' ? 2 : 1, at), 5),
        decimal(fxOn(m.sec, dayNumber(eff)), 6),
        decimal(sharesOf(m, p, at), 6),
        // 20 decimals: more digits than a double holds, so a diff's exactness shows.
        decimal((BigInt(raw[k]) * 10n ** 20n) / BigInt(total), 20),
      ]),
    );
  },
};

export function createCatalog(bigExportRows: number): Map<number, Portfolio> {
  const list: Portfolio[] = [
    universe(1, 'Sandbox Europe 50', '2010-01-04', 50, ['EUR', 'USD'], true, [0, 3]),
    universe(7, 'Global Broad', '2015-01-02', 20_000, ['EUR', 'USD', 'JPY'], true, [5, 30]),
    PRECISION,
    EXAMPLE_600,
    { id: 101, name: 'Empty Shell', inception: '2000-01-03' },
    { id: 500, name: 'Broken', inception: '2000-01-03', failStatus: 500 },
    universe(900, 'Big Export', '2000-01-03', bigExportRows, ['EUR'], false, [1, 3]),
    REBALANCE,
  ];
  return new Map(list.map((p) => [p.id, p]));
}
