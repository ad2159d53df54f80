/**
 * Portfolio 77, a small index whose composition changes, for `prs diff` (README: what happens when).
 * Pro forma shows the next business day's composition and events at this day's prices.
 */
import type { ReportType } from '../domain.js';
import { addDays, dayNumber, nextBusinessDay, weekday } from './calendar.js';
import {
  actionRow,
  between,
  constituent,
  decimal,
  fxOn,
  indexRow,
  indexVariants,
  isinCheckDigit,
  jitter,
  mix,
  type Portfolio,
  type Security,
  scale,
  security,
  shareSet,
} from './portfolios.js';
import { num, type Row } from './wire.js';

export const REBALANCE_PORTFOLIO_ID = 77;
const ID = REBALANCE_PORTFOLIO_ID;
const NAME = 'Rebalance Demo';
const FIRST_YEAR = 2020;
/** Members besides the dual listing: securities p … p+MEMBERS-1 in period p. */
const MEMBERS = 6;

/** The effective date of rebalance `p` (1: March 2020, 2: June 2020, …): the Monday after the third Friday. */
export function rebalanceDate(p: number): string {
  const year = FIRST_YEAR + Math.floor((p - 1) / 4);
  const month = 3 * (((p - 1) % 4) + 1);
  const firstFriday = 1 + ((5 - new Date(Date.UTC(year, month - 1, 1)).getUTCDay() + 7) % 7);
  return `${year}-${String(month).padStart(2, '0')}-${firstFriday + 17}`;
}

export function periodOf(eff: string): number {
  let p = Math.max(0, (Number(eff.slice(0, 4)) - FIRST_YEAR) * 4 - 1);
  while (rebalanceDate(p + 1) <= eff) p++;
  while (p > 0 && rebalanceDate(p) > eff) p--;
  return p;
}

/** The day member `i` splits 2-for-1: two business days after rebalance i-3 (none for i < 4). */
const splitDate = (i: number) => (i >= 4 ? nextBusinessDay(rebalanceDate(i - 3), 2) : undefined);
const splitBy = (i: number, eff: string) => (splitDate(i) ?? '9999') <= eff;

const DUAL_BODY = 'GB00B7K3N9Q';
/** The dual listing: one ISIN, two tickers, always a member (as i = 1000 and 1001). */
const dual = (listing: 0 | 1): Security => ({
  ...security(ID, 1000 + listing),
  isin: DUAL_BODY + isinCheckDigit(DUAL_BODY),
  name: 'Orion Maritime plc',
  ticker: listing === 0 ? 'ORN LN' : 'ORN NA',
  currency: listing === 0 ? 'GBP' : 'EUR',
  fxMicro: listing === 0 ? 1_163_412 : 1_000_000,
});

type Member = { i: number; sec: Security };
function members(p: number): Member[] {
  const out: Member[] = [];
  for (let i = p; i < p + MEMBERS; i++) out.push({ i, sec: security(ID, i) });
  return [...out, { i: 1000, sec: dual(0) }, { i: 1001, sec: dual(1) }];
}

/** Index shares (1e-6 units) of a member in period p, doubled once its split took effect by `eff`. */
const sharesOf = (m: Member, p: number, eff: string) =>
  scale(m.sec.sharesUnits, jitter(2000, ID, m.i, p, 9)) * (splitBy(m.i, eff) ? 2 : 1);

/** Price (1e-5 units) on `day` (salt: close 1, open 2), halved once the member's split applies. */
const priceOf = (m: Member, day: string, salt: number, splitDay: string) =>
  Math.floor(
    scale(m.sec.priceUnits, jitter(3000, ID, m.i, dayNumber(day), salt)) / (splitBy(m.i, splitDay) ? 2 : 1),
  );

