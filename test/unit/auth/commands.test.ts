import { describe, expect, it } from 'vitest';
import type { ProfileData } from '../../../src/auth/types.js';
import { assess, authStatus, authToken } from '../../../src/commands/auth.js';
import { checkValue, config, parseKey } from '../../../src/commands/config.js';
import { keptClientSecret, login, passwordFromStdin } from '../../../src/commands/login.js';
import { logout } from '../../../src/commands/logout.js';
import { AuthError, exitCodeFor, NoDataError, UsageError } from '../../../src/errors.js';
import { effectiveSettings, resolveSettings } from '../../../src/settings.js';
import { FakeClock } from '../../helpers/clock.js';
import { fakeDeps, memoryStore } from '../../helpers/deps.js';
import { createTestIO } from '../../helpers/io.js';
import { fakeHttp, tokens } from './fake-http.js';

const T0 = Date.UTC(2024, 4, 1, 6, 0, 0);
const LOGIN_ENV = {
  PRS_CONFIG_DIR: '/tmp/prs-unit',
  PRS_AUTH_URL: 'https://login.example.com/auth/',
  PRS_REALM: 'acme',
  PRS_CLIENT_ID: 'prs-cli',
  PRS_USERNAME: 'demo',
  PRS_TENANT: 'demo-tenant',
  PRS_BASE_URL: 'https://api.example.com',
  PRS_CLIENT_SECRET: 'secret-1',
};
const OPTS = { passwordStdin: false, savePassword: false };
const SETTINGS = {
  'auth-url': 'https://login.example.com/auth',
  realm: 'acme',
  'client-id': 'prs-cli',
  username: 'demo',
  tenant: 'demo-tenant',
  'base-url': 'https://api.example.com',
};

const attempt = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (e) => e,
  );

describe('passwordFromStdin', () => {
  it.each([
    ['pw\n', 'pw'],
    ['pw\r\n', 'pw'],
    ['pw', 'pw'],
    ['pw\n\n', 'pw\n'],
    [' p w \n', ' p w '],
  ])('%j → %j', (input, want) => expect(passwordFromStdin(input)).toBe(want));
  it('empty stdin is a usage error', () => expect(() => passwordFromStdin('\n')).toThrow(UsageError));
});

