/**
 * dist/fast.js, bin/prs.js's first stop: cached reports (hit.ts), and `--version` that bin could not
 * write, without the CLI.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CONFIG_FILE, type Env, isDebug, resolveDirs } from './dirs.js';
import { VERSION } from './version.js';

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
    return undefined;
  }
  if (!cacheMayBeOn(args, env, configDir)) return undefined;
  const { answerFromCache } = await import('./hit.js');
  return answerFromCache(argv, env).catch(() => undefined);
}

/** What the fast entry does not answer: the CLI, through its loader. */
export async function cli(env: Env): Promise<void> {
  const { boot } = await import('./boot.js');
  let cacheDir: string | undefined;
  try {
    cacheDir = resolveDirs(env).cacheDir;
  } catch {
    // No home directory: the CLI runs without its code cache.
  }
  boot(cacheDir, isDebug(env));
}

/**
 * A quick over-estimate of whether the answer cache is on, spelt as settings.ts (fast.test.ts checks): the
 * settings table would cost every report its loading here. hit.ts reads argv by the flag tables.
 */
export function cacheMayBeOn(args: readonly string[], env: Env, configDir: string): boolean {
  // --no-cache turns even --cache off: no answer is read this run, so no config file here. After another
  // option it may be that option's value (`--tenant --no-cache`).
  if (args.some((a, i) => a === '--no-cache' && !args[i - 1]?.startsWith('-'))) return false;
  if (env.PRS_CACHE || args.some((a) => a === '--cache' || a.startsWith('--cache='))) return true;
  try {
    return readFileSync(join(configDir, CONFIG_FILE), 'utf8').includes('"cache"');
  } catch {
    return false;
  }
}
