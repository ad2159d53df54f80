/**
 * The sandbox's portfolios (documented in the README section on the sandbox):
 *   1    Sandbox Europe 50: 50 constituents with extra fields, a handy size for tables.
 *   7    Global Broad: 20,000 constituents (performance work), extra fields, some empty exchange codes.
 *   13   Précision Stress: number-fidelity literals (1234567.123456789012, 12345678901234567890,
 *        9007199254740993, 1.0, 1E-7, 6.02214076E+23, ...) written verbatim, CSV quoting traps, a
 *        non-ASCII name (filename* in Content-Disposition), nested and boolean extra fields.
 *   42   Example 600 OG: modelled on the public docs (index rows "Example 600 OG EUR" / "... JPY").
 *   101  Empty Shell: exists, but every type and date has no data.
 *   500  Broken: always answers 500 once the request is valid (for retry handling).
 *   77   Rebalance Demo: a quarterly rebalance, a dual listing, a split (rebalance.ts; for `prs diff`).
 *   900  Big Export: `bigExportRows` constituent rows (default 1000), generated and streamed.
 */

import type { ReportType } from '../domain.js';
import { dayNumber } from './calendar.js';
import { REBALANCE_NAME, REBALANCE_PORTFOLIO_ID, rebalanceRows } from './rebalance.js';
import {
  constituentRow,
  corporateActionRow,
  indexRow,
  indexVariants,
  security,
  uuid,
  weightOf,
} from './universe.js';
import { between, decimal, type Fields, mix, num } from './values.js';

export interface Portfolio {
  id: number;
  /** Name words for file names: the index name without its currency word. */
  name: string;
  description: string;
  /** First date with data. */
  inception: string;
  /** Answer this status instead of data, once the request passed every check. */
  failStatus?: number;
  /** Rows of a type on an effective date (a business day on or after inception). Generated lazily. */
  rows(type: ReportType, eff: string): Iterable<Fields>;
}

const isCorporateActions = (t: ReportType) =>
  t === 'constituent.corporateactions' || t === 'constituent.proformacorporateactions';

interface UniverseOptions {
  id: number;
  name: string;
  description: string;
  inception: string;
  size: number;
  indexCurrencies: string[];
  extras: boolean;
  /** Corporate-action rows per day: [min, max]. */
  actionsPerDay: [number, number];
}

/** A portfolio of `size` synthetic securities, every row generated on demand. */
function universe(o: UniverseOptions): Portfolio {
  let totalWeight = 0;
  for (let i = 0; i < o.size; i++) totalWeight += weightOf(o.id, i);
  const style = { extras: o.extras, totalWeight };
  const variants = indexVariants(o.id, o.name, o.indexCurrencies[0]);
  return {
    id: o.id,
    name: o.name,
    description: o.description,
    inception: o.inception,
    *rows(type, eff) {
      if (type === 'index') {
        for (let v = 0; v < o.indexCurrencies.length; v++) {
          const extras: Fields = o.extras
            ? [
                ['indexType', v % 2 ? 'Net Return' : 'Price'],
                ['numberOfConstituents', num(String(o.size))],
              ]
            : [];
          yield indexRow(o.id, o.name, o.indexCurrencies[v], v, eff, extras);
        }
      } else if (o.size === 0) {
        return;
      } else if (isCorporateActions(type)) {
        const proforma = type === 'constituent.proformacorporateactions';
        const day = dayNumber(eff);
        const n = between(mix(o.id, day, proforma ? 2 : 1), o.actionsPerDay[0], o.actionsPerDay[1]);
        for (let k = 0; k < n; k++) {
          const sec = security(o.id, mix(o.id, day, k) % o.size);
          yield corporateActionRow(o.id, sec, k, eff, proforma, variants);
        }
      } else {
        const day = dayNumber(eff);
        for (let i = 0; i < o.size; i++)
          yield constituentRow(o.id, security(o.id, i), i, type, eff, style, day);
      }
    },
  };
}

/** Scales a decimal literal's units by a daily jitter, except on its anchor day (the public example). */
function anchored(units: bigint, decimals: number, eff: string, anchor: string, ...salt: number[]): string {
  if (eff === anchor) return decimal(units, decimals);
  const f = BigInt(100_000 + (mix(...salt, dayNumber(eff)) % 8001) - 4000);
  return decimal((units * f) / 100_000n, decimals);
}