function constituents(type: ReportType, eff: string): Row[] {
  const at = type === 'constituent.proforma' ? nextBusinessDay(eff) : eff;
  const p = periodOf(at);
  const list = members(p);
  const raw = list.map((m) => between(mix(ID, m.i, p, 8), 100, 1000));
  const total = raw.reduce((a, b) => a + b, 0);
  return list.map((m, k) =>
    constituent(
      eff,
      m.sec,
      decimal(priceOf(m, eff, type === 'constituent.open' ? 2 : 1, at), 5),
      decimal(fxOn(m.sec, dayNumber(eff)), 6),
      decimal(sharesOf(m, p, at), 6),
      // 20 decimals: more digits than a double holds, so a diff's exactness shows.
      decimal((BigInt(raw[k]!) * 10n ** 20n) / BigInt(total), 20),
    ),
  );
}

const VARIANTS = indexVariants(ID, NAME, 'EUR');

/** The events on `event` (reported on `eff`): a split two days after a rebalance, a dividend on Fridays. */
function corporateActions(eff: string, proforma: boolean): Row[] {
  const event = proforma ? nextBusinessDay(eff) : eff;
  const p = periodOf(event);
  const ratio = (a: number, b: number) => num(decimal(BigInt(Math.round((a / b) * 1e4)) * 1_000_000n, 10));
  /** A row of `m`'s event: shares in 1e-6 units and prices in 1e-5 units, before and after. */
  const row = (
    m: Member,
    id: string,
    kind: [string, string | null],
    shares: number[],
    prices: number[],
    cash = 0,
  ) =>
    actionRow(VARIANTS, m.sec, {
      eventId: `CA-${ID}-${event.replaceAll('-', '')}-${id}`,
      eventType: kind[0],
      eventSubType: kind[1],
      mandVol: 'MAND',
      status: proforma ? 'Announced' : 'Confirmed',
      announceDate: addDays(event, -14),
      exDate: event,
      recordDate: nextBusinessDay(event),
      payDate: cash > 0 ? addDays(event, 10) : null,
      effectiveDate: eff,
      rebalanceDate: null,
      oldShares: shareSet(decimal(shares[0]!, 6)),
      newShares: shareSet(decimal(shares[1]!, 6)),
      oldPrice: num(decimal(prices[0]!, 5)),
      newPrice: num(decimal(prices[1]!, 5)),
      paf: ratio(prices[1]!, prices[0]!),
      saf: ratio(shares[1]!, shares[0]!),
      cashFlowPerShare: num(decimal(cash, 5)),
    });
  const out: Row[] = [];
  const splitting = members(p).find((m) => splitDate(m.i) === event);
  if (splitting) {
    const before = addDays(event, -1);
    const [shares, price] = [sharesOf(splitting, p, before), priceOf(splitting, before, 1, before)];
    out.push(
      row(splitting, 'S1', ['Stock Split', null], [shares, shares * 2], [price, Math.floor(price / 2)]),
    );
  }
  if (weekday(event) === 5) {
    const m = members(p)[dayNumber(event) % MEMBERS]!;
    const [shares, price] = [sharesOf(m, p, event), priceOf(m, event, 1, event)];
    const cash = Math.floor(price / 100);
    out.push(row(m, 'D1', ['Cash Dividend', 'Regular'], [shares, shares], [price, price - cash], cash));
  }
  return out;
}

function* rows(type: ReportType, eff: string): Generator<Row> {
  if (type === 'index') {
    // Literals a double cannot tell apart, alternating day by day (2024-03-14 → 2024-03-15).
    const odd = dayNumber(eff) % 2 === 1;
    yield indexRow(ID, NAME, 'EUR', 0, eff, {
      totalReturnIndex: num(odd ? '12.3456789012345679' : '12.3456789012345678'),
      trackingError: num(odd ? '5E-13' : '0.049999999999'),
    });
  } else if (type.endsWith('corporateactions')) yield* corporateActions(eff, type.includes('proforma'));
  else yield* constituents(type, eff);
}

export const REBALANCE: Portfolio = { id: ID, name: NAME, inception: '2020-01-02', rows };
