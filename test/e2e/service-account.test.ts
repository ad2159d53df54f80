/**
 * A service account (grant_type=client_credentials) end to end: the BUILT binary against the sandbox's
 * service-account client (prs-robot, tenant-bound), with the sandbox on a clock the test moves, so a
 * token is used past its lifetime without sleeping: `prs login --client-credentials`, the env-only
 * form, renewal by a new grant with the kept secret (no refresh token exists), auth status/token,
 * logout, the session binding, and a client not allowed the grant (exit 4 with the server's words).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StoredSession } from '../../src/auth/types.js';
import { loginArgs } from '../../src/sandbox/index.js';
import { type RunOptions, runPrs, tempDir } from '../helpers/run.js';
import { dirsEnv, serviceEnv, useSandbox } from '../helpers/session.js';

const sandbox = useSandbox({ tokenTtl: 60, clock: () => now });
let now = Date.now();
const dirs: ReturnType<typeof tempDir>[] = [];
const robot = () => sandbox.serviceClients[0];
const REPORT = ['report', '42', '-t', 'index', '-d', '2023-06-29', '--json'];

beforeAll(async () => {});
afterAll(async () => {
  for (const d of dirs) d.cleanup();
});

function context() {
  const tmp = tempDir('prs-service-account-');
  dirs.push(tmp);
  const env = dirsEnv(tmp.path);
  const file = join(env.PRS_CONFIG_DIR, 'config.json');
  type Profile = {
    settings: Record<string, string>;
    session?: StoredSession;
    secrets?: Record<string, string>;
  };
  const stored = (): { profiles: Record<string, Profile> } => JSON.parse(readFileSync(file, 'utf8'));
  return {
    env,
    stored,
    rewrite(fn: (s: StoredSession) => void) {
      const data = stored();
      fn(data.profiles.default.session!);
      writeFileSync(file, JSON.stringify(data), { mode: 0o600 });
    },
    prs: (args: string[], o: RunOptions = {}) => runPrs(args, { ...o, env: { ...env, ...o.env } }),
    login: () =>
      runPrs(loginArgs(sandbox, robot()), {
        env: { ...env, PRS_CLIENT_SECRET: robot().clientSecret },
      }),
  };
}

const claims = (jwt: string) => JSON.parse(Buffer.from(jwt.split('.')[1], 'base64url').toString('utf8'));
const grants = (type: string) => sandbox.stats.requests.filter((r) => r.grant === type).length;

describe('prs login --client-credentials', () => {
  const c = context();
  beforeAll(async () => {
    const r = await c.login();
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(
      /^✓ Logged in to 127\.0\.0\.1:\d+ as service account prs-robot \(profile default, tenant demo-tenant\)\n$/,
    );
  });

  it('stores the grant, the secret and a session bound to the client id, with no user and no refresh token', () => {
    const p = c.stored().profiles.default;
    expect(p.settings).toMatchObject({ grant: 'client_credentials', 'client-id': 'prs-robot' });
    expect(p.settings.username).toBeUndefined();
    expect(p.secrets).toEqual({ clientSecret: 'robot-secret' });
    expect(p.session?.refreshToken).toBeUndefined();
    expect(p.session?.bound).toMatchObject({ grant: 'client_credentials', clientId: 'prs-robot' });
    expect(p.session?.bound?.username).toBeUndefined();
    expect(claims(p.session!.accessToken).preferred_username).toBe('service-account-prs-robot');
  });

  it('auth status says "service account prs-robot" (text and --json); auth token prints the token', async () => {
    const st = await c.prs(['auth', 'status']);
    expect(st.code, st.stderr).toBe(0);
    expect(st.stdout).toMatch(/^user: +service account prs-robot$/m);
    expect(st.stdout).toMatch(/^refresh token: +none$/m);
    expect(st.stdout).toMatch(/^renewal: +a new client-credentials grant with the kept client secret/m);
    const json = JSON.parse((await c.prs(['auth', 'status', '--json'])).stdout);
    expect(json).toMatchObject({
      grant: 'client_credentials',
      serviceAccount: 'prs-robot',
      username: null,
      ready: true,
      via: 'access token',
      afterThat: 'client secret',
    });
    const t = await c.prs(['auth', 'token']);
    expect(t.code).toBe(0);
    expect(t.stdout).toBe(`${c.stored().profiles.default.session!.accessToken}\n`);
  });

  it('used past its token lifetime: renewed by a new client_credentials grant with the kept secret', async () => {
    const first = c.stored().profiles.default.session!;
    // The sandbox's clock moves 10 minutes on: its 60 s token is dead there; the store says so too.
    now += 600_000;
    c.rewrite((s) => {
      s.expiresAt = Date.now() - 1000;
    });
    const before = grants('client_credentials');
    const refused = sandbox.stats.count({ endpoint: 'report', status: 401 });
    const r = await c.prs(REPORT);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).length).toBeGreaterThan(0);
    expect(grants('client_credentials')).toBe(before + 1);
    // Renewed before the request: the dead token was never sent.
    expect(sandbox.stats.count({ endpoint: 'report', status: 401 })).toBe(refused);
    expect(grants('refresh_token')).toBe(0);
    const second = c.stored().profiles.default.session!;
    expect(second.accessToken).not.toBe(first.accessToken);
    expect(second.bound).toMatchObject({ grant: 'client_credentials', clientId: 'prs-robot' });
  });

  it('a token the service refuses (401) although the store thinks it valid: one new grant, one retry', async () => {
    now += 600_000; // the sandbox sees the stored token expired; prs does not know
    const before = grants('client_credentials');
    const refused = sandbox.stats.count({ endpoint: 'report', status: 401 });
    const r = await c.prs(REPORT);
    expect(r.code, r.stderr).toBe(0);
    expect(grants('client_credentials')).toBe(before + 1);
    expect(sandbox.stats.count({ endpoint: 'report', status: 401 })).toBe(refused + 1);
  });

  it('the session is bound to the service account: a user run neither sends nor changes it', async () => {
    const kept = c.stored().profiles.default.session!.accessToken;
    const r = await c.prs(REPORT, { env: { PRS_GRANT: 'password', PRS_USERNAME: 'demo' } });
    expect(r.code).toBe(4);
    expect(r.stderr).toContain('is for service account prs-robot at 127.0.0.1');
    expect(c.stored().profiles.default.session!.accessToken).toBe(kept);
  });

  it('logout forgets session and secret (no refresh token to end); then status is exit 4 naming the login', async () => {
    const tokenCalls = sandbox.stats.count({ endpoint: 'token' });
    const r = await c.prs(['logout']);
    expect(r.code).toBe(0);
    const p = c.stored().profiles.default;
    expect(p.session).toBeUndefined();
    expect(p.secrets).toBeUndefined();
    expect(p.settings.grant).toBe('client_credentials');
    expect(sandbox.stats.count({ endpoint: 'token' })).toBe(tokenCalls);
    const st = await c.prs(['auth', 'status']);
    expect(st.code).toBe(4);
    expect(st.stderr).toContain('run `prs login --client-credentials`');
  });
});

describe('the env-only form and a refused client', () => {
  it('PRS_GRANT=client_credentials with PRS_CLIENT_ID and PRS_CLIENT_SECRET: no login needed', async () => {
    const c = context();
    const env = {
      ...serviceEnv(sandbox),
      // Left over from a user's setup: a service account has no user, so it is not used.
      PRS_USERNAME: 'demo',
    };
    const r = await c.prs(REPORT, { env });
    expect(r.code, r.stderr).toBe(0);
    // The session is kept for the next run (bound to the client id); the secret stays in the env.
    const p = c.stored().profiles.default;
    expect(p.session?.bound).toMatchObject({ grant: 'client_credentials', clientId: 'prs-robot' });
    expect(p.secrets).toBeUndefined();
    const st = JSON.parse((await c.prs(['auth', 'status', '--json'], { env })).stdout);
    expect(st).toMatchObject({ serviceAccount: 'prs-robot', ready: true });
    expect(st.envCredentials).toEqual(['PRS_GRANT', 'PRS_CLIENT_SECRET']);
  });

  it("a client not allowed the grant: exit 4 with the server's description, before any report request", async () => {
    const c = context();
    const before = sandbox.stats.count({ endpoint: 'report' });
    const r = await c.prs(REPORT, {
      env: {
        ...serviceEnv(sandbox),
        PRS_CLIENT_ID: sandbox.clientId,
        PRS_CLIENT_SECRET: sandbox.clientSecret,
      },
    });
    expect(r.code).toBe(4);
    const [line, hint, ...rest] = r.stderr.split('\n');
    expect(line).toMatch(
      /^prs: sign-in refused by 127\.0\.0\.1:\d+: Client not enabled to retrieve service account$/,
    );
    expect(hint).toMatch(/^hint: the client must have service accounts enabled/);
    expect(rest.join('')).toBe('');
    expect(sandbox.stats.count({ endpoint: 'report' })).toBe(before);
  });

  it('login --client-credentials with a wrong secret: exit 4, nothing stored', async () => {
    const c = context();
    const r = await runPrs(loginArgs(sandbox, robot()), {
      env: { ...c.env, PRS_CLIENT_SECRET: 'wrong' },
    });
    expect(r.code).toBe(4);
    expect(r.stderr).toContain('Invalid client or Invalid client credentials');
    expect(r.stderr).toContain('hint: check the client id and the client secret');
  });
});
