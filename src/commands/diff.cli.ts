/** `prs diff`: its flags (src/commands/define.ts says how the pieces fit). */
import type { Command } from 'commander';
import { action, type DefineContext, globalsOf, type Runnable } from './define.js';
import { DIFF_FLAGS, type DiffFlags, type DiffOptions, diffOptions } from './diff.flags.js';
import { addFlags } from './flags.js';

const command: Runnable<DiffOptions> = {
  name: 'diff',
  load: () => import('./diff.js').then((m) => m.diff),
};

export function defineDiff(program: Command, ctx: DefineContext): void {
  addFlags(
    program
      .command('diff')
      .description('what changed in a report: between two dates, or between two report types on one date')
      .argument('<portfolioId...>', 'one or more portfolio ids'),
    DIFF_FLAGS,
  ).action(
    action(ctx, command, (ids: string[], o: DiffFlags, cmd: Command) =>
      diffOptions(ids, o, ctx.now(), globalsOf(cmd)),
    ),
  );
}
