import type { Deps } from '../deps.js';

export interface LoginOptions {
  authUrl?: string;
  realm?: string;
  clientId?: string;
  username?: string;
  passwordStdin: boolean;
  savePassword: boolean;
}

export async function login(_o: LoginOptions, _deps: Deps): Promise<void> {
  throw new Error('login: not implemented yet');
}
