/**
 * The sandbox of the end-to-end files, started in one place: `useSandbox` (a file's or a describe
 * block's sandbox, started before its tests and closed after them), `useSandboxes` (several, each
 * with its own options), `useLoggedIn` (a sandbox, a private config and cache dir, and `prs login` by
 * the binary itself), `useTempDir`. Always in-process on port 0.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';
import { loginArgs, type Sandbox, type SandboxOptions, startSandbox } from '../../src/sandbox/index.js';
import { runPrs, type TempDir, tempDir } from './run.js';

/** Every sandbox of the e2e tests starts here: in-process, on a free port. */
const start = (options: SandboxOptions) => startSandbox({ port: 0, ...options });

/**
 * `get()`'s object, once there: the fixtures hand out a stand-in at collection time (before their
 * beforeAll ran), so a file keeps writing `sandbox.url` or `{ ...env }` as it would for a plain variable.
 */
export function later<T extends object>(get: () => T | undefined, what: string): T {
  const target = (): T => {
    const t = get();
    if (!t) throw new Error(`${what} is used outside the tests that started it`);
    return t;
  };
  return new Proxy({} as T, {
    get(_, key) {
      const value = Reflect.get(target(), key);
      return typeof value === 'function' ? value.bind(target()) : value;
    },
    set: (_, key, value) => Reflect.set(target(), key, value),
    has: (_, key) => Reflect.has(target(), key),
    ownKeys: () => Reflect.ownKeys(target()),
    // Configurable, as the stand-in itself has no such property (a Proxy invariant).
    getOwnPropertyDescriptor(_, key) {
      const d = Reflect.getOwnPropertyDescriptor(target(), key);
      return d && { ...d, configurable: true };
    },
  });
}

/** This file's (or describe block's) sandbox: started before its tests, closed after them. */
export function useSandbox(options: SandboxOptions = {}): Sandbox {
  let sandbox: Sandbox | undefined;
  beforeAll(async () => {
    sandbox = await start(options);
  });
  afterAll(async () => {
    await sandbox?.close();
    sandbox = undefined;
  });
  return later(() => sandbox, 'the sandbox');
}

/**
 * For a file that starts sandboxes as it goes (one per test, each with its own options): a start
 * function whose sandboxes are all closed after the file's (or describe block's) tests.
 */
export function useSandboxes(): (options?: SandboxOptions) => Promise<Sandbox> {
  const started: Sandbox[] = [];
  afterAll(async () => {
    await Promise.all(started.splice(0).map((s) => s.close()));
  });
  return async (options = {}) => {
    const sandbox = await start(options);
    started.push(sandbox);
    return sandbox;
  };
}

/** A temporary directory for this file (or describe block), removed after its tests; `fresh()` for a new one in it. */
export function useTempDir(prefix: string): Omit<TempDir, 'cleanup'> {
  let dir: TempDir | undefined;
  beforeAll(() => {
    dir = tempDir(prefix);
  });
  afterAll(() => {
    dir?.cleanup();
    dir = undefined;
  });
  return later(() => dir, 'the temporary directory');
}

/** Environment for a private config and cache dir under `root`. */
export const dirsEnv = (root: string) => ({
  PRS_CONFIG_DIR: join(root, 'config'),
  PRS_CACHE_DIR: join(root, 'cache'),
  HOME: root,
});

/** A form POST to the sandbox's token endpoint (in its own realm unless another is named). */
export const tokenRequest = (
  sandbox: Pick<Sandbox, 'authUrl' | 'realm'>,
  fields: Record<string, string>,
  realm = sandbox.realm,
) =>
  fetch(`${sandbox.authUrl}/realms/${realm}/protocol/openid-connect/token`, {
    method: 'POST',
    body: new URLSearchParams(fields),
  });