/** Portfolio 42, modelled on the public docs' example: on 2023-06-29 its rows carry the docs' values. */
function example600(): Portfolio {
  const ANCHOR = '2023-06-29';
  const indexLines = [
    { ccy: 'EUR', value: 1302917413n, divisor: 10000000000000n, id: 'a3f1c2d4-5b6e-4f70-8a91-b2c3d4e5f601' },
    { ccy: 'JPY', value: 204584097214n, divisor: 1366099984339n, id: 'a3f1c2d4-5b6e-4f70-8a91-b2c3d4e5f602' },
  ];
  const constituents = [
    [
      'EU0009654569',
      'STOXX Example 600 OIL & GAS NET EUR',
      'SXER Index',
      99657944n,
      'EUR',
      6549996509n,
      '0.500998',
      ANCHOR,
    ],
    [
      'CH0102878927',
      'STOXX EXAMPLE 600 OIL & GAS GROSS EUR',
      'SXEGR Index',
      24276633n,
      'EUR',
      13417402222n,
      '0.25',
      '2023-06-30',
    ],
    [
      'EU000A0C3QF0',
      'STOXX Example 600 OIL & GAS PRICE EUR',
      'SXEP Index',
      40122871n,
      'EUR',
      5560118832n,
      '0.149001',
      ANCHOR,
    ],
    [
      'XS0000000009',
      'STOXX Example 600 OIL & GAS NET USD',
      'SXEUSDR Index',
      108740212n,
      'USD',
      1509270011n,
      '0.100001',
      ANCHOR,
    ],
  ] as const;
  const variants = indexVariants(42, 'Example 600 OG', 'EUR');
  return {
    id: 42,
    name: 'Example 600 OG',
    description: 'modelled on the public example',
    inception: '2018-01-02',
    *rows(type, eff) {
      if (type === 'index') {
        for (const [v, l] of indexLines.entries()) {
          const value = anchored(l.value, 6, eff, ANCHOR, 42, v);
          // Market value = index value × 10,000, truncated to whole units (13029174 for 1302.917413).
          const mvOf = (s: string) => {
            const [i, f = ''] = s.split('.');
            return (BigInt(i + f.padEnd(6, '0')) / 100n).toString();
          };
          yield [
            ['effectiveDate', eff],
            ['indexId', l.id],
            ['indexName', `Example 600 OG ${l.ccy}`],
            ['indexValue', num(value)],
            ['currency', l.ccy],
            ['closeMarketValue', num(mvOf(value))],
            ['openMarketValue', num(mvOf(value))],
            ['closeDivisor', num(decimal(l.divisor, 6))],
            ['openDivisor', num(decimal(l.divisor, 6))],
          ];
        }
      } else if (isCorporateActions(type)) {
        const proforma = type === 'constituent.proformacorporateactions';
        for (let k = 0; k < 2; k++) {
          yield corporateActionRow(42, security(42, k + (proforma ? 10 : 0)), k, eff, proforma, variants);
        }
      } else {
        const salt = type === 'constituent.close' ? 1 : type === 'constituent.open' ? 2 : 3;
        for (const [i, c] of constituents.entries()) {
          const [isin, name, ticker, price, ccy, shares, weight, anchor] = c;
          const a = salt === 1 ? anchor : '';
          yield [
            ['effectiveDate', eff],
            ['isin', isin],
            ['securityName', name],
            ['securityTicker', ticker],
            ['closingPrice', num(anchored(price, 5, eff, a, 42, i, salt))],
            ['currency', ccy],
            ['closingFx', num(ccy === 'EUR' ? '1' : anchored(916784n, 6, eff, a, 42, 99))],
            ['indexShares', num(decimal(shares, 6))],
            ['indexWeighting', num(weight)],
          ];
        }
      }
    },
  };
}

/**
 * Portfolio 13: literals a double cannot hold, written verbatim, plus text that needs CSV quoting.
 * The same rows every business day (only effectiveDate changes).
 */
