/**
 * The token lifecycle of CLI.md "Session": PRS_TOKEN → stored access token → refresh_token grant →
 * password grant (env or saved credentials) → AuthError. A service account (grant client_credentials)
 * has no refresh token: its renewal is a new client_credentials grant with the kept (or env) secret. Renewals of one profile are serialised across
 * processes by a lock beside the config file; inside it the stored session is read again, so a cron
 * job that loses the race simply uses the token the winner just stored (and never spends a rotated
 * refresh token twice).
 *
 * A stored session serves only the user, auth URL, realm, client id and base URL it was created for
 * (foreignTo); only the token endpoint's `invalid_grant` ends it — a refused client, a network
 * failure or a 5xx leave it for the next, corrected run.
 */
import { dirname, join } from 'node:path';
import type { Clock } from '../clock.js';
import { AuthError, FileError, UsageError } from '../errors.js';
import { withLock } from '../fs/lock.js';
import type { Http } from '../http/client.js';
import { MAX_RETRY_AFTER_MS, waitLine } from '../http/retry.js';
import type { IO } from '../io.js';
import type { Settings } from '../settings.js';
import { identityOf } from './identity.js';
import { notLoggedIn } from './not-logged-in.js';
import { tokenRefused, withSession } from './store.js';
import { type Grant, hostOf, requestToken, type TokenEndpoint, TokenRefusedError } from './token.js';
import type { ProfileData, Session, SessionBinding, Store, StoredSession } from './types.js';

// Their own modules so that a cache hit (cache/answers.ts) and the service's first check get them
// without this one and the token client.
export { identityOf, notLoggedIn };

/** Renew an access token this long before it expires (CLI.md). */
export const RENEW_MARGIN_MS = 30_000;

/**
 * The margin for one token: 30 s, but at most half its lifetime, so a token that lives less than a
 * minute (a test realm, the sandbox with --token-ttl 2) is still used for the first half of its life.
 */
export function renewMargin(s: StoredSession): number {
  if (s.obtainedAt === undefined) return RENEW_MARGIN_MS;
  return Math.min(RENEW_MARGIN_MS, Math.max(0, (s.expiresAt - s.obtainedAt) / 2));
}

/** Step 2: the access token is valid for at least the margin. */
export function accessUsable(s: StoredSession | undefined, now: number): s is StoredSession {
  return !!s && s.accessToken !== '' && s.expiresAt - now >= renewMargin(s);
}

/** Step 3: a refresh token that has not expired (unknown expiry: usable until the server refuses it). */
export function refreshUsable(s: StoredSession | undefined, now: number): boolean {
  return !!s?.refreshToken && (s.refreshExpiresAt === undefined || s.refreshExpiresAt > now);
}

export interface Credentials {
  username: string;
  password: string;
  clientSecret: string;
}

/** What a session created now, with these settings, would be bound to (CLI.md "Session"). */
export function bindingOf(s: Settings): Partial<SessionBinding> {
  return {
    username: s.username,
    grant: s.grant === 'client_credentials' ? 'client_credentials' : undefined,
    authUrl: s.authUrl,
    realm: s.realm,
    clientId: s.clientId,
    baseUrl: s.baseUrl,
  };
}

const BINDING_LABELS: Record<keyof SessionBinding, string> = {
  username: 'user',
  grant: 'user',
  authUrl: 'auth URL',
  realm: 'realm',
  clientId: 'client id',
  baseUrl: 'base URL',
};

/**
 * Why the stored session must not be used with these settings ("user", "base URL", …), or undefined
 * when it may. A session stored by an older prs carries no binding: the profile's stored settings
 * (what that login wrote) stand in for it.
 */
