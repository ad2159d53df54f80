import type { Deps } from '../deps.js';

export interface LogoutOptions {
  all: boolean;
}

export async function logout(_o: LogoutOptions, _deps: Deps): Promise<void> {
  throw new Error('logout: not implemented yet');
}
