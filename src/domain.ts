/**
 * The words every layer shares: report types, formats, a row and its values, an item of a run, why a
 * run waits. It imports nothing, so any module may import it without pointing up.
 */

export const REPORT_TYPES = [
  'index',
  'constituent.close',
  'constituent.open',
  'constituent.proforma',
  'constituent.corporateactions',
  'constituent.proformacorporateactions',
] as const;
export type ReportType = (typeof REPORT_TYPES)[number];

export const REPORT_FORMATS = ['table', 'json', 'ndjson', 'csv', 'tsv'] as const;
export type ReportFormat = (typeof REPORT_FORMATS)[number];

export const EXPORT_FORMATS = ['json', 'csv'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/**
 * A JSON number as the exact text the service sent (`1234567.123456789012`, `5E-13`, `1.10`): a
 * double would change its digits. Read a number's digits with `numberText`, test with `isJsonNumeric`.
 */
export class JsonNumber {
  constructor(readonly raw: string) {}
  toString(): string {
    return this.raw;
  }
  toJSON(): string {
    return this.raw;
  }
}

/**
 * A value in a row. A number is a plain `number` where its text survives a double's round trip
 * (`String(n)` is the text sent), else a JsonNumber; code that prints or computes goes through
 * `numberText`, so it never depends on which of the two a reader chose.
 */
export type Value = string | number | JsonNumber | boolean | null | Value[] | { [key: string]: Value };

/**
 * One row of a report answer (or of a derived table: a diff's rows), keys in the order received; its
 * values are `Value`s (typed loosely so that tests may build rows as plain literals).
 */
export type Row = Record<string, unknown>;

export function isJsonNumeric(v: unknown): v is number | JsonNumber {
  return typeof v === 'number' || v instanceof JsonNumber;
}

/** The digits to print for a number: the raw text of a JsonNumber, String() of an exact number. */
export function numberText(v: number | JsonNumber): string {
  return typeof v === 'number' ? String(v) : v.raw;
}

/** One portfolio × date of a run. */
export interface Item {
  portfolioId: number;
  date: string;
}

/** Why a run pauses before a request. */
export type WaitReason = 'rate-limit' | 'retry-after' | 'backoff';
