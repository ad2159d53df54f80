// Renewals are serialised across processes by a lock, inside which the stored session is read again.
import { dirname, join } from 'node:path';
import type { Clock } from '../clock.js';
import { AuthError, FileError, UsageError } from '../errors.js';
import { withLock } from '../fs/lock.js';
import { type Http, hostOf } from '../http/client.js';
import { MAX_RETRY_AFTER_MS, waitLine } from '../http/retry.js';
import type { IO } from '../io.js';
import { isServiceAccount, type Settings } from '../settings.js';
import { notLoggedIn } from './not-logged-in.js';
import { boundOf, tokenRefused, withSession } from './store.js';
import { type Grant, requestToken, TokenRefusedError } from './token.js';
import type { ProfileData, SessionBinding, Store, StoredSession } from './types.js';

/** Renew 30 s before expiry, but at most half-way through a short-lived token's life. */
export function renewMargin(s: StoredSession): number {
  if (s.obtainedAt === undefined) return 30_000;
  return Math.min(30_000, Math.max(0, (s.expiresAt - s.obtainedAt) / 2));
}

export function accessUsable(s: StoredSession | undefined, now: number): s is StoredSession {
  return !!s && s.accessToken !== '' && s.expiresAt - now >= renewMargin(s);
}

/** Not expired yet: a token too near its end to be used by choice is still used when it cannot be renewed. */
export function accessUnexpired(s: StoredSession | undefined, now: number): s is StoredSession {
  return !!s && s.accessToken !== '' && s.expiresAt > now;
}

export function refreshUsable(s: StoredSession | undefined, now: number): boolean {
  return !!s?.refreshToken && (s.refreshExpiresAt === undefined || s.refreshExpiresAt > now);
}

const sameSession = (a: StoredSession | undefined, b: StoredSession | undefined) =>
  a?.accessToken === b?.accessToken && a?.refreshToken === b?.refreshToken;

/** A run's token sources in the order the session tries them; expiring: a token that cannot be renewed,
 * still used until it expires. auth status names the first that is ready. */
export const TOKEN_ORDER = ['PRS_TOKEN', 'access', 'service', 'refresh', 'credentials', 'expiring'] as const;

type Credentials = Record<'username' | 'password' | 'clientSecret', string>;

function bindingOf(s: Settings): SessionBinding {
  const { username, authUrl, realm, clientId, baseUrl } = s;
  const grant = isServiceAccount(s) ? 'client_credentials' : undefined;
  return { username, grant, authUrl: authUrl!, realm: realm!, clientId: clientId!, baseUrl };
}

const BINDING_LABELS: Record<keyof SessionBinding, string> = {
  username: 'user',
  grant: 'user',
  authUrl: 'auth URL',
  realm: 'realm',
  clientId: 'client id',
  baseUrl: 'base URL',
};

export function foreignTo(s: Settings, stored: ProfileData | undefined): string[] | undefined {
  if (!stored?.session) return undefined;
  const bound = boundOf(stored);
  const want = bindingOf(s);
  const differ = (Object.keys(BINDING_LABELS) as (keyof SessionBinding)[]).filter((k) =>
    // A user's session never serves a service account, nor the other way round: compared both ways.
    k === 'grant' ? want.grant !== bound.grant : bound[k] !== undefined && want[k] !== bound[k],
  );
  const labels = [...new Set(differ.map((k) => BINDING_LABELS[k]))];
  return labels.length ? labels : undefined;
}

function ownerOf(stored: ProfileData): string {
  const b = boundOf(stored);
  const user = b.grant ? `service account ${b.clientId}` : (b.username ?? 'another user');
  return b.authUrl ? `${user} at ${hostOf(b.authUrl)}` : user;
}

/** The environment's, else the one kept with the session: never sent for another user or client. */
export const secretOf = (s: Settings, stored: ProfileData | undefined, key: 'password' | 'clientSecret') =>
  s[key] ?? (foreignTo(s, stored) ? undefined : stored?.secrets?.[key]);

export function availableCredentials(s: Settings, stored: ProfileData | undefined): Credentials | undefined {
  if (isServiceAccount(s)) return undefined;
  const { username } = s;
  const password = secretOf(s, stored, 'password');
  const clientSecret = secretOf(s, stored, 'clientSecret');
  return username && password && clientSecret ? { username, password, clientSecret } : undefined;
}

