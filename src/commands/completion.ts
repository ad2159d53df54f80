/**
 * `prs completion <shell>`: the script, generated from the program. `prs __complete profiles`: the
 * profile names for the scripts, silent on any problem (nothing may spray into a completion menu).
 */

import type { Command } from 'commander';
import type { Shell } from '../completion/generate.js';
import type { Deps } from '../deps.js';
import { UsageError } from '../errors.js';

export type CompletionOptions = { shell: Shell; program: Command } | { list: string };

export const COMPLETION_LISTS = ['profiles'] as const;

export async function completion(o: CompletionOptions, deps: Deps): Promise<void> {
  if ('list' in o) {
    if (!(COMPLETION_LISTS as readonly string[]).includes(o.list)) {
      throw new UsageError(`unknown completion list "${o.list}"`, {
        hint: `lists: ${COMPLETION_LISTS.join(', ')}`,
      });
    }
    const names = await profileNames(deps);
    if (names.length) deps.io.out(`${names.join('\n')}\n`);
    return;
  }
  const [{ generateCompletion }, { OPTION_VALUES }] = await Promise.all([
    import('../completion/generate.js'),
    import('./completion-values.js'),
  ]);
  deps.io.out(generateCompletion(o.shell, o.program, OPTION_VALUES));
}

async function profileNames(deps: Deps): Promise<string[]> {
  try {
    return [...(await deps.store()).profileNames()].sort();
  } catch {
    return [];
  }
}
