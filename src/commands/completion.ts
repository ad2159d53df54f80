import type { Deps } from '../deps.js';

export interface CompletionOptions {
  shell: 'bash' | 'zsh' | 'fish';
}

export async function completion(_o: CompletionOptions, _deps: Deps): Promise<void> {
  throw new Error('completion: not implemented yet');
}
