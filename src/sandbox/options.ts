import { parseRateLimit } from '../settings.js';

/** `prs login` as a user (the password on stdin, the client secret in PRS_CLIENT_SECRET, never argv) or a service client. */
export function loginArgs(
  s: { url: string; authUrl: string; realm: string; clientId: string },
  who: { username: string; tenant: string } | { clientId: string; tenant: string },
): string[] {
  const user = 'username' in who;
  const flags = Object.entries({
    'auth-url': s.authUrl,
    realm: s.realm,
    'client-id': user ? s.clientId : who.clientId,
    ...(user && { username: who.username }),
    tenant: who.tenant,
    'base-url': s.url,
  }).flatMap(([k, v]) => [`--${k}`, v]);
  return user ? ['login', ...flags, '--password-stdin'] : ['login', '--client-credentials', ...flags];
}

export const SANDBOX_DEFAULTS = {
  port: 0,
  host: '127.0.0.1',
  realm: 'prs-sandbox',
  clientId: 'prs-cli',
  clientSecret: 'sandbox-secret',
  rateLimit: '4/60s',
  tokenTtl: 300,
  refreshTtl: 1800,
  bigExportRows: 1000,
  exportDelayMs: 0,
  jsonStyle: 'compact' as 'compact' | 'spaced',
  users: [
    { username: 'demo', password: 'demo', tenant: 'demo-tenant' },
    { username: 'other', password: 'other', tenant: 'other-tenant' },
  ] as readonly { username: string; password: string; tenant: string }[],
  serviceClients: [{ clientId: 'prs-robot', clientSecret: 'robot-secret', tenant: 'demo-tenant' }],
};
export type SandboxServiceClient = (typeof SANDBOX_DEFAULTS.serviceClients)[number];

export type SandboxOptions = Partial<typeof SANDBOX_DEFAULTS> & {
  gzip?: boolean;
  clock?: () => number;
  /** JSON answers kept for the same request again (default 4): a test that reads many days twice. */
  cachedAnswers?: number;
  /** One line per request (method, path, status, user), never a secret. */
  log?: (line: string) => void;
};

export function resolveOptions(options: SandboxOptions) {
  const given = Object.entries(options).filter(([, v]) => v !== undefined);
  const o = { ...SANDBOX_DEFAULTS, clock: Date.now, ...(Object.fromEntries(given) as SandboxOptions) };
  return { ...o, limit: parseRateLimit(o.rateLimit), spaced: o.jsonStyle === 'spaced', now: o.clock };
}

export type ResolvedOptions = ReturnType<typeof resolveOptions>;
