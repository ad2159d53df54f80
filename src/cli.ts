/** The commander program: the global flags, then every command's definition (commands/define.ts). */
import { Command } from 'commander';
import { addFlags, defineCommands, type Runner } from './commands/define.js';
import { addHelpTexts } from './help.js';
import { GLOBAL_FLAGS, settingFlag } from './settings.js';

export interface BuildOptions {
  version: string;
  run: Runner;
  now?: () => Date;
}

export function buildProgram({ version, run, now = () => new Date() }: BuildOptions): Command {
  const program = new Command('prs')
    .description(
      'Reports and exports from the Portfolio Report Service, from your terminal and your cron jobs.',
    )
    .version(version, '-V, --version', 'print the version')
    .helpOption('-h, --help', 'show help');
  addFlags(program, GLOBAL_FLAGS.map(settingFlag));
  program.showSuggestionAfterError(true).configureHelp({ sortSubcommands: false });
  defineCommands(program, { run, now });
  addHelpTexts(program);
  return program;
}
