/** `prs completion <shell>`; `prs __complete -- <words…>`, silent on any problem (it feeds a menu). */
import type { Command } from 'commander';
import type { Shell } from '../completion/scripts.js';
import type { Deps } from '../deps.js';
import { type Completion, SETTINGS } from '../settings.js';
import { DIFF_FLAGS } from './diff.flags.js';
import { EXPORT_FLAGS } from './export.flags.js';
import { spelling } from './flags.js';
import { REPORT_FLAGS } from './report.flags.js';

export type CompletionOptions = { program: Command } & ({ shell: Shell } | { words: string[] });

function fromTable(table: Record<string, { flag?: string; help: string; complete?: Completion }>, path = '') {
  const out: Record<string, Completion> = {};
  for (const row of Object.values(table))
    if (row.flag && row.complete) out[`${path}${spelling(row.flag).long}`] = row.complete;
  return out;
}

export const OPTION_VALUES: Readonly<Record<string, Completion>> = {
  ...fromTable(SETTINGS),
  ...fromTable(REPORT_FLAGS, 'report '),
  ...fromTable(DIFF_FLAGS, 'diff '),
  ...fromTable(EXPORT_FLAGS, 'export '),
};

export async function completion(o: CompletionOptions, deps: Deps): Promise<void> {
  if ('shell' in o) {
    const { completionScript } = await import('../completion/scripts.js');
    deps.io.out(completionScript(o.shell));
    return;
  }
  const { complete } = await import('../completion/complete.js');
  const { complete: what, prefix = '' } = complete(o.program, o.words, OPTION_VALUES);
  if (what === 'file' || what === 'dir') return deps.io.out(`:${what}s\n`);
  // An unreadable config offers no profiles: a menu never shows an error.
  const profiles = async () => [...(await deps.store()).profileNames()].sort();
  const { values, descriptions } =
    what === 'profiles' ? { values: await profiles().catch(() => []) } : (what ?? {});
  const line = (v: string) => `${prefix}${v}${descriptions?.[v] ? `\t${descriptions[v]}` : ''}\n`;
  deps.io.out((values ?? []).map(line).join(''));
}
