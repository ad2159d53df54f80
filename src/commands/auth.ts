// Status never contacts the network (a health check runs it): "ready" means a call would need no
// prompt by what is stored and set.
import { notLoggedIn } from '../auth/not-logged-in.js';
import {
  accessUnexpired,
  accessUsable,
  availableCredentials,
  foreignTo,
  refreshUsable,
  secretOf,
  TOKEN_ORDER,
} from '../auth/session.js';
import type { ProfileData } from '../auth/types.js';
import { durationText, isoSeconds } from '../clock.js';
import type { Deps } from '../deps.js';
import { AuthError } from '../errors.js';
import { isServiceAccount, type Settings, shownValue } from '../settings.js';

const READY_VIA = {
  PRS_TOKEN: 'uses PRS_TOKEN as is',
  'access token': 'stored access token',
  'refresh token': 'will renew with the refresh token',
  'env credentials': 'will sign in with PRS_USERNAME/PRS_PASSWORD/PRS_CLIENT_SECRET',
  'saved credentials': 'will sign in with the saved password',
  'client credentials': 'will sign in as the service account with its client secret',
};
type ReadyVia = keyof typeof READY_VIA;

type AuthStatus = ReturnType<typeof assess>;

export function assess(s: Settings, stored: ProfileData | undefined, configPath: string, now: number) {
  const foreign = foreignTo(s, stored) ?? null;
  const session = foreign ? undefined : stored?.session;
  const accessValid = accessUsable(session, now);
  const refreshValid = refreshUsable(session, now);
  const canSignIn = !!(s.authUrl && s.realm && s.clientId);
  // The service's clients are confidential: renewing needs the secret as much as signing in.
  const secret = !!secretOf(s, stored, 'clientSecret');
  const creds = canSignIn ? availableCredentials(s, stored) : undefined;
  const envCredentials = [
    s.sources.grant === 'env' ? 'PRS_GRANT' : '',
    s.sources.username === 'env' ? 'PRS_USERNAME' : '',
    s.password ? 'PRS_PASSWORD' : '',
    s.clientSecret ? 'PRS_CLIENT_SECRET' : '',
  ].filter(Boolean);
  const fromEnv = !!(creds && s.password && s.clientSecret);
  const service = isServiceAccount(s);
  // As the session does: a service account signs in afresh, never by a refresh token.
  const renewable = refreshValid && canSignIn && secret && !service;
  const serviceReady = service && canSignIn && secret;
  const ways: Record<(typeof TOKEN_ORDER)[number], [ReadyVia, unknown]> = {
    PRS_TOKEN: ['PRS_TOKEN', s.token],
    access: ['access token', accessValid],
    service: ['client credentials', serviceReady],
    refresh: ['refresh token', renewable],
    credentials: [fromEnv ? 'env credentials' : 'saved credentials', creds],
    expiring: ['access token', accessUnexpired(session, now)],
  };
  const via = TOKEN_ORDER.map((k) => ways[k]).find(([, ok]) => ok)?.[0] ?? null;
  return {
    profile: s.profile,
    configPath,
    baseUrl: s.baseUrl ?? null,
    authUrl: s.authUrl ?? null,
    realm: s.realm ?? null,
    clientId: s.clientId ?? null,
    username: s.username ?? null,
    grant: s.grant,
    serviceAccount: service ? (s.clientId ?? null) : null,
    tenant: s.tenant ?? null,
    limiter: s.limiter ? shownValue('limiter', s.limiter) : null,
    accessTokenExpiresAt: session && session.expiresAt > 0 ? isoSeconds(session.expiresAt) : null,
    accessTokenValid: accessValid,
    refreshToken: !!session?.refreshToken,
    refreshTokenExpiresAt:
      session?.refreshToken && session.refreshExpiresAt !== undefined
        ? isoSeconds(session.refreshExpiresAt)
        : null,
    refreshTokenValid: refreshValid,
    savedCredentials: !!(stored?.secrets?.password && stored.secrets.clientSecret),
    clientSecret: secret,
    envCredentials,
    envToken: !!s.token,
    sessionForeign: foreign,
    renewableUntil:
      renewable && session?.refreshExpiresAt !== undefined ? isoSeconds(session.refreshExpiresAt) : null,
    afterThat: serviceReady
      ? 'client secret'
      : creds
        ? fromEnv
          ? 'env credentials'
          : 'saved password'
        : 'login',
    ready: via !== null,
    via,
  } as const;
}

