/** `prs report`: its options and its flags (src/commands/define.ts says how the pieces fit). */
import { type Command, Option } from 'commander';
import { action, addDateOptions, type DefineContext, type Runnable, reportTypeOption } from './define.js';
import { type ReportFlags, type ReportOptions, reportOptions } from './report.flags.js';

export type { ReportOptions };

const command: Runnable<ReportOptions> = {
  name: 'report',
  load: () => import('./report.js').then((m) => m.report),
};

export function defineReport(program: Command, ctx: DefineContext): void {
  addDateOptions(
    program
      .command('report')
      .description('fetch report rows and print them as a table, JSON, NDJSON, CSV or TSV')
      .argument('<portfolioId...>', 'one or more portfolio ids')
      .addOption(reportTypeOption()),
  )
    .addOption(
      new Option(
        '-f, --format <fmt>',
        'table | json | ndjson | csv | tsv (default: table on a terminal, else json)',
      ),
    )
    .option('--json', 'same as -f json')
    .option('--fields <a,b,...>', 'columns to keep, in this order; dotted paths for nested values')
    .option('-o, --output <file>', 'write to a file (atomically); - for stdout')
    .option('--force', 'overwrite an existing --output file')
    .option('--raw', 'print the response body exactly as received (one portfolio, one date)')
    .option('--fail-fast', 'stop at the first item that fails')
    .option('--dry-run', 'send nothing: print the plan (items, requests after cache hits, waits, ETA)')
    .option('--refresh', 'ask the service again and update the answer cache')
    .option('--no-cache', 'neither read nor write the answer cache this run')
    .action(action(ctx, command, (ids: string[], o: ReportFlags) => reportOptions(ids, o, ctx.now())));
}
