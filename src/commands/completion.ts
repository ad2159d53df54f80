/**
 * `prs completion <shell>` prints the completion script, generated on the spot from the same command
 * definitions as the checked-in completions/ files (a test keeps those files current), so the command
 * never has to find files on disk. `prs __complete profiles` is the hidden helper the scripts call
 * for profile names: fast, no network, silent on any problem (a broken config must not spray errors
 * into a shell's completion menu).
 */

import type { Command } from 'commander';
import type { Shell } from '../completion/generate.js';
import type { Deps } from '../deps.js';
import { UsageError } from '../errors.js';

export type CompletionOptions = { shell: Shell; program: Command } | { list: string };

/** The dynamic lists the scripts may ask for. */
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
