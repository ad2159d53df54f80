/** Where prs keeps its files: apart from settings.ts, which the fast entry (fast.ts) need not load. */
import { homedir } from 'node:os';
import { join } from 'node:path';

export type Env = Readonly<Record<string, string | undefined>>;

export const CONFIG_FILE = 'config.json';

export function resolveDirs(env: Env): { configDir: string; cacheDir: string } {
  const home = env.HOME || homedir();
  const configDir = env.PRS_CONFIG_DIR || join(env.XDG_CONFIG_HOME || join(home, '.config'), 'prs');
  const cacheDir = env.PRS_CACHE_DIR || join(env.XDG_CACHE_HOME || join(home, '.cache'), 'prs');
  return { configDir, cacheDir };
}

export const isDebug = (env: Env): boolean => env.PRS_DEBUG === '1' || env.PRS_DEBUG === 'true';
