/**
 * `prs report`'s flags → its typed options, without commander: the definition (report.cli.ts) and the
 * answer cache's fast path (src/hit.ts), which answers a cached report before commander loads,
 * build them with the same function.
 */
import { REPORT_FORMATS, type ReportFormat, type ReportType } from '../domain.js';
import { parseFields, parseOutput, parsePortfolioIds, parseReportFormat, resolveDates } from '../input.js';
import type { GlobalOptions } from '../settings.js';
import { type FlagRow, type FlagsOf, ITEM_FLAGS, requireType, usage } from './flags.js';

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
  /** --jq: a jq filter over the rows array (render/jq.ts); the format is then the filter's output. */
  jq?: string;
  /** -f parquet (or an -o file ending .parquet): one Parquet file (render/parquet.ts); format unset. */
  parquet?: boolean;
  /** false for --no-pager: a tall table on a terminal is written straight (io.page). */
  pager?: boolean;
}

const REPORT_FORMAT_DESCRIPTIONS: Record<ReportFormat, string> = {
  table: 'aligned columns (the default on a terminal)',
  json: 'an array of rows (the default in a pipe)',
  ndjson: 'one JSON row per line',
  csv: 'comma-separated, a header line first',
  tsv: 'tab-separated, a header line first',
};

/**
 * report's flags, in `--help` order: its definition (report.cli.ts), the fast path's argv reader and
 * the completions read them. The key is commander's name for the value. (--no-cache is global.)
 */
export const REPORT_FLAGS = {
  ...ITEM_FLAGS,
  format: {
    flag: '-f, --format <fmt>',
    help: 'table | json | ndjson | csv | tsv | parquet (default: table on a terminal, else json)',
    complete: {
      values: [...REPORT_FORMATS, 'parquet'],
      descriptions: {
        ...REPORT_FORMAT_DESCRIPTIONS,
        parquet: 'one Parquet file, with -o (DECIMAL, DATE, UTF-8)',
      },
    },
  },
  json: { flag: '--json', help: 'same as -f json' },
  fields: {
    flag: '--fields <a,b,...>',
    help: 'columns to keep, in this order; dotted paths for nested values',
  },
  jq: {
    flag: '--jq <filter>',
    help: 'a jq filter over the rows (the array -f json prints): strings raw, else compact JSON; digits kept',
  },
  output: {
    flag: '-o, --output <file>',
    help: 'write to a file (atomically); - for stdout',
    complete: 'file',
  },
  force: { flag: '--force', help: 'overwrite an existing --output file' },
  raw: { flag: '--raw', help: 'print the response body exactly as received (one portfolio, one date)' },
  failFast: { flag: '--fail-fast', help: 'stop at the first item that fails' },
  dryRun: {
    flag: '--dry-run',
    help: 'send nothing: print the plan (items, requests after cache hits, waits, ETA)',
  },
  refresh: { flag: '--refresh', help: 'ask the service again and update the answer cache' },
  pager: {
    flag: '--no-pager',
    help: 'a table taller than the terminal is not paged (pager: PRS_PAGER, else PAGER, else less -FRX)',
  },
} as const satisfies Record<string, FlagRow>;

/** The flags as commander hands them over. */
export type ReportFlags = FlagsOf<typeof REPORT_FLAGS>;

/** Flags → options; every bad combination is a UsageError before any request. */
export function reportOptions(
  ids: string[],
  o: ReportFlags,
  now: Date,
  globals: Pick<GlobalOptions, 'noCache'> = {},
): ReportOptions {
  const parquet =
    o.format?.trim().toLowerCase() === 'parquet' ||
    (o.format === undefined && !o.json && o.jq === undefined && /\.parquet$/i.test(o.output ?? ''));
  if (parquet) checkParquet(o);
  const format = o.json
    ? 'json'
    : o.format === undefined || parquet
      ? undefined
      : parseReportFormat(o.format);
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
  if (o.jq !== undefined) checkJq(o);
  return {
    portfolioIds,
    type,
    dates,
    format,
    fields: o.fields === undefined ? undefined : parseFields(o.fields),
    // `-o -` is stdout, as for export (and most tools), not a file named "-".
    output: o.output === undefined || o.output === '-' ? undefined : parseOutput(o.output, REPORT_FORMATS),
    force: !!o.force,
    raw: !!o.raw,
    failFast: !!o.failFast,
    dryRun: !!o.dryRun,
    cache: cacheUse(o, !!globals.noCache),
    ...(o.jq === undefined ? {} : { jq: o.jq }),
    ...(parquet ? { parquet } : {}),
    ...(o.pager === false ? { pager: false } : {}),
  };
}

/** -f parquet writes a file: -o one, and nothing that decides the output otherwise. */
function checkParquet(o: ReportFlags): void {
  if (o.output === undefined || o.output === '-') {
    throw usage(
      '-f parquet writes a file: give it with -o <file>.parquet',
      'Parquet is binary: never to a terminal or a pipe',
    );
  }
  const other = o.raw ? '--raw' : o.json ? '--json' : o.jq !== undefined ? '--jq' : undefined;
  if (other) throw usage(`-f parquet cannot be combined with ${other}`);
}

/** --jq decides the output itself: no format, no field list, no raw body beside it. */
function checkJq(o: ReportFlags): void {
  const other = o.raw
    ? '--raw'
    : o.json
      ? '--json'
      : o.format !== undefined
        ? '--format'
        : o.fields !== undefined
          ? '--fields'
          : undefined;
  if (other) {
    throw usage(
      `--jq cannot be combined with ${other}`,
      "the filter decides the output: pick fields in it, e.g. --jq '.[] | {isin, indexWeighting}'",
    );
  }
  if (o.jq!.trim() === '') throw usage("--jq needs a filter, e.g. --jq '.[].isin'");
}

/** --refresh / the global --no-cache (settings.ts: accepted before the command too). */
function cacheUse(o: ReportFlags, noCache: boolean): 'use' | 'refresh' | 'off' {
  if (o.refresh && noCache) throw usage('--refresh conflicts with --no-cache');
  return o.refresh ? 'refresh' : noCache ? 'off' : 'use';
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
