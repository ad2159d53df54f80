/** `prs diff`'s flags → its typed options, every bad combination a UsageError before any request. */

import { REPORT_FORMATS, type ReportFormat, type ReportType } from '../domain.js';
import {
  dateRange,
  parseDate,
  parseFields,
  parseOutput,
  parsePortfolioIds,
  parseReportFormat,
  parseReportType,
} from '../input.js';
import type { GlobalOptions } from '../settings.js';
import { type FlagRow, type FlagsOf, ITEM_FLAGS, requireType, usage } from './flags.js';
import { REPORT_FLAGS } from './report.flags.js';

/** One request of a portfolio's run: a date, and the type asked for (--against asks two types). */
export interface DiffStep {
  date: string;
  type: ReportType;
}

export interface DiffOptions {
  portfolioIds: number[];
  type: ReportType;
  /** The requests per portfolio, oldest first: two (--from/--to, -d/--against) or a range (--each). */
  steps: DiffStep[];
  /** --each: consecutive pairs of a range (fromDate/toDate in the rows; holiday answers left out). */
  each: boolean;
  /** -d/--against: the type compared with --type on one date. */
  against?: ReportType;
  key?: string[];
  fields?: string[];
  /** undefined: table on a terminal, else json (or by the -o file's extension). */
  format?: ReportFormat;
  output?: string;
  force: boolean;
  failFast: boolean;
  dryRun: boolean;
  cache: 'use' | 'refresh' | 'off';
  /** --exit-code: exit 11 when anything changed. */
  exitCode: boolean;
  /** --jq: a jq filter over the diff rows (render/jq.ts); the output is then the filter's. */
  jq?: string;
  /** false for --no-pager: a tall table on a terminal is written straight (io.page). */
  pager?: boolean;
}

/** diff's flags, in `--help` order (its definition and the completions read them). */
export const DIFF_FLAGS = {
  type: ITEM_FLAGS.type,
  from: { flag: '--from <date>', help: 'the old date', complete: ITEM_FLAGS.from.complete },
  to: { flag: '--to <date>', help: 'the new date', complete: ITEM_FLAGS.to.complete },
  each: {
    flag: '--each',
    help: 'with --from/--to: every consecutive pair of weekdays in the range (a change log)',
  },
  weekends: { flag: '--weekends', help: 'with --each: include Saturdays and Sundays' },
  date: {
    flag: '-d, --date <date>',
    help: 'with --against: the one date on which two report types are compared',
    complete: ITEM_FLAGS.date.complete,
  },
  against: {
    flag: '--against <type>',
    help: 'with -d: the report type compared with --type (e.g. constituent.proforma)',
    complete: ITEM_FLAGS.type.complete,
  },
  key: {
    flag: '--key <a,b>',
    help: 'the fields that identify a row (default by type: isin, eventId, indexId)',
  },
  fields: {
    flag: '--fields <a,b>',
    help: 'compare only these fields (default: all but the key and effectiveDate)',
  },
  format: {
    flag: '-f, --format <fmt>',
    help: 'table | json | ndjson | csv | tsv (default: table on a terminal, else json)',
    complete: { values: REPORT_FORMATS, descriptions: REPORT_FLAGS.format.complete.descriptions },
  },
  jq: {
    flag: '--jq <filter>',
    help: 'a jq filter over the diff rows (the array -f json prints): strings raw, else compact JSON; digits kept',
  },
  output: REPORT_FLAGS.output,
  force: REPORT_FLAGS.force,
  failFast: REPORT_FLAGS.failFast,
  dryRun: { flag: '--dry-run', help: 'send nothing: print the plan (requests after cache hits, waits, ETA)' },
  refresh: REPORT_FLAGS.refresh,
  pager: REPORT_FLAGS.pager,
  exitCode: { flag: '--exit-code', help: 'exit 11 when anything changed, 0 when nothing did' },
} as const satisfies Record<string, FlagRow>;

/** The flags as commander hands them over. */
export type DiffFlags = FlagsOf<typeof DIFF_FLAGS>;

