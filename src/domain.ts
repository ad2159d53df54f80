export const REPORT_TYPES = [
  'index',
  'constituent.close',
  'constituent.open',
  'constituent.proforma',
  'constituent.corporateactions',
  'constituent.proformacorporateactions',
] as const;
export type ReportType = (typeof REPORT_TYPES)[number];
/** The rows a type gives (their columns, key and ranking in a table): two types compare only within one. */
export const familyOf = (t: ReportType) =>
  t === 'index' ? 'index' : t.endsWith('corporateactions') ? 'corporate actions' : 'constituents';

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
