/**
 * The setup of an end-to-end file that runs the built binary against the sandbox as a logged-in user:
 * a private config and cache dir, a sandbox in-process on port 0, `prs login` by the binary itself.
 * One place for what sixteen files used to copy (DESIGN.md "Where the code stands").
 */
import { join } from 'node:path';
import { expect } from 'vitest';
import { loginArgs, type Sandbox, type SandboxOptions, startSandbox } from '../../src/sandbox/index.js';
import { runPrs, tempDir } from './run.js';

/** Environment for a private config and cache dir under `root`. */
export const dirsEnv = (root: string) => ({
  PRS_CONFIG_DIR: join(root, 'config'),
  PRS_CACHE_DIR: join(root, 'cache'),
  HOME: root,
});

/** `prs login` against the sandbox as its first user; returns the env that reaches the session. */
export async function loginSandbox(
  sandbox: Sandbox,
  root: string,
  extraArgs: string[] = [],
): Promise<Record<string, string>> {
  const env = dirsEnv(root);
  const user = sandbox.users[0]!;
  // The client secret only for the login, which keeps it with the session: later runs have none in env.
  const r = await runPrs([...loginArgs(sandbox, user), ...extraArgs], {
    input: user.password,
    env: { ...env, PRS_CLIENT_SECRET: sandbox.clientSecret },
  });
  expect(r.code, r.stderr).toBe(0);
  return env;
}

export interface LoggedIn {
  sandbox: Sandbox;
  tmp: ReturnType<typeof tempDir>;
  /**
   * Reaches the session; PRS_RATE_LIMIT is the sandbox's own rate limit when one was given (runs then
   * neither wait on the default nor meet a 429), then `env` on top.
   */
  env: Record<string, string>;
  /** Closes the sandbox and removes the temporary directory. */
  close(): Promise<void>;
}

/** A sandbox on port 0 (with `options`) and its first user logged in under a new temporary directory. */
export async function startLoggedIn(
  prefix: string,
  options: SandboxOptions = {},
  env: Record<string, string> = {},
): Promise<LoggedIn> {
  const tmp = tempDir(prefix);
  const sandbox = await startSandbox({ port: 0, ...options });
  const close = async () => {
    await sandbox.close();
    tmp.cleanup();
  };
  try {
    const rate: Record<string, string> = options.rateLimit ? { PRS_RATE_LIMIT: options.rateLimit } : {};
    return { sandbox, tmp, env: { ...(await loginSandbox(sandbox, tmp.path)), ...rate, ...env }, close };
  } catch (err) {
    await close();
    throw err;
  }
}