/** The family of rows a type gives: two types compare only within one (same rows, same key). */
const family = (t: ReportType) =>
  t === 'index' ? 'index' : t.endsWith('corporateactions') ? 'corporate actions' : 'constituents';

function list(flag: string, v: string): string[] {
  try {
    return parseFields(v);
  } catch {
    throw usage(`invalid ${flag} "${v}": empty field name`);
  }
}

function steps(o: DiffFlags, type: ReportType, now: Date): { steps: DiffStep[]; against?: ReportType } {
  const range = o.from !== undefined || o.to !== undefined;
  if (o.against !== undefined) {
    if (range) throw usage('--against compares two types on one date: use -d, not --from/--to');
    if (o.each) throw usage('--each takes --from/--to, not --against');
    if (o.date === undefined) throw usage('--against needs -d <date>');
    const against = parseReportType(o.against);
    if (against === type) throw usage(`--against ${against} is the --type itself: name another type`);
    if (family(against) !== family(type) && o.key === undefined)
      throw usage(
        `${type} and ${against} have different rows: they cannot be compared`,
        'compare constituent types with each other, corporate actions with corporate actions (or choose --key)',
      );
    const date = parseDate(o.date, now);
    return {
      steps: [
        { date, type },
        { date, type: against },
      ],
      against,
    };
  }
  if (o.date !== undefined) {
    if (range) throw usage('use either -d with --against, or --from/--to, not both');
    throw usage(
      '-d compares two report types on one date: add --against <type>',
      'or compare two dates with --from/--to',
    );
  }
  if (!range)
    throw usage('missing --from/--to (or -d with --against)', 'e.g. --from 2024-03-15 --to 2024-03-18');
  if (o.from === undefined || o.to === undefined) throw usage('--from and --to go together');
  const from = parseDate(o.from, now);
  const to = parseDate(o.to, now);
  if (from > to) throw usage(`--from ${from} is after --to ${to}`);
  if (from === to) throw usage(`--from and --to are the same date (${from}): nothing to compare`);
  if (!o.each) {
    if (o.weekends) throw usage('--weekends goes with --each (a range)');
    return { steps: [from, to].map((date) => ({ date, type })) };
  }
  const dates = dateRange(from, to, o.weekends);
  if (dates.length < 2)
    throw usage(
      `only one date between ${from} and ${to}: nothing to compare`,
      'add --weekends, or widen the range',
    );
  return { steps: dates.map((date) => ({ date, type })) };
}

export function diffOptions(
  ids: string[],
  o: DiffFlags,
  now: Date,
  globals: Pick<GlobalOptions, 'noCache'> = {},
): DiffOptions {
  const portfolioIds = parsePortfolioIds(ids);
  const type = requireType(o.type);
  const format = o.format === undefined ? undefined : parseReportFormat(o.format);
  if (o.jq !== undefined) {
    if (o.format !== undefined)
      throw usage(
        '--jq cannot be combined with --format',
        'the filter decides the output, e.g. --jq \'.[] | select(.change == "added") | .isin\'',
      );
    if (o.jq.trim() === '') throw usage("--jq needs a filter, e.g. --jq '.[].field'");
  }
  if (o.refresh && globals.noCache) throw usage('--refresh conflicts with --no-cache');
  return {
    portfolioIds,
    type,
    ...steps(o, type, now),
    each: !!o.each,
    key: o.key === undefined ? undefined : list('--key', o.key),
    fields: o.fields === undefined ? undefined : list('--fields', o.fields),
    format,
    // `-o -` is stdout, as for report.
    output: o.output === undefined || o.output === '-' ? undefined : parseOutput(o.output, REPORT_FORMATS),
    force: !!o.force,
    failFast: !!o.failFast,
    dryRun: !!o.dryRun,
    cache: o.refresh ? 'refresh' : globals.noCache ? 'off' : 'use',
    exitCode: !!o.exitCode,
    ...(o.jq === undefined ? {} : { jq: o.jq }),
    ...(o.pager === false ? { pager: false } : {}),
  };
}
