/**
 * Portfolio 77, "Rebalance Demo": a small index whose composition changes, for `prs diff` to show.
 * - Quarterly rebalances, effective the Monday after the third Friday of March, June, September and
 *   December (2024-03-18, 2024-06-24, …): one security leaves, one enters, weights and shares move.
 * - A dual listing: one ISIN, two tickers (ORN LN in GBP, ORN NA in EUR), always in.
 * - A 2-for-1 stock split two business days after each rebalance (2024-03-20, …) of one member: its
 *   shares double and its price halves, and that day's corporate-action report explains it.
 * - A cash dividend every Friday; prices move every day; open prices differ from close prices;
 *   weights carry 20 decimals and the index row two literals a double cannot hold (exactness).
 * - Pro forma (constituents and corporate actions) shows the next business day's composition and
 *   events with this day's prices: on 2024-03-15 the composition that takes effect on 2024-03-18.
 * Every value is a pure function of the date, as for the other portfolios.
 */
import type { ReportType } from '../domain.js';
import { addDays, dayNumber, nextBusinessDay } from './calendar.js';
import { indexRow, indexVariants, isinCheckDigit, type Security, security } from './universe.js';
import { between, decimal, type Fields, mix, num, type Val } from './values.js';

export const REBALANCE_PORTFOLIO_ID = 77;
const ID = REBALANCE_PORTFOLIO_ID;
export const REBALANCE_NAME = 'Rebalance Demo';
const NAME = REBALANCE_NAME;
const FIRST_YEAR = 2020;
/** Members besides the dual listing: securities p … p+MEMBERS-1 in period p. */
const MEMBERS = 6;

const pad = (n: number) => String(n).padStart(2, '0');

/** The effective date of rebalance `p` (1: March 2020, 2: June 2020, …). */
export function rebalanceDate(p: number): string {
  const year = FIRST_YEAR + Math.floor((p - 1) / 4);
  const month = 3 * (((p - 1) % 4) + 1);
  const first = new Date(Date.UTC(year, month - 1, 1)).getUTCDay();
  const firstFriday = 1 + ((5 - first + 7) % 7);
  return `${year}-${pad(month)}-${pad(firstFriday + 14 + 3)}`;
}

/** How many rebalances took effect on or before `eff` (0 before the first). */
export function periodOf(eff: string): number {
  let p = Math.max(0, (Number(eff.slice(0, 4)) - FIRST_YEAR) * 4 - 1);
  while (rebalanceDate(p + 1) <= eff) p++;
  while (p > 0 && rebalanceDate(p) > eff) p--;
  return p;
}

/** The day member `i` splits 2-for-1: two business days after rebalance i-3 (none for i < 4). */
const splitDate = (i: number): string | undefined =>
  i >= 4 ? nextBusinessDay(rebalanceDate(i - 3), 2) : undefined;
const splitBy = (i: number, eff: string): boolean => {
  const s = splitDate(i);
  return s !== undefined && s <= eff;
};

const DUAL_BODY = 'GB00B7K3N9Q';
const DUAL_ISIN = DUAL_BODY + isinCheckDigit(DUAL_BODY);
const dual = (listing: 0 | 1): Security => ({
  ...security(ID, 1000 + listing),
  isin: DUAL_ISIN,
  name: 'Orion Maritime plc',
  ticker: listing === 0 ? 'ORN LN' : 'ORN NA',
  currency: listing === 0 ? 'GBP' : 'EUR',
  fxMicro: listing === 0 ? 1_163_412 : 1_000_000,
});

/** 1 ± spread/1e5 as an integer numerator over 100000, from a hash. */
const jitter = (spread: number, ...parts: number[]) => 100_000 + (mix(...parts) % (2 * spread + 1)) - spread;
const scaled = (units: number, factor: number) => Math.floor((units * factor) / 100_000);

interface Member {
  i: number;
  sec: Security;
}

function members(p: number): Member[] {
  const out: Member[] = [];
  for (let i = p; i < p + MEMBERS; i++) out.push({ i, sec: security(ID, i) });
  out.push({ i: 1000, sec: dual(0) }, { i: 1001, sec: dual(1) });
  return out;
}

/** Index shares (1e-6 units) of a member in period p, doubled once its split took effect by `eff`. */
const sharesOf = (m: Member, p: number, eff: string) =>
  scaled(m.sec.sharesUnits, jitter(2000, ID, m.i, p, 9)) * (splitBy(m.i, eff) ? 2 : 1);

/** Price (1e-5 units) on `day` (salt: close 1, open 2), halved once the member's split applies. */
const priceOf = (m: Member, day: string, salt: number, splitDay: string) =>
  Math.floor(
    scaled(m.sec.priceUnits, jitter(3000, ID, m.i, dayNumber(day), salt)) / (splitBy(m.i, splitDay) ? 2 : 1),
  );

