/**
 * The sandbox's options and defaults, and the `prs login` arguments for it: small and free of the
 * server, so `prs sandbox`'s banner and the tests load them without the server's code.
 */
import { parseRateLimit } from '../settings.js';
import type { SandboxServiceClient, SandboxUser } from './auth.js';

/**
 * The `prs login` arguments that sign `user` in to a sandbox: the password goes on stdin and the
 * client secret in PRS_CLIENT_SECRET, never on argv. The banner, the demo, the benchmark and the
 * tests all use this one list.
 */
export function loginArgs(
  s: { url: string; authUrl: string; realm: string; clientId: string },
  user: { username: string; tenant: string },
): string[] {
  return [
    'login',
    '--auth-url',
    s.authUrl,
    '--realm',
    s.realm,
    '--client-id',
    s.clientId,
    '--username',
    user.username,
    '--tenant',
    user.tenant,
    '--base-url',
    s.url,
    '--password-stdin',
  ];
}

/**
 * The `prs login --client-credentials` arguments for a sandbox's service account; the secret goes in
 * PRS_CLIENT_SECRET, never on argv.
 */
export function serviceLoginArgs(
  s: { url: string; authUrl: string; realm: string },
  client: { clientId: string; tenant: string },
): string[] {
  return [
    'login',
    '--client-credentials',
    '--auth-url',
    s.authUrl,
    '--realm',
    s.realm,
    '--client-id',
    client.clientId,
    '--tenant',
    client.tenant,
    '--base-url',
    s.url,
  ];
}

export const SANDBOX_DEFAULTS = {
  host: '127.0.0.1',
  realm: 'prs-sandbox',
  clientId: 'prs-cli',
  clientSecret: 'sandbox-secret',
  rateLimit: '4/60s',
  tokenTtl: 300,
  refreshTtl: 1800,
  users: [
    { username: 'demo', password: 'demo', tenant: 'demo-tenant' },
    { username: 'other', password: 'other', tenant: 'other-tenant' },
  ] as readonly SandboxUser[],
  /** A service account for cron-style runs (client_credentials), on the demo user's tenant. */
  serviceClients: [
    { clientId: 'prs-robot', clientSecret: 'robot-secret', tenant: 'demo-tenant' },
  ] as readonly SandboxServiceClient[],
} as const;

export interface SandboxOptions {
  /** 0 (the default) picks a free port. */
  port?: number;
  host?: string;
  /** The JSON endpoint's limit per user, e.g. "4/60s" (sliding window). The export endpoint has none. */
  rateLimit?: string;
  /** Access token lifetime, seconds. */
  tokenTtl?: number;
  /** Refresh token lifetime, seconds. */
  refreshTtl?: number;
  realm?: string;
  clientId?: string;
  clientSecret?: string;
  users?: readonly SandboxUser[];
  /** Clients allowed only the client_credentials grant (default: prs-robot / robot-secret on demo-tenant). */
  serviceClients?: readonly SandboxServiceClient[];
  /** Constituent rows of portfolio 900 (default 1000); streamed, so any size works. */
  bigExportRows?: number;
  /** Milliseconds added before each export answer (default 0): parallel-export benchmarks, interrupt tests. */
  exportDelayMs?: number;
  /**
   * How long an idle connection stays open (ms; default Node's 5 s). The tests' fixture gives a long
   * one: a test process busy for seconds (the sandbox shares its event loop) must not close a
   * connection just as its client sends on it again.
   */
  keepAliveMs?: number;
  /** JSON bodies compact (the default) or `spaced` as Python's json.dumps writes them (`{"a": 1, "b": 2}`). */
  jsonStyle?: 'compact' | 'spaced';
  /** Answer gzip-compressed when the request accepts gzip (as a compressing gateway does); default off. */
  gzip?: boolean;
  /** Milliseconds since the epoch; tests pass a fake one to expire tokens and slide the window. */
  clock?: () => number;
  /** One line per request (method, path, status, user); never tokens or passwords. */
  log?: (line: string) => void;
}

/** Checks options; throws Error with a one-line message for bad values. */
export function resolveOptions(o: SandboxOptions) {
  const positiveInt = (name: string, v: number) => {
    if (!Number.isInteger(v) || v < 1) throw new Error(`invalid ${name} ${v}: expected a whole number ≥ 1`);
    return v;
  };
  const port = o.port ?? 0;
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`invalid port ${port}`);
  const big = o.bigExportRows;
  if (big !== undefined && (!Number.isInteger(big) || big < 0))
    throw new Error(`invalid bigExportRows ${big}: expected a whole number ≥ 0`);
  const users = o.users ?? SANDBOX_DEFAULTS.users;
  if (users.length === 0) throw new Error('the sandbox needs at least one user');
  return {
    port,
    host: o.host ?? SANDBOX_DEFAULTS.host,
    rateLimit: parseRateLimit(o.rateLimit ?? SANDBOX_DEFAULTS.rateLimit),
    tokenTtl: positiveInt('tokenTtl', o.tokenTtl ?? SANDBOX_DEFAULTS.tokenTtl),
    refreshTtl: positiveInt('refreshTtl', o.refreshTtl ?? SANDBOX_DEFAULTS.refreshTtl),
    realm: o.realm ?? SANDBOX_DEFAULTS.realm,
    clientId: o.clientId ?? SANDBOX_DEFAULTS.clientId,
    clientSecret: o.clientSecret ?? SANDBOX_DEFAULTS.clientSecret,
    users,
    serviceClients: o.serviceClients ?? SANDBOX_DEFAULTS.serviceClients,
    bigExportRows: big,
    exportDelayMs: Math.max(0, o.exportDelayMs ?? 0),
    keepAliveMs: o.keepAliveMs,
    spaced: o.jsonStyle === 'spaced',
    gzip: o.gzip === true,
    now: o.clock ?? Date.now,
    log: o.log,
  };
}

export type ResolvedOptions = ReturnType<typeof resolveOptions>;
