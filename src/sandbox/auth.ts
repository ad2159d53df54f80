/** The Keycloak stand-in: token and logout answers, the bearer check; HS256 JWTs with per-process keys. */
import { createHmac, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import type { ResolvedOptions, SandboxServiceClient } from './options.js';

type TokenAnswer = { status: number; body: Record<string, unknown> };
type Session = { claims: Record<string, unknown> };

export function signJwt(claims: object, key: Buffer): string {
  const b64 = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
  const unsigned = `${b64({ alg: 'HS256', typ: 'JWT', kid: 'prs-sandbox' })}.${b64(claims)}`;
  return `${unsigned}.${createHmac('sha256', key).update(unsigned).digest('base64url')}`;
}

export function verifyJwt(token: string, key: Buffer): Record<string, unknown> | undefined {
  const [head = '', body = '', sig = '', ...rest] = token.split('.');
  const want = createHmac('sha256', key).update(`${head}.${body}`).digest();
  const got = Buffer.from(sig, 'base64url');
  if (rest.length || got.length !== want.length || !timingSafeEqual(got, want)) return undefined;
  try {
    const decode = (part: string) => JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
    const claims = decode(head)?.alg === 'HS256' ? decode(body) : undefined;
    return claims && typeof claims === 'object' ? claims : undefined;
  } catch {
    return undefined;
  }
}

const oauthError = (status: number, error: string, description: string): TokenAnswer => ({
  status,
  body: { error, error_description: description },
});
const badGrant = (description: string) => oauthError(400, 'invalid_grant', description);

type BearerCheck =
  | { ok: true; claims: { preferred_username: string; tenant: string } }
  | { ok: false; reason: 'missing' | 'invalid' | 'expired'; description: string };

export class TokenIssuer {
  private accessKey = randomBytes(32);
  private refreshKey = randomBytes(32);
  private readonly ended = new Set<string>();
  constructor(private readonly o: ResolvedOptions) {}

  revoke(opts: { refresh?: boolean } = {}): void {
    this.accessKey = randomBytes(32);
    if (opts.refresh) this.refreshKey = randomBytes(32);
  }

  token(form: URLSearchParams): TokenAnswer {
    const grant = form.get('grant_type');
    if (!grant) return oauthError(400, 'invalid_request', 'Missing form parameter: grant_type');
    if (!['password', 'refresh_token', 'client_credentials'].includes(grant))
      return oauthError(400, 'unsupported_grant_type', 'Unsupported grant_type');
    const client = this.client(form);
    if ('status' in client) return client;
    // A client's flows are set apart: the CLI's client has no service account, a service client no users.
    if (grant === 'client_credentials') {
      if (!('tenant' in client))
        return oauthError(400, 'unauthorized_client', 'Client not enabled to retrieve service account');
      const account = { username: `service-account-${client.clientId}`, tenant: client.tenant };
      return this.issue(account, client.clientId);
    }
    if ('tenant' in client) {
      return grant === 'password'
        ? oauthError(400, 'unauthorized_client', 'Client not allowed for direct access grants')
        : badGrant("Token client and authorized client don't match");
    }
    if (grant === 'password') {
      const username = form.get('username');
      if (!username) return oauthError(400, 'invalid_request', 'Missing parameter: username');
      const user = this.o.users.find((u) => u.username === username);
      // Keycloak answers a missing password like a wrong one.
      if (!user || form.get('password') !== user.password)
        return oauthError(401, 'invalid_grant', 'Invalid user credentials');
      return this.issue(user, this.o.clientId, randomUUID());
    }
    const session = this.session(form, client.clientId, false);
    if (!('claims' in session)) return session;
    const user = this.o.users.find((u) => u.username === session.claims.preferred_username);
    if (!user) return badGrant('Invalid refresh token');
    return this.issue(user, this.o.clientId, String(session.claims.sid));
  }

  /** Ends the session (its refresh tokens); issued access tokens live out their time, as in Keycloak. */
  logout(form: URLSearchParams): TokenAnswer {
    const client = this.client(form);
    if ('status' in client) return client;
    const session = this.session(form, client.clientId, true);
    if (!('claims' in session)) return session;
    this.ended.add(String(session.claims.sid));
    return { status: 204, body: {} };
  }

  private client(form: URLSearchParams): ResolvedOptions | SandboxServiceClient | TokenAnswer {
    const [id, secret] = [form.get('client_id'), form.get('client_secret')];
    if (!id) return oauthError(400, 'invalid_request', 'Missing parameter: client_id');
    const c = id === this.o.clientId ? this.o : this.o.serviceClients.find((sc) => sc.clientId === id);
    if (c && secret === c.clientSecret) return c;
    return oauthError(401, 'unauthorized_client', 'Invalid client or Invalid client credentials');
  }

  private session(form: URLSearchParams, clientId: string, logout: boolean): Session | TokenAnswer {
    const token = form.get('refresh_token');
    const missing = logout ? 'refresh_token not passed in request' : 'Missing parameter: refresh_token';
    if (!token) return oauthError(400, 'invalid_request', missing);
    const claims = verifyJwt(token, this.refreshKey);
    if (claims?.typ !== 'Refresh') return badGrant('Invalid refresh token');
    if (this.o.now() >= Number(claims.exp) * 1000)
      return badGrant(logout ? 'Session not active' : 'Token is not active');
    if (claims.azp !== clientId) return badGrant("Token client and authorized client don't match");
    if (this.ended.has(String(claims.sid))) return badGrant('Session not active');
    return { claims };
  }

  private issue(who: { username: string; tenant: string }, azp: string, sid?: string): TokenAnswer {
    const now = this.o.now();
    // Rounded up, so a token lives at least its advertised expires_in, never a fraction less.
    const exp = (ttl: number) => Math.ceil((now + ttl * 1000) / 1000);
    const common = { iat: Math.floor(now / 1000), azp, sid, preferred_username: who.username };
    const claims = (ttl: number, typ: string) => ({ exp: exp(ttl), jti: randomUUID(), typ, ...common });
    return {
      status: 200,
      body: {
        access_token: signJwt({ ...claims(this.o.tokenTtl, 'Bearer'), tenant: who.tenant }, this.accessKey),
        expires_in: this.o.tokenTtl,
        refresh_expires_in: sid ? this.o.refreshTtl : 0,
        ...(sid && { refresh_token: signJwt(claims(this.o.refreshTtl, 'Refresh'), this.refreshKey) }),
        token_type: 'Bearer',
      },
    };
  }

  checkBearer(header: string | undefined): BearerCheck {
    const m = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
    if (!m) return { ok: false, reason: 'missing', description: 'Full authentication is required' };
    const claims = verifyJwt(m[1]!, this.accessKey);
    if (claims?.typ !== 'Bearer') return { ok: false, reason: 'invalid', description: 'Invalid token' };
    if (this.o.now() >= Number(claims.exp) * 1000)
      return { ok: false, reason: 'expired', description: 'Token expired' };
    return { ok: true, claims: claims as { preferred_username: string; tenant: string } };
  }
}