describe('prs login', () => {
  it('signs in from env + --password-stdin, stores settings, tokens and the client secret, never the password', async () => {
    const http = fakeHttp();
    http.queue({
      expect: (f, req) => {
        expect(req.url).toBe('https://login.example.com/auth/realms/acme/protocol/openid-connect/token');
        expect(Object.fromEntries(f)).toEqual({
          grant_type: 'password',
          client_id: 'prs-cli',
          client_secret: 'secret-1',
          username: 'demo',
          password: 'pw-stdin',
        });
      },
      body: tokens(1),
    });
    const store = memoryStore();
    const deps = fakeDeps({
      env: LOGIN_ENV,
      http,
      store,
      clock: new FakeClock(T0),
      io: createTestIO({ stdin: 'pw-stdin\n' }),
    });
    await login({ ...OPTS, passwordStdin: true }, deps);
    expect(store.get('default')).toEqual({
      settings: SETTINGS,
      session: {
        accessToken: 'access-1',
        expiresAt: T0 + 300_000,
        obtainedAt: T0,
        refreshToken: 'refresh-1',
        refreshExpiresAt: T0 + 1_800_000,
        bound: {
          username: 'demo',
          authUrl: SETTINGS['auth-url'],
          realm: SETTINGS.realm,
          clientId: SETTINGS['client-id'],
          baseUrl: SETTINGS['base-url'],
        },
      },
      secrets: { clientSecret: 'secret-1' },
    });
    expect(deps.io.stderrText()).toBe(
      '✓ Logged in to login.example.com as demo (profile default, tenant demo-tenant)\n',
    );
    expect(deps.io.stdoutText()).toBe('');
    http.done();
  });

  describe('login again: the kept client secret (CLI.md "first steps")', () => {
    const { PRS_CLIENT_SECRET: _none, ...noSecretEnv } = LOGIN_ENV;
    const kept: ProfileData = {
      settings: SETTINGS,
      session: {
        accessToken: 'a',
        expiresAt: T0,
        bound: {
          username: 'demo',
          authUrl: SETTINGS['auth-url'],
          realm: SETTINGS.realm,
          clientId: SETTINGS['client-id'],
        },
      },
      secrets: { clientSecret: 'kept-secret' },
    };
    const values = {
      'auth-url': SETTINGS['auth-url'],
      realm: SETTINGS.realm,
      'client-id': SETTINGS['client-id'],
    };
    it.each([
      ['the same client', kept, values, 'kept-secret'],
      ['another client id', kept, { ...values, 'client-id': 'other' }, undefined],
      ['another realm', kept, { ...values, realm: 'r2' }, undefined],
      ['another auth URL', kept, { ...values, 'auth-url': 'https://other.example.com' }, undefined],
      [
        'an older store without a session binding: its settings',
        { ...kept, session: undefined },
        values,
        'kept-secret',
      ],
      ['nothing kept (logged out)', { settings: SETTINGS }, values, undefined],
      ['no profile', undefined, values, undefined],
    ])('keptClientSecret: %s', (_n, stored, v, want) => expect(keptClientSecret(stored, v)).toBe(want));

    it('uses the kept secret with no PRS_CLIENT_SECRET; PRS_CLIENT_SECRET overrides it', async () => {
      for (const [env, sent] of [
        [noSecretEnv, 'kept-secret'],
        [LOGIN_ENV, 'secret-1'],
      ] as const) {
        const http = fakeHttp();
        http.queue({ expect: (f) => expect(f.get('client_secret')).toBe(sent), body: tokens(1) });
        const store = memoryStore({ default: kept });
        const io = createTestIO({ stdin: 'pw\n' });
        await login({ ...OPTS, passwordStdin: true }, fakeDeps({ env, http, store, io }));
        expect(store.get('default')?.secrets).toEqual({ clientSecret: sent });
        http.done();
      }
    });

    it('another client id: the kept secret is not sent; without a terminal, exit 2 naming PRS_CLIENT_SECRET', async () => {
      const http = fakeHttp();
      const deps = fakeDeps({
        env: { ...noSecretEnv, PRS_CLIENT_ID: 'other' },
        http,
        store: memoryStore({ default: kept }),
        io: createTestIO({ stdin: 'pw\n' }),
      });
      const err = await attempt(login({ ...OPTS, passwordStdin: true }, deps));
      expect(exitCodeFor(err)).toBe(2);
      expect((err as Error).message).toBe('missing client secret: set PRS_CLIENT_SECRET');
      http.done();
    });
  });

  it('--save-password adds the password; a later plain login drops it and keeps the client secret', async () => {
    const http = fakeHttp();
    http.queue({ body: tokens(1) }, { body: tokens(2) });
    const store = memoryStore();
    const env = { ...LOGIN_ENV, PRS_PASSWORD: 'pw-env' };
    await login({ ...OPTS, savePassword: true }, fakeDeps({ env, http, store }));
    expect(store.get('default')?.secrets).toEqual({ password: 'pw-env', clientSecret: 'secret-1' });
    await login(OPTS, fakeDeps({ env, http, store }));
    expect(store.get('default')?.secrets).toEqual({ clientSecret: 'secret-1' });
    expect(store.get('default')?.session?.accessToken).toBe('access-2');
    http.done();
  });

  it('flags win over env, and keep other stored settings', async () => {
    const http = fakeHttp();
    http.queue({
      expect: (f, req) => {
        expect(req.url).toContain('https://other.example.com/realms/r2/');
        expect(f.get('client_id')).toBe('c2');
        expect(f.get('username')).toBe('u2');
      },
      body: tokens(1),
    });
    const store = memoryStore({ default: { settings: { timeout: '5' } } });
    await login(
      { ...OPTS, authUrl: 'https://other.example.com', realm: 'r2', clientId: 'c2', username: 'u2' },
      fakeDeps({ env: { ...LOGIN_ENV, PRS_PASSWORD: 'pw' }, http, store }),
    );
    expect(store.get('default')?.settings).toMatchObject({
      timeout: '5',
      'auth-url': 'https://other.example.com',
      realm: 'r2',
      'client-id': 'c2',
      username: 'u2',
    });
  });

  it.each([
    [
      'everything',
      { PRS_CONFIG_DIR: '/tmp/x' },
      'missing base URL: pass --base-url or set PRS_BASE_URL',
      /also missing: auth URL \(PRS_AUTH_URL\), realm \(PRS_REALM\), client id \(PRS_CLIENT_ID\), client secret \(PRS_CLIENT_SECRET\), username \(PRS_USERNAME\), password \(PRS_PASSWORD\), tenant \(PRS_TENANT\)/,
    ],
    [
      'the client secret',
      { ...LOGIN_ENV, PRS_CLIENT_SECRET: '', PRS_PASSWORD: 'pw' },
      'missing client secret: set PRS_CLIENT_SECRET',
      /no terminal/,
    ],
    ['the password', LOGIN_ENV, 'missing password: use --password-stdin or set PRS_PASSWORD', /no terminal/],
    [
      'the tenant',
      { ...LOGIN_ENV, PRS_TENANT: '', PRS_PASSWORD: 'pw' },
      'missing tenant: pass --tenant or set PRS_TENANT',
      /no terminal/,
    ],
  ])('without a terminal, missing %s is exit 2 before any request', async (_n, env, message, hint) => {
    const http = fakeHttp();
    const err = await attempt(login(OPTS, fakeDeps({ env, http })));
    expect(err).toBeInstanceOf(UsageError);
    expect((err as Error).message).toBe(message);
    expect((err as UsageError).hint).toMatch(hint);
    expect(http.requests).toEqual([]);
  });

  it.each([
    ['right on the third try', ['pw-1', 'pw-2', 'pw-3'], 3, undefined],
    ['wrong three times: exit 4, no fourth try', ['pw-1', 'pw-2', 'pw-3', 'pw-4'], 3, 4],
  ])('a refused password asks again for the password only: %s', async (_n, passwords, calls, code) => {
    const io = createTestIO({ isStdinTTY: true, isStderrTTY: true, answers: [...passwords] });
    const http = fakeHttp();
    const refused = {
      status: 401,
      body: { error: 'invalid_grant', error_description: 'Invalid user credentials' },
    };
    http.queue(refused, refused, code ? refused : { body: tokens(1) });
    const env = { ...LOGIN_ENV };
    const err = await attempt(login(OPTS, fakeDeps({ env, io, http, store: memoryStore() })));
    expect(http.requests.map((r) => r.form.get('password'))).toEqual(passwords.slice(0, calls));
    expect(io.stderrText().match(/Sorry, try again\./g)).toHaveLength(2);
    expect(err === undefined ? 0 : exitCodeFor(err)).toBe(code ?? 0);
  });

  it('a refused password given by env or stdin is not asked again', async () => {
    const http = fakeHttp();
    http.queue({
      status: 401,
      body: { error: 'invalid_grant', error_description: 'Invalid user credentials' },
    });
    const io = createTestIO({ isStdinTTY: true, isStderrTTY: true, answers: [] });
    const err = await attempt(login(OPTS, fakeDeps({ env: { ...LOGIN_ENV, PRS_PASSWORD: 'x' }, io, http })));
    expect(exitCodeFor(err)).toBe(4);
    expect(http.requests).toHaveLength(1);
  });

  it('on a terminal, prompts for what is missing, secrets hidden', async () => {
    const io = createTestIO({
      isStdinTTY: true,
      isStderrTTY: true,
      answers: [
        'https://api.example.com/',
        'https://login.example.com',
        'acme',
        'prs-cli',
        'secret-typed',
        'demo',
        'pw-typed',
        't1',
      ],
    });
    const hidden: string[] = [];
    const prompt = io.prompt;
    io.prompt = (q, o) => {
      if (o?.hidden) hidden.push(q);
      return prompt(q, o);
    };
    const http = fakeHttp();
    http.queue({
      expect: (f) => {
        expect(f.get('client_secret')).toBe('secret-typed');
        expect(f.get('password')).toBe('pw-typed');
      },
      body: tokens(1),
    });
    const store = memoryStore();
    await login(OPTS, fakeDeps({ env: { PRS_CONFIG_DIR: '/tmp/x' }, io, http, store }));
    expect(hidden).toEqual(['Client secret: ', 'Password: ']);
    expect(store.get('default')?.settings).toEqual({
      'auth-url': 'https://login.example.com',
      realm: 'acme',
      'client-id': 'prs-cli',
      username: 'demo',
      tenant: 't1',
      'base-url': 'https://api.example.com',
    });
    expect(io.stderrText()).not.toMatch(/secret-typed|pw-typed/);
    // Base URL first, as the README says.
    expect(io.stderrText()).toMatch(
      /^Base URL: Auth URL: Realm: Client id: Client secret: Username: Password: Tenant: /,
    );
  });

  it('each answer is checked as it is given: a bad one is asked again at once, before any later prompt', async () => {
    const io = createTestIO({
      isStdinTTY: true,
      isStderrTTY: true,
      answers: [
        'not a url',
        'https://api.example.com',
        'https://login.example.com/realms/acme/protocol/openid-connect/token',
        'https://login.example.com',
        'https://login.example.com/realms/acme',
        '',
        'acme',
        'prs-cli',
        '',
        'secret-typed',
        'demo',
        'pw-typed',
        't1',
      ],
    });
    const http = fakeHttp();
    http.queue({ body: tokens(1) });
    const store = memoryStore();
    await login(OPTS, fakeDeps({ env: { PRS_CONFIG_DIR: '/tmp/x' }, io, http, store }));
    const prompts = /(Base URL|Auth URL|Realm|Client id|Client secret|Username|Password|Tenant): /g;
    const said = io.stderrText().replace(prompts, '').split('\n');
    expect(said.filter((l) => l && !l.startsWith('✓'))).toEqual([
      'invalid URL "not a url"; try again',
      'invalid auth URL "https://login.example.com/realms/acme/protocol/openid-connect/token": give the part before /realms; try again',
      'invalid realm "https://login.example.com/realms/acme": a realm is a name such as "acme", not a URL; try again',
      'no realm given; try again',
      'no client secret given; try again',
    ]);
    expect(store.get('default')?.settings).toMatchObject({
      'base-url': 'https://api.example.com',
      'auth-url': 'https://login.example.com',
      realm: 'acme',
    });
    expect(http.requests).toHaveLength(1);
  });

  it(`a bad answer ${3} times is exit 2 before any later prompt or request`, async () => {
    const io = createTestIO({ isStdinTTY: true, isStderrTTY: true, answers: ['x', 'ftp://y', 'z'] });
    const http = fakeHttp();
    const err = await attempt(login(OPTS, fakeDeps({ env: { PRS_CONFIG_DIR: '/tmp/x' }, io, http })));
    expect(err).toBeInstanceOf(UsageError);
    expect((err as Error).message).toBe('invalid URL "z" (base URL)');
    expect(io.stderrText()).not.toContain('Auth URL');
    expect(http.requests).toEqual([]);
  });

  it('a refusal is exit 4 with the server description, and nothing is stored', async () => {
    const http = fakeHttp();
    http.queue({
      status: 401,
      body: { error: 'invalid_grant', error_description: 'Invalid user credentials' },
    });
    const store = memoryStore();
    const err = await attempt(
      login(OPTS, fakeDeps({ env: { ...LOGIN_ENV, PRS_PASSWORD: 'bad' }, http, store })),
    );
    expect(err).toBeInstanceOf(AuthError);
    expect(exitCodeFor(err)).toBe(4);
    expect((err as Error).message).toBe('sign-in refused by login.example.com: Invalid user credentials');
    expect(store.profileNames()).toEqual([]);
  });
});

