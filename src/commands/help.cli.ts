/**
 * `prs help [topic...]`: replaces commander's implicit help command, so it can also show topics
 * (exit-codes) and nested commands (`prs help auth status`).
 */
import type { Command } from 'commander';
import { HELP_TOPICS, helpTarget } from '../help.js';
import { type DefineContext, globalsOf, type Runnable } from './define.js';

/** `prs help exit-codes` takes no options. */
export type ExitCodesOptions = Record<string, never>;

const exitCodes: Runnable<ExitCodesOptions> = {
  name: 'help.exit-codes',
  load: () => import('./help.js').then((m) => m.exitCodes),
};

export function defineHelp(program: Command, { run }: DefineContext): void {
  program
    .command('help')
    .description('help for a command (prs help auth status), or: prs help exit-codes')
    .argument('[topic...]', `a command, or one of: ${HELP_TOPICS.join(', ')}`)
    .action(async (topic: string[], _o: object, cmd: Command) => {
      if (topic.length === 1 && topic[0] === 'exit-codes') return run(exitCodes, {}, globalsOf(cmd));
      helpTarget(program, topic).help();
    });
}
