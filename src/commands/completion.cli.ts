/**
 * `prs completion <shell>` and the hidden `prs __complete <list>` the scripts call: options and
 * flags (src/commands/define.ts says how the pieces fit).
 */
import { Argument, type Command } from 'commander';
import type { Shell } from '../completion/generate.js';
import type { CompletionOptions } from './completion.js';
import { action, type DefineContext, type Runnable } from './define.js';
import { usage } from './flags.js';

export const SHELLS = ['bash', 'zsh', 'fish'] as const satisfies readonly Shell[];

const command: Runnable<CompletionOptions> = {
  name: 'completion',
  load: () => import('./completion.js').then((m) => m.completion),
};

/** commander has checked the choice already; this gives it its type. */
function shellOf(name: string): Shell {
  const shell = SHELLS.find((s) => s === name);
  if (!shell) throw usage(`unknown shell "${name}"`, `one of: ${SHELLS.join(', ')}`);
  return shell;
}

export function defineCompletion(program: Command, ctx: DefineContext): void {
  program
    .command('completion')
    .description('print the shell completion script')
    .addArgument(new Argument('<shell>', 'bash, zsh or fish').choices(SHELLS))
    // The program itself, as gh hands a command its parent: the scripts are generated from it.
    .action(action(ctx, command, (shell: string) => ({ shell: shellOf(shell), program })));

  // Hidden: dynamic values for the completion scripts (`prs __complete profiles`).
  program
    .command('__complete', { hidden: true })
    .argument('<list>')
    .action(action(ctx, command, (list: string) => ({ list })));
}