describe('prs logout', () => {
  const full: ProfileData = {
    settings: { tenant: 't' },
    session: { accessToken: 'a', expiresAt: 1, refreshToken: 'r' },
    secrets: { password: 'p', clientSecret: 's' },
  };

  it('forgets tokens and secrets of the profile, keeps settings and other profiles', async () => {
    const store = memoryStore({ default: full, prod: full });
    const deps = fakeDeps({ store });
    await logout({ all: false }, deps);
    expect(store.get('default')).toEqual({ settings: { tenant: 't' } });
    expect(store.get('prod')).toEqual(full);
    expect(deps.io.stderrText()).toBe('✓ Logged out (profile default)\n');
  });

  it('--all forgets every profile', async () => {
    const store = memoryStore({ default: full, prod: full, empty: { settings: {} } });
    const deps = fakeDeps({ store });
    await logout({ all: true }, deps);
    for (const n of ['default', 'prod']) expect(store.get(n)).toEqual({ settings: { tenant: 't' } });
    expect(deps.io.stderrText()).toBe('✓ Logged out of profiles default, prod\n');
  });

  it('--all over a config file another prs repaired meanwhile: nothing moved, every profile logged out', async () => {
    const store = memoryStore({ default: full, prod: full });
    let unreadable = true; // the first read fails; by reset's own look, the file is sound again
    const profileNames = store.profileNames.bind(store);
    const deps = fakeDeps({
      store: Object.assign(store, {
        profileNames: () => {
          if (unreadable) throw new UsageError('config.json is not valid JSON');
          return profileNames();
        },
        reset: async () => {
          unreadable = false;
          return { movedTo: undefined };
        },
      }),
    });
    await logout({ all: true }, deps);
    for (const n of ['default', 'prod']) expect(store.get(n)).toEqual({ settings: { tenant: 't' } });
    expect(deps.io.stderrText()).toBe('✓ Logged out of profiles default, prod\n');
  });

  it('exit 0 when nothing was stored', async () => {
    const deps = fakeDeps({ store: memoryStore() });
    await logout({ all: false }, deps);
    await logout({ all: true }, deps);
    expect(deps.io.stderrText()).toMatch(/nothing to forget[\s\S]*nothing to forget/);
  });
});

