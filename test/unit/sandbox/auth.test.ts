import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { signJwt, TokenIssuer, verifyJwt } from '../../../src/sandbox/auth.js';
import { resolveOptions } from '../../../src/sandbox/options.js';

/** The sandbox's defaults (users demo and other, prs-cli, 300 s and 1800 s tokens) on a clock of its own. */
function issuer(start = Date.UTC(2024, 4, 1, 6, 0, 0)) {
  let t = start;
  const serviceClients = [{ clientId: 'robot', clientSecret: 'r0bot', tenant: 'demo-tenant' }];
  const i = new TokenIssuer(resolveOptions({ clientSecret: 's3cret', serviceClients, clock: () => t }));
  return { i, advance: (ms: number) => (t += ms) };
}
const form = (o: Record<string, string>) => new URLSearchParams(o);
const good = {
  grant_type: 'password',
  client_id: 'prs-cli',
  client_secret: 's3cret',
  username: 'demo',
  password: 'demo',
};

const claimsOf = (jwt: unknown) =>
  JSON.parse(Buffer.from(String(jwt).split('.')[1]!, 'base64url').toString());

const robot = { grant_type: 'client_credentials', client_id: 'robot', client_secret: 'r0bot' };

describe('jwt', () => {
  it('verifies its own signature and rejects anything else', () => {
    const key = randomBytes(32);
    const t = signJwt({ a: 1 }, key);
    expect(verifyJwt(t, key)).toEqual({ a: 1 });
    expect(verifyJwt(t, randomBytes(32))).toBeUndefined();
    expect(verifyJwt(`${t}x`, key)).toBeUndefined();
    expect(verifyJwt('garbage', key)).toBeUndefined();
  });
});

