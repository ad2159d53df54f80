/** `prs report`'s flags → its typed options, without commander: its definition and src/hit.ts share them. */
import { REPORT_FORMATS, type ReportFormat } from '../domain.js';
import { parseFields, parsePortfolioIds, parseReportFormat, resolveDates } from '../input.js';
import type { GlobalOptions } from '../settings.js';
import {
  type FlagRow,
  type FlagsOf,
  firstGiven,
  flag,
  ITEM_FLAGS,
  outputOptions,
  requireType,
  usage,
} from './flags.js';

export type ReportOptions = ReturnType<typeof reportOptions>;

const FORMAT_DESCRIPTIONS: Record<ReportFormat | 'parquet', string> = {
  table: 'aligned columns (the default on a terminal)',
  json: 'an array of rows (the default in a pipe)',
  ndjson: 'one JSON row per line',
  csv: 'comma-separated, a header line first',
  tsv: 'tab-separated, a header line first',
  parquet: 'one Parquet file, with -o (DECIMAL, DATE, UTF-8)',
};

/** In `--help` order; the key is commander's name for the value. */
export const REPORT_FLAGS = {
  ...ITEM_FLAGS,
  format: flag(
    '-f, --format <fmt>',
    'table | json | ndjson | csv | tsv | parquet (default: table on a terminal, else json)',
    { complete: { values: [...REPORT_FORMATS, 'parquet'], descriptions: FORMAT_DESCRIPTIONS } },
  ),
  json: flag('--json', 'same as -f json'),
  fields: flag('--fields <a,b,...>', 'columns to keep, in this order; dotted paths for nested values'),
  jq: flag(
    '--jq <filter>',
    'a jq filter over the rows (the array -f json prints): strings raw, else compact JSON; digits kept',
  ),
  output: flag('-o, --output <file>', 'write to a file (atomically); - for stdout', { complete: 'file' }),
  force: flag('--force', 'overwrite an existing --output file'),
  raw: flag('--raw', 'print the response body exactly as received (one portfolio, one date)'),
  failFast: flag('--fail-fast', 'stop at the first item that fails'),
  dryRun: flag('--dry-run', 'send nothing: print the plan (items, requests after cache hits, waits, ETA)'),
  refresh: flag('--refresh', 'ask the service again and update the answer cache'),
  pager: flag(
    '--no-pager',
    'a table taller than the terminal is not paged (pager: PRS_PAGER, else PAGER, else less -FRX)',
  ),
} satisfies Record<string, FlagRow>;

export type ReportFlags = FlagsOf<typeof REPORT_FLAGS>;

export function reportOptions(
  ids: string[],
  o: ReportFlags,
  now: Date,
  globals: Pick<GlobalOptions, 'noCache'> = {},
) {
  const file = o.output?.toLowerCase();
  const parquet =
    o.format?.trim().toLowerCase() === 'parquet' ||
    (o.format === undefined && !o.json && o.jq === undefined && !!file?.endsWith('.parquet'));
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
  if (o.raw) oneItem('--raw', portfolioIds, dates);
  if (o.raw && (format !== undefined || o.fields !== undefined))
    throw usage('--raw cannot be combined with --format or --fields');
  return {
    portfolioIds,
    type,
    dates,
    format,
    fields: o.fields === undefined ? undefined : parseFields(o.fields),
    raw: !!o.raw,
    ...outputOptions(o, !!globals.noCache, {
      shaping: { '--raw': o.raw, '--json': o.json, '--format': o.format, '--fields': o.fields },
      example: ": pick fields in it, e.g. --jq '.[] | {isin, indexWeighting}'",
    }),
    ...(parquet && { parquet }),
  };
}

/** `flag` writes one answer as received (report's --raw, export's -o): one portfolio and one date. */
export function oneItem(flag: string, portfolioIds: unknown[], dates: unknown[], more = ''): void {
  if (portfolioIds.length > 1 || dates.length > 1)
    throw usage(`${flag} takes one portfolio and one date${more}`);
}

function checkParquet(o: ReportFlags): void {
  if (o.output === undefined || o.output === '-') {
    throw usage(
      '-f parquet writes a file: give it with -o <file>.parquet',
      'Parquet is binary: never to a terminal or a pipe',
    );
  }
  const other = firstGiven({ '--raw': o.raw, '--json': o.json, '--jq': o.jq });
  if (other) throw usage(`-f parquet cannot be combined with ${other}`);
}

/** The format when none was asked for: by an -o file's extension (never a table), else by stdout. */
export function defaultFormat(output: string | undefined, isStdoutTTY: boolean): ReportFormat {
  if (output === undefined) return isStdoutTTY ? 'table' : 'json';
  const ext = /\.([a-z0-9]+)$/i.exec(output)?.[1]?.toLowerCase();
  return ext === 'jsonl' ? 'ndjson' : ((['csv', 'tsv', 'ndjson'] as const).find((f) => f === ext) ?? 'json');
}