export function foreignTo(s: Settings, stored: ProfileData | undefined): string[] | undefined {
  if (!stored?.session) return undefined;
  const st = stored.settings;
  const bound: Partial<SessionBinding> = stored.session.bound ?? {
    username: st.username,
    authUrl: st['auth-url'],
    realm: st.realm,
    clientId: st['client-id'],
    baseUrl: st['base-url'],
    grant: st.grant === 'client_credentials' ? 'client_credentials' : undefined,
  };
  const want = bindingOf(s);
  const differ = (Object.keys(BINDING_LABELS) as (keyof SessionBinding)[]).filter((k) =>
    // A user's session never serves a service account, nor the other way round: compared both ways.
    k === 'grant' ? want.grant !== bound.grant : bound[k] !== undefined && want[k] !== bound[k],
  );
  const labels = [...new Set(differ.map((k) => BINDING_LABELS[k]))];
  return labels.length ? labels : undefined;
}

/** The stored session's owner, for the exit-4 line: "alice at auth.example.com". */
function ownerOf(stored: ProfileData): string {
  const b = stored.session?.bound;
  const user =
    b?.grant === 'client_credentials'
      ? `service account ${b.clientId}`
      : (b?.username ?? stored.settings.username ?? 'another user');
  const url = b?.authUrl ?? stored.settings['auth-url'];
  return url ? `${user} at ${hostOf(url)}` : user;
}

/** Said when the refresh token is gone and nothing else can sign in: what would have kept the session. */
export const KEEP_SESSION_HINT =
  'to renew without a prompt once the refresh token expires, log in with --save-password, or set PRS_USERNAME and PRS_PASSWORD (cron, CI)';

/** Step 4's inputs: env (PRS_USERNAME/PRS_PASSWORD/PRS_CLIENT_SECRET) first, then what --save-password kept. */
export function availableCredentials(s: Settings, stored: ProfileData | undefined): Credentials | undefined {
  if (s.grant === 'client_credentials') return undefined;
  const username = s.username;
  // A saved password belongs to the stored session's user: never sent for another one.
  const own = !foreignTo(s, stored);
  const password = s.password ?? (own ? stored?.secrets?.password : undefined);
  const clientSecret = s.clientSecret ?? (own ? stored?.secrets?.clientSecret : undefined);
  return username && password && clientSecret ? { username, password, clientSecret } : undefined;
}

/** A service account's secret: the environment's, else the one its login kept (never another session's). */
export function serviceAccountSecret(s: Settings, stored: ProfileData | undefined): string | undefined {
  if (s.grant !== 'client_credentials') return undefined;
  return s.clientSecret ?? (foreignTo(s, stored) ? undefined : stored?.secrets?.clientSecret);
}

/** The token endpoint's coordinates; a missing one is a usage error naming its variable. */
export function endpointOf(s: Settings, clientSecret: string | undefined): TokenEndpoint {
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
  /** Serialises renewals across processes; tests pass a pass-through. Default: a lock file beside the store. */
  lock?: <T>(fn: () => Promise<T>) => Promise<T>;
  /** Retry jitter; tests pass a fixed one. */
  random?: () => number;
}

