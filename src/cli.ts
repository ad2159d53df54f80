/**
 * The commander program. Actions only normalise flags into typed options (rejecting bad input before
 * any I/O), lazy-import the command module and call it: start-up loads commander and nothing heavy.
 */
import { Argument, Command, Option } from 'commander';
import type { GlobalOptions } from './deps.js';
import { UsageError } from './errors.js';
import { addHelpTexts, HELP_TOPICS, helpTarget } from './help.js';
import {
  parseExportFormat,
  parseFields,
  parsePortfolioIds,
  parseReportFormat,
  parseReportType,
  REPORT_TYPES,
  resolveDates,
} from './input.js';
import { SETTING_KEYS } from './settings.js';

/** What an action hands to the runner: the command's name, its typed options and the global flags. */
export type Runner = (command: CommandName, options: object, globals: GlobalOptions) => Promise<void>;

export type CommandName =
  | 'login'
  | 'logout'
  | 'auth.status'
  | 'auth.token'
  | 'config'
  | 'report'
  | 'export'
  | 'completion'
  | 'sandbox'
  | 'cache'
  | 'quota'
  | 'help.exit-codes';

export const SHELLS = ['bash', 'zsh', 'fish'] as const;

export interface BuildOptions {
  version: string;
  run: Runner;
  /** "now" for `today` / `yesterday`; tests pin it. */
  now?: () => Date;
}