function statusLines(st: AuthStatus, stored: ProfileData | undefined, now: number): string[] {
  const session = stored?.session;
  const renews = st.via !== null && st.via !== 'PRS_TOKEN' && st.via !== 'access token';
  const unset = '(not set)';
  const access = !session
    ? 'none'
    : st.accessTokenValid
      ? `valid until ${isoSeconds(session.expiresAt)} (${durationText(session.expiresAt - now, 'down')} left)`
      : session.expiresAt > now
        ? `expiring at ${isoSeconds(session.expiresAt)} (${renews ? 'will be renewed' : 'cannot be renewed; used until then'})`
        : session.expiresAt > 0
          ? `expired at ${isoSeconds(session.expiresAt)}`
          : 'rejected by the service';
  const refresh = !session?.refreshToken
    ? 'none'
    : session.refreshExpiresAt === undefined
      ? 'present, no expiry given'
      : st.refreshTokenValid
        ? `valid until ${isoSeconds(session.refreshExpiresAt)} (${durationText(session.refreshExpiresAt - now, 'down')} left)`
        : `expired at ${isoSeconds(session.refreshExpiresAt)}`;
  const refreshNote =
    session?.refreshToken && st.refreshTokenValid && !st.clientSecret
      ? ' — renewing needs the client secret: run `prs login` once more (or set PRS_CLIENT_SECRET)'
      : '';
  // Signing in from the environment needs the client secret too, unless the profile keeps one.
  const envVars = st.clientSecret
    ? 'PRS_USERNAME/PRS_PASSWORD'
    : 'PRS_USERNAME/PRS_PASSWORD/PRS_CLIENT_SECRET';
  const after = {
    'saved password': 'signs in again with the saved password',
    'env credentials': `signs in again with ${envVars}`,
    'client secret': `a new client-credentials grant with ${st.envCredentials.includes('PRS_CLIENT_SECRET') ? 'PRS_CLIENT_SECRET' : 'the kept client secret'} (a service account has no refresh token)`,
    login: isServiceAccount(st)
      ? '`prs login --client-credentials` needed (or set PRS_CLIENT_SECRET)'
      : `\`prs login\` needed (or log in with --save-password, or set ${envVars})`,
  }[st.afterThat];
  const renewal = st.renewableUntil
    ? `without a password until ${st.renewableUntil} (${durationText(Date.parse(st.renewableUntil) - now, 'down')} left); after that ${after}`
    : st.via === 'refresh token'
      ? `without a password until the token service ends the session; after that ${after}`
      : after;
  const ready = st.via ? `yes (${READY_VIA[st.via]})` : 'no';
  const rows: [string, string][] = [
    ['profile', st.profile],
    ['base URL', st.baseUrl ?? unset],
    ['auth URL', st.authUrl ?? unset],
    ['realm', st.realm ?? unset],
    ['client id', st.clientId ?? unset],
    ['user', st.serviceAccount ? `service account ${st.serviceAccount}` : (st.username ?? unset)],
    ['tenant', st.tenant ?? unset],
    ['rate limiter', st.limiter ? `shared through ${st.limiter}` : 'a file on this machine'],
    ['access token', st.envToken ? `from PRS_TOKEN (stored one: ${access})` : access],
    ['refresh token', refresh + refreshNote],
    ['renewal', renewal],
    ['saved password', st.savedCredentials ? 'yes' : 'no'],
    ['env credentials', st.envCredentials.length ? st.envCredentials.join(', ') : 'none'],
    ['ready', ready],
    ['config file', st.configPath],
  ];
  if (st.sessionForeign)
    rows.splice(8, 0, [
      'stored session',
      `not used: created for another ${st.sessionForeign.join(', ')} (user ${stored?.session?.bound?.username ?? stored?.settings.username ?? '?'})`,
    ]);
  const width = Math.max(...rows.map(([k]) => k.length)) + 1;
  return rows.map(([k, v]) => `${`${k}:`.padEnd(width)} ${v}`);
}

export async function authStatus(o: { json: boolean }, deps: Deps): Promise<void> {
  const s = await deps.settings();
  const store = await deps.store();
  const stored = store.get(s.profile);
  const now = deps.clock.now();
  const st = assess(s, stored, store.path, now);
  // -q: the exit code says it all (`prs auth status -q || prs login`); --json is asked for, so printed.
  const quiet = deps.io.quiet && !o.json;
  if (o.json) deps.io.out(`${JSON.stringify(st, null, 2)}\n`);
  else if (!quiet) deps.io.out(`${statusLines(st, stored, now).join('\n')}\n`);
  if (!st.ready) {
    const err = notLoggedIn(s);
    throw quiet ? new AuthError(err.message, { silent: true }) : err;
  }
}

export async function authToken(_o: object, deps: Deps): Promise<void> {
  const session = await deps.session();
  const token = await session.token();
  deps.io.out(`${token}\n`);
}
