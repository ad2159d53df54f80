/** `prs quota`: its options and flags (src/commands/define.ts says how the pieces fit). */
import type { Command } from 'commander';
import { action, type DefineContext, type Runnable } from './define.js';
import type { QuotaOptions } from './quota.js';

const command: Runnable<QuotaOptions> = {
  name: 'quota',
  load: () => import('./quota.js').then((m) => m.quota),
};

export function defineQuota(program: Command, ctx: DefineContext): void {
  program
    .command('quota')
    .description('the rate limit in force, the requests counted in its window, and the next free slot')
    .option('--json', 'machine-readable output')
    .action(action(ctx, command, (o: { json?: boolean }) => ({ json: !!o.json })));
}
