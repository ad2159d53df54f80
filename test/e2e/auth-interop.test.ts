/**
 * Interoperability: `prs login` and `prs auth token` (the BUILT binary) against an independent OAuth2
 * server, oauth2-mock-server v8, with its token endpoint moved to Keycloak's path — so the token
 * client is not only tested against our own sandbox; and an authenticated `prs report` against a small
 * resource server that verifies the mock server's RS256 signature through its JWKS.
 */
import { createPublicKey, type JsonWebKey, verify } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { OAuth2Server } from 'oauth2-mock-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runPrs } from '../helpers/run.js';
import { useTempDir } from '../helpers/session.js';

const REALM = 'acme-realm';
const PASSWORD = 'pw-Interop-31';
const SECRET = 'cs-Interop-42';

let server: OAuth2Server;
const tmp = useTempDir('prs-interop-');
let authUrl: string;
const seen: Record<string, string>[] = [];

beforeAll(async () => {
  server = new OAuth2Server(undefined, undefined, {
    endpoints: { token: `/realms/${REALM}/protocol/openid-connect/token` },
  });
  await server.issuer.keys.generate('RS256');
  await server.start(0, '127.0.0.1');
  // The issuer says localhost; connect to the address it listens on, whatever localhost resolves to.
  authUrl = `http://127.0.0.1:${new URL(server.issuer.url!).port}`;
  server.service.on('beforeResponse', (_res, req) => {
    seen.push({ ...(req.body as Record<string, string>) });
  });
});

afterAll(async () => {
  await server?.stop();
});

const env = () => ({ PRS_CONFIG_DIR: join(tmp.path, 'config'), PRS_CLIENT_SECRET: SECRET, HOME: tmp.path });
const configFile = () => join(tmp.path, 'config', 'config.json');
const claims = (jwt: string) => JSON.parse(Buffer.from(jwt.split('.')[1], 'base64url').toString('utf8'));
const loginArgs = (baseUrl = 'http://127.0.0.1:9') => [
  'login',
  '--auth-url',
  authUrl,
  '--realm',
  REALM,
  '--client-id',
  'prs-cli',
  '--username',
  'demo',
  '--tenant',
  'demo-tenant',
  '--base-url',
  baseUrl,
  '--password-stdin',
];