export function createSession(d: SessionDeps): Session {
  const s = d.settings;
  const profile = s.profile;
  const now = () => d.clock.now();
  const crossProcess =
    d.lock ?? lockBeside(join(dirname(d.store.path), `session-${profile}`), d.io, renewalWaitMs(s));
  // Within one process, one renewal at a time too: parallel requests wait for it and reuse its token.
  let chain: Promise<unknown> = Promise.resolve();
  const serialised = <T>(fn: () => Promise<T>): Promise<T> => {
    const run = chain.then(() => crossProcess(fn));
    chain = run.catch(() => {});
    return run;
  };
  let memo: StoredSession | undefined;
  /** Every token call of the session: retried like the API within --retries, each wait a -v line. */
  const grantToken = (ep: TokenEndpoint, grant: Grant, previous?: StoredSession) =>
    requestToken(d.http, ep, grant, {
      clock: d.clock,
      retries: s.retries,
      signal: d.signal,
      previous,
      random: d.random,
      onWait: (ms, reason) => d.io.debug(waitLine(ms, reason)),
    });
  const bindingNow = () => bindingOf(s) as SessionBinding;

  const save = async (fn: (p: ProfileData | undefined) => ProfileData | undefined) => {
    try {
      await d.store.update(profile, fn);
    } catch (err) {
      // A read-only config directory must not break a run that already holds a good token.
      if (!(err instanceof FileError)) throw err;
      d.io.note(`prs: note: could not save the session: ${err.message}`);
    }
  };
  const saveSession = (next: StoredSession | undefined) => save((p) => withSession(p, next));

  /** The stored session is someone else's (CLI.md "Session"): env credentials sign in for this run only. */
  const signInForRun = async (stored: ProfileData, differ: string[]): Promise<string> => {
    if (s.grant === 'client_credentials' && s.clientSecret) {
      d.io.debug(`auth: the stored session is not for this ${differ.join('/')}; signing in for this run`);
      memo = await clientCredentials(s.clientSecret);
      return memo.accessToken;
    }
    if (s.username && s.password && s.clientSecret) {
      d.io.debug(`auth: the stored session is not for this ${differ.join('/')}; signing in for this run`);
      const next = await grantToken(endpointOf(s, s.clientSecret), {
        type: 'password',
        username: s.username,
        password: s.password,
      });
      memo = next;
      return next.accessToken;
    }
    throw new AuthError(
      `the session stored in profile ${profile} is for ${ownerOf(stored)}; not used with another ${differ.join(', ')}`,
      {
        hint:
          s.grant === 'client_credentials'
            ? 'run `prs login --client-credentials` for these settings, or set PRS_CLIENT_SECRET for this run'
            : 'run `prs login` for these settings, or set PRS_USERNAME, PRS_PASSWORD and PRS_CLIENT_SECRET for this run',
      },
    );
  };

  /** A service account's grant: no refresh token comes with it, so every renewal is one of these. */
  const clientCredentials = (secret: string): Promise<StoredSession> => {
    d.io.debug(`auth: signing in as service account ${s.clientId} (grant_type=client_credentials)`);
    return grantToken(endpointOf(s, secret), { type: 'client_credentials' });
  };

  const renewStored = async (
    stored: ProfileData | undefined,
    cur: StoredSession | undefined,
  ): Promise<string> => {
    if (s.grant === 'client_credentials') {
      const secret = serviceAccountSecret(s, stored);
      // A refusal (a wrong secret, a client without a service account) leaves the stored session:
      // it is ended by nothing here, and a corrected secret simply signs in again.
      if (!secret)
        throw notLoggedIn(
          s,
          s.ci
            ? undefined
            : 'or set PRS_CLIENT_SECRET (with PRS_GRANT=client_credentials) for unattended runs',
        );
      const next = await clientCredentials(secret);
      await saveSession({ ...next, bound: bindingNow() });
      memo = next;
      return next.accessToken;
    }
    const creds = availableCredentials(s, stored);
    const secret = s.clientSecret ?? stored?.secrets?.clientSecret;
    let refusal: TokenRefusedError | undefined;
    if (cur && refreshUsable(cur, now())) {
      try {
        d.io.debug('auth: renewing the session (grant_type=refresh_token)');
        const next = await grantToken(
          endpointOf(s, secret),
          { type: 'refresh_token', refreshToken: cur.refreshToken! },
          cur,
        );
        await saveSession({ ...next, bound: cur.bound });
        memo = next;
        return next.accessToken;
      } catch (err) {
        if (!(err instanceof TokenRefusedError)) throw err;
        const clientRefused = err.error === 'invalid_client' || err.error === 'unauthorized_client';
        // Only a refusal of the token itself ends the session; a refused client (a wrong
        // PRS_CLIENT_SECRET) is fixed by correcting it, and the session must still be there then.
        if (err.error !== 'invalid_grant' && !(clientRefused && !secret && creds)) {
          if (clientRefused && !secret)
            throw notLoggedIn(
              s,
              'this session was stored by an older prs that did not keep the client secret: log in once more',
            );
          throw err;
        }
        refusal = err;
        d.io.debug(`auth: refresh refused (${err.error})`);
        if (err.error === 'invalid_grant') await saveSession(undefined);
      }
    }

    if (creds) {
      d.io.debug(`auth: signing in as ${creds.username} (grant_type=password)`);
      const next = await grantToken(endpointOf(s, creds.clientSecret), {
        type: 'password',
        username: creds.username,
        password: creds.password,
      });
      await saveSession({ ...next, bound: bindingNow() });
      memo = next;
      return next.accessToken;
    }

    let hint: string | undefined;
    if (refusal && refusal.error !== 'invalid_grant')
      hint = `the token endpoint at ${hostOf(s.authUrl ?? '')} said: ${refusal.error}`;
    else if (refusal || cur?.refreshToken) hint = KEEP_SESSION_HINT;
    else if (!s.ci && !stored?.session)
      hint =
        'for unattended use set PRS_USERNAME, PRS_PASSWORD and PRS_CLIENT_SECRET, a service account (PRS_GRANT=client_credentials), or PRS_TOKEN';
    throw notLoggedIn(s, hint);
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
        memo = cur;
        return cur.accessToken;
      }
      try {
        return await renewStored(stored, cur);
      } catch (err) {
        // A token with under 30 s left is still a token: when it cannot be renewed, use it to the end.
        if (!cur || cur.accessToken === '' || cur.expiresAt <= now() || d.signal.aborted) throw err;
        d.io.note(
          `prs: note: could not renew the session (${(err as Error).message}); using the current token, valid ${Math.ceil((cur.expiresAt - now()) / 1000)} s more`,
        );
        memo = cur;
        return cur.accessToken;
      }
    });

  return {
    async token() {
      if (s.token) return s.token;
      if (accessUsable(memo, now())) return memo.accessToken;
      const p = d.store.get(profile);
      const stored = p?.session;
      if (accessUsable(stored, now()) && !foreignTo(s, p)) {
        memo = stored;
        return stored.accessToken;
      }
      return obtain(undefined);
    },
    async renew(rejected) {
      if (s.token) {
        throw new AuthError('the service rejected the token in PRS_TOKEN (401)', {
          hint: 'PRS_TOKEN is used as is: set a fresh one, or unset it to use the stored session',
        });
      }
      if (memo?.accessToken === rejected) memo = undefined;
      return obtain(rejected);
    },
    identity: () => identityOf(s),
  };
}

