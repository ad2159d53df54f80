import type { Store } from './types.js';

export async function openStore(_configDir: string): Promise<Store> {
  throw new Error('store: not implemented yet');
}