function endpointOf(s: Settings, clientSecret: string | undefined) {
  const missing = (what: string, env: string, flag: string) =>
    new UsageError(`missing ${what}: set ${env} or run \`prs login ${flag} <value>\``);
  if (!s.authUrl) throw missing('auth URL', 'PRS_AUTH_URL', '--auth-url');
  if (!s.realm) throw missing('realm', 'PRS_REALM', '--realm');
  if (!s.clientId) throw missing('client id', 'PRS_CLIENT_ID', '--client-id');
  return { authUrl: s.authUrl, realm: s.realm, clientId: s.clientId, clientSecret };
}

export interface SessionDeps {
  settings: Settings;
  store: Store;
  http: Http;
  clock: Clock;
  io: IO;
  signal: AbortSignal;
  lock?: <T>(fn: () => Promise<T>) => Promise<T>;
  random?: () => number;
}

export type Session = ReturnType<typeof createSession>;

export function createSession(d: SessionDeps) {
  const s = d.settings;
  const profile = s.profile;
  const now = () => d.clock.now();
  const lockFile = join(dirname(d.store.path), `session-${profile}`);
  const unlockable = (code: string) => {
    if (code !== 'EACCES' && code !== 'EPERM' && code !== 'EROFS') return false;
    d.io.note(`prs: note: cannot lock ${lockFile} (${code}); renewing without it`);
    return true;
  };
  const crossProcess =
    d.lock ?? (<T>(fn: () => Promise<T>) => withLock(lockFile, fn, { waitMs: renewalWaitMs(s), unlockable }));
  // Within one process, one renewal at a time too: parallel requests wait for it and reuse its token.
  let chain: Promise<unknown> = Promise.resolve();
  const serialised = <T>(fn: () => Promise<T>): Promise<T> => {
    const run = chain.then(() => crossProcess(fn));
    chain = run.catch(() => {});
    return run;
  };
  let memo: StoredSession | undefined;
  const grantToken = (secret: string | undefined, grant: Grant, previous?: StoredSession) =>
    requestToken(d.http, endpointOf(s, secret), grant, {
      clock: d.clock,
      retries: s.retries,
      signal: d.signal,
      previous,
      random: d.random,
      onWait: (ms, reason) => d.io.debug(...waitLine(ms, reason)),
    });
  const signIn = (secret: string, creds?: Credentials): Promise<StoredSession> => {
    const grant: Grant = creds
      ? { type: 'password', username: creds.username, password: creds.password }
      : { type: 'client_credentials' };
    d.io.debug(
      `auth: signing in as ${creds?.username ?? `service account ${s.clientId}`} (grant_type=${grant.type})`,
    );
    return grantToken(secret, grant);
  };

  const save = async (fn: (p: ProfileData | undefined) => ProfileData | undefined) => {
    try {
      await d.store.update(profile, fn);
    } catch (err) {
      // A read-only config directory must not break a run that already holds a good token.
      if (!(err instanceof FileError)) throw err;
      d.io.note(`prs: note: could not save the session: ${err.message}`);
    }
  };
  const use = (next: StoredSession) => {
    memo = next;
    return next.accessToken;
  };
  // A renewal's network call can outlast its lock (this process stalled, another took the lock over and
  // renewed too) and a login or logout does not wait for it: what it got replaces only the session it
  // started from, or none where a refused renewal dropped one (a logout drops the secrets too). A newer
  // session stays stored, and this run uses its own.
  const keep = async (
    next: StoredSession,
    bound: SessionBinding | undefined,
    from: StoredSession | undefined,
  ) => {
    await save((p) =>
      sameSession(p?.session, from) || (!p?.session && p?.secrets) ? withSession(p, { ...next, bound }) : p,
    );
    return use(next);
  };

  const signInForRun = async (stored: ProfileData, differ: string[]): Promise<string> => {
    if (s.clientSecret && (isServiceAccount(s) || (s.username && s.password))) {
      d.io.debug(`auth: the stored session is not for this ${differ.join('/')}; signing in for this run`);
      return use(await signIn(s.clientSecret, availableCredentials(s, undefined)));
    }
    throw new AuthError(
      `the session stored in profile ${profile} is for ${ownerOf(stored)}; not used with another ${differ.join(', ')}`,
      {
        hint: isServiceAccount(s)
          ? 'run `prs login --client-credentials` for these settings, or set PRS_CLIENT_SECRET for this run'
          : 'run `prs login` for these settings, or set PRS_USERNAME, PRS_PASSWORD and PRS_CLIENT_SECRET for this run',
      },
    );
  };

  const renewStored = async (stored: ProfileData | undefined, cur: StoredSession | undefined) => {
    let from = cur;
    if (isServiceAccount(s)) {
      const secret = secretOf(s, stored, 'clientSecret');
      const unattended = 'or set PRS_CLIENT_SECRET (with PRS_GRANT=client_credentials) for unattended runs';
      if (!secret) throw notLoggedIn(s, s.ci ? undefined : unattended);
      return keep(await signIn(secret), bindingOf(s), from);
    }
    const creds = availableCredentials(s, stored);
    const secret = secretOf(s, stored, 'clientSecret');
    if (cur && refreshUsable(cur, now()))
      try {
        d.io.debug('auth: renewing the session (grant_type=refresh_token)');
        const refresh = { type: 'refresh_token', refreshToken: cur.refreshToken! } as const;
        return await keep(await grantToken(secret, refresh, cur), cur.bound, cur);
      } catch (err) {
        if (!(err instanceof TokenRefusedError)) throw err;
        // A refused client (a wrong PRS_CLIENT_SECRET) is fixed by correcting it: the session stays.
        if (err.error !== 'invalid_grant') {
          if (!secret && (err.error === 'invalid_client' || err.error === 'unauthorized_client'))
            throw notLoggedIn(
              s,
              'this session was stored by an older prs that did not keep the client secret: log in once more',
            );
          throw err;
        }
        d.io.debug('auth: refresh refused (invalid_grant)');
        // Dropped only if still stored: another process may have renewed meanwhile (rotating the refresh
        // token this one sent), and its session is used.
        let latest = stored;
        await save((p) => {
          latest = p;
          return sameSession(p?.session, cur) ? withSession(p, undefined) : p;
        });
        const newer = latest?.session;
        if (sameSession(newer, cur)) from = undefined;
        else if (accessUsable(newer, now()) && !foreignTo(s, latest)) {
          d.io.debug('auth: using the token another prs process renewed meanwhile');
          return use(newer);
        }
      }
    if (creds) return keep(await signIn(creds.clientSecret, creds), bindingOf(s), from);

    const lasting =
      'to renew without a prompt once the refresh token expires, log in with --save-password, or set PRS_USERNAME and PRS_PASSWORD (cron, CI)';
    const unattendedUse =
      'for unattended use set PRS_USERNAME, PRS_PASSWORD and PRS_CLIENT_SECRET, a service account (PRS_GRANT=client_credentials), or PRS_TOKEN';
    throw notLoggedIn(s, cur?.refreshToken ? lasting : !s.ci && !stored?.session ? unattendedUse : undefined);
  };

  const obtain = (rejected: string | undefined): Promise<string> =>
    serialised(async () => {
      const stored = d.store.get(profile);
      const differ = foreignTo(s, stored);
      if (stored && differ) return signInForRun(stored, differ);
      let cur = stored?.session;
      if (rejected !== undefined && cur?.accessToken === rejected) {
        // Never hand out a token the service has refused, in this run or the next.
        cur = { ...cur, expiresAt: 0 };
        await save((p) => tokenRefused(p, rejected));
      } else if (accessUsable(cur, now())) {
        d.io.debug('auth: using the token another prs process renewed meanwhile');
        return use(cur);
      }
      try {
        return await renewStored(stored, cur);
      } catch (err) {
        // A token with under 30 s left is still a token: when it cannot be renewed, use it to the end.
        if (!accessUnexpired(cur, now()) || d.signal.aborted) throw err;
        d.io.note(
          `prs: note: could not renew the session (${(err as Error).message}); using the current token, valid ${Math.ceil((cur.expiresAt - now()) / 1000)} s more`,
        );
        return use(cur);
      }
    });

  return {
    async token() {
      if (s.token) return s.token;
      if (accessUsable(memo, now())) return memo.accessToken;
      const stored = d.store.get(profile);
      const cur = stored?.session;
      return accessUsable(cur, now()) && !foreignTo(s, stored) ? use(cur) : obtain(undefined);
    },
    async renew(rejected: string) {
      if (s.token)
        throw new AuthError('the service rejected the token in PRS_TOKEN (401)', {
          hint: 'PRS_TOKEN is used as is: set a fresh one, or unset it to use the stored session',
        });
      if (memo?.accessToken === rejected) memo = undefined;
      return obtain(rejected);
    },
  };
}

/** The longest another's renewal can take with its retries: a waiter waits that long, never "locked". */
export function renewalWaitMs(s: Pick<Settings, 'retries' | 'timeoutMs'>): number {
  return (s.retries + 1) * s.timeoutMs + s.retries * MAX_RETRY_AFTER_MS + 30_000;
}
