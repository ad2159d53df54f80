/**
 * `prs report`'s flags → its typed options, without commander: the definition (report.cli.ts) and the
 * answer cache's fast path (src/cache/hit.ts), which answers a cached report before commander loads,
 * build them with the same function.
 */
import {
  parseFields,
  parsePortfolioIds,
  parseReportFormat,
  type ReportFormat,
  type ReportType,
  resolveDates,
} from '../input.js';
import { type DateFlags, requireType, usage } from './flags.js';

export interface ReportOptions {
  portfolioIds: number[];
  type: ReportType;
  dates: string[];
  /** undefined: table when stdout is a terminal, else json. */
  format?: ReportFormat;
  fields?: string[];
  output?: string;
  force: boolean;
  raw: boolean;
  /** Stop at the first item that fails. */
  failFast?: boolean;
  /** --dry-run: print the plan, send nothing. */
  dryRun?: boolean;
  /** The answer cache: use it (when on), --refresh, --no-cache. */
  cache?: 'use' | 'refresh' | 'off';
}

/** The flags as commander hands them over. */
export interface ReportFlags extends DateFlags {
  type?: string;
  format?: string;
  json?: boolean;
  fields?: string;
  output?: string;
  force?: boolean;
  raw?: boolean;
  failFast?: boolean;
  dryRun?: boolean;
  refresh?: boolean;
  /** false for --no-cache. */
  cache?: boolean;
}

/** Flags → options; every bad combination is a UsageError before any request. */
export function reportOptions(ids: string[], o: ReportFlags, now: Date): ReportOptions {
  const format = o.json ? 'json' : o.format === undefined ? undefined : parseReportFormat(o.format);
  if (o.json && o.format !== undefined && o.format !== 'json') {
    throw usage(`--json conflicts with --format ${o.format}`);
  }
  const portfolioIds = parsePortfolioIds(ids);
  const type = requireType(o.type);
  const dates = resolveDates(o, now);
  if (o.raw && (portfolioIds.length > 1 || dates.length > 1)) {
    throw usage('--raw takes one portfolio and one date');
  }
  if (o.raw && (format !== undefined || o.fields !== undefined))
    throw usage('--raw cannot be combined with --format or --fields');
  return {
    portfolioIds,
    type,
    dates,
    format,
    fields: o.fields === undefined ? undefined : parseFields(o.fields),
    // `-o -` is stdout, as for export (and most tools), not a file named "-".
    output: o.output === undefined || o.output === '-' ? undefined : o.output,
    force: !!o.force,
    raw: !!o.raw,
    failFast: !!o.failFast,
    dryRun: !!o.dryRun,
    cache: cacheUse(o),
  };
}

/** --refresh / --no-cache (commander: `cache` false for --no-cache). */
function cacheUse(o: ReportFlags): 'use' | 'refresh' | 'off' {
  if (o.refresh && o.cache === false) throw usage('--refresh conflicts with --no-cache');
  return o.refresh ? 'refresh' : o.cache === false ? 'off' : 'use';
}

/**
 * The format when none was asked for: by the extension of an --output file (never a table in a
 * file), else table on a terminal and JSON in a pipe (CLI.md).
 */
export function defaultFormat(output: string | undefined, isStdoutTTY: boolean): ReportFormat {
  if (output !== undefined) {
    const ext = /\.([a-z0-9]+)$/i.exec(output)?.[1]?.toLowerCase();
    return ext === 'csv'
      ? 'csv'
      : ext === 'tsv'
        ? 'tsv'
        : ext === 'ndjson' || ext === 'jsonl'
          ? 'ndjson'
          : 'json';
  }
  return isStdoutTTY ? 'table' : 'json';
}
