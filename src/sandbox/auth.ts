/**
 * The sandbox's Keycloak stand-in: the token endpoint (password and refresh_token grants for the
 * user client, client_credentials for service-account clients) and bearer verification for the
 * report endpoints. Tokens are HS256 JWTs signed with per-process random keys;
 * `revoke()` rotates the access key, which makes every access token issued so far invalid.
 */
import { createHmac, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';

export interface SandboxUser {
  username: string;
  password: string;
  /** The tenant this user may ask for (X-CLIENT-ID). */
  tenant: string;
}

/** A confidential client with a service account (Keycloak: "Service accounts roles" on), tenant-bound. */
export interface SandboxServiceClient {
  clientId: string;
  clientSecret: string;
  /** The tenant its service account may ask for (X-CLIENT-ID). */
  tenant: string;
}

export interface AccessClaims {
  exp: number;
  iat: number;
  jti: string;
  iss: string;
  sub: string;
  typ: string;
  azp: string;
  sid: string;
  scope: string;
  preferred_username: string;
  tenant: string;
  [k: string]: unknown;
}

export interface TokenAnswer {
  status: number;
  body: Record<string, unknown>;
}

const b64url = (b: Buffer | string) => Buffer.from(b).toString('base64url');

export function signJwt(claims: object, key: Buffer): string {
  const head = b64url(JSON.stringify({ alg: 'HS256', typ: 'JWT', kid: 'prs-sandbox' }));
  const body = b64url(JSON.stringify(claims));
  const sig = createHmac('sha256', key).update(`${head}.${body}`).digest('base64url');
  return `${head}.${body}.${sig}`;
}

/** The claims of a JWT signed with `key`, or undefined for anything malformed or forged. */
export function verifyJwt(token: string, key: Buffer): Record<string, unknown> | undefined {
  const parts = token.split('.');
  if (parts.length !== 3) return undefined;
  const want = createHmac('sha256', key).update(`${parts[0]}.${parts[1]}`).digest();
  const got = Buffer.from(parts[2], 'base64url');
  if (got.length !== want.length || !timingSafeEqual(got, want)) return undefined;
  try {
    const head = JSON.parse(Buffer.from(parts[0], 'base64url').toString('utf8'));
    if (head?.alg !== 'HS256') return undefined;
    const claims = JSON.parse(Buffer.from(parts[1], 'base64url').toString('utf8'));
    return claims && typeof claims === 'object' ? claims : undefined;
  } catch {
    return undefined;
  }
}

const oauthError = (status: number, error: string, description: string): TokenAnswer => ({
  status,
  body: { error, error_description: description },
});

export type BearerCheck =
  | { ok: true; claims: AccessClaims }
  | { ok: false; reason: 'missing' | 'invalid' | 'expired'; description: string };

export interface IssuerOptions {
  issuer: string;
  clientId: string;
  clientSecret: string;
  users: readonly SandboxUser[];
  /** Clients allowed the client_credentials grant (and only that one, as Keycloak's defaults have it). */
  serviceClients?: readonly SandboxServiceClient[];
  tokenTtl: number;
  refreshTtl: number;
  now: () => number;
}

/** The realm-relative paths the sandbox answers, as Keycloak names them. */
export const TOKEN_PATH = '/protocol/openid-connect/token';
export const LOGOUT_PATH = '/protocol/openid-connect/logout';

export class TokenIssuer {
  private accessKey = randomBytes(32);
  private refreshKey = randomBytes(32);
  /** Sessions ended through the logout endpoint: their refresh tokens are refused from then on. */
  private readonly ended = new Set<string>();
  constructor(private readonly o: IssuerOptions) {}

  /**
   * The logout endpoint as Keycloak answers a confidential client's back-channel logout: 204 and the
   * session (every refresh token of it) is ended; access tokens already issued live out their time,
   * as Keycloak's self-contained JWTs do.
   */
  logout(form: URLSearchParams): TokenAnswer {
    const clientId = form.get('client_id');
    if (!clientId) return oauthError(400, 'invalid_request', 'Missing parameter: client_id');
    if (!this.client(clientId, form.get('client_secret')))
      return oauthError(401, 'unauthorized_client', 'Invalid client or Invalid client credentials');
    const token = form.get('refresh_token');
    if (!token) return oauthError(400, 'invalid_request', 'refresh_token not passed in request');
    const claims = verifyJwt(token, this.refreshKey);
    if (claims?.typ !== 'Refresh' || claims.iss !== this.o.issuer)
      return oauthError(400, 'invalid_grant', 'Invalid refresh token');
    if (claims.azp !== clientId)
      return oauthError(400, 'invalid_grant', "Token client and authorized client don't match");
    if (this.o.now() >= Number(claims.exp) * 1000 || this.ended.has(String(claims.sid)))
      return oauthError(400, 'invalid_grant', 'Session not active');
    this.ended.add(String(claims.sid));
    return { status: 204, body: {} };
  }

  /** Invalidates every access token issued so far (and, with `refresh`, every refresh token). */
  revoke(opts: { refresh?: boolean } = {}): void {
    this.accessKey = randomBytes(32);
    if (opts.refresh) this.refreshKey = randomBytes(32);
  }

  /** Answers a token request the way Keycloak does, checks in Keycloak's order. */
  token(form: URLSearchParams): TokenAnswer {
    const grant = form.get('grant_type');
    if (!grant) return oauthError(400, 'invalid_request', 'Missing form parameter: grant_type');
    if (grant !== 'password' && grant !== 'refresh_token' && grant !== 'client_credentials')
      return oauthError(400, 'unsupported_grant_type', 'Unsupported grant_type');
    const clientId = form.get('client_id');
    if (!clientId) return oauthError(400, 'invalid_request', 'Missing parameter: client_id');
    const client = this.client(clientId, form.get('client_secret'));
    if (!client)
      return oauthError(401, 'unauthorized_client', 'Invalid client or Invalid client credentials');
    // Keycloak's answers for a grant the client is not enabled for (a client's flows are set apart).
    if (grant === 'client_credentials') {
      if (client === 'user')
        return oauthError(400, 'unauthorized_client', 'Client not enabled to retrieve service account');
      return this.issueServiceAccount(client);
    }
    if (client !== 'user') {
      return grant === 'password'
        ? oauthError(400, 'unauthorized_client', 'Client not allowed for direct access grants')
        : oauthError(400, 'invalid_grant', "Token client and authorized client don't match");
    }
    return grant === 'password' ? this.passwordGrant(form) : this.refreshGrant(form);
  }

  /** The authenticated client: 'user' (the CLI's client), a service client, or undefined (refused). */
  private client(id: string, secret: string | null): 'user' | SandboxServiceClient | undefined {
    if (id === this.o.clientId) return secret === this.o.clientSecret ? 'user' : undefined;
    const c = (this.o.serviceClients ?? []).find((sc) => sc.clientId === id);
    return c && secret === c.clientSecret ? c : undefined;
  }

  /**
   * A service account's token, as Keycloak issues it by default: user `service-account-<client id>`,
   * no refresh token (refresh_expires_in 0), no session; renewing means asking again.
   */
  private issueServiceAccount(c: SandboxServiceClient): TokenAnswer {
    const now = this.o.now();
    const username = `service-account-${c.clientId}`;
    const access = {
      exp: Math.ceil((now + this.o.tokenTtl * 1000) / 1000),
      iat: Math.floor(now / 1000),
      jti: randomUUID(),
      iss: this.o.issuer,
      aud: 'account',
      sub: subjectOf(username),
      typ: 'Bearer',
      azp: c.clientId,
      scope: 'profile email',
      preferred_username: username,
      clientId: c.clientId,
      tenant: c.tenant,
    };
    return {
      status: 200,
      body: {
        access_token: signJwt(access, this.accessKey),
        expires_in: this.o.tokenTtl,
        refresh_expires_in: 0,
        token_type: 'Bearer',
        'not-before-policy': 0,
        scope: 'profile email',
      },
    };
  }

  private passwordGrant(form: URLSearchParams): TokenAnswer {
    const username = form.get('username');
    if (!username) return oauthError(400, 'invalid_request', 'Missing parameter: username');
    const user = this.o.users.find((u) => u.username === username);
    // Keycloak answers a missing password like a wrong one.
    if (!user || form.get('password') !== user.password)
      return oauthError(401, 'invalid_grant', 'Invalid user credentials');
    return this.issue(user, randomUUID());
  }

  private refreshGrant(form: URLSearchParams): TokenAnswer {
    const token = form.get('refresh_token');
    if (!token) return oauthError(400, 'invalid_request', 'Missing parameter: refresh_token');
    const claims = verifyJwt(token, this.refreshKey);
    if (claims?.typ !== 'Refresh' || claims.iss !== this.o.issuer)
      return oauthError(400, 'invalid_grant', 'Invalid refresh token');
    if (this.o.now() >= Number(claims.exp) * 1000)
      return oauthError(400, 'invalid_grant', 'Token is not active');
    if (claims.azp !== this.o.clientId)
      return oauthError(400, 'invalid_grant', "Token client and authorized client don't match");
    if (this.ended.has(String(claims.sid))) return oauthError(400, 'invalid_grant', 'Session not active');
    const user = this.o.users.find((u) => u.username === claims.preferred_username);
    if (!user) return oauthError(400, 'invalid_grant', 'Invalid refresh token');
    return this.issue(user, String(claims.sid));
  }

  private issue(user: SandboxUser, sid: string): TokenAnswer {
    const now = this.o.now();
    const iat = Math.floor(now / 1000);
    // Rounded up, so a token lives at least its advertised expires_in, never a fraction less.
    const expiry = (ttl: number) => Math.ceil((now + ttl * 1000) / 1000);
    const common = {
      iat,
      iss: this.o.issuer,
      sub: subjectOf(user.username),
      azp: this.o.clientId,
      sid,
      scope: 'profile email',
      preferred_username: user.username,
    };
    const access = {
      exp: expiry(this.o.tokenTtl),
      jti: randomUUID(),
      aud: 'account',
      typ: 'Bearer',
      ...common,
      tenant: user.tenant,
    };
    const refresh = {
      exp: expiry(this.o.refreshTtl),
      jti: randomUUID(),
      aud: this.o.issuer,
      typ: 'Refresh',
      ...common,
    };
    return {
      status: 200,
      body: {
        access_token: signJwt(access, this.accessKey),
        expires_in: this.o.tokenTtl,
        refresh_expires_in: this.o.refreshTtl,
        refresh_token: signJwt(refresh, this.refreshKey),
        token_type: 'Bearer',
        'not-before-policy': 0,
        session_state: sid,
        scope: 'profile email',
      },
    };
  }

  /** Checks an Authorization header value for the report endpoints. */
  checkBearer(header: string | undefined): BearerCheck {
    const m = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
    if (!m) return { ok: false, reason: 'missing', description: 'Full authentication is required' };
    const claims = verifyJwt(m[1], this.accessKey);
    if (claims?.typ !== 'Bearer' || claims.iss !== this.o.issuer)
      return { ok: false, reason: 'invalid', description: 'Invalid token' };
    if (this.o.now() >= Number(claims.exp) * 1000)
      return { ok: false, reason: 'expired', description: 'Token expired' };
    return { ok: true, claims: claims as AccessClaims };
  }
}

/** A stable, UUID-shaped subject per user name. */
function subjectOf(username: string): string {
  const h = createHmac('sha256', 'prs-sandbox-subject').update(username).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`;
}
