// The checked-in completions/ files must be what src/completion/scripts.ts holds.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { completionScript, SHELLS } from '../../../src/completion/scripts.js';

const root = new URL('../../../', import.meta.url);

describe('checked-in completion scripts', () => {
  it.each(SHELLS)('completions/prs.%s is up to date (else run: npm run completions)', (shell) => {
    expect(readFileSync(new URL(`completions/prs.${shell}`, root), 'utf8')).toBe(completionScript(shell));
  });

  it('each script says it is generated, how to install it, and asks prs __complete', () => {
    const [bash, zsh, fish] = (['bash', 'zsh', 'fish'] as const).map(completionScript);
    expect(bash).toMatch(/^# bash completion for prs.*\n# Written .*do not edit/);
    expect(bash).toContain('source <(prs completion bash)');
    expect(zsh.split('\n')[0]).toBe('#compdef prs');
    expect(zsh).toContain('fpath=(~/.zfunc $fpath)');
    expect(fish).toContain('~/.config/fish/completions/prs.fish');
    for (const script of [bash, zsh, fish]) expect(script).toContain('command prs __complete -- ');
  });
});
