/**
 * Flag → option pieces that several definitions share, without commander: the answer cache's fast
 * path (src/cache/hit.ts) builds report's options with them before commander is loaded.
 */
import { UsageError } from '../errors.js';
import { parseReportType, REPORT_TYPES, type ReportType } from '../input.js';

export function usage(message: string, hint?: string): UsageError {
  return new UsageError(message, { hint });
}

export function requireType(v: string | undefined): ReportType {
  if (v === undefined) throw usage('missing --type', `one of: ${REPORT_TYPES.join(', ')}`);
  return parseReportType(v);
}

/** The flags that choose dates, shared by report and export. */
export interface DateFlags {
  date?: string;
  from?: string;
  to?: string;
  weekends?: boolean;
}
