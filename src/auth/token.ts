// The response body holds the tokens: it is never printed or put into an error message.
import type { Clock } from '../clock.js';
import type { WaitReason } from '../domain.js';
import { AuthError, HttpError, ServiceError } from '../errors.js';
import { type Http, header, hostOf, shortMessage } from '../http/client.js';
import { failedOn, MAX_RETRY_AFTER_MS, withRetries } from '../http/retry.js';
import type { SessionBinding, StoredSession } from './types.js';

export type TokenEndpoint = Pick<SessionBinding, 'authUrl' | 'realm' | 'clientId'> & {
  clientSecret?: string;
};

export type Grant =
  | { type: 'password'; username: string; password: string }
  | { type: 'refresh_token'; refreshToken: string }
  | { type: 'client_credentials' };

export class TokenRefusedError extends AuthError {
  readonly error: string;
  constructor(message: string, error: string, hint?: string) {
    super(message, { hint });
    this.error = error;
  }
}

function tokenUrl(ep: TokenEndpoint, action = 'token'): string {
  return `${ep.authUrl.replace(/\/+$/, '')}/realms/${encodeURIComponent(ep.realm)}/protocol/openid-connect/${action}`;
}

function formOf(ep: TokenEndpoint, fields: Record<string, string>): string {
  const secret: Record<string, string> = ep.clientSecret ? { client_secret: ep.clientSecret } : {};
  return new URLSearchParams({ client_id: ep.clientId, ...secret, ...fields }).toString();
}

export async function endSession(http: Http, ep: TokenEndpoint, refreshToken: string, signal: AbortSignal) {
  const form = formOf(ep, { refresh_token: refreshToken });
  const res = await http.send({ method: 'POST', url: tokenUrl(ep, 'logout'), form, signal });
  await res.body.text().catch(() => '');
  return res.status;
}

const grantFields = ({ type, ...g }: Grant): Record<string, string> => ({
  grant_type: type,
  ...('refreshToken' in g ? { refresh_token: g.refreshToken } : g),
});

function seconds(v: unknown): number | undefined {
  const n = typeof v === 'string' && /^\d+(\.\d+)?$/.test(v) ? Number(v) : v;
  return typeof n === 'number' && Number.isFinite(n) && n >= 0 ? n : undefined;
}

/** Without expires_in a token is trusted this long; a 401 still triggers a renewal. */
const UNKNOWN_LIFETIME_MS = 60_000;

function sessionFromResponse(body: unknown, now: number, previous?: StoredSession): StoredSession {
  const b = body as Record<string, unknown> | null;
  if (typeof b !== 'object' || b === null || typeof b.access_token !== 'string' || b.access_token === '')
    throw new ServiceError('the token endpoint answered without an access_token');
  const accessToken = b.access_token;
  const expiresIn = seconds(b.expires_in) || UNKNOWN_LIFETIME_MS / 1000;
  const session: StoredSession = { accessToken, expiresAt: now + expiresIn * 1000, obtainedAt: now };
  if (typeof b.refresh_token === 'string' && b.refresh_token !== '') {
    session.refreshToken = b.refresh_token;
    // 0 or absent (Keycloak offline tokens): valid until refused.
    const refreshIn = seconds(b.refresh_expires_in);
    if (refreshIn !== undefined && refreshIn > 0) session.refreshExpiresAt = now + refreshIn * 1000;
  } else if (previous?.refreshToken) {
    session.refreshToken = previous.refreshToken;
    if (previous.refreshExpiresAt !== undefined) session.refreshExpiresAt = previous.refreshExpiresAt;
  }
  return session;
}

interface TokenCallOptions {
  clock: Clock;
  retries: number;
  signal?: AbortSignal;
  previous?: StoredSession;
  random?: () => number;
  onWait?: (ms: number, reason: WaitReason) => void;
}

export function requestToken(http: Http, ep: TokenEndpoint, grant: Grant, o: TokenCallOptions) {
  const url = tokenUrl(ep);
  return withRetries<StoredSession>(
    { policy: { limit: o.retries }, ...o },
    () => tokenAttempt(http, url, ep, grant, o).catch(failedOn),
    (ms, reason) => o.onWait?.(ms, reason),
    ({ outcome, error }, retryAfterMs) => {
      if (outcome.kind === 'network') return error!;
      const wait =
        retryAfterMs === undefined
          ? ''
          : ` and asks to wait ${Math.ceil(retryAfterMs / 1000)} s; prs waits at most ${MAX_RETRY_AFTER_MS / 1000} s`;
      const message = `the token endpoint at ${hostOf(url)} answered HTTP ${outcome.status}${wait}`;
      if (outcome.status === 429) {
        const hint = 'the sign-in service limits how often it is asked; try again later';
        return new HttpError(message, { status: 429, hint });
      }
      return new ServiceError(message, { hint: 'the sign-in service is having trouble; try again later' });
    },
  );
}

async function tokenAttempt(http: Http, url: string, ep: TokenEndpoint, grant: Grant, o: TokenCallOptions) {
  const host = hostOf(url);
  const form = formOf(ep, grantFields(grant));
  const res = await http.send({ method: 'POST', url, form, signal: o.signal, endpoint: 'token' });
  const text = await res.body.text().catch((err) => {
    throw new ServiceError(`the token endpoint at ${host} broke off its answer`, { cause: err });
  });
  const type = header(res, 'content-type');
  let json: { error?: unknown } | undefined;
  try {
    json = JSON.parse(text);
  } catch {}
  if (res.status >= 200 && res.status < 300) {
    if (json === undefined)
      throw new ServiceError(
        `the token endpoint at ${host} answered HTTP ${res.status} with ${type || 'a body'} that is not JSON`,
        { hint: 'check --auth-url: it should be the Keycloak base URL, before /realms' },
      );
    return { ok: sessionFromResponse(json, o.clock.now(), o.previous) };
  }
  const error = json?.error;
  if (res.status >= 400 && res.status < 500 && res.status !== 429 && typeof error === 'string') {
    const what = grant.type === 'refresh_token' ? 'session renewal' : 'sign-in';
    throw new TokenRefusedError(
      `${what} refused by ${host}: ${shortMessage(text, type) ?? error}`,
      error,
      refusalHint(error, res.status, grant.type),
    );
  }
  if (res.status === 404)
    throw new ServiceError(`no token endpoint at ${url} (HTTP 404)`, {
      hint: 'check --auth-url (the Keycloak base URL, before /realms) and --realm',
    });
  if (res.status < 500 && res.status !== 429)
    throw new ServiceError(`the token endpoint at ${host} answered HTTP ${res.status}`);
  return { outcome: { kind: 'status', status: res.status, retryAfter: header(res, 'retry-after') } } as const;
}

function refusalHint(error: string, status: number, grant: Grant['type']): string | undefined {
  // Keycloak: 401 for a wrong secret, 400 for a client that may not use this grant.
  if (grant === 'client_credentials' && error === 'unauthorized_client' && status === 400)
    return 'the client must have service accounts enabled (Keycloak: Client authentication on, Service accounts roles), or use a user login';
  if (error === 'invalid_client' || error === 'unauthorized_client')
    return 'check the client id and the client secret (PRS_CLIENT_SECRET)';
  if (error === 'invalid_grant' && grant === 'password') return 'check the user name and password';
  if (status === 404) return 'check --auth-url and --realm';
  return undefined;
}
