/** `prs logout`: its options and its flags (src/commands/define.ts says how the pieces fit). */
import type { Command } from 'commander';
import { action, type DefineContext, type Runnable } from './define.js';
import type { LogoutOptions } from './logout.js';

const command: Runnable<LogoutOptions> = {
  name: 'logout',
  load: () => import('./logout.js').then((m) => m.logout),
};

export function defineLogout(program: Command, ctx: DefineContext): void {
  program
    .command('logout')
    .description("forget the profile's tokens and any saved password or secret")
    .option('--all', 'every profile')
    .action(action(ctx, command, (o: { all?: boolean }) => ({ all: !!o.all })));
}