function constituents(type: ReportType, eff: string): Fields[] {
  // Pro forma: the next business day's composition, shares and weights, at this day's prices.
  const at = type === 'constituent.proforma' ? nextBusinessDay(eff) : eff;
  const p = periodOf(at);
  const list = members(p);
  const raw = list.map((m) => between(mix(ID, m.i, p, 8), 100, 1000));
  const total = raw.reduce((a, b) => a + b, 0);
  return list.map((m, k) => {
    const fx =
      m.sec.fxMicro === 1_000_000
        ? 1_000_000
        : scaled(m.sec.fxMicro, jitter(800, dayNumber(eff), m.sec.fxMicro));
    return [
      ['effectiveDate', eff],
      ['isin', m.sec.isin],
      ['securityName', m.sec.name],
      ['securityTicker', m.sec.ticker],
      ['closingPrice', num(decimal(priceOf(m, eff, type === 'constituent.open' ? 2 : 1, at), 5))],
      ['currency', m.sec.currency],
      ['closingFx', num(decimal(fx, 6))],
      ['indexShares', num(decimal(sharesOf(m, p, at), 6))],
      // 20 decimals: more digits than a double holds, so a diff's exactness shows.
      ['indexWeighting', num(decimal((BigInt(raw[k]!) * 10n ** 20n) / BigInt(total), 20))],
    ];
  });
}

const VARIANTS = indexVariants(ID, NAME, 'EUR');

/** A corporate-action row in the spec's field order. */
function actionRow(
  eff: string,
  event: string,
  m: Member,
  o: {
    id: string;
    type: string;
    sub: string | null;
    announced: boolean;
    oldShares: number;
    newShares: number;
    oldPrice: number;
    newPrice: number;
    cash: number;
  },
): Fields {
  const nested = (v: { Net: string; Price: string; Total: string }): Fields => [
    ['Net', v.Net],
    ['Price', v.Price],
    ['Total', v.Total],
  ];
  const shareSet = (units: number): Fields => [
    ['Price', num(decimal(units, 6))],
    ['Total', num(decimal(units, 6))],
    ['Net', num(decimal(units, 6))],
  ];
  const ratio = (a: number, b: number) => num(decimal(BigInt(Math.round((a / b) * 1e4)) * 1_000_000n, 10));
  const row: (readonly [string, Val])[] = [
    ['indexId', nested(VARIANTS.ids)],
    ['indexName', nested(VARIANTS.names)],
    ['isin', m.sec.isin],
    ['sedol', m.sec.sedol],
    ['securityTicker', m.sec.ticker],
    ['securityRic', m.sec.ric],
    ['currency', m.sec.currency],
    ['eventId', o.id],
    ['eventType', o.type],
    ['eventSubType', o.sub],
    ['mandVol', 'MAND'],
    ['status', o.announced ? 'Announced' : 'Confirmed'],
    ['announceDate', addDays(event, -14)],
    ['exDate', event],
    ['recordDate', nextBusinessDay(event)],
    ['payDate', o.cash > 0 ? addDays(event, 10) : null],
    ['effectiveDate', eff],
    ['rebalanceDate', null],
    ['oldShares', shareSet(o.oldShares)],
    ['newShares', shareSet(o.newShares)],
    ['oldPrice', num(decimal(o.oldPrice, 5))],
    ['newPrice', num(decimal(o.newPrice, 5))],
    ['paf', ratio(o.newPrice, o.oldPrice)],
    ['saf', ratio(o.newShares, o.oldShares)],
    ['cashFlowPerShare', num(decimal(o.cash, 5))],
    ['cashFlowPerShareCurrency', m.sec.currency],
  ];
  return row;
}

/** The events effective on `event` (a split two days after a rebalance; a dividend on Fridays). */
function corporateActions(eff: string, proforma: boolean): Fields[] {
  const event = proforma ? nextBusinessDay(eff) : eff;
  const p = periodOf(event);
  const tag = `CA-${ID}-${event.replaceAll('-', '')}`;
  const out: Fields[] = [];
  const splitting = members(p).find((m) => splitDate(m.i) === event);
  if (splitting) {
    const before = sharesOf(splitting, p, addDays(event, -1));
    const price = priceOf(splitting, addDays(event, -1), 1, addDays(event, -1));
    out.push(
      actionRow(eff, event, splitting, {
        id: `${tag}-S1`,
        type: 'Stock Split',
        sub: null,
        announced: proforma,
        oldShares: before,
        newShares: before * 2,
        oldPrice: price,
        newPrice: Math.floor(price / 2),
        cash: 0,
      }),
    );
  }
  if (new Date(`${event}T00:00:00Z`).getUTCDay() === 5) {
    const list = members(p);
    const m = list[dayNumber(event) % MEMBERS]!;
    const price = priceOf(m, event, 1, event);
    const cash = Math.floor(price / 100);
    const shares = sharesOf(m, p, event);
    out.push(
      actionRow(eff, event, m, {
        id: `${tag}-D1`,
        type: 'Cash Dividend',
        sub: 'Regular',
        announced: proforma,
        oldShares: shares,
        newShares: shares,
        oldPrice: price,
        newPrice: price - cash,
        cash,
      }),
    );
  }
  return out;
}

/** The rows of a type on an effective date (portfolios.ts builds the portfolio around them). */
export function* rebalanceRows(type: ReportType, eff: string): Generator<Fields> {
  if (type === 'index') {
    // Literals a double cannot tell apart, alternating day by day: 2024-03-14 → 2024-03-15 gives
    // 12.3456789012345679 − 12.3456789012345678 and 5E-13 − 0.049999999999.
    const odd = dayNumber(eff) % 2 === 1;
    yield indexRow(ID, NAME, 'EUR', 0, eff, [
      ['totalReturnIndex', num(odd ? '12.3456789012345679' : '12.3456789012345678')],
      ['trackingError', num(odd ? '5E-13' : '0.049999999999')],
    ]);
  } else if (type === 'constituent.corporateactions') yield* corporateActions(eff, false);
  else if (type === 'constituent.proformacorporateactions') yield* corporateActions(eff, true);
  else yield* constituents(type, eff);
}
