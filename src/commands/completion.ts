/** `prs completion <shell>`; `prs __complete -- <words…>`, silent on any problem (it feeds a menu). */
import type { Command } from 'commander';
import type { Shell } from '../completion/scripts.js';
import type { Deps } from '../deps.js';

export type CompletionOptions = { program: Command } & ({ shell: Shell } | { words: string[] });

export async function completion(o: CompletionOptions, deps: Deps): Promise<void> {
  if ('shell' in o) {
    const { completionScript } = await import('../completion/scripts.js');
    deps.io.out(completionScript(o.shell));
    return;
  }
  const { complete } = await import('../completion/complete.js');
  const { complete: what, prefix = '' } = complete(o.program, o.words);
  if (what === 'file' || what === 'dir') return deps.io.out(`:${what}s\n`);
  // An unreadable config offers no profiles: a menu never shows an error.
  const profiles = async () => [...(await deps.store()).profileNames()].sort();
  const { values, descriptions } =
    what === 'profiles' ? { values: await profiles().catch(() => []) } : (what ?? {});
  const line = (v: string) => `${prefix}${v}${descriptions?.[v] ? `\t${descriptions[v]}` : ''}\n`;
  deps.io.out((values ?? []).map(line).join(''));
}