describe('against oauth2-mock-server', () => {
  it('login sends a standard password grant and stores the issued RS256 token', async () => {
    seen.length = 0;
    const r = await runPrs(loginArgs(), { input: `${PASSWORD}\n`, env: env() });
    expect(r.stderr).toBe(
      `✓ Logged in to ${new URL(authUrl).host} as demo (profile default, tenant demo-tenant)\n`,
    );
    expect(r.code).toBe(0);
    expect(seen).toEqual([
      {
        grant_type: 'password',
        client_id: 'prs-cli',
        client_secret: SECRET,
        username: 'demo',
        password: PASSWORD,
      },
    ]);
    const session = JSON.parse(readFileSync(configFile(), 'utf8')).profiles.default.session;
    expect(claims(session.accessToken)).toMatchObject({ iss: server.issuer.url, sub: 'demo' });
    // expires_in 3600, no refresh_expires_in: the refresh token's expiry is unknown.
    expect(session.expiresAt - session.obtainedAt).toBe(3_600_000);
    expect(session.refreshToken).toMatch(/^[0-9a-f-]{36}$/);
    expect(session.refreshExpiresAt).toBeUndefined();
  });

  it('auth token prints the stored token; after expiry it renews with the refresh token', async () => {
    seen.length = 0;
    const stored = JSON.parse(readFileSync(configFile(), 'utf8'));
    const r = await runPrs(['auth', 'token'], { env: env() });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`${stored.profiles.default.session.accessToken}\n`);
    expect(seen).toEqual([]);

    const oldRefresh = stored.profiles.default.session.refreshToken;
    stored.profiles.default.session.expiresAt = 0;
    writeFileSync(configFile(), JSON.stringify(stored), { mode: 0o600 });
    const renewed = await runPrs(['auth', 'token'], { env: env() });
    expect(renewed.stderr).toBe('');
    expect(renewed.code).toBe(0);
    expect(seen).toEqual([
      { grant_type: 'refresh_token', client_id: 'prs-cli', client_secret: SECRET, refresh_token: oldRefresh },
    ]);
    const now = JSON.parse(readFileSync(configFile(), 'utf8')).profiles.default.session;
    expect(renewed.stdout).toBe(`${now.accessToken}\n`);
    expect(now.refreshToken).not.toBe(oldRefresh);
    expect(claims(now.accessToken).iss).toBe(server.issuer.url);
  });

  it('an authenticated report: the bearer token verifies against the issuer JWKS, rows come back exact', async () => {
    const jwks = (await (await fetch(`${authUrl}/jwks`)).json()) as {
      keys: (JsonWebKey & { kid: string })[];
    };
    const seenAuth: string[] = [];
    const api: Server = createServer((req, res) => {
      const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1] ?? '';
      const [h, p, sig] = token.split('.');
      const jwk = jwks.keys.find(
        (k) => k.kid === JSON.parse(Buffer.from(h ?? '', 'base64url').toString() || '{}').kid,
      );
      const ok =
        !!jwk &&
        verify(
          'sha256',
          Buffer.from(`${h}.${p}`),
          createPublicKey({ key: jwk, format: 'jwk' }),
          Buffer.from(sig, 'base64url'),
        );
      seenAuth.push(`${ok} ${req.headers['x-client-id']} ${req.url}`);
      if (!ok) {
        res.writeHead(401, { 'www-authenticate': 'Bearer' }).end();
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        '{"report":[{"effectiveDate":"2023-06-29","indexName":"Example 600 OG EUR","indexValue":1302.917413000000000001}]}',
      );
    });
    await new Promise<void>((r) => api.listen(0, '127.0.0.1', r));
    try {
      const base = `http://127.0.0.1:${(api.address() as { port: number }).port}`;
      // A session is bound to the base URL it was created for: log in for this service first.
      expect((await runPrs(loginArgs(base), { input: `${PASSWORD}\n`, env: env() })).code).toBe(0);
      const r = await runPrs(
        ['report', '42', '-t', 'index', '-d', '2023-06-29', '--base-url', base, '-f', 'csv'],
        {
          env: { ...env(), PRS_CACHE_DIR: join(tmp.path, 'cache') },
        },
      );
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      expect(r.stdout).toBe(
        'effectiveDate,indexName,indexValue\n2023-06-29,Example 600 OG EUR,1302.917413000000000001\n',
      );
      expect(seenAuth).toEqual([
        'true demo-tenant /api/v1/report-service/report/generate/portfolio/42?reportType=index&date=2023-06-29',
      ]);
    } finally {
      await new Promise((r) => api.close(r));
    }
  });

  it('a service account: the env-only form sends a standard client_credentials grant, and again once expired', async () => {
    const dir = join(tmp.path, 'config-robot');
    const robotEnv = {
      PRS_CONFIG_DIR: dir,
      HOME: tmp.path,
      PRS_GRANT: 'client_credentials',
      PRS_AUTH_URL: authUrl,
      PRS_REALM: REALM,
      PRS_CLIENT_ID: 'prs-robot',
      PRS_CLIENT_SECRET: SECRET,
      PRS_BASE_URL: 'http://127.0.0.1:9',
    };
    seen.length = 0;
    const r = await runPrs(['auth', 'token'], { env: robotEnv });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(seen).toEqual([
      { grant_type: 'client_credentials', client_id: 'prs-robot', client_secret: SECRET },
    ]);
    const file = join(dir, 'config.json');
    const stored = JSON.parse(readFileSync(file, 'utf8'));
    expect(r.stdout).toBe(`${stored.profiles.default.session.accessToken}\n`);
    expect(claims(stored.profiles.default.session.accessToken).iss).toBe(server.issuer.url);
    stored.profiles.default.session.expiresAt = 0;
    writeFileSync(file, JSON.stringify(stored), { mode: 0o600 });
    const again = await runPrs(['auth', 'token'], { env: robotEnv });
    expect(again.code).toBe(0);
    expect(seen.map((f) => f.grant_type)).toEqual(['client_credentials', 'client_credentials']);
  });

  it('a refusal is exit 4 with the server description', async () => {
    server.service.once('beforeResponse', (res) => {
      res.statusCode = 401;
      res.body = { error: 'invalid_grant', error_description: 'Invalid user credentials' };
    });
    const r = await runPrs(loginArgs(), { input: 'wrong\n', env: env() });
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(
      new RegExp(`^prs: sign-in refused by ${new URL(authUrl).host}: Invalid user credentials\n`),
    );
  });
});
