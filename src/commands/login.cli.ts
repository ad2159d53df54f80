/** `prs login`: its options and its flags (src/commands/define.ts says how the pieces fit). */
import type { Command } from 'commander';
import { flagHelp, LOGIN_FLAGS, settingRow } from '../settings.js';
import { action, type DefineContext, type Runnable } from './define.js';
import type { LoginOptions } from './login.js';

interface LoginFlags {
  authUrl?: string;
  realm?: string;
  clientId?: string;
  username?: string;
  passwordStdin?: boolean;
  savePassword?: boolean;
  clientCredentials?: boolean;
}

const command: Runnable<LoginOptions> = {
  name: 'login',
  load: () => import('./login.js').then((m) => m.login),
};

export function defineLogin(program: Command, ctx: DefineContext): void {
  const login = program.command('login').description('sign in and store the session in the profile');
  for (const name of LOGIN_FLAGS) login.option(settingRow(name).flag!, flagHelp(name));
  login
    .option('--password-stdin', 'read the password from stdin')
    .option(
      '--save-password',
      'also keep the password (the session and client secret are always kept, 0600) for unattended re-login',
    )
    .option(
      '--client-credentials',
      'a service account: client id and secret, no user (grant client_credentials)',
    )
    .action(
      action(ctx, command, (o: LoginFlags) => ({
        authUrl: o.authUrl,
        realm: o.realm,
        clientId: o.clientId,
        username: o.username,
        passwordStdin: !!o.passwordStdin,
        savePassword: !!o.savePassword,
        clientCredentials: !!o.clientCredentials,
      })),
    );
}