export function buildProgram({ version, run, now = () => new Date() }: BuildOptions): Command {
  const program = new Command('prs')
    .description(
      'Reports and exports from the Portfolio Report Service, from your terminal and your cron jobs.',
    )
    .version(version, '-V, --version', 'print the version')
    .helpOption('-h, --help', 'show help')
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
      '--cache <max-age>',
      'reuse stored report answers for past dates up to this age: 30m, 12h, 7d, off (env PRS_CACHE; default off)',
    )
    .option('-q, --quiet', 'no progress, notes or hints on stderr')
    .option('-v, --verbose', 'one line per HTTP request/response on stderr, secrets redacted')
    .option('--no-color', 'no colour (also NO_COLOR; FORCE_COLOR forces it)')
    .showSuggestionAfterError(true)
    .configureHelp({ sortSubcommands: false, showGlobalOptions: true });

  // report's --no-cache is named `cache` too: the global --cache <max-age> is the program's own value.
  const globalsOf = (cmd: Command): GlobalOptions =>
    ({ ...cmd.optsWithGlobals(), cache: program.opts().cache }) as GlobalOptions;
  const act =
    <A extends unknown[]>(name: CommandName, toOptions: (...args: A) => object) =>
    async (...args: unknown[]) => {
      const cmd = args[args.length - 1] as Command;
      const options = toOptions(...(args.slice(0, -1) as A));
      await run(name, options, globalsOf(cmd));
    };

  program
    .command('login')
    .description('sign in and store the session in the profile')
    .option('--auth-url <url>', 'Keycloak base URL, before /realms (env PRS_AUTH_URL)')
    .option('--realm <realm>', 'Keycloak realm (env PRS_REALM)')
    .option('--client-id <id>', 'OAuth client id (env PRS_CLIENT_ID)')
    .option('--username <user>', 'user name (env PRS_USERNAME)')
    .option('--password-stdin', 'read the password from stdin')
    .option(
      '--save-password',
      'also keep the password (the session and client secret are always kept, 0600) for unattended re-login',
    )
    .action(
      act('login', (o: Record<string, unknown>) => ({
        authUrl: o.authUrl,
        realm: o.realm,
        clientId: o.clientId,
        username: o.username,
        passwordStdin: !!o.passwordStdin,
        savePassword: !!o.savePassword,
      })),
    );

  program
    .command('logout')
    .description("forget the profile's tokens and any saved password or secret")
    .option('--all', 'every profile')
    .action(act('logout', (o: { all?: boolean }) => ({ all: !!o.all })));

  const auth = program.command('auth').description('session status and tokens');
  auth
    .command('status')
    .description('show the session; exit 0 when an API call would succeed without a prompt')
    .option('--json', 'machine-readable output')
    .action(act('auth.status', (o: { json?: boolean }) => ({ json: !!o.json })));
  auth
    .command('token')
    .description('print a valid access token on stdout (refreshing if needed)')
    .action(act('auth.token', () => ({})));

  const config = program.command('config').description(`profile settings (${SETTING_KEYS.join(', ')})`);
  config
    .command('list')
    .description('all settings of the profile, with where each comes from')
    .option('--json', 'machine-readable output')
    .action(act('config', (o: { json?: boolean }) => ({ action: 'list', json: !!o.json })));
  config
    .command('get <key>')
    .description('print one setting')
    .action(act('config', (key: string) => ({ action: 'get', key })));
  config
    .command('set <key> <value>')
    .description('store one setting in the profile')
    .action(act('config', (key: string, value: string) => ({ action: 'set', key, value })));
  config
    .command('unset <key>')
    .description('remove one setting from the profile')
    .action(act('config', (key: string) => ({ action: 'unset', key })));
  config
    .command('path')
    .description('print the config file path')
    .action(act('config', () => ({ action: 'path' })));

  const dateOptions = (cmd: Command) =>
    cmd
      .option('-d, --date <date>', 'YYYY-MM-DD, today, yesterday or previous-weekday')
      .option('--from <date>', 'first date of an inclusive range')
      .option('--to <date>', 'last date of an inclusive range')
      .option('--weekends', 'include Saturdays and Sundays in a range');

  dateOptions(
    program
      .command('report')
      .description('fetch report rows and print them as a table, JSON, NDJSON, CSV or TSV')
      .argument('<portfolioId...>', 'one or more portfolio ids')
      .addOption(typeOptionLoose()),
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
    .action(
      act('report', (ids: string[], o: Record<string, string | boolean | undefined>) => {
        const format = o.json
          ? 'json'
          : o.format === undefined
            ? undefined
            : parseReportFormat(String(o.format));
        if (o.json && o.format !== undefined && o.format !== 'json') {
          throw usage(`--json conflicts with --format ${o.format}`);
        }
        const portfolioIds = parsePortfolioIds(ids);
        const type = requireType(o.type);
        const dates = resolveDates(
          o as { date?: string; from?: string; to?: string; weekends?: boolean },
          now(),
        );
        if (o.raw && (portfolioIds.length > 1 || dates.length > 1)) {
          throw usage('--raw takes one portfolio and one date');
        }
        if (o.raw && (format !== undefined || o.fields !== undefined))
          throw usage('--raw cannot be combined with --format or --fields');
        return {
          portfolioIds,
          type,
          dates,
          format,
          fields: o.fields === undefined ? undefined : parseFields(String(o.fields)),
          // `-o -` is stdout, as for export (and most tools), not a file named "-".
          output: o.output === undefined || o.output === '-' ? undefined : String(o.output),
          force: !!o.force,
          raw: !!o.raw,
          failFast: !!o.failFast,
          dryRun: !!o.dryRun,
          cache: cacheUse(o),
        };
      }),
    );

  dateOptions(
    program
      .command('export')
      .description('download report files (JSON, or CSV in a zip), written whole or not at all')
      .argument('<portfolioId...>', 'one or more portfolio ids')
      .addOption(typeOptionLoose()),
  )
    .addOption(new Option('-f, --format <fmt>', 'json | csv (csv arrives as a zip)').default('json'))
    .option('--dir <dir>', 'directory for the files', '.')
    .option('-o, --output <file|->', 'file path, or - for the raw bytes on stdout (one portfolio, one date)')
    .option(
      '--name <words>',
      'the <name> part of <date>_<name>_index.<ext> when the server sends no file name',
    )
    .option('--force', 'overwrite existing files')
    .option('--extract', 'csv: also write the CSV file(s) inside the zip')
    .option('--skip-existing', 'skip items already exported here and unchanged (resume a run)')
    .option('--parallel <n>', 'exports in flight at once, 1-8', '1')
    .option('--fail-fast', 'stop at the first item that fails')
    .option('--json', 'print a JSON array, one object per item, instead of paths')
    .option('--dry-run', 'send nothing: print the plan (items, requests after --skip-existing, ETA)')
    .action(
      act('export', (ids: string[], o: Record<string, string | boolean | undefined>) => {
        const portfolioIds = parsePortfolioIds(ids);
        const type = requireType(o.type);
        const format = parseExportFormat(String(o.format));
        const dates = resolveDates(
          o as { date?: string; from?: string; to?: string; weekends?: boolean },
          now(),
        );
        if (o.output !== undefined && (portfolioIds.length > 1 || dates.length > 1)) {
          throw usage('--output takes one portfolio and one date; use --dir for several files');
        }
        if (o.extract && format !== 'csv') throw usage('--extract goes with --format csv');
        if (o.extract && o.output === '-') throw usage('--extract cannot be used with --output -');
        if (o.json && o.output === '-') throw usage('--json cannot be used with --output -');
        if (o.name !== undefined && !/[\p{L}\p{N}]/u.test(String(o.name)))
          throw usage(`invalid --name "${o.name}"`);
        return {
          portfolioIds,
          type,
          dates,
          format,
          dir: String(o.dir),
          output: o.output === undefined ? undefined : String(o.output),
          name: o.name === undefined ? undefined : String(o.name),
          force: !!o.force,
          extract: !!o.extract,
          skipExisting: !!o.skipExisting,
          parallel: parseParallel(String(o.parallel)),
          failFast: !!o.failFast,
          json: !!o.json,
          dryRun: !!o.dryRun,
        };
      }),
    );

  const cacheCmd = program
    .command('cache')
    .description('the answer cache (see --cache): what it holds, and clearing it');
  cacheCmd
    .command('info')
    .description('directory, entries, bytes, oldest and newest stored answers')
    .option('--json', 'machine-readable output')
    .action(act('cache', (o: { json?: boolean }) => ({ action: 'info', json: !!o.json })));
  cacheCmd
    .command('clear')
    .description("remove this profile's stored answers")
    .option('--all', "every profile's")
    .action(act('cache', (o: { all?: boolean }) => ({ action: 'clear', all: !!o.all })));

  program
    .command('quota')
    .description('the rate limit in force, the requests counted in its window, and the next free slot')
    .option('--json', 'machine-readable output')
    .action(act('quota', (o: { json?: boolean }) => ({ json: !!o.json })));

  program
    .command('completion')
    .description('print the shell completion script')
    .addArgument(new Argument('<shell>', 'bash, zsh or fish').choices(SHELLS as unknown as string[]))
    .action(act('completion', (shell: string) => ({ shell })));

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
    .action(async (o: Record<string, string | undefined>, cmd: Command) => {
      // The global --rate-limit has the same name, and commander gives it the value wherever it
      // appears, so `prs sandbox --rate-limit 4/2s` lands in the program's options: take it from there.
      const globals = globalsOf(cmd);
      await run(
        'sandbox',
        {
          port: o.port,
          host: o.host,
          rateLimit: o.rateLimit ?? globals.rateLimit ?? '4/60s',
          tokenTtl: o.tokenTtl,
          refreshTtl: o.refreshTtl,
          bigRows: o.bigRows,
          exportDelay: o.exportDelay,
        },
        globals,
      );
    });

  // An explicit `help` replaces commander's implicit one, so it can also show topics (exit-codes)
  // and nested commands (`prs help auth status`).
  program
    .command('help')
    .description('help for a command (prs help auth status), or: prs help exit-codes')
    .argument('[topic...]', `a command, or one of: ${HELP_TOPICS.join(', ')}`)
    .action(async (topic: string[], _o: object, cmd: Command) => {
      if (topic.length === 1 && topic[0] === 'exit-codes') return run('help.exit-codes', {}, globalsOf(cmd));
      helpTarget(program, topic).help();
    });

  // Hidden: dynamic values for the completion scripts (`prs __complete profiles`).
  program
    .command('__complete', { hidden: true })
    .argument('<list>')
    .action(act('completion', (list: string) => ({ list })));

  addHelpTexts(program);
  return program;

  function typeOptionLoose() {
    // Validated in the action (with "did you mean"), not by commander's plain choices() message.
    return new Option('-t, --type <type>', `report type (required): ${REPORT_TYPES.join(', ')}`);
  }
}

/** report's --refresh / --no-cache (commander: `cache` false for --no-cache). */
function cacheUse(o: { refresh?: unknown; cache?: unknown }): 'use' | 'refresh' | 'off' {
  if (o.refresh && o.cache === false) throw usage('--refresh conflicts with --no-cache');
  return o.refresh ? 'refresh' : o.cache === false ? 'off' : 'use';
}

function requireType(v: unknown) {
  if (v === undefined) throw usage('missing --type', `one of: ${REPORT_TYPES.join(', ')}`);
  return parseReportType(String(v));
}

/** --parallel: a whole number from 1 to 8. */
export function parseParallel(v: string): number {
  if (!/^[1-8]$/.test(v.trim())) throw usage(`invalid --parallel "${v}"`, 'use a whole number from 1 to 8');
  return Number(v.trim());
}

function usage(message: string, hint?: string) {
  return new UsageError(message, { hint });
}

export { HELP_TOPICS } from './help.js';
