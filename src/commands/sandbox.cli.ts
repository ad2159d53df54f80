/** `prs sandbox`: its options and its flags (src/commands/define.ts says how the pieces fit). */
import type { Command } from 'commander';
import { type DefineContext, globalsOf, type Runnable } from './define.js';
import type { SandboxCommandOptions } from './sandbox.js';

interface SandboxFlags {
  port: string;
  host: string;
  rateLimit?: string;
  tokenTtl: string;
  refreshTtl: string;
  bigRows?: string;
  exportDelay?: string;
  jsonStyle?: string;
  gzip?: boolean;
}

const command: Runnable<SandboxCommandOptions> = {
  name: 'sandbox',
  load: () => import('./sandbox.js').then((m) => m.sandbox),
};

export function defineSandbox(program: Command, { run }: DefineContext): void {
  program
    .command('sandbox')
    .description('run a local stand-in for the service and its token endpoint, until interrupted')
    .option('--port <n>', 'port (0 picks a free one)', '0')
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--rate-limit <n/window>', "the sandbox's JSON endpoint limit per user (default: 4/60s)")
    .option('--token-ttl <seconds>', 'access token lifetime', '300')
    .option('--refresh-ttl <seconds>', 'refresh token lifetime', '1800')
    .option('--big-rows <n>', 'constituent rows of portfolio 900, streamed (default: 1000)')
    .option('--export-delay <ms>', 'milliseconds added to each export answer (default: 0)')
    .option(
      '--json-style <style>',
      'JSON bodies compact (default) or spaced, as Python json.dumps writes them',
    )
    .option('--gzip', 'answer gzip-compressed when the request accepts it, as a compressing gateway does')
    .action(async (o: SandboxFlags, cmd: Command) => {
      // The global --rate-limit has the same name, and commander gives it the value wherever it
      // appears, so `prs sandbox --rate-limit 4/2s` lands in the program's options: take it from there.
      const globals = globalsOf(cmd);
      await run(
        command,
        {
          port: o.port,
          host: o.host,
          rateLimit: o.rateLimit ?? globals.rateLimit ?? '4/60s',
          tokenTtl: o.tokenTtl,
          refreshTtl: o.refreshTtl,
          bigRows: o.bigRows,
          exportDelay: o.exportDelay,
          jsonStyle: o.jsonStyle,
          gzip: o.gzip,
        },
        globals,
      );
    });
}
