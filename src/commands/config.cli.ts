/** `prs config list|get|set|unset|path`: options and flags (src/commands/define.ts: how they fit). */
import type { Command } from 'commander';
import { SETTING_KEYS } from '../settings.js';
import type { ConfigOptions } from './config.js';
import { action, type DefineContext, type Runnable } from './define.js';

const command: Runnable<ConfigOptions> = {
  name: 'config',
  load: () => import('./config.js').then((m) => m.config),
};

export function defineConfig(program: Command, ctx: DefineContext): void {
  const config = program.command('config').description(`profile settings (${SETTING_KEYS.join(', ')})`);
  config
    .command('list')
    .description('all settings of the profile, with where each comes from')
    .option('--json', 'machine-readable output')
    .action(
      action(ctx, command, (o: { json?: boolean }): ConfigOptions => ({ action: 'list', json: !!o.json })),
    );
  config
    .command('get <key>')
    .description('print one setting')
    .action(action(ctx, command, (key: string): ConfigOptions => ({ action: 'get', key })));
  config
    .command('set <key> <value>')
    .description('store one setting in the profile')
    .action(
      action(ctx, command, (key: string, value: string): ConfigOptions => ({ action: 'set', key, value })),
    );
  config
    .command('unset <key>')
    .description('remove one setting from the profile')
    .action(action(ctx, command, (key: string): ConfigOptions => ({ action: 'unset', key })));
  config
    .command('path')
    .description('print the config file path')
    .action(action(ctx, command, (): ConfigOptions => ({ action: 'path' })));
}