describe('prs auth status', () => {
  const base = (env: Record<string, string>, stored?: ProfileData) =>
    resolveSettings({}, { PRS_CONFIG_DIR: '/x', ...env }, stored?.settings ?? {});
  const sess = (accessIn: number, refreshIn?: number) => ({
    accessToken: 'a',
    expiresAt: T0 + accessIn,
    ...(refreshIn === undefined ? {} : { refreshToken: 'r', refreshExpiresAt: T0 + refreshIn }),
  });
  const p = (o: Partial<ProfileData> = {}): ProfileData => ({ settings: SETTINGS, ...o });

  it.each([
    ['PRS_TOKEN', { PRS_TOKEN: 't' }, undefined, 'PRS_TOKEN'],
    ['a valid access token', {}, p({ session: sess(60_000) }), 'access token'],
    [
      'an expiring token with a refresh token and the secret',
      { PRS_CLIENT_SECRET: 's' },
      p({ session: sess(10_000, 600_000) }),
      'refresh token',
    ],
    [
      'an expiring token with a refresh token and the stored secret',
      {},
      p({ session: sess(10_000, 600_000), secrets: { clientSecret: 's' } }),
      'refresh token',
    ],
    // Not renewable (an old store without the secret), but still valid: a report uses it to the end.
    [
      'an expiring token with a refresh token but no secret',
      {},
      p({ session: sess(10_000, 600_000) }),
      'access token',
    ],
    ['an expired token with a refresh token but no secret', {}, p({ session: sess(-1, 600_000) }), null],
    [
      'a service account with an expiring token and a refresh token: signs in afresh, as the session does',
      {},
      {
        settings: { ...SETTINGS, username: undefined, grant: 'client_credentials' },
        session: sess(10_000, 600_000),
        secrets: { clientSecret: 's' },
      },
      'client credentials',
    ],
    [
      'a session of another user',
      { PRS_USERNAME: 'other' },
      p({ session: sess(60_000, 600_000), secrets: { clientSecret: 's' } }),
      null,
    ],
    [
      'a session for another base URL, env credentials',
      { PRS_BASE_URL: 'https://elsewhere.example.com', PRS_PASSWORD: 'x', PRS_CLIENT_SECRET: 'y' },
      p({ session: sess(60_000, 600_000) }),
      'env credentials',
    ],
    ['env credentials', { PRS_PASSWORD: 'x', PRS_CLIENT_SECRET: 'y' }, p(), 'env credentials'],
    ['saved credentials', {}, p({ secrets: { password: 'x', clientSecret: 'y' } }), 'saved credentials'],
    ['an expired session', {}, p({ session: sess(-1, -1) }), null],
    ['nothing', {}, undefined, null],
    ['a password without a secret', { PRS_PASSWORD: 'x' }, p(), null],
  ])('%s → ready via %s', (_n, env, stored, via) => {
    const st = assess(base(env, stored), stored, '/x/config.json', T0);
    expect(st.via).toBe(via);
    expect(st.ready).toBe(via !== null);
  });

  it('prints aligned lines and exits 0 when ready; never prints tokens or secrets', async () => {
    const store = memoryStore({
      default: p({
        session: { ...sess(120_000, 1_800_000), accessToken: 'SECRET-A' },
        secrets: { password: 'SECRET-P', clientSecret: 'SECRET-S' },
      }),
    });
    const deps = fakeDeps({ store, clock: new FakeClock(T0) });
    await authStatus({ json: false }, deps);
    const out = deps.io.stdoutText();
    expect(out).not.toMatch(/SECRET/);
    expect(out).toContain('access token:    valid until 2024-05-01T06:02:00Z (2 min left)');
    expect(out).toContain('refresh token:   valid until 2024-05-01T06:30:00Z (30 min left)');
    expect(out).toContain('saved password:  yes');
    expect(out).toContain(
      'renewal:         without a password until 2024-05-01T06:30:00Z (30 min left); after that signs in again with the saved password',
    );
    expect(out).toContain('ready:           yes (stored access token)');
    expect(out).toContain('config file:     /tmp/prs-test/config.json');
    expect(out).toContain('rate limiter:    a file on this machine');
    // Every value starts in the same column.
    const columns = out
      .trimEnd()
      .split('\n')
      .map((l) => /^[a-zA-Z ]+:\s+/.exec(l)?.[0].length);
    expect(columns.length).toBe(15);
    expect(new Set(columns)).toEqual(new Set([17]));
  });

  it('--json; not ready → prints the status, then exit 4', async () => {
    const deps = fakeDeps({ store: memoryStore({ default: p() }), clock: new FakeClock(T0) });
    const err = await attempt(authStatus({ json: true }, deps));
    expect(exitCodeFor(err)).toBe(4);
    const st = JSON.parse(deps.io.stdoutText());
    expect(st).toMatchObject({
      profile: 'default',
      ready: false,
      via: null,
      accessTokenExpiresAt: null,
      tenant: 'demo-tenant',
    });
  });

  it('names the shared limiter with its password masked, in the lines and in --json', async () => {
    const env = {
      PRS_CONFIG_DIR: '/tmp/prs-test',
      PRS_LIMITER: 'redis://prs:SECRET-R@redis.internal:6379/2',
    };
    for (const json of [false, true]) {
      const deps = fakeDeps({ env, store: memoryStore({ default: p() }), clock: new FakeClock(T0) });
      await attempt(authStatus({ json }, deps));
      const out = deps.io.stdoutText();
      expect(out).not.toContain('SECRET-R');
      if (json) expect(JSON.parse(out).limiter).toBe('redis://prs:***@redis.internal:6379/2');
      else expect(out).toContain('rate limiter:    shared through redis://prs:***@redis.internal:6379/2');
    }
  });

  it('auth token prints the session token, newline-terminated', async () => {
    const deps = fakeDeps({ session: { token: async () => 'tok-123' } });
    await authToken({}, deps);
    expect(deps.io.stdoutText()).toBe('tok-123\n');
  });
});

