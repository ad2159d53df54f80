/**
 * What each option's value completes to, from the flag tables (settings.ts, flags.ts, report.flags.ts,
 * diff.flags.ts, export.flags.ts): keyed by "<command path> <long flag>", or by the long flag alone for
 * every command. The completion command hands it to the generator with the program.
 */
import { type Completion, SETTINGS } from '../settings.js';
import { DIFF_FLAGS } from './diff.flags.js';
import { EXPORT_FLAGS } from './export.flags.js';
import { ITEM_FLAGS, spelling } from './flags.js';
import { REPORT_FLAGS } from './report.flags.js';

/** A flag table's completions, under its command path ('' for every command). */
function fromTable(table: Record<string, { flag?: string; help: string; complete?: Completion }>, path = '') {
  const out: Record<string, Completion> = {};
  for (const row of Object.values(table))
    if (row.flag && row.complete) out[`${path}${spelling(row.flag).long}`] = row.complete;
  return out;
}

export const OPTION_VALUES: Readonly<Record<string, Completion>> = {
  ...fromTable(SETTINGS),
  ...fromTable(ITEM_FLAGS),
  ...fromTable(REPORT_FLAGS, 'report '),
  ...fromTable(DIFF_FLAGS, 'diff '),
  ...fromTable(EXPORT_FLAGS, 'export '),
};
