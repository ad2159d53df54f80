/**
 * `prs completion <shell>` and the hidden `prs __complete <list>` the scripts call: options and
 * flags (src/commands/define.ts says how the pieces fit).
 */
import { Argument, type Command } from 'commander';
import { action, type DefineContext, type Runnable, usage } from './define.js';

export const SHELLS = ['bash', 'zsh', 'fish'] as const;
export type Shell = (typeof SHELLS)[number];

export type CompletionOptions = { shell: Shell } | { list: string };

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
    .action(action(ctx, command, (shell: string) => ({ shell: shellOf(shell) })));

  // Hidden: dynamic values for the completion scripts (`prs __complete profiles`).
  program
    .command('__complete', { hidden: true })
    .argument('<list>')
    .action(action(ctx, command, (list: string) => ({ list })));
}