describe('token endpoint', () => {
  it.each([
    [{}, 400, 'invalid_request', 'Missing form parameter: grant_type'],
    [{ ...good, grant_type: 'implicit' }, 400, 'unsupported_grant_type', 'Unsupported grant_type'],
    // Keycloak's answers for a grant the client is not enabled for.
    [
      { ...good, grant_type: 'client_credentials' },
      400,
      'unauthorized_client',
      'Client not enabled to retrieve service account',
    ],
    [
      { ...robot, grant_type: 'password', username: 'demo', password: 'demo' },
      400,
      'unauthorized_client',
      'Client not allowed for direct access grants',
    ],
    [
      { ...robot, client_secret: 'wrong' },
      401,
      'unauthorized_client',
      'Invalid client or Invalid client credentials',
    ],
    [{ ...good, client_id: '' }, 400, 'invalid_request', 'Missing parameter: client_id'],
    [
      { ...good, client_id: 'nope' },
      401,
      'unauthorized_client',
      'Invalid client or Invalid client credentials',
    ],
    [
      { ...good, client_secret: 'wrong' },
      401,
      'unauthorized_client',
      'Invalid client or Invalid client credentials',
    ],
    [{ ...good, username: '' }, 400, 'invalid_request', 'Missing parameter: username'],
    [{ ...good, password: 'wrong' }, 401, 'invalid_grant', 'Invalid user credentials'],
    [{ ...good, username: 'ghost' }, 401, 'invalid_grant', 'Invalid user credentials'],
    [
      { grant_type: 'refresh_token', client_id: 'prs-cli', client_secret: 's3cret' },
      400,
      'invalid_request',
      'Missing parameter: refresh_token',
    ],
    [
      { grant_type: 'refresh_token', client_id: 'prs-cli', client_secret: 's3cret', refresh_token: 'x.y.z' },
      400,
      'invalid_grant',
      'Invalid refresh token',
    ],
  ])('%j → %i %s', (f, status, error, description) => {
    const a = issuer().i.token(form(f as Record<string, string>));
    expect(a).toEqual({ status, body: { error, error_description: description } });
  });

  it('issues Keycloak-shaped tokens with the claims clients rely on', () => {
    const a = issuer().i.token(form(good));
    expect(a.status).toBe(200);
    expect(a.body).toMatchObject({ expires_in: 300, refresh_expires_in: 1800, token_type: 'Bearer' });
    expect(claimsOf(a.body.access_token)).toMatchObject({
      preferred_username: 'demo',
      tenant: 'demo-tenant',
      azp: 'prs-cli',
      typ: 'Bearer',
      iat: Date.UTC(2024, 4, 1, 6, 0, 0) / 1000,
      exp: Date.UTC(2024, 4, 1, 6, 5, 0) / 1000,
    });
  });

  it('a service account: a tenant-bound token, no refresh token (as Keycloak by default)', () => {
    const { i } = issuer();
    const a = i.token(form(robot));
    expect(a.status).toBe(200);
    expect(a.body).toMatchObject({ expires_in: 300, refresh_expires_in: 0, token_type: 'Bearer' });
    expect(a.body.refresh_token).toBeUndefined();
    expect(claimsOf(a.body.access_token)).toMatchObject({
      preferred_username: 'service-account-robot',
      azp: 'robot',
      tenant: 'demo-tenant',
      typ: 'Bearer',
    });
    expect(i.checkBearer(`Bearer ${a.body.access_token}`).ok).toBe(true);
  });

  it('refreshes until the refresh token expires, then says "Token is not active"', () => {
    const { i, advance } = issuer();
    const first = i.token(form(good)).body;
    const refresh = (rt: unknown) =>
      i.token(
        form({
          grant_type: 'refresh_token',
          client_id: 'prs-cli',
          client_secret: 's3cret',
          refresh_token: String(rt),
        }),
      );
    advance(1799_000);
    const second = refresh(first.refresh_token);
    expect(second.status).toBe(200);
    // The same session, so that logging out ends it whichever of its refresh tokens is sent.
    const sid = claimsOf(first.refresh_token).sid;
    expect(sid).toMatch(/^[0-9a-f-]{36}$/);
    expect(claimsOf(second.body.refresh_token).sid).toBe(sid);
    advance(1000);
    expect(refresh(first.refresh_token)).toEqual({
      status: 400,
      body: { error: 'invalid_grant', error_description: 'Token is not active' },
    });
    expect(refresh(second.body.refresh_token).status).toBe(200); // the new one has its own lifetime
    // An access token is not a refresh token.
    expect(refresh(second.body.access_token).body.error_description).toBe('Invalid refresh token');
  });
});

describe('bearer check', () => {
  it('accepts a fresh token, rejects missing, forged, expired and revoked ones', () => {
    const { i, advance } = issuer();
    const body = i.token(form(good)).body;
    const h = `Bearer ${body.access_token}`;
    expect(i.checkBearer(h)).toMatchObject({ ok: true, claims: { preferred_username: 'demo' } });
    expect(i.checkBearer(undefined)).toMatchObject({ ok: false, reason: 'missing' });
    expect(i.checkBearer('Basic abc')).toMatchObject({ ok: false, reason: 'missing' });
    expect(i.checkBearer('Bearer abc.def.ghi')).toMatchObject({ ok: false, reason: 'invalid' });
    expect(i.checkBearer(`Bearer ${body.refresh_token}`)).toMatchObject({ ok: false, reason: 'invalid' });
    advance(299_999);
    expect(i.checkBearer(h).ok).toBe(true);
    advance(1);
    expect(i.checkBearer(h)).toMatchObject({ ok: false, reason: 'expired' });
    const fresh = `Bearer ${i.token(form(good)).body.access_token}`;
    i.revoke();
    expect(i.checkBearer(fresh)).toMatchObject({ ok: false, reason: 'invalid' });
  });

  it('never gives a token less than its advertised lifetime', () => {
    // Issued at .999 of a second: exp rounds up, not down.
    const { i, advance } = issuer(Date.UTC(2024, 4, 1, 6, 0, 0) + 999);
    const h = `Bearer ${i.token(form(good)).body.access_token}`;
    advance(300_000 - 1);
    expect(i.checkBearer(h).ok).toBe(true);
  });
});
