/** The report types, in the spec's order, and what each one's rows hold (completions show it). */
export const REPORT_TYPE_DESCRIPTIONS = {
  index: 'index values and market values',
  'constituent.close': 'constituents at the close',
  'constituent.open': 'constituents at the open',
  'constituent.proforma': 'pro-forma constituents',
  'constituent.corporateactions': 'corporate actions of the constituents',
  'constituent.proformacorporateactions': 'pro-forma corporate actions',
} as const;
export type ReportType = keyof typeof REPORT_TYPE_DESCRIPTIONS;
export const REPORT_TYPES = Object.keys(REPORT_TYPE_DESCRIPTIONS) as readonly ReportType[];
/** The rows a type gives (their columns, key and ranking in a table): two types compare only within one. */
export const familyOf = (t: ReportType) =>
  t === 'index' ? 'index' : t.endsWith('corporateactions') ? 'corporate actions' : 'constituents';

const fields = (text: string) => text.trim().split(/\s+/);
const nested = (key: string, subs: string) => subs.replace(/\w+/g, `${key}.$&`);

let spec: Record<ReturnType<typeof familyOf>, readonly string[]> | undefined;
/** Spec §2: a family's fields in order, a nested value by its dotted path (`indexId.Net`); made on first use. */
export function specFields(family: ReturnType<typeof familyOf>): readonly string[] {
  spec ??= {
    index: fields(`effectiveDate indexId indexName indexValue currency closeMarketValue openMarketValue
      closeDivisor openDivisor`),
    constituents: fields(`effectiveDate isin securityName securityTicker closingPrice currency closingFx
      indexShares indexWeighting`),
    'corporate actions':
      fields(`${nested('indexId', 'Net Price Total')} ${nested('indexName', 'Net Price Total')}
      isin sedol securityTicker securityRic currency eventId eventType eventSubType mandVol status announceDate
      exDate recordDate payDate effectiveDate rebalanceDate ${nested('oldShares', 'Price Total Net')}
      ${nested('newShares', 'Price Total Net')} oldPrice newPrice paf saf cashFlowPerShare cashFlowPerShareCurrency`),
  };
  return spec[family];
}

export const REPORT_FORMATS = ['table', 'json', 'ndjson', 'csv', 'tsv'] as const;
export type ReportFormat = (typeof REPORT_FORMATS)[number];

const RUN_COMMANDS = ['report', 'export', 'diff'] as const;
export type RunCommand = (typeof RUN_COMMANDS)[number];
export const isRunCommand = (name: string): name is RunCommand =>
  (RUN_COMMANDS as readonly string[]).includes(name);

export const EXPORT_FORMATS = ['json', 'csv'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/** The exact text the service sent (`1234567.123456789012`): a double changes it. */
export class JsonNumber {
  constructor(readonly raw: string) {}
  toString(): string {
    return this.raw;
  }
  toJSON(): string {
    return this.raw;
  }
}

/** Keys in the order received; values are `Value`s, typed loosely so tests may write plain literals. */
export type Row = Record<string, unknown>;

export function isJsonNumeric(v: unknown): v is number | JsonNumber {
  return typeof v === 'number' || v instanceof JsonNumber;
}

export function numberText(v: number | JsonNumber): string {
  return typeof v === 'number' ? String(v) : v.raw;
}

export interface Item {
  portfolioId: number;
  date: string;
}

export type WaitReason = 'rate-limit' | 'retry-after' | 'backoff';
