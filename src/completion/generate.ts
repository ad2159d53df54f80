/** The completion scripts of the program handed in: `prs completion` and scripts/gen-completions.mjs. */
import type { Command } from 'commander';
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

const INSTALL: Record<Shell, string[]> = {
  bash: [
    'Load in the current shell:  source <(prs completion bash)',
    'Install for your user:      prs completion bash > ~/.local/share/bash-completion/completions/prs',
    '  (that directory is loaded by the bash-completion package; without it, source the line above in ~/.bashrc)',
  ],
  zsh: [
    'Install: save as _prs in a directory on $fpath, before compinit runs, e.g.',
    '  mkdir -p ~/.zfunc && prs completion zsh > ~/.zfunc/_prs',
    '  and in ~/.zshrc, before compinit:  fpath=(~/.zfunc $fpath)',
    'Or load in a running shell (after compinit):  source <(prs completion zsh)',
  ],
  fish: ['Install: prs completion fish > ~/.config/fish/completions/prs.fish'],
};

function header(shell: Shell): string {
  return [
    `${shell} completion for prs.`,
    'Generated from the command definitions by scripts/gen-completions.mjs; do not edit by hand.',
    ...INSTALL[shell],
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