/** A password grant at the sandbox's token endpoint (its first user unless named): the tokens it answers. */
export async function sandboxTokens(
  sandbox: Pick<Sandbox, 'authUrl' | 'realm' | 'clientId' | 'clientSecret' | 'users'>,
  username = sandbox.users[0]!.username,
): Promise<{ access_token: string; refresh_token: string }> {
  const user = sandbox.users.find((u) => u.username === username)!;
  const res = await tokenRequest(sandbox, {
    grant_type: 'password',
    client_id: sandbox.clientId,
    client_secret: sandbox.clientSecret,
    username,
    password: user.password,
  });
  expect(res.status).toBe(200);
  return (await res.json()) as { access_token: string; refresh_token: string };
}

/** The report body the sandbox sends, fetched directly with the token of the session `env` reaches. */
export async function reportBody(
  sandbox: Pick<Sandbox, 'url' | 'users'>,
  env: Record<string, string>,
  id: number,
  type: string,
  date: string,
): Promise<string> {
  const token = (await runPrs(['auth', 'token'], { env })).stdout.trim();
  const url = `${sandbox.url}/api/v1/report-service/report/generate/portfolio/${id}?reportType=${type}&date=${date}`;
  const headers = { authorization: `Bearer ${token}`, 'x-client-id': sandbox.users[0]!.tenant };
  return (await fetch(url, { headers })).text();
}

/** A ready token (PRS_TOKEN: no sign-in; a fault server takes any) for `baseUrl`, config and cache under `root`. */
export const tokenEnv = (baseUrl: string, root: string) => ({
  ...dirsEnv(root),
  PRS_BASE_URL: baseUrl,
  PRS_TENANT: 't',
  PRS_TOKEN: 'ready-token',
});

/** Unattended sign-in from the environment alone (a cron job's), as the sandbox's first user. */
export const signInEnv = (sandbox: Sandbox, user = sandbox.users[0]!) => ({
  PRS_BASE_URL: sandbox.url,
  PRS_AUTH_URL: sandbox.authUrl,
  PRS_REALM: sandbox.realm,
  PRS_CLIENT_ID: sandbox.clientId,
  PRS_CLIENT_SECRET: sandbox.clientSecret,
  PRS_USERNAME: user.username,
  PRS_PASSWORD: user.password,
  PRS_TENANT: user.tenant,
});

/** The same for the sandbox's service account (client_credentials, no user). */
export const serviceEnv = (sandbox: Sandbox, client = sandbox.serviceClients[0]!) => ({
  PRS_GRANT: 'client_credentials',
  PRS_CLIENT_ID: client.clientId,
  PRS_CLIENT_SECRET: client.clientSecret,
  PRS_AUTH_URL: sandbox.authUrl,
  PRS_REALM: sandbox.realm,
  PRS_BASE_URL: sandbox.url,
  PRS_TENANT: client.tenant,
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
  tmp: TempDir;
  /**
   * Reaches the session; PRS_RATE_LIMIT is the sandbox's own rate limit when one was given (runs then
   * neither wait on the default nor meet a 429), then `env` on top.
   */
  env: Record<string, string>;
  /** Closes the sandbox and removes the temporary directory. */
  close(): Promise<void>;
}

/** A sandbox on port 0 (with `options`) and its first user logged in under a new temporary directory. */
async function startLoggedIn(
  prefix: string,
  options: SandboxOptions = {},
  env: Record<string, string> = {},
): Promise<LoggedIn> {
  const tmp = tempDir(prefix);
  const sandbox = await start(options);
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

/**
 * startLoggedIn for this file (or describe block): before its tests, closed after them. Its parts can
 * be taken apart at once: `const { sandbox, tmp, env } = useLoggedIn(…)`.
 */
export function useLoggedIn(
  prefix: string,
  options: SandboxOptions = {},
  env: Record<string, string> = {},
): LoggedIn {
  let setup: LoggedIn | undefined;
  const close = async () => {
    await setup?.close();
    setup = undefined;
  };
  beforeAll(async () => {
    setup = await startLoggedIn(prefix, options, env);
  });
  afterAll(close);
  const what = 'the logged-in sandbox';
  return {
    sandbox: later(() => setup?.sandbox, what),
    tmp: later(() => setup?.tmp, what),
    env: later(() => setup?.env, what),
    close,
  };
}
