import type { Deps } from '../deps.js';

export interface SandboxCommandOptions {
  port: string;
  host: string;
  rateLimit: string;
  tokenTtl: string;
  refreshTtl: string;
}

export async function sandbox(_o: SandboxCommandOptions, _deps: Deps): Promise<void> {
  throw new Error('sandbox: not implemented yet');
}
