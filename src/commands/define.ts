// Every command's definition, as GitHub CLI's `NewCmdX(f, runF)`: flags → typed options (bad input
// rejected before any I/O) → the runner, which loads the command's body (a chunk of its own).
import { Argument, type Command, Option } from 'commander';
import type { Shell } from '../completion/scripts.js';
import type { Deps } from '../deps.js';
import { exitCodesText, HELP_TOPICS, helpTarget } from '../help.js';
import { fieldOf, type GlobalOptions, LOGIN_FLAGS, SETTING_KEYS, settingFlag } from '../settings.js';
import type { ConfigOptions } from './config.js';
import { DIFF_FLAGS, diffOptions } from './diff.flags.js';
import { EXPORT_FLAGS, exportOptions } from './export.flags.js';
import { cacheFlags, type FlagRow, type FlagsOf } from './flags.js';
import type { LoginOptions } from './login.js';
import { REPORT_FLAGS, reportOptions } from './report.flags.js';
import { SANDBOX_FLAGS } from './sandbox.flags.js';

interface Runnable<O> {
  readonly name: string;
  load(): Promise<(options: O, deps: Deps) => Promise<unknown>>;
}

export type Runner = <O>(command: Runnable<O>, options: O, globals: GlobalOptions) => Promise<void>;

interface DefineContext {
  run: Runner;
  now: () => Date;
}

/** The global flags, before the command or after it. */
const globalsOf = (cmd: Command): GlobalOptions => {
  let program = cmd;
  while (program.parent) program = program.parent;
  return { ...cmd.optsWithGlobals(), ...cacheFlags(program.opts().cache) };
};

/** Each row as a commander option, its completion values attached for the completion scripts. */
export function addFlags(cmd: Command, rows: readonly FlagRow[]): void {
  // A default shown as written (`default: 0`), as the help texts spell defaults themselves.
  for (const row of rows) {
    const option = new Option(row.flag, row.help).default(row.default, row.default);
    cmd.addOption(Object.assign(option, { complete: row.complete }));
  }
}

interface Definition<T extends Record<string, FlagRow>, O> {
  /** Commander's spelling: the name, then any arguments without a description (`set <key> <value>`). */
  spelling: string;
  description: string;
  args?: Argument[];
  flags?: T;
  hidden?: boolean;
  run: Runnable<O>;
  options(args: unknown[], flags: FlagsOf<T>, globals: GlobalOptions): NoInfer<O>;
}

function define<T extends Record<string, FlagRow>, O>(
  parent: Command,
  { run }: DefineContext,
  d: Definition<T, O>,
): Command {
  const cmd = parent.command(d.spelling, { hidden: d.hidden }).description(d.description);
  for (const arg of d.args ?? []) cmd.addArgument(arg);
  addFlags(cmd, Object.values<FlagRow>(d.flags ?? {}));
  return cmd.action(async (...values: unknown[]) => {
    const globals = globalsOf(values.at(-1) as Command);
    const options = d.options(values.slice(0, -2), values.at(-2) as FlagsOf<T>, globals);
    await run(d.run, options, globals);
  });
}

const IDS = () => [new Argument('<portfolioId...>', 'one or more portfolio ids')];
const JSON_FLAG = { json: { flag: '--json', help: 'machine-readable output' } } as const;
const json = (_: unknown[], o: { json?: boolean }) => ({ json: !!o.json });

const LOGIN_TABLE = {
  ...Object.fromEntries(LOGIN_FLAGS.map((name) => [fieldOf(name), settingFlag(name)])),
  passwordStdin: { flag: '--password-stdin', help: 'read the password from stdin' },
  savePassword: {
    flag: '--save-password',
    help: 'also keep the password (the session and client secret are always kept, 0600) for unattended re-login',
  },
  clientCredentials: {
    flag: '--client-credentials',
    help: 'a service account: client id and secret, no user (grant client_credentials)',
  },
} satisfies Record<string, FlagRow>;

const SHELLS = ['bash', 'zsh', 'fish'] as const satisfies readonly Shell[];

