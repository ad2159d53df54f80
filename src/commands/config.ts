import type { Deps } from '../deps.js';

export interface ConfigOptions {
  action: 'list' | 'get' | 'set' | 'unset' | 'path';
  key?: string;
  value?: string;
  json?: boolean;
}

export async function config(_o: ConfigOptions, _deps: Deps): Promise<void> {
  throw new Error('config: not implemented yet');
}
