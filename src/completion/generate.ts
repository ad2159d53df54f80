/**
 * The three completion scripts, generated from the commander program they are handed. `prs completion
 * <shell>` and scripts/gen-completions.mjs (which writes completions/) both call this, so they print
 * the same text.
 */
import type { Command } from 'commander';
import { renderBash } from './bash.js';
import { renderFish } from './fish.js';
import { type OptionValues, specFromProgram } from './model.js';
import { renderZsh } from './zsh.js';

export type Shell = 'bash' | 'zsh' | 'fish';

/** Where each script is checked in, relative to the package root. */
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

export function generateCompletion(shell: Shell, program: Command, values: OptionValues): string {
  const spec = specFromProgram(program, values);
  switch (shell) {
    case 'bash':
      return renderBash(spec, header(shell));
    case 'zsh':
      return renderZsh(spec, header(shell));
    case 'fish':
      return renderFish(spec, header(shell));
  }
}

export function generateAll(program: Command, values: OptionValues): Record<Shell, string> {
  return {
    bash: generateCompletion('bash', program, values),
    zsh: generateCompletion('zsh', program, values),
    fish: generateCompletion('fish', program, values),
  };
}
