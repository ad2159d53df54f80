/**
 * Sign-in end to end: the BUILT binary (run `npm run build` first) against the in-process sandbox,
 * with short token lifetimes. Every run gets its own PRS_CONFIG_DIR.
 */
import { chmodSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { StoredSession } from '../../src/auth/types.js';
import { loginArgs, type Sandbox } from '../../src/sandbox/index.js';
import { type RunOptions, runPrs, tempDir } from '../helpers/run.js';
import { tokenRequest, useSandboxes } from '../helpers/session.js';

const PASSWORD = 'pw-Quartz-4711';
const SECRET = 'cs-Basalt-0815';
const USERS = [{ username: 'demo', password: PASSWORD, tenant: 'demo-tenant' }];

interface Ctx {
  sandbox: Sandbox;
  dir: string;
  env: Record<string, string>;
  prs(args: string[], o?: RunOptions): ReturnType<typeof runPrs>;
  login(extra?: string[], env?: Record<string, string>): ReturnType<typeof runPrs>;
  file(): string;
  stored(): {
    profiles: Record<string, { settings: Record<string, string>; session: StoredSession; secrets?: unknown }>;
  };
}

const newSandbox = useSandboxes();
const dirs: ReturnType<typeof tempDir>[] = [];
afterAll(() => {
  for (const d of dirs) d.cleanup();
});

async function context(o: { tokenTtl?: number; refreshTtl?: number } = {}): Promise<Ctx> {
  const sandbox = await newSandbox({ users: USERS, clientSecret: SECRET, ...o });
  const tmp = tempDir('prs-auth-e2e-');
  dirs.push(tmp);
  const dir = join(tmp.path, 'config');
  const env = { PRS_CONFIG_DIR: dir, PRS_CACHE_DIR: join(tmp.path, 'cache'), HOME: tmp.path };
  const prs: Ctx['prs'] = (args, ro = {}) => runPrs(args, { ...ro, env: { ...env, ...ro.env } });
  return {
    sandbox,
    dir,
    env,
    prs,
    login: (extra = [], e = {}) =>
      prs([...loginArgs(sandbox, { username: 'demo', tenant: 'demo-tenant' }), ...extra], {
        input: `${PASSWORD}\n`,
        env: { PRS_CLIENT_SECRET: SECRET, ...e },
      }),
    file: () => join(dir, 'config.json'),
    stored: () => JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')),
  };
}

describe('login, status, token, logout (300 s tokens)', () => {
  let c: Ctx;
  beforeAll(async () => {
    c = await context();
  });

  it('logs in non-interactively; the private config keeps the client secret, never the password', async () => {
    const r = await c.login();
    expect(r.stderr).toBe(
      `✓ Logged in to ${new URL(c.sandbox.authUrl).host} as demo (profile default, tenant demo-tenant)\n`,
    );
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
    expect(statSync(c.file()).mode & 0o777).toBe(0o600);
    expect(statSync(c.dir).mode & 0o777).toBe(0o700);
    const text = readFileSync(c.file(), 'utf8');
    expect(text).not.toContain(PASSWORD);
    const p = c.stored().profiles.default;
    expect(p.settings).toEqual({
      'auth-url': c.sandbox.authUrl,
      realm: c.sandbox.realm,
      'client-id': c.sandbox.clientId,
      username: 'demo',
      tenant: 'demo-tenant',
      'base-url': c.sandbox.url,
    });
    expect(p.secrets).toEqual({ clientSecret: SECRET });
    expect(p.session.accessToken).toMatch(/^eyJ/);
    // Nothing about the stored secret in `config list`.
    const list = await c.prs(['config', 'list']);
    expect(list.stdout).not.toContain(SECRET);
    expect(list.stdout).not.toMatch(/secret/i);
  });

  it('auth status: exit 0, aligned lines; --json', async () => {
    const r = await c.prs(['auth', 'status']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^profile: {9}default$/m);
    expect(r.stdout).toMatch(/^user: {12}demo$/m);
    expect(r.stdout).toMatch(/^access token: {4}valid until \S+Z \([45] min left\)$/m);
    expect(r.stdout).toMatch(/^ready: {11}yes \(stored access token\)$/m);
    expect(r.stdout).toContain(`config file:     ${c.file()}`);
    const j = await c.prs(['auth', 'status', '--json']);
    expect(j.code).toBe(0);
    expect(JSON.parse(j.stdout)).toMatchObject({ ready: true, via: 'access token', tenant: 'demo-tenant' });
  });

  it('auth token prints the stored token without contacting the token endpoint', async () => {
    const before = c.sandbox.stats.count({ endpoint: 'token' });
    const r = await c.prs(['auth', 'token']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`${c.stored().profiles.default.session.accessToken}\n`);
    expect(c.sandbox.stats.count({ endpoint: 'token' })).toBe(before);
  });

  it('config get/set/list/path', async () => {
    expect((await c.prs(['config', 'get', 'tenant'])).stdout).toBe('demo-tenant\n');
    expect((await c.prs(['config', 'set', 'timeout', '5'])).code).toBe(0);
    const list = await c.prs(['config', 'list']);
    expect(list.stdout).toMatch(/^timeout: +5 +\(profile\)$/m);
    expect(list.stdout).toMatch(/^retries: +3 +\(default\)$/m);
    const bad = await c.prs(['config', 'set', 'timeout', 'soon']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^prs: invalid timeout "soon"/);
    const typo = await c.prs(['config', 'get', 'tennant']);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain('did you mean "tenant"?');
    const unset = await c.prs(['config', 'get', 'rate-limit'], { env: { PRS_RATE_LIMIT: '4/2s' } });
    expect(unset.stdout).toBe('4/2s\n');
    expect((await c.prs(['config', 'path'])).stdout).toBe(`${c.file()}\n`);
  });

  it('a profile that does not exist is exit 2 listing the ones that do', async () => {
    for (const args of [
      ['auth', 'status'],
      ['auth', 'token'],
      ['config', 'list'],
    ]) {
      const r = await c.prs(['--profile', 'prdo', ...args]);
      expect(r.code).toBe(2);
      expect(r.stderr).toBe('prs: profile "prdo" does not exist\nhint: profiles: default\n');
    }
  });

  it('PRS_TOKEN is used as is', async () => {
    const r = await c.prs(['auth', 'token'], { env: { PRS_TOKEN: 'given.token.value' } });
    expect(r.stdout).toBe('given.token.value\n');
    const s = await c.prs(['auth', 'status', '--json'], { env: { PRS_TOKEN: 'given.token.value' } });
    expect(JSON.parse(s.stdout)).toMatchObject({ ready: true, via: 'PRS_TOKEN' });
  });

  it('logout forgets the session (exit 0, also when repeated); then status and token are exit 4', async () => {
    const r = await c.prs(['logout']);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('✓ Logged out (profile default)\n');
    expect(c.stored().profiles.default.session).toBeUndefined();
    expect(c.stored().profiles.default.settings.tenant).toBe('demo-tenant');
    expect((await c.prs(['logout'])).code).toBe(0);
    const st = await c.prs(['auth', 'status']);
    expect(st.code).toBe(4);
    expect(st.stdout).toMatch(/^ready: +no$/m);
    expect(st.stderr).toBe('prs: not logged in or session expired — run `prs login`\n');
    const tok = await c.prs(['auth', 'token']);
    expect(tok.code).toBe(4);
    expect(tok.stdout).toBe('');
    expect(tok.stderr).toMatch(
      /^prs: not logged in or session expired — run `prs login`\nhint: .*PRS_USERNAME/,
    );
    const ci = await c.prs(['auth', 'token'], { env: { CI: 'true' } });
    expect(ci.code).toBe(4);
    expect(ci.stderr).toContain('set PRS_USERNAME, PRS_PASSWORD and PRS_CLIENT_SECRET (or PRS_TOKEN)');
  });

  it('a wrong password is exit 4 with the server description', async () => {
    const r = await c.prs(loginArgs(c.sandbox, { username: 'demo', tenant: 't' }), {
      input: 'wrong\n',
      env: { PRS_CLIENT_SECRET: SECRET },
    });
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(/^prs: sign-in refused by 127\.0\.0\.1:\d+: Invalid user credentials\n/);
  });
});

/** Rewrites the stored session of the default profile (instead of sleeping past an expiry). */
function rewrite(c: Ctx, fn: (s: StoredSession, p: Record<string, unknown>) => void): void {
  const data = c.stored();
  fn(data.profiles.default.session, data.profiles.default as unknown as Record<string, unknown>);
  writeFileSync(c.file(), JSON.stringify(data), { mode: 0o600 });
}

const refreshGrants = (c: Ctx) => c.sandbox.stats.requests.filter((r) => r.grant === 'refresh_token').length;

describe('expiry', () => {
  it('an access token near expiry is renewed with the refresh token and the kept secret (2 s tokens)', async () => {
    const c = await context({ tokenTtl: 2, refreshTtl: 60 });
    expect((await c.login()).code).toBe(0);
    const first = c.stored().profiles.default.session;
    // Into the second half of its life: it is renewed from then on.
    rewrite(c, (s) => {
      s.expiresAt = Date.now() + 500;
      s.obtainedAt = Date.now() - 1500;
    });
    const st = await c.prs(['auth', 'status', '--json']);
    expect(JSON.parse(st.stdout)).toMatchObject({ ready: true, via: 'refresh token', afterThat: 'login' });
    expect(JSON.parse(st.stdout).renewableUntil).toBe(
      new Date(first.refreshExpiresAt!).toISOString().replace(/\.\d{3}Z$/, 'Z'),
    );
    const before = c.sandbox.stats.count({ endpoint: 'token' });
    // No password and no secret in the environment: the refresh grant with the kept secret does it.
    const r = await c.prs(['auth', 'token']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const second = c.stored().profiles.default.session;
    expect(r.stdout).toBe(`${second.accessToken}\n`);
    expect(second.accessToken).not.toBe(first.accessToken);
    expect(second.refreshToken).not.toBe(first.refreshToken);
    expect(c.sandbox.stats.count({ endpoint: 'token' })).toBe(before + 1);
    expect(refreshGrants(c)).toBe(1);
  });

  it('a store of the previous version (no secret kept): one line to log in once more; a login fixes it', async () => {
    const c = await context({ tokenTtl: 2, refreshTtl: 60 });
    expect((await c.login()).code).toBe(0);
    rewrite(c, (s, p) => {
      s.expiresAt = Date.now() - 1000;
      delete s.bound;
      delete p.secrets;
    });
    const st = await c.prs(['auth', 'status']);
    expect(st.code).toBe(4);
    expect(st.stdout).toMatch(
      /^refresh token: +valid until .* — renewing needs the client secret: run `prs login` once more/m,
    );
    const r = await c.prs(['auth', 'token']);
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(
      /^prs: not logged in or session expired — run `prs login`\nhint: this session was stored by an older prs that did not keep the client secret: log in once more\n$/,
    );
    expect(c.stored().profiles.default.session.refreshToken).toBeDefined();

    expect((await c.login()).code).toBe(0);
    rewrite(c, (s) => {
      s.expiresAt = Date.now() - 1000;
    });
    const again = await c.prs(['auth', 'token']);
    expect(again.code).toBe(0);
    expect(again.stdout).toBe(`${c.stored().profiles.default.session.accessToken}\n`);
  });

  it('an expired refresh token → exit 4 saying what would have kept the session; PRS_PASSWORD signs in again', async () => {
    const c = await context({ tokenTtl: 2, refreshTtl: 60 });
    expect((await c.login()).code).toBe(0);
    rewrite(c, (s) => {
      s.expiresAt = Date.now() - 1000;
      s.refreshExpiresAt = Date.now() - 1000;
    });
    const st = await c.prs(['auth', 'status']);
    expect(st.code).toBe(4);
    expect(st.stdout).toMatch(/^refresh token: +expired at /m);
    expect(st.stdout).toMatch(
      /^renewal: +`prs login` needed \(or log in with --save-password, or set PRS_USERNAME\/PRS_PASSWORD\)$/m,
    );
    for (const env of [{}, { CI: 'true' }]) {
      const r = await c.prs(['auth', 'token'], { env });
      expect(r.code).toBe(4);
      expect(r.stderr).toMatch(
        /\nhint: .*log in with --save-password, or set PRS_USERNAME and PRS_PASSWORD \(cron, CI\)\n$/,
      );
    }
    const r = await c.prs(['auth', 'token'], { env: { PRS_PASSWORD: PASSWORD, PRS_CLIENT_SECRET: SECRET } });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`${c.stored().profiles.default.session.accessToken}\n`);
  });

  it('a wrong PRS_CLIENT_SECRET does not destroy the session: the corrected run renews', async () => {
    const c = await context({ tokenTtl: 2, refreshTtl: 60 });
    expect((await c.login()).code).toBe(0);
    rewrite(c, (s) => {
      s.expiresAt = Date.now() - 1000;
    });
    const kept = c.stored().profiles.default.session;
    const bad = await c.prs(['auth', 'token'], { env: { PRS_CLIENT_SECRET: 'wrong' } });
    expect(bad.code).toBe(4);
    expect(bad.stderr).toMatch(/unauthorized_client|Invalid client/);
    expect(c.stored().profiles.default.session).toEqual(kept);
    const good = await c.prs(['auth', 'token']);
    expect(good.code).toBe(0);
  });

  it('a still-valid token whose renewal fails is used (with a note), and status agrees', async () => {
    const c = await context({ tokenTtl: 120, refreshTtl: 600 });
    expect((await c.login()).code).toBe(0);
    rewrite(c, (s) => {
      s.expiresAt = Date.now() + 20_000; // under the 30 s margin
      s.obtainedAt = Date.now() - 100_000;
    });
    c.sandbox.injectFault({ endpoint: 'token', status: 503, count: 1 });
    const r = await c.prs(['auth', 'token', '--retries', '0']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`${c.stored().profiles.default.session.accessToken}\n`);
    expect(r.stderr).toMatch(
      /^prs: note: could not renew the session .*using the current token, valid \d+ s more\n$/,
    );
    // Not renewable (the refresh token gone) yet still valid: one verdict, ready, used until it expires.
    rewrite(c, (s) => {
      s.expiresAt = Date.now() + 20_000;
      s.obtainedAt = Date.now() - 100_000;
      s.refreshExpiresAt = Date.now() - 1;
    });
    const st = await c.prs(['auth', 'status']);
    expect(st.code).toBe(0);
    expect(st.stdout).toMatch(/^access token: +expiring at \S+ \(cannot be renewed; used until then\)$/m);
    expect(st.stdout).toMatch(/^ready: +yes \(stored access token\)$/m);
  });

  it('two processes renewing at the same moment both succeed, with one refresh and a valid store', async () => {
    const c = await context({ tokenTtl: 120, refreshTtl: 600 });
    expect((await c.login()).code).toBe(0);
    // Make the stored access token look expired (the refresh token stays valid).
    const data = c.stored();
    data.profiles.default.session.expiresAt = Date.now() - 1000;
    writeFileSync(c.file(), JSON.stringify(data), { mode: 0o600 });
    const before = c.sandbox.stats.count({ endpoint: 'token' });
    const env = { PRS_CLIENT_SECRET: SECRET };
    const [a, b] = await Promise.all([c.prs(['auth', 'token'], { env }), c.prs(['auth', 'token'], { env })]);
    expect([a.code, b.code, a.stderr, b.stderr]).toEqual([0, 0, '', '']);
    const token = c.stored().profiles.default.session.accessToken;
    expect(a.stdout).toBe(`${token}\n`);
    expect(b.stdout).toBe(`${token}\n`);
    // The loser of the race re-read the store inside the lock and used the winner's token.
    expect(c.sandbox.stats.count({ endpoint: 'token' })).toBe(before + 1);
  });
});

describe('logout ends the session at the token service', () => {
  /** A refresh grant sent by hand, as someone holding a copy of the refresh token would. */
  const refreshByHand = async (c: Ctx, refreshToken: string) => {
    const res = await tokenRequest(c.sandbox, {
      grant_type: 'refresh_token',
      client_id: c.sandbox.clientId,
      client_secret: SECRET,
      refresh_token: refreshToken,
    });
    return { status: res.status, body: await res.json() };
  };

  it('forgets tokens and secret; the old refresh token is refused afterwards (invalid_grant)', async () => {
    const c = await context({ tokenTtl: 60, refreshTtl: 600 });
    expect((await c.login(['--save-password'])).code).toBe(0);
    const copy = c.stored().profiles.default.session;
    const r = await c.prs(['-v', 'logout']);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('✓ Logged out (profile default)');
    expect(r.stderr).toMatch(
      /> POST http:\/\/127\.0\.0\.1:\d+\/realms\/\S+\/protocol\/openid-connect\/logout /,
    );
    for (const secret of [PASSWORD, SECRET, copy.accessToken, copy.refreshToken!])
      expect(r.stderr).not.toContain(secret);
    const p = c.stored().profiles.default;
    expect(p.session).toBeUndefined();
    expect(p.secrets).toBeUndefined();
    expect(readFileSync(c.file(), 'utf8')).not.toContain(SECRET);
    // The secret went too: signing in from the environment needs PRS_CLIENT_SECRET as well (issue 24).
    const st = await c.prs(['auth', 'status']);
    expect(st.stdout).toMatch(
      /^renewal: +`prs login` needed \(or .*, or set PRS_USERNAME\/PRS_PASSWORD\/PRS_CLIENT_SECRET\)$/m,
    );
    expect(c.sandbox.stats.requests.filter((q) => q.path.endsWith('/logout')).map((q) => q.status)).toEqual([
      204,
    ]);
    expect(await refreshByHand(c, copy.refreshToken!)).toEqual({
      status: 400,
      body: { error: 'invalid_grant', error_description: 'Session not active' },
    });

    // A copy of the old store put back: prs is refused too, and says what would keep a session.
    expect((await c.login()).code).toBe(0);
    rewrite(c, (s) => {
      Object.assign(s, copy, { expiresAt: Date.now() - 1000 });
    });
    const t = await c.prs(['auth', 'token']);
    expect(t.code).toBe(4);
    expect(t.stderr).toMatch(/hint: .*--save-password/);
    expect(c.stored().profiles.default.session).toBeUndefined();
  });

  it('with the token service not answering, logout still exits 0 after at most the 5 s bound', async () => {
    const c = await context({ tokenTtl: 60, refreshTtl: 600 });
    expect((await c.login()).code).toBe(0);
    c.sandbox.injectFault({ endpoint: 'token', delayMs: 30_000 });
    const started = Date.now();
    const r = await c.prs(['logout'], { timeoutMs: 25_000 });
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(
      /^✓ Logged out \(profile default\)\nprs: note: could not end the session at 127\.0\.0\.1:\d+ \(no answer in time\); it was forgotten here\n$/,
    );
    // At least the bound (it waited), and it gave up rather than waiting for the 30 s answer.
    expect(Date.now() - started).toBeGreaterThanOrEqual(5_000);
    expect(Date.now() - started).toBeLessThan(25_000);
    expect(c.stored().profiles.default.session).toBeUndefined();
  });
});

describe('a session belongs to its user and hosts', () => {
  it('another base URL or user: the stored token is neither sent nor changed; env credentials sign in for the run', async () => {
    const c = await context({ tokenTtl: 60, refreshTtl: 600 });
    const other = await newSandbox({ users: USERS, clientSecret: SECRET });
    expect((await c.login()).code).toBe(0);
    const before = readFileSync(c.file(), 'utf8');
    const r = await c.prs(['report', '42', '-t', 'index', '-d', '2024-05-02'], {
      env: { PRS_BASE_URL: other.url },
    });
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(
      /^prs: the session stored in profile default is for demo at 127\.0\.0\.1:\d+; not used with another base URL\n/,
    );
    expect(other.stats.count()).toBe(0);
    const u = await c.prs(['auth', 'token'], { env: { PRS_USERNAME: 'someone' } });
    expect(u.code).toBe(4);
    expect(u.stderr).toMatch(/is for demo at .*another user/);
    expect(readFileSync(c.file(), 'utf8')).toBe(before);
    // With credentials in the environment: a fresh sign-in for this run, the stored session untouched.
    const ok = await c.prs(['report', '42', '-t', 'index', '-d', '2024-05-02', '-f', 'json'], {
      env: {
        PRS_BASE_URL: other.url,
        PRS_AUTH_URL: other.authUrl,
        PRS_PASSWORD: PASSWORD,
        PRS_CLIENT_SECRET: SECRET,
      },
    });
    expect(ok.stderr).toBe('');
    expect(ok.code).toBe(0);
    expect(other.stats.count({ endpoint: 'report', status: 200 })).toBe(1);
    expect(other.stats.requests.filter((q) => q.grant === 'password').length).toBe(1);
    expect(readFileSync(c.file(), 'utf8')).toBe(before);
  });

  it('a config directory others can read or write is made private before secrets go in', async () => {
    const c = await context();
    mkdirSync(c.dir, { recursive: true });
    chmodSync(c.dir, 0o777);
    writeFileSync(c.file(), '{"profiles":{}}', { mode: 0o644 });
    chmodSync(c.file(), 0o644);
    expect((await c.login()).code).toBe(0);
    expect(statSync(c.dir).mode & 0o777).toBe(0o700);
    expect(statSync(c.file()).mode & 0o777).toBe(0o600);
  });
});

describe('failures', () => {
  let c: Ctx;
  beforeAll(async () => {
    c = await context();
  });
  beforeEach(async () => {
    await c.prs(['logout', '--all']);
  });

  it('without a terminal, a missing value is exit 2 naming its variable — never a hang', async () => {
    const r = await c.prs(['login'], {
      env: { PRS_AUTH_URL: c.sandbox.authUrl, PRS_BASE_URL: c.sandbox.url },
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /^prs: missing realm: pass --realm or set PRS_REALM\nhint: also missing: client id \(PRS_CLIENT_ID\)/,
    );
    const noSecret = await c.login([], { PRS_CLIENT_SECRET: '' });
    expect(noSecret.code).toBe(2);
    expect(noSecret.stderr).toMatch(/^prs: missing client secret: set PRS_CLIENT_SECRET\n/);
    expect(c.sandbox.stats.count({ endpoint: 'token' })).toBe(0);
  });

  it('an unreachable auth server is exit 9 after --retries more tries', async () => {
    const port = await new Promise<number>((resolve) => {
      const s = createServer().listen(0, '127.0.0.1', () => {
        const p = (s.address() as { port: number }).port;
        s.close(() => resolve(p));
      });
    });
    const r = await c.prs(
      [
        'login',
        '--auth-url',
        `http://127.0.0.1:${port}`,
        '--realm',
        'r',
        '--client-id',
        'c',
        '--username',
        'u',
        '--tenant',
        't',
        '--base-url',
        'http://127.0.0.1:1',
        '--password-stdin',
        '--retries',
        '1',
        '-v',
      ],
      {
        input: 'pw\n',
        env: { PRS_CLIENT_SECRET: SECRET },
      },
    );
    expect(r.code).toBe(9);
    expect(r.stderr.match(/^> POST \S+\/protocol\/openid-connect\/token /gm)).toHaveLength(2);
    expect(r.stderr.match(/^~ waiting [\d.]+ s \(backoff\)$/gm)).toHaveLength(1);
    expect(r.stderr).toMatch(/^prs: connection refused by 127\.0\.0\.1:\d+\n/m);
  });

  it('a corrupt config file is exit 2 naming it; `prs logout --all` repairs it', async () => {
    mkdirSync(c.dir, { recursive: true, mode: 0o700 });
    writeFileSync(c.file(), '{"profiles": {"default": ', { mode: 0o600 });
    const r = await c.prs(['auth', 'status']);
    expect(r.code).toBe(2);
    const [line, hint, ...rest] = r.stderr.split('\n');
    expect(line).toMatch(new RegExp(`^prs: config file ${c.file()} is unreadable: invalid JSON \\(.+\\)$`));
    expect(hint).toBe(
      'hint: run `prs logout --all` to reset it (the old file is kept as config.json.corrupt), or fix or delete it',
    );
    expect(rest).toEqual(['']);
    const fix = await c.prs(['logout', '--all']);
    expect(fix.code).toBe(0);
    expect(fix.stderr).toContain(`moved to ${c.file()}.corrupt`);
    expect(readFileSync(`${c.file()}.corrupt`, 'utf8')).toBe('{"profiles": {"default": ');
    expect((await c.prs(['auth', 'status'])).code).toBe(4);
    expect((await c.login()).code).toBe(0);
  });

  it('-v shows the token calls but none of the secrets or tokens', async () => {
    const login = await c.login(['-v', '--save-password']);
    expect(login.code).toBe(0);
    const first = c.stored().profiles.default.session;
    // Force a renewal so the refresh token travels too.
    const data = c.stored();
    data.profiles.default.session.expiresAt = 0;
    writeFileSync(c.file(), JSON.stringify(data), { mode: 0o600 });
    const tok = await c.prs(['-v', 'auth', 'token']);
    expect(tok.code).toBe(0);
    const second = c.stored().profiles.default.session;
    const stderr = login.stderr + tok.stderr;
    expect(stderr).toMatch(/> POST http:\/\/127\.0\.0\.1:\d+\/realms\/.*\/token .*grant_type=password/);
    expect(stderr).toMatch(/grant_type=refresh_token/);
    expect(stderr).toMatch(/< 200 POST/);
    for (const secret of [
      PASSWORD,
      SECRET,
      first.accessToken,
      first.refreshToken,
      second.accessToken,
      second.refreshToken,
    ]) {
      expect(stderr).not.toContain(secret);
    }
    expect(stderr).not.toMatch(/eyJ/);
  });
});

describe('the token endpoint is retried like the API (a Keycloak restart at 06:00)', () => {
  it('renewal: an expired token, the token service answering 503 twice, then OK — the export succeeds', async () => {
    const c = await context({ tokenTtl: 120, refreshTtl: 600 });
    expect((await c.login()).code).toBe(0);
    rewrite(c, (s) => {
      s.expiresAt = Date.now() - 1000;
    });
    const out = tempDir('prs-auth-retry-');
    dirs.push(out);
    c.sandbox.injectFault({ endpoint: 'token', status: 503, retryAfter: 1 });
    c.sandbox.injectFault({ endpoint: 'token', status: 502 });
    const r = await c.prs([
      '-v',
      '--retries',
      '5',
      'export',
      '42',
      '-t',
      'index',
      '-d',
      '2024-05-02',
      '--dir',
      out.path,
    ]);
    expect(r.code, r.stderr).toBe(0);
    // Retry-After honoured for the first, backoff for the second.
    expect(r.stderr.match(/^~ waiting .*$/gm)).toEqual([
      '~ waiting 1.0 s (retry-after)',
      expect.stringMatching(/^~ waiting [\d.]+ s \(backoff\)$/),
    ]);
    const tokenCalls = c.sandbox.stats.requests.filter((q) => q.endpoint === 'token').map((q) => q.status);
    expect(tokenCalls.slice(-3)).toEqual([503, 502, 200]);
    expect(c.stored().profiles.default.session.expiresAt).toBeGreaterThan(Date.now());
  });

  it('login: a 503 then OK signs in; a refusal is not retried (one call, exit 4)', async () => {
    const c = await context();
    c.sandbox.injectFault({ endpoint: 'token', status: 503, retryAfter: 1 });
    const r = await c.login(['-v']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('~ waiting 1.0 s (retry-after)');
    expect(c.sandbox.stats.requests.map((q) => q.status)).toEqual([503, 200]);
    c.sandbox.stats.reset();
    const refused = await c.login([], { PRS_CLIENT_SECRET: 'wrong' });
    expect(refused.code).toBe(4);
    expect(c.sandbox.stats.count({ endpoint: 'token' })).toBe(1);
  });
});
