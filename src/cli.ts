/** The commander program: the global flags, then each command's definition (commands/<name>.cli.ts). */
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
import { flagHelp, GLOBAL_FLAGS, settingRow } from './settings.js';

export type { Runnable, Runner } from './commands/define.js';
export type { GlobalOptions } from './settings.js';

export interface BuildOptions {
  version: string;
  run: Runner;
  now?: () => Date;
}

/** In `prs --help` order. */
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
  for (const name of GLOBAL_FLAGS) program.option(settingRow(name).flag!, flagHelp(name));
  program.showSuggestionAfterError(true).configureHelp({ sortSubcommands: false });
  for (const define of COMMANDS) define(program, { run, now });
  addHelpTexts(program);
  return program;
}
