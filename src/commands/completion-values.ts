/** What each option's value completes to, from the flag tables: keyed by "<command path> <long flag>", or the long flag. */
import { type Completion, SETTINGS } from '../settings.js';
import { DIFF_FLAGS } from './diff.flags.js';
import { EXPORT_FLAGS } from './export.flags.js';
import { ITEM_FLAGS, spelling } from './flags.js';
import { REPORT_FLAGS } from './report.flags.js';

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
