import type { Deps } from '../deps.js';

export async function exitCodes(_o: object, _deps: Deps): Promise<void> {
  throw new Error('help exit-codes: not implemented yet');
}
