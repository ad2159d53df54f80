import { familyOf, REPORT_FORMATS, type ReportType } from '../domain.js';
import {
  dateRange,
  parseDate,
  parseFields,
  parsePortfolioIds,
  parseRange,
  parseReportFormat,
  parseReportType,
} from '../input.js';
import type { GlobalOptions } from '../settings.js';
import { type FlagRow, type FlagsOf, flag, ITEM_FLAGS, outputOptions, requireType, usage } from './flags.js';
import { REPORT_FLAGS } from './report.flags.js';

export type DiffOptions = ReturnType<typeof diffOptions>;
type Step = { date: string; type: ReportType };

export const DIFF_FLAGS = {
  type: ITEM_FLAGS.type,
  from: { ...ITEM_FLAGS.from, help: 'the old date' },
  to: { ...ITEM_FLAGS.to, help: 'the new date' },
  each: flag('--each', 'with --from/--to: every consecutive pair of weekdays in the range (a change log)'),
  weekends: flag('--weekends', 'with --each: include Saturdays and Sundays'),
  date: { ...ITEM_FLAGS.date, help: 'with --against: the one date on which two report types are compared' },
  against: flag(
    '--against <type>',
    'with -d: the report type compared with --type (e.g. constituent.proforma)',
    { complete: ITEM_FLAGS.type.complete },
  ),
  key: flag('--key <a,b>', 'the fields that identify a row (default by type: isin, eventId, indexId)'),
  fields: flag('--fields <a,b>', 'compare only these fields (default: all but the key and effectiveDate)'),
  format: flag(
    '-f, --format <fmt>',
    'table | json | ndjson | csv | tsv (default: table on a terminal, else json)',
    { complete: { values: REPORT_FORMATS, descriptions: REPORT_FLAGS.format.complete.descriptions } },
  ),
  jq: flag(
    '--jq <filter>',
    'a jq filter over the diff rows (the array -f json prints): strings raw, else compact JSON; digits kept',
  ),
  output: REPORT_FLAGS.output,
  force: REPORT_FLAGS.force,
  failFast: REPORT_FLAGS.failFast,
  dryRun: flag('--dry-run', 'send nothing: print the plan (requests after cache hits, waits, ETA)'),
  refresh: REPORT_FLAGS.refresh,
  pager: REPORT_FLAGS.pager,
  exitCode: flag('--exit-code', 'exit 11 when anything changed, 0 when nothing did'),
} satisfies Record<string, FlagRow>;

export type DiffFlags = FlagsOf<typeof DIFF_FLAGS>;

/** The requests per portfolio, oldest first: two (--from/--to, -d/--against) or a range (--each). */
function steps(o: DiffFlags, type: ReportType, now: Date): { steps: Step[]; against?: ReportType } {
  const range = o.from !== undefined || o.to !== undefined;
  if (o.against !== undefined) {
    if (range) throw usage('--against compares two types on one date: use -d, not --from/--to');
    if (o.each) throw usage('--each takes --from/--to, not --against');
    if (o.date === undefined) throw usage('--against needs -d <date>');
    const against = parseReportType(o.against);
    if (against === type) throw usage(`--against ${against} is the --type itself: name another type`);
    if (familyOf(against) !== familyOf(type) && o.key === undefined)
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
  const [from, to] = parseRange(o, now);
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
) {
  const portfolioIds = parsePortfolioIds(ids);
  const type = requireType(o.type);
  const format = o.format === undefined ? undefined : parseReportFormat(o.format);
  const shared = outputOptions(o, !!globals.noCache, {
    shaping: { '--format': o.format },
    example: ', e.g. --jq \'.[] | select(.change == "added") | .isin\'',
  });
  return {
    portfolioIds,
    type,
    ...steps(o, type, now),
    each: !!o.each,
    key: o.key === undefined ? undefined : parseFields(o.key, '--key'),
    fields: o.fields === undefined ? undefined : parseFields(o.fields),
    format,
    ...shared,
    exitCode: !!o.exitCode,
  };
}
