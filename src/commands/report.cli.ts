/** `prs report`: its options and its flags (src/commands/define.ts says how the pieces fit). */
import type { Command } from 'commander';
import { action, type DefineContext, globalsOf, type Runnable } from './define.js';
import { addFlags } from './flags.js';
import { REPORT_FLAGS, type ReportFlags, type ReportOptions, reportOptions } from './report.flags.js';

export type { ReportOptions };

const command: Runnable<ReportOptions> = {
  name: 'report',
  load: () => import('./report.js').then((m) => m.report),
};

export function defineReport(program: Command, ctx: DefineContext): void {
  addFlags(
    program
      .command('report')
      .description('fetch report rows and print them as a table, JSON, NDJSON, CSV or TSV')
      .argument('<portfolioId...>', 'one or more portfolio ids'),
    REPORT_FLAGS,
  ).action(
    action(ctx, command, (ids: string[], o: ReportFlags, cmd: Command) =>
      reportOptions(ids, o, ctx.now(), globalsOf(cmd)),
    ),
  );
}
