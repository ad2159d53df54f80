/** The sandbox's options and `prs login` arguments, apart from the server (the command's banner loads them). */
import { parseRateLimit } from '../settings.js';

const flags = (pairs: Record<string, string>) => Object.entries(pairs).flatMap(([k, v]) => [`--${k}`, v]);

/** `prs login` for `user`: the password goes on stdin and the client secret in PRS_CLIENT_SECRET, never argv. */
export const loginArgs = (
  s: { url: string; authUrl: string; realm: string; clientId: string },
  user: { username: string; tenant: string },
): string[] => [
  'login',
  ...flags({ 'auth-url': s.authUrl, realm: s.realm, 'client-id': s.clientId, username: user.username }),
  ...flags({ tenant: user.tenant, 'base-url': s.url }),
  '--password-stdin',
];

export const serviceLoginArgs = (
  s: { url: string; authUrl: string; realm: string },
  client: { clientId: string; tenant: string },
): string[] => [
  'login',
  '--client-credentials',
  ...flags({ 'auth-url': s.authUrl, realm: s.realm, 'client-id': client.clientId }),
  ...flags({ tenant: client.tenant, 'base-url': s.url }),
];

export interface SandboxUser {
  username: string;
  password: string;
  tenant: string;
}

/** A confidential client with a service account (client_credentials only), bound to a tenant. */
export interface SandboxServiceClient {
  clientId: string;
  clientSecret: string;
  tenant: string;
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
  serviceClients: [
    { clientId: 'prs-robot', clientSecret: 'robot-secret', tenant: 'demo-tenant' },
  ] as readonly SandboxServiceClient[],
};

export interface SandboxOptions {
  /** 0 (the default) picks a free port. */
  port?: number;
  host?: string;
  /** The JSON endpoint's limit per user, e.g. "4/60s" (sliding window). */
  rateLimit?: string;
  /** Token lifetimes, seconds. */
  tokenTtl?: number;
  refreshTtl?: number;
  clientSecret?: string;
  users?: readonly SandboxUser[];
  /** Constituent rows of portfolio 900 (default 1000). */
  bigExportRows?: number;
  /** Milliseconds added before each export answer. */
  exportDelayMs?: number;
  /** How long an idle connection stays open (ms; default Node's 5 s). */
  keepAliveMs?: number;
  /** JSON bodies compact (the default) or `spaced` as Python's json.dumps writes them. */
  jsonStyle?: 'compact' | 'spaced';
  /** Answer gzip-compressed when the request accepts it, as a compressing gateway does. */
  gzip?: boolean;
  /** Milliseconds since the epoch: a fake one expires tokens and slides the window. */
  clock?: () => number;
  /** One line per request (method, path, status, user), never a secret. */
  log?: (line: string) => void;
}

/** The options with their defaults; a one-line Error for a bad value. */
export function resolveOptions(o: SandboxOptions) {
  const whole = (name: string, v: number, min: number) => {
    if (!Number.isInteger(v) || v < min)
      throw new Error(`invalid ${name} ${v}: expected a whole number ≥ ${min}`);
    return v;
  };
  const port = o.port ?? 0;
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`invalid port ${port}`);
  const users = o.users ?? SANDBOX_DEFAULTS.users;
  if (users.length === 0) throw new Error('the sandbox needs at least one user');
  return {
    ...SANDBOX_DEFAULTS,
    port,
    host: o.host ?? SANDBOX_DEFAULTS.host,
    rateLimit: parseRateLimit(o.rateLimit ?? SANDBOX_DEFAULTS.rateLimit),
    tokenTtl: whole('tokenTtl', o.tokenTtl ?? SANDBOX_DEFAULTS.tokenTtl, 1),
    refreshTtl: whole('refreshTtl', o.refreshTtl ?? SANDBOX_DEFAULTS.refreshTtl, 1),
    clientSecret: o.clientSecret ?? SANDBOX_DEFAULTS.clientSecret,
    users,
    bigExportRows: whole('bigExportRows', o.bigExportRows ?? 1000, 0),
    exportDelayMs: Math.max(0, o.exportDelayMs ?? 0),
    keepAliveMs: o.keepAliveMs,
    spaced: o.jsonStyle === 'spaced',
    gzip: o.gzip === true,
    now: o.clock ?? Date.now,
    log: o.log,
  };
}

export type ResolvedOptions = ReturnType<typeof resolveOptions>;
