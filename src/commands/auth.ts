import type { Deps } from '../deps.js';

export interface AuthStatusOptions {
  json: boolean;
}

export async function authStatus(_o: AuthStatusOptions, _deps: Deps): Promise<void> {
  throw new Error('auth status: not implemented yet');
}

export async function authToken(_o: object, _deps: Deps): Promise<void> {
  throw new Error('auth token: not implemented yet');
}
