/**
 * The commander program: the global flags here, each command's flags and typed options in its own
 * definition (src/commands/<name>.cli.ts, see src/commands/define.ts). Actions only normalise flags
 * into typed options (rejecting bad input before any I/O) and hand them to the runner, which
 * lazy-imports the command's body: start-up loads commander and the definitions, nothing heavy.
 */
import { Command } from 'commander';
import { defineAuth } from './commands/auth.cli.js';
import { defineCache } from './commands/cache.cli.js';
import { defineCompletion } from './commands/completion.cli.js';
import { defineConfig } from './commands/config.cli.js';
import type { Runner } from './commands/define.js';
import { defineExport } from './commands/export.cli.js';
import { defineHelp } from './commands/help.cli.js';
import { defineLogin } from './commands/login.cli.js';
import { defineLogout } from './commands/logout.cli.js';
import { defineQuota } from './commands/quota.cli.js';
import { defineReport } from './commands/report.cli.js';
import { defineSandbox } from './commands/sandbox.cli.js';
import { addHelpTexts } from './help.js';

export type { Runnable, Runner } from './commands/define.js';

export interface BuildOptions {
  version: string;
  run: Runner;
  /** "now" for `today` / `yesterday`; tests pin it. */
  now?: () => Date;
}

/** The commands, in the order `prs --help` lists them. */
const COMMANDS = [
  defineLogin,
  defineLogout,
  defineAuth,
  defineConfig,
  defineReport,
  defineExport,
  defineCache,
  defineQuota,
  defineCompletion,
  defineSandbox,
  defineHelp,
];

export function buildProgram({ version, run, now = () => new Date() }: BuildOptions): Command {
  const program = new Command('prs')
    .description(
      'Reports and exports from the Portfolio Report Service, from your terminal and your cron jobs.',
    )
    .version(version, '-V, --version', 'print the version')
    .helpOption('-h, --help', 'show help');
  addGlobalOptions(program)
    .showSuggestionAfterError(true)
    .configureHelp({ sortSubcommands: false, showGlobalOptions: true });
  for (const define of COMMANDS) define(program, { run, now });
  addHelpTexts(program);
  return program;
}

/**
 * The flags every command takes, before or after the command name, as commander hands them over
 * (settings.ts resolves them against the environment and the profile). A new global flag: its field
 * here and its definition in addGlobalOptions below.
 */
export interface GlobalOptions {
  profile?: string;
  baseUrl?: string;
  tenant?: string;
  timeout?: string;
  retries?: string;
  rateLimit?: string;
  limiter?: string;
  quiet?: boolean;
  verbose?: boolean;
  color?: boolean;
  /** --cache <max-age> (report's --no-cache is a flag of its own: see globalsOf). */
  cache?: string;
  logFormat?: string;
  metricsFile?: string;
  pingUrl?: string;
}

function addGlobalOptions(program: Command): Command {
  return program
    .option('--profile <name>', 'named settings and session (env PRS_PROFILE; default "default")')
    .option('--base-url <url>', 'service base URL, the part before /api/v1 (env PRS_BASE_URL)')
    .option('--tenant <id>', 'tenant id, sent as X-CLIENT-ID (env PRS_TENANT)')
    .option('--timeout <seconds>', 'per-request timeout (env PRS_TIMEOUT; default 60)')
    .option('--retries <n>', 'retries for 429, 5xx and network failures (env PRS_RETRIES; default 3)')
    .option(
      '--rate-limit <n/window>',
      'client-side limit for the JSON endpoint, e.g. 4/60s (env PRS_RATE_LIMIT)',
    )
    .option(
      '--limiter <url>',
      'share the rate limit between machines: redis://[user:password@]host:port[/db] (env PRS_LIMITER)',
    )
    .option(
      '--log-format <text|json>',
      'json: every stderr message one JSON object per line (env PRS_LOG_FORMAT)',
    )
    .option(
      '--metrics-file <path>',
      'after each report/export run, write Prometheus metrics there (env PRS_METRICS_FILE)',
    )
    .option(
      '--ping-url <url>',
      'tell a Healthchecks-style monitor of each run: start, success, failure (env PRS_PING_URL)',
    )
    .option(
      '--cache <max-age>',
      'reuse stored report answers for past dates up to this age: 30m, 12h, 7d, off (env PRS_CACHE; default off)',
    )
    .option('-q, --quiet', 'no progress, notes or hints on stderr')
    .option('-v, --verbose', 'one line per HTTP request/response on stderr, secrets redacted')
    .option('--no-color', 'no colour (also NO_COLOR; FORCE_COLOR forces it)');
}
