/** `prs report`: its options and its flags (src/commands/define.ts says how the pieces fit). */
import { type Command, Option } from 'commander';
import {
  parseFields,
  parsePortfolioIds,
  parseReportFormat,
  type ReportFormat,
  type ReportType,
  resolveDates,
} from '../input.js';
import {
  action,
  addDateOptions,
  type DateFlags,
  type DefineContext,
  type Runnable,
  reportTypeOption,
  requireType,
  usage,
} from './define.js';

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
interface ReportFlags extends DateFlags {
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

const command: Runnable<ReportOptions> = {
  name: 'report',
  load: () => import('./report.js').then((m) => m.report),
};

export function defineReport(program: Command, ctx: DefineContext): void {
  addDateOptions(
    program
      .command('report')
      .description('fetch report rows and print them as a table, JSON, NDJSON, CSV or TSV')
      .argument('<portfolioId...>', 'one or more portfolio ids')
      .addOption(reportTypeOption()),
  )
    .addOption(
      new Option(
        '-f, --format <fmt>',
        'table | json | ndjson | csv | tsv (default: table on a terminal, else json)',
      ),
    )
    .option('--json', 'same as -f json')
    .option('--fields <a,b,...>', 'columns to keep, in this order; dotted paths for nested values')
    .option('-o, --output <file>', 'write to a file (atomically); - for stdout')
    .option('--force', 'overwrite an existing --output file')
    .option('--raw', 'print the response body exactly as received (one portfolio, one date)')
    .option('--fail-fast', 'stop at the first item that fails')
    .option('--dry-run', 'send nothing: print the plan (items, requests after cache hits, waits, ETA)')
    .option('--refresh', 'ask the service again and update the answer cache')
    .option('--no-cache', 'neither read nor write the answer cache this run')
    .action(action(ctx, command, (ids: string[], o: ReportFlags) => reportOptions(ids, o, ctx.now())));
}

/** Flags → options; every bad combination is a UsageError before any request. */
function reportOptions(ids: string[], o: ReportFlags, now: Date): ReportOptions {
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