/** In `prs --help` order. */
export function defineCommands(program: Command, ctx: DefineContext): void {
  define(program, ctx, {
    spelling: 'login',
    description: 'sign in and store the session in the profile',
    flags: LOGIN_TABLE,
    run: { name: 'login', load: async () => (await import('./login.js')).login },
    options: (_, o): LoginOptions => o,
  });
  define(program, ctx, {
    spelling: 'logout',
    description: "forget the profile's tokens and any saved password or secret",
    flags: { all: { flag: '--all', help: 'every profile' } },
    run: { name: 'logout', load: async () => (await import('./logout.js')).logout },
    options: (_, o) => ({ all: !!o.all }),
  });

  const auth = program.command('auth').description('session status and tokens');
  define(auth, ctx, {
    spelling: 'status',
    description: 'show the session; exit 0 when an API call would succeed without a prompt',
    flags: JSON_FLAG,
    run: { name: 'auth.status', load: async () => (await import('./auth.js')).authStatus },
    options: json,
  });
  define(auth, ctx, {
    spelling: 'token',
    description: 'print a valid access token on stdout (refreshing if needed)',
    run: { name: 'auth.token', load: async () => (await import('./auth.js')).authToken },
    options: () => ({}),
  });

  const config = program.command('config').description(`profile settings (${SETTING_KEYS.join(', ')})`);
  const configRun = { name: 'config', load: async () => (await import('./config.js')).config };
  const configAction = (spelling: string, description: string) => {
    const action = spelling.split(' ')[0] as ConfigOptions['action'];
    define(config, ctx, {
      spelling,
      description,
      flags: action === 'list' ? JSON_FLAG : undefined,
      run: configRun,
      options: ([key, value], o): ConfigOptions => ({
        action,
        ...(key !== undefined && { key: key as string }),
        ...(value !== undefined && { value: value as string }),
        ...(action === 'list' && { json: !!o.json }),
      }),
    });
  };
  configAction('list', 'all settings of the profile, with where each comes from');
  configAction('get <key>', 'print one setting');
  configAction('set <key> <value>', 'store one setting in the profile');
  configAction('unset <key>', 'remove one setting from the profile');
  configAction('path', 'print the config file path');

  define(program, ctx, {
    spelling: 'report',
    description: 'fetch report rows and print them as a table, JSON, NDJSON, CSV or TSV',
    args: IDS(),
    flags: REPORT_FLAGS,
    run: { name: 'report', load: async () => (await import('./report.js')).report },
    options: ([ids], o, globals) => reportOptions(ids as string[], o, ctx.now(), globals),
  });
  define(program, ctx, {
    spelling: 'export',
    description: 'download report files (JSON, or CSV in a zip), written whole or not at all',
    args: IDS(),
    flags: EXPORT_FLAGS,
    run: { name: 'export', load: async () => (await import('./export.js')).exportCommand },
    options: ([ids], o) => exportOptions(ids as string[], o, ctx.now()),
  });
  define(program, ctx, {
    spelling: 'diff',
    description: 'what changed in a report: between two dates, or between two report types on one date',
    args: IDS(),
    flags: DIFF_FLAGS,
    run: { name: 'diff', load: async () => (await import('./diff.js')).diff },
    options: ([ids], o, globals) => diffOptions(ids as string[], o, ctx.now(), globals),
  });

  const cache = program
    .command('cache')
    .description('the answer cache (see --cache): what it holds, and clearing it');
  const cacheRun = { name: 'cache', load: async () => (await import('./cache.js')).cache };
  define(cache, ctx, {
    spelling: 'info',
    description: 'directory, entries, bytes, oldest and newest stored answers',
    flags: JSON_FLAG,
    run: cacheRun,
    options: (_, o) => ({ action: 'info' as const, json: !!o.json }),
  });
  define(cache, ctx, {
    spelling: 'clear',
    description: "remove this profile's stored answers",
    flags: { all: { flag: '--all', help: "every profile's" } },
    run: cacheRun,
    options: (_, o) => ({ action: 'clear' as const, all: !!o.all }),
  });

  define(program, ctx, {
    spelling: 'quota',
    description: 'the rate limit in force, the requests counted in its window, and the next free slot',
    flags: JSON_FLAG,
    run: { name: 'quota', load: async () => (await import('./quota.js')).quota },
    options: json,
  });

  const completion = { name: 'completion', load: async () => (await import('./completion.js')).completion };
  define(program, ctx, {
    spelling: 'completion',
    description: 'print the shell completion script',
    // Commander refuses any other shell, naming the choices.
    args: [new Argument('<shell>', 'bash, zsh or fish').choices(SHELLS)],
    run: completion,
    options: ([shell]) => ({ shell: shell as Shell, program }),
  });
  // Hidden: what the completion scripts offer (`prs __complete -- report 1 --fo`).
  define(program, ctx, {
    spelling: '__complete [words...]',
    description: '',
    hidden: true,
    run: completion,
    options: ([words]) => ({ words: words as string[], program }),
  });

  define(program, ctx, {
    spelling: 'sandbox',
    description: 'run a local stand-in for the service and its token endpoint, until interrupted',
    flags: SANDBOX_FLAGS,
    run: { name: 'sandbox', load: async () => (await import('./sandbox.js')).sandbox },
    // Commander gives `prs sandbox --rate-limit` to the global flag of the same name.
    options: (_, o, globals) => ({ ...o, rateLimit: globals.rateLimit ?? o.rateLimit }),
  });

  // Replaces commander's implicit help command: it also shows topics and nested commands.
  const exitCodes = {
    name: 'help.exit-codes',
    load: async () => async (_o: object, deps: Deps) => deps.io.out(exitCodesText()),
  };
  program
    .command('help')
    .description('help for a command (prs help auth status), or: prs help exit-codes')
    .argument('[topic...]', `a command, or one of: ${Object.keys(HELP_TOPICS).join(', ')}`)
    .action(async (topic: string[], _o: object, cmd: Command) => {
      if (topic.length === 1 && topic[0] === 'exit-codes') return ctx.run(exitCodes, {}, globalsOf(cmd));
      helpTarget(program, topic).help();
    });
}
