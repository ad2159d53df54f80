/** `prs auth status|token`: their options and flags (src/commands/define.ts says how the pieces fit). */
import type { Command } from 'commander';
import type { AuthStatusOptions, AuthTokenOptions } from './auth.js';
import { action, type DefineContext, type Runnable } from './define.js';

const status: Runnable<AuthStatusOptions> = {
  name: 'auth.status',
  load: () => import('./auth.js').then((m) => m.authStatus),
};
const token: Runnable<AuthTokenOptions> = {
  name: 'auth.token',
  load: () => import('./auth.js').then((m) => m.authToken),
};

export function defineAuth(program: Command, ctx: DefineContext): void {
  const auth = program.command('auth').description('session status and tokens');
  auth
    .command('status')
    .description('show the session; exit 0 when an API call would succeed without a prompt')
    .option('--json', 'machine-readable output')
    .action(action(ctx, status, (o: { json?: boolean }) => ({ json: !!o.json })));
  auth
    .command('token')
    .description('print a valid access token on stdout (refreshing if needed)')
    .action(action(ctx, token, () => ({})));
}