/** Cross-process lock on `file`; when the directory is not writable at all, go on unlocked with a note. */
/**
 * How long a process waits for another's renewal before giving up: the longest that renewal can take
 * (every attempt within --timeout, every wait between them at most MAX_RETRY_AFTER_MS), so a token
 * service that is down makes the waiter wait for the holder's retries, not fail "locked" meanwhile.
 */
export function renewalWaitMs(s: Pick<Settings, 'retries' | 'timeoutMs'>): number {
  return (s.retries + 1) * s.timeoutMs + s.retries * MAX_RETRY_AFTER_MS + 30_000;
}

function lockBeside(file: string, io: Pick<IO, 'note'>, waitMs: number) {
  return async <T>(fn: () => Promise<T>): Promise<T> => {
    let entered = false;
    try {
      return await withLock(
        file,
        () => {
          entered = true;
          return fn();
        },
        { waitMs },
      );
    } catch (err) {
      if (entered) throw err;
      const code = (err as NodeJS.ErrnoException)?.code;
      if (code === 'ELOCKED') {
        throw new FileError(`another prs process holds ${file}.lock`, {
          hint: 'if no other prs is running, remove that directory',
        });
      }
      if (code === 'EACCES' || code === 'EPERM' || code === 'EROFS') {
        io.note(`prs: note: cannot lock ${file} (${code}); renewing without it`);
        return fn();
      }
      throw err;
    }
  };
}