function precisionStress(): Portfolio {
  const name = 'Précision Stress';
  const variants = indexVariants(13, name, 'EUR');
  return {
    id: 13,
    name,
    description: 'number fidelity and quoting',
    inception: '2020-01-02',
    *rows(type, eff) {
      if (type === 'index') {
        yield [
          ['effectiveDate', eff],
          ['indexId', uuid(13, 1)],
          ['indexName', `${name} EUR`],
          ['indexValue', num('1234567.123456789012')],
          ['currency', 'EUR'],
          ['closeMarketValue', num('12345678901234567890')],
          ['openMarketValue', num('98765432109876543210')],
          ['closeDivisor', num('0.000000000000000001')],
          ['openDivisor', num('6.02214076E+23')],
          ['dailyReturn', num('-0.0001234567890123456789')],
          ['isProvisional', false],
          [
            'revision',
            [
              ['source', 'sandbox'],
              ['number', num('3')],
            ],
          ],
          ['note', null],
        ];
      } else if (isCorporateActions(type)) {
        const row = corporateActionRow(13, security(13, 0), 0, eff, type.includes('proforma'), variants);
        yield row.map(([k, v]) => {
          if (k === 'oldShares')
            return [
              k,
              [
                ['Price', num('12345678901234567890')],
                ['Total', num('12345678901234567890.000001')],
                ['Net', num('1E+20')],
              ],
            ] as const;
          if (k === 'oldPrice') return [k, num('1234567.123456789012')] as const;
          if (k === 'paf') return [k, num('0.99999999999999999999')] as const;
          return [k, v] as const;
        });
      } else {
        yield [
          ['effectiveDate', eff],
          ['isin', 'FR0000130809'],
          ['securityName', 'Société Générale, "A" Shares'],
          ['securityTicker', 'GLE FP'],
          ['closingPrice', num('1234567.123456789012')],
          ['currency', 'EUR'],
          ['closingFx', num('1.0')],
          ['indexShares', num('12345678901234567890')],
          ['indexWeighting', num('0.333333333333333333333')],
          ['exchangeCode', 'XPAR'],
          ['comment', 'line one\nline two'],
          [
            'flags',
            [
              ['esg', true],
              ['adr', false],
            ],
          ],
        ];
        yield [
          ['effectiveDate', eff],
          ['isin', 'JP3633400001'],
          ['securityName', 'トヨタ自動車 (Toyota Motor)'],
          ['securityTicker', '7203 JT'],
          ['closingPrice', num('9007199254740993')],
          ['currency', 'JPY'],
          ['closingFx', num('0.006212345678901234567')],
          ['indexShares', num('0.1')],
          ['indexWeighting', num('0.333333333333333333333')],
          ['exchangeCode', 'XTKS'],
          ['comment', null],
        ];
        yield [
          ['effectiveDate', eff],
          ['isin', 'GB00B03MLX29'],
          ['securityName', 'Zero & Tiny; "Quoted" Co'],
          ['securityTicker', 'ZTC LN'],
          ['closingPrice', num('0.00000001')],
          ['currency', 'GBP'],
          ['closingFx', num('1.163412000000000000001')],
          ['indexShares', num('1E-7')],
          ['indexWeighting', num('0.333333333333333333334')],
          ['exchangeCode', ''],
        ];
      }
    },
  };
}

function emptyShell(): Portfolio {
  return {
    id: 101,
    name: 'Empty Shell',
    description: 'exists, never has data',
    inception: '2000-01-03',
    rows: () => [],
  };
}

function broken(): Portfolio {
  return {
    id: 500,
    name: 'Broken',
    description: 'always 500 once the request is valid',
    inception: '2000-01-03',
    failStatus: 500,
    rows: () => [],
  };
}

export interface CatalogOptions {
  /** Constituent rows of portfolio 900 (default 1000). */
  bigExportRows?: number;
}

export const BIG_PORTFOLIO_ID = 900;
export const LARGE_PORTFOLIO_ID = 7;
export const PRECISION_PORTFOLIO_ID = 13;
export const EXAMPLE_PORTFOLIO_ID = 42;
export const EMPTY_PORTFOLIO_ID = 101;
export const BROKEN_PORTFOLIO_ID = 500;

/** All portfolios by id. Large ones cost only their weight sum up front; rows are generated per request. */
export function createCatalog(o: CatalogOptions = {}): Map<number, Portfolio> {
  const list: Portfolio[] = [
    universe({
      id: 1,
      name: 'Sandbox Europe 50',
      description: '50 constituents with extra fields',
      inception: '2010-01-04',
      size: 50,
      indexCurrencies: ['EUR', 'USD'],
      extras: true,
      actionsPerDay: [0, 3],
    }),
    universe({
      id: LARGE_PORTFOLIO_ID,
      name: 'Global Broad',
      description: '20,000 constituents for performance work',
      inception: '2015-01-02',
      size: 20_000,
      indexCurrencies: ['EUR', 'USD', 'JPY'],
      extras: true,
      actionsPerDay: [5, 30],
    }),
    precisionStress(),
    example600(),
    {
      id: REBALANCE_PORTFOLIO_ID,
      name: REBALANCE_NAME,
      description: 'a quarterly rebalance, a dual listing, a split',
      inception: '2020-01-02',
      rows: rebalanceRows,
    },
    emptyShell(),
    broken(),
    universe({
      id: BIG_PORTFOLIO_ID,
      name: 'Big Export',
      description: 'bigExportRows constituents, streamed',
      inception: '2000-01-03',
      size: o.bigExportRows ?? 1000,
      indexCurrencies: ['EUR'],
      extras: false,
      actionsPerDay: [1, 3],
    }),
  ];
  return new Map(list.map((p) => [p.id, p]));
}