describe('prs config', () => {
  it.each([
    ['tenant', 'tenant'],
    ['base-url', 'base-url'],
  ])('parseKey(%s)', (k, want) => expect(parseKey(k)).toBe(want));

  it('an unknown key suggests the nearest one', () => {
    expect(() => parseKey('tennant')).toThrow('unknown setting "tennant" — did you mean "tenant"?');
    expect(() => parseKey('zzzzzz')).toThrow(/^unknown setting "zzzzzz"$/);
  });

  it.each([
    ['base-url', 'https://api.example.com/', 'https://api.example.com'],
    ['auth-url', ' http://localhost:8080 ', 'http://localhost:8080'],
    ['rate-limit', '4/2s', '4/2s'],
    ['timeout', '2.5', '2.5'],
    ['retries', '0', '0'],
    ['tenant', 'demo-tenant', 'demo-tenant'],
  ])('checkValue(%s, %j) → %j', (k, v, want) => expect(checkValue(parseKey(k), v)).toBe(want));

  it.each([
    ['base-url', 'ftp://x'],
    ['auth-url', 'nope'],
    ['rate-limit', '4 per minute'],
    ['timeout', '0'],
    ['retries', '-1'],
    ['tenant', ''],
    ['realm', 'a\nb'],
  ])('checkValue(%s, %j) is a usage error', (k, v) =>
    expect(() => checkValue(parseKey(k), v)).toThrow(UsageError),
  );

  it('effective values: flag > env > profile > default', () => {
    const got = effectiveSettings(
      { tenant: 'f' },
      { PRS_TENANT: 'e', PRS_REALM: 'e', PRS_RETRIES: '' },
      { tenant: 'p', realm: 'p', retries: '7', 'client-id': 'c' },
    );
    const by = Object.fromEntries(Object.entries(got).map(([k, e]) => [k, [e.value, e.source]]));
    expect(by).toMatchObject({
      tenant: ['f', 'flag'],
      realm: ['e', 'env'],
      retries: ['7', 'profile'],
      'client-id': ['c', 'profile'],
      timeout: ['60', 'default'],
      'base-url': [undefined, undefined],
    });
  });

  it('set / get / unset / list / path', async () => {
    const store = memoryStore();
    const deps = () => fakeDeps({ store });
    await config({ action: 'set', key: 'tenant', value: 'demo-tenant' }, deps());
    await config({ action: 'set', key: 'base-url', value: 'https://api.example.com/' }, deps());
    expect(store.get('default')?.settings).toEqual({
      tenant: 'demo-tenant',
      'base-url': 'https://api.example.com',
    });
    let d = deps();
    await config({ action: 'get', key: 'base-url' }, d);
    expect(d.io.stdoutText()).toBe('https://api.example.com\n');
    d = deps();
    await config({ action: 'list' }, d);
    expect(d.io.stdoutText()).toMatch(/^tenant: +demo-tenant +\(profile\)$/m);
    expect(d.io.stdoutText()).toMatch(/^timeout: +60 +\(default\)$/m);
    // Aligned: every value starts in the same column.
    const column = new Set(
      d.io
        .stdoutText()
        .split('\n')
        .filter((l) => /: +\S/.test(l))
        .map((l) => l.search(/(?<=: +)\S/)),
    );
    expect(column.size).toBe(1);
    expect(d.io.stdoutText()).toMatch(/^realm:$/m);
    d = deps();
    await config({ action: 'list', json: true }, d);
    expect(JSON.parse(d.io.stdoutText()).settings).toContainEqual({
      key: 'tenant',
      value: 'demo-tenant',
      source: 'profile',
    });
    await config({ action: 'unset', key: 'tenant' }, deps());
    expect(store.get('default')?.settings).toEqual({ 'base-url': 'https://api.example.com' });
    d = deps();
    const err = await attempt(config({ action: 'get', key: 'tenant' }, d));
    expect(err).toBeInstanceOf(NoDataError);
    expect(exitCodeFor(err)).toBe(3);
    expect(d.io.stdoutText()).toBe('');
    d = deps();
    await config({ action: 'path' }, d);
    expect(d.io.stdoutText()).toBe('/tmp/prs-test/config.json\n');
  });

  it('a bad value or key is rejected before anything is written', async () => {
    const store = memoryStore();
    await expect(
      config({ action: 'set', key: 'timeout', value: 'soon' }, fakeDeps({ store })),
    ).rejects.toThrow(/invalid timeout/);
    await expect(config({ action: 'set', key: 'tennant', value: 'x' }, fakeDeps({ store }))).rejects.toThrow(
      /did you mean "tenant"/,
    );
    expect(store.profileNames()).toEqual([]);
  });

  // URL parsing drops a newline without a word; the settings resolver would refuse the value later.
  it.each([
    ['tenant', 'a\nb'],
    ['base-url', 'https://a.example.com/\nx'],
    ['limiter', 'redis://:SECRET@h\n:1'],
    ['rate-limit', '4/\t60s'],
  ])('config set %s with a control character is refused, nothing stored', async (key, value) => {
    const store = memoryStore();
    await expect(config({ action: 'set', key, value }, fakeDeps({ store }))).rejects.toThrow(
      new RegExp(`^invalid ${key} [^]*: control characters are not allowed$`),
    );
    await expect(config({ action: 'set', key, value }, fakeDeps({ store }))).rejects.not.toThrow(/SECRET/);
    expect(store.profileNames()).toEqual([]);
  });

  it('a missing named profile is exit 2 listing the existing ones (set creates it)', async () => {
    const store = memoryStore({ default: { settings: {} }, prod: { settings: {} } });
    const err = await attempt(config({ action: 'list' }, fakeDeps({ store, globals: { profile: 'prdo' } })));
    expect(err).toBeInstanceOf(UsageError);
    expect((err as UsageError).hint).toBe('profiles: default, prod');
    await config(
      { action: 'set', key: 'realm', value: 'r' },
      fakeDeps({ store, globals: { profile: 'staging' } }),
    );
    expect(store.get('staging')).toEqual({ settings: { realm: 'r' } });
  });

  it('set notes when an env variable overrides the stored value', async () => {
    const d = fakeDeps({ store: memoryStore(), env: { PRS_CONFIG_DIR: '/x', PRS_TENANT: 'env-t' } });
    await config({ action: 'set', key: 'tenant', value: 't' }, d);
    expect(d.io.stderrText()).toMatch(/PRS_TENANT is set and takes precedence/);
  });
});
