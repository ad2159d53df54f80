/** The completion scripts of the program handed in: `prs completion` and scripts/gen-completions.mjs. */
import type { Command } from 'commander';
import { EXAMPLES } from '../help.js';
import { renderBash } from './bash.js';
import { renderFish } from './fish.js';
import { type OptionValues, specFromProgram } from './model.js';
import { renderZsh } from './zsh.js';

export type Shell = 'bash' | 'zsh' | 'fish';

export const COMPLETION_FILES: Record<Shell, string> = {
  bash: 'completions/prs.bash',
  zsh: 'completions/prs.zsh',
  fish: 'completions/prs.fish',
};

/** How to install a script: `prs completion --help`'s examples for its shell. */
function header(shell: Shell): string {
  const install = EXAMPLES.completion!.filter(([, command]) => command.includes(`completion ${shell}`));
  return [
    `${shell} completion for prs.`,
    'Generated from the command definitions by scripts/gen-completions.mjs; do not edit by hand.',
    ...install.flatMap(([comment, command]) => [`${comment}:`, `  ${command}`]),
  ].join('\n');
}

const RENDER = { bash: renderBash, zsh: renderZsh, fish: renderFish };

export function generateCompletion(shell: Shell, program: Command, values: OptionValues): string {
  return RENDER[shell](specFromProgram(program, values), header(shell));
}

export function generateAll(program: Command, values: OptionValues): Record<Shell, string> {
  const all = Object.keys(RENDER).map((shell) => [
    shell,
    generateCompletion(shell as Shell, program, values),
  ]);
  return Object.fromEntries(all);
}
