/** Flag tables and the option pieces several commands share, without commander (src/hit.ts uses them). */
import {
  REPORT_FORMATS,
  REPORT_TYPE_DESCRIPTIONS,
  REPORT_TYPES,
  type ReportFormat,
  type ReportType,
} from '../domain.js';
import { UsageError } from '../errors.js';
import { DATE_WORDS, parseOutput, parseReportType } from '../input.js';
import type { Completion, GlobalOptions } from '../settings.js';

export function usage(message: string, hint?: string): UsageError {
  return new UsageError(message, { hint });
}

export function asUsage<T>(parse: () => T, say = (message: string) => message): T {
  try {
    return parse();
  } catch (err) {
    throw usage(say((err as Error).message));
  }
}

export function requireType(v: string | undefined): ReportType {
  if (v === undefined) throw usage('missing --type', `one of: ${REPORT_TYPES.join(', ')}`);
  return parseReportType(v);
}

export interface FlagRow {
  flag: string;
  help: string;
  default?: string;
  complete?: Completion;
}

/** A row whose spelling keeps its literal type: FlagsOf reads a value or a switch off it. */
export const flag = <F extends string, M extends Omit<FlagRow, 'flag' | 'help'> = object>(
  spelling: F,
  help: string,
  more?: M,
) => ({ flag: spelling, help, ...more }) as { flag: F; help: string } & M;

const DATES: Completion = { values: Object.keys(DATE_WORDS), descriptions: DATE_WORDS };

export const ITEM_FLAGS = {
  type: flag('-t, --type <type>', `report type (required): ${REPORT_TYPES.join(', ')}`, {
    complete: { values: REPORT_TYPES, descriptions: REPORT_TYPE_DESCRIPTIONS },
  }),
  date: flag('-d, --date <date>', 'YYYY-MM-DD, today, yesterday or previous-weekday', { complete: DATES }),
  from: flag('--from <date>', 'first date of an inclusive range', { complete: DATES }),
  to: flag('--to <date>', 'last date of an inclusive range', { complete: DATES }),
  weekends: flag('--weekends', 'include Saturdays and Sundays in a range'),
} satisfies Record<string, FlagRow>;

/** --cache <max-age> and --no-cache share commander's `cache`: false is --no-cache. */
export const cacheFlags = (cache: unknown): GlobalOptions =>
  cache === false ? { cache: undefined, noCache: true } : { cache: cache as string | undefined };

export function spelling(flag: string): { short?: string; long: string; value: boolean; negated: boolean } {
  const m = /^(?:(-\w), )?(--[\w-]+)( [<[])?/.exec(flag)!;
  return { short: m[1], long: m[2]!, value: !!m[3], negated: m[2]!.startsWith('--no-') };
}

type Defaulted<T> = { [K in keyof T]: T[K] extends { default: string } ? K : never }[keyof T];

/** A table's flags as commander hands them over: a string (always, with a default), or a switch's boolean. */
export type FlagsOf<T extends Record<string, FlagRow>> = {
  -readonly [K in Exclude<keyof T, Defaulted<T>>]?: T[K]['flag'] extends `${string}<${string}`
    ? string
    : boolean;
} & { -readonly [K in Defaulted<T>]: string };

type OutputFlags = Partial<
  Record<'output' | 'jq', string> & Record<'force' | 'failFast' | 'dryRun' | 'refresh' | 'pager', boolean>
>;

/** A format left undefined is chosen by the -o file's extension, else table on a terminal and json in a pipe. */
export type OutputOptions = ReturnType<typeof outputOptions> & { format?: ReportFormat; fields?: string[] };

type Given = Record<string, string | boolean | undefined>;
export const firstGiven = (flags: Given) =>
  Object.keys(flags).find((flag) => flags[flag] !== undefined && flags[flag] !== false);

/** `jq.shaping`: the flags that shape the output as a filter does (one with --jq is a usage error). */
export function outputOptions(o: OutputFlags, noCache: boolean, jq: { shaping: Given; example: string }) {
  const other = o.jq === undefined ? undefined : firstGiven(jq.shaping);
  if (other)
    throw usage(`--jq cannot be combined with ${other}`, `the filter decides the output${jq.example}`);
  if (o.jq?.trim() === '') throw usage("--jq needs a filter, e.g. --jq '.[].isin'");
  const output =
    o.output === undefined || o.output === '-' ? undefined : parseOutput(o.output, REPORT_FORMATS);
  if (o.refresh && noCache) throw usage('--refresh conflicts with --no-cache');
  return {
    output,
    force: !!o.force,
    failFast: !!o.failFast,
    dryRun: !!o.dryRun,
    cache: o.refresh ? 'refresh' : noCache ? 'off' : 'use',
    ...(o.jq === undefined ? {} : { jq: o.jq }),
    ...(o.pager === false ? { pager: false } : {}),
  } as const;
}
