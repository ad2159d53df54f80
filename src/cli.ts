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
import { defineDiff } from './commands/diff.cli.js';
import { defineExport } from './commands/export.cli.js';
import { defineHelp } from './commands/help.cli.js';
import { defineLogin } from './commands/login.cli.js';
import { defineLogout } from './commands/logout.cli.js';
import { defineQuota } from './commands/quota.cli.js';
import { defineReport } from './commands/report.cli.js';
import { defineSandbox } from './commands/sandbox.cli.js';
import { addHelpTexts } from './help.js';
import { flagHelp, GLOBAL_FLAGS, SETTINGS, type SettingRow } from './settings.js';

export type { Runnable, Runner } from './commands/define.js';
export type { GlobalOptions } from './settings.js';

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
  defineDiff,
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
    // A command's own options only: help.ts adds the global ones in a section of their own.
    .configureHelp({ sortSubcommands: false });
  for (const define of COMMANDS) define(program, { run, now });
  addHelpTexts(program);
  return program;
}

/** The flags every command takes, before or after the command name: settings.ts's global rows. */
function addGlobalOptions(program: Command): Command {
  for (const name of GLOBAL_FLAGS) program.option((SETTINGS[name] as SettingRow).flag!, flagHelp(name));
  return program;
}
