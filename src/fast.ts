/**
 * The fast entry (dist/fast.js), bin/prs.js's first stop: what it can answer without loading the CLI
 * (commander, the definitions, main). `prs --version` on its own, and a report the answer cache holds
 * (hit.ts, a file of its own: dist/hit.js, loaded only when the cache may be on). Anything else,
 * and anything these do not answer, is undefined before a byte is written: the CLI runs.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CONFIG_FILE } from './auth/store.js';
import { type Env, longFlag, resolveDirs, SETTINGS } from './settings.js';
import { VERSION } from './version.js';

/** The exit code when this entry answers argv (node, script, args…); else undefined. */
export async function answer(argv: readonly string[], env: Env): Promise<number | undefined> {
  const args = argv.slice(2);
  if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
    const { stdoutWriter } = await import('./stdout.js');
    return (await stdoutWriter({ env })(`${VERSION}\n`)) ?? 0;
  }
  if (!args.includes('report')) return undefined;
  let configDir: string;
  try {
    configDir = resolveDirs(env).configDir;
  } catch {
    return undefined; // no home directory to be found: the CLI says what is missing
  }
  if (!cacheMayBeOn(args, env, configDir)) return undefined;
  const { answerFromCache } = await import('./hit.js');
  return answerFromCache(argv, env).catch(() => undefined);
}

/**
 * Could the answer cache be on for this run? Only then is dist/hit.js loaded: a report the cache does
 * not answer would pay for the detour. A quick over-estimate, never a decision (the settings resolver
 * decides, in either path): the --cache flag, its variable, or a "cache" key anywhere in the config file.
 */
export function cacheMayBeOn(args: readonly string[], env: Env, configDir: string): boolean {
  const flag = longFlag('cache');
  if (env[SETTINGS.cache.env] || args.some((a) => a === flag || a.startsWith(`${flag}=`))) return true;
  try {
    return readFileSync(join(configDir, CONFIG_FILE), 'utf8').includes('"cache"');
  } catch {
    return false;
  }
}
