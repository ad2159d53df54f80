/** `prs cache info|clear`: their options and flags (src/commands/define.ts says how the pieces fit). */
import type { Command } from 'commander';
import type { CacheOptions } from './cache.js';
import { action, type DefineContext, type Runnable } from './define.js';

const command: Runnable<CacheOptions> = {
  name: 'cache',
  load: () => import('./cache.js').then((m) => m.cache),
};

export function defineCache(program: Command, ctx: DefineContext): void {
  const cache = program
    .command('cache')
    .description('the answer cache (see --cache): what it holds, and clearing it');
  cache
    .command('info')
    .description('directory, entries, bytes, oldest and newest stored answers')
    .option('--json', 'machine-readable output')
    .action(
      action(ctx, command, (o: { json?: boolean }): CacheOptions => ({ action: 'info', json: !!o.json })),
    );
  cache
    .command('clear')
    .description("remove this profile's stored answers")
    .option('--all', "every profile's")
    .action(
      action(ctx, command, (o: { all?: boolean }): CacheOptions => ({ action: 'clear', all: !!o.all })),
    );
}
