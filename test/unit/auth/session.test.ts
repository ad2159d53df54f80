import { describe, expect, it } from 'vitest';
import { identityOf } from '../../../src/auth/identity.js';
import { notLoggedIn } from '../../../src/auth/not-logged-in.js';
import {
  accessUnexpired,
  accessUsable,
  createSession,
  refreshUsable,
  renewalWaitMs,
  renewMargin,
} from '../../../src/auth/session.js';
import { forgotten, withSession } from '../../../src/auth/store.js';
import type { ProfileData, Store, StoredSession } from '../../../src/auth/types.js';
import {
  AuthError,
  exitCodeFor,
  FileError,
  NetworkError,
  ServiceError,
  UsageError,
} from '../../../src/errors.js';
import { resolveSettings } from '../../../src/settings.js';
import { FakeClock } from '../../helpers/clock.js';
import { memoryStore } from '../../helpers/deps.js';
import { createTestIO } from '../../helpers/io.js';
import { fakeHttp, tokens } from './fake-http.js';

const T0 = Date.UTC(2024, 4, 1, 6, 0, 0);
const TOKEN_URL = 'http://auth.test/realms/demo/protocol/openid-connect/token';
const SETTINGS = { 'auth-url': 'http://auth.test', realm: 'demo', 'client-id': 'prs-cli', username: 'demo' };
const ENV_CREDS = { PRS_PASSWORD: 'pw-env', PRS_CLIENT_SECRET: 'secret-env' };

function session(accessIn: number, o: { refreshIn?: number | null; life?: number } = {}): StoredSession {
  const s: StoredSession = { accessToken: 'stored-access', expiresAt: T0 + accessIn };
  if (o.life !== undefined) s.obtainedAt = s.expiresAt - o.life;
  if (o.refreshIn !== null) {
    s.refreshToken = 'stored-refresh';
    if (o.refreshIn !== undefined) s.refreshExpiresAt = T0 + o.refreshIn;
  }
  return s;
}

function setup(
  o: { env?: Record<string, string>; profile?: ProfileData; profileName?: string; store?: Store } = {},
) {
  const clock = new FakeClock(T0);
  const env = { PRS_CONFIG_DIR: '/tmp/prs-unit', ...o.env };
  const name = o.profileName ?? 'default';
  const store = o.store ?? memoryStore(o.profile ? { [name]: o.profile } : {});
  const settings = resolveSettings(
    { profile: o.profileName },
    env,
    o.profile?.settings ?? store.get(name)?.settings ?? {},
  );
  const http = fakeHttp();
  const io = createTestIO({ verbose: true });
  const s = createSession({
    settings,
    store,
    http,
    clock,
    io,
    signal: new AbortController().signal,
    lock: (fn) => fn(),
    random: () => 0,
  });
  return { s, http, store, clock, io, name };
}

describe("renewalWaitMs: a waiter outlasts the holder's retries (pure)", () => {
  it.each([
    [
      'defaults: 4 attempts of 60 s, 3 waits of at most 120 s, and 30 s',
      { retries: 3, timeoutMs: 60_000 },
      630_000,
    ],
    ['--retries 0 --timeout 1: the old 30 s and the one attempt', { retries: 0, timeoutMs: 1000 }, 31_000],
  ])('%s', (_n, s, want) => expect(renewalWaitMs(s)).toBe(want));
});

describe('margins (pure)', () => {
  it.each([
    ['no issue time: 30 s', session(100_000), 30_000],
    ['300 s token: 30 s', session(300_000, { life: 300_000 }), 30_000],
    ['60 s token: 30 s', session(60_000, { life: 60_000 }), 30_000],
    ['2 s token: half its life', session(2_000, { life: 2_000 }), 1_000],
  ])('%s', (_n, s, want) => expect(renewMargin(s)).toBe(want));

  it.each([
    [30_000, true],
    [29_999, false],
    [0, false],
    [-5, false],
  ])('access token with %i ms left usable: %s', (left, want) =>
    expect(accessUsable(session(left), T0)).toBe(want),
  );

  it.each<[string, StoredSession | undefined, boolean]>([
    ['inside the renewal margin', session(29_999), true],
    ['1 ms left', session(1), true],
    ['expiring now', session(0), false],
    ['expired', session(-5), false],
    ['an emptied token', { ...session(60_000), accessToken: '' }, false],
    ['no session', undefined, false],
  ])('access token %s, unexpired: %s', (_n, s, want) => expect(accessUnexpired(s, T0)).toBe(want));

  it.each([
    ['unknown expiry', session(0), true],
    ['future', session(0, { refreshIn: 1 }), true],
    ['now', session(0, { refreshIn: 0 }), false],
    ['none', session(0, { refreshIn: null }), false],
  ])('refresh token %s usable: %s', (_n, s, want) => expect(refreshUsable(s, T0)).toBe(want));
});

describe('session.token()', () => {
  it('1: PRS_TOKEN is used as is, without store or network', async () => {
    const { s, http } = setup({ env: { PRS_TOKEN: 'given-token' }, profile: { settings: SETTINGS } });
    expect(await s.token()).toBe('given-token');
    await expect(s.renew('given-token')).rejects.toThrow(/PRS_TOKEN/);
    http.done();
  });

  it('2: a stored token valid for exactly 30 s more is used', async () => {
    const { s, http } = setup({ profile: { settings: SETTINGS, session: session(30_000) } });
    expect(await s.token()).toBe('stored-access');
    http.done();
  });

  it('2→3: 29.999 s left is renewed with the refresh token, and the new tokens are stored', async () => {
    const { s, http, store } = setup({
      env: { PRS_CLIENT_SECRET: 'secret-env' },
      profile: { settings: SETTINGS, session: session(29_999) },
    });
    http.queue({
      expect: (f, req) => {
        expect(req.url).toBe(TOKEN_URL);
        expect(Object.fromEntries(f)).toEqual({
          grant_type: 'refresh_token',
          client_id: 'prs-cli',
          client_secret: 'secret-env',
          refresh_token: 'stored-refresh',
        });
      },
      body: tokens(1),
    });
    expect(await s.token()).toBe('access-1');
    expect(store.get('default')?.session).toEqual({
      accessToken: 'access-1',
      expiresAt: T0 + 300_000,
      obtainedAt: T0,
      refreshToken: 'refresh-1',
      refreshExpiresAt: T0 + 1_800_000,
    });
    // Cached afterwards: no second request.
    expect(await s.token()).toBe('access-1');
    http.done();
  });

  it('short-lived tokens are used for the first half of their life', async () => {
    const { s, http, clock } = setup({
      profile: { settings: SETTINGS, session: session(2_000, { life: 2_000 }) },
    });
    clock.advance(999);
    expect(await s.token()).toBe('stored-access');
    clock.advance(2);
    http.queue({ expect: (f) => expect(f.get('grant_type')).toBe('refresh_token'), body: tokens(1) });
    expect(await s.token()).toBe('access-1');
    http.done();
  });

  it('3: a refresh answer without a new refresh token keeps the old one', async () => {
    const { s, http, store } = setup({
      profile: { settings: SETTINGS, session: session(0, { refreshIn: 60_000 }) },
    });
    http.queue({ body: tokens(1, { refresh: false }) });
    await s.token();
    expect(store.get('default')?.session).toMatchObject({
      accessToken: 'access-1',
      refreshToken: 'stored-refresh',
      refreshExpiresAt: T0 + 60_000,
    });
    http.done();
  });

  it('3: refresh_expires_in 0 means no expiry information', async () => {
    const { s, http, store } = setup({ profile: { settings: SETTINGS, session: session(0) } });
    http.queue({ body: tokens(1, { refreshExpiresIn: 0 }) });
    await s.token();
    const stored = store.get('default')?.session;
    expect(stored?.refreshToken).toBe('refresh-1');
    expect(stored?.refreshExpiresAt).toBeUndefined();
    expect(refreshUsable(stored, T0 + 86_400_000)).toBe(true);
    http.done();
  });

  it('3→4: an expired refresh token goes straight to the password grant from env', async () => {
    const { s, http } = setup({
      env: ENV_CREDS,
      profile: { settings: SETTINGS, session: session(-1000, { refreshIn: -1 }) },
    });
    http.queue({
      expect: (f) =>
        expect(Object.fromEntries(f)).toEqual({
          grant_type: 'password',
          client_id: 'prs-cli',
          client_secret: 'secret-env',
          username: 'demo',
          password: 'pw-env',
        }),
      body: tokens(2),
    });
    expect(await s.token()).toBe('access-2');
    http.done();
  });

  it('3→4: a refresh refused with invalid_grant falls through to the password grant', async () => {
    const { s, http, store, io } = setup({
      env: ENV_CREDS,
      profile: { settings: SETTINGS, session: session(0) },
    });
    http.queue(
      {
        expect: (f) => expect(f.get('grant_type')).toBe('refresh_token'),
        status: 400,
        body: { error: 'invalid_grant', error_description: 'Token is not active' },
      },
      { expect: (f) => expect(f.get('grant_type')).toBe('password'), body: tokens(3) },
    );
    expect(await s.token()).toBe('access-3');
    expect(store.get('default')?.session?.refreshToken).toBe('refresh-3');
    expect(io.stderrText()).not.toMatch(/pw-env|secret-env|stored-refresh|access-3|refresh-3/);
    http.done();
  });

  it('4: saved credentials (--save-password) sign in again', async () => {
    const { s, http } = setup({
      profile: { settings: SETTINGS, secrets: { password: 'pw-saved', clientSecret: 'secret-saved' } },
    });
    http.queue({
      expect: (f) => {
        expect(f.get('password')).toBe('pw-saved');
        expect(f.get('client_secret')).toBe('secret-saved');
      },
      body: tokens(4),
    });
    expect(await s.token()).toBe('access-4');
    http.done();
  });

  it('4: env credentials without any stored profile create the session', async () => {
    const { s, http, store } = setup({
      env: {
        ...ENV_CREDS,
        PRS_USERNAME: 'demo',
        PRS_AUTH_URL: 'http://auth.test',
        PRS_REALM: 'demo',
        PRS_CLIENT_ID: 'prs-cli',
      },
    });
    http.queue({ body: tokens(5) });
    expect(await s.token()).toBe('access-5');
    expect(store.get('default')).toMatchObject({ settings: {}, session: { accessToken: 'access-5' } });
    expect(store.get('default')?.secrets).toBeUndefined();
    http.done();
  });

  it('4: a refused password grant is exit 4 with the server description', async () => {
    const { s, http } = setup({ env: ENV_CREDS, profile: { settings: SETTINGS } });
    http.queue({
      status: 401,
      body: { error: 'invalid_grant', error_description: 'Invalid user credentials' },
    });
    const err = await s.token().catch((e) => e);
    expect(err).toBeInstanceOf(AuthError);
    expect(err.message).toBe('sign-in refused by auth.test: Invalid user credentials');
    expect(exitCodeFor(err)).toBe(4);
    http.done();
  });

  it('5: nothing at all → exit 4 telling to run prs login', async () => {
    const { s, http } = setup({ profile: { settings: SETTINGS } });
    const err = await s.token().catch((e) => e);
    expect(err).toBeInstanceOf(AuthError);
    expect(err.message).toBe('not logged in or session expired — run `prs login`');
    expect(err.hint).toMatch(/PRS_USERNAME/);
    http.done();
  });

  it('5: in CI the message names the environment variables', async () => {
    const { s } = setup({ env: { CI: 'true' }, profile: { settings: SETTINGS } });
    await expect(s.token()).rejects.toThrow(
      'not logged in or session expired — set PRS_USERNAME, PRS_PASSWORD and PRS_CLIENT_SECRET (or PRS_TOKEN)',
    );
  });

  it('5: a named profile is named in the login hint', () => {
    expect(notLoggedIn({ ci: false, profile: 'prod' }).message).toContain('prs login --profile prod');
  });

  it('5: only a password but no client secret is not enough', async () => {
    const { s } = setup({ env: { PRS_PASSWORD: 'pw' }, profile: { settings: SETTINGS } });
    await expect(s.token()).rejects.toBeInstanceOf(AuthError);
  });

  it('3→5: a refused refresh without credentials is exit 4, the dead session forgotten, the hint says what keeps one', async () => {
    const { s, http, store } = setup({
      profile: { settings: SETTINGS, session: session(0), secrets: { clientSecret: 'kept' } },
    });
    http.queue({
      expect: (f) => expect(f.get('client_secret')).toBe('kept'),
      status: 400,
      body: { error: 'invalid_grant', error_description: 'Session not active' },
    });
    const err = await s.token().catch((e) => e);
    expect(err).toBeInstanceOf(AuthError);
    expect(err.message).toMatch(/run `prs login`/);
    expect(err.hint).toMatch(/--save-password.*PRS_USERNAME and PRS_PASSWORD/);
    expect(store.get('default')?.session).toBeUndefined();
    expect(store.get('default')?.settings).toEqual(SETTINGS);
    http.done();
  });

  it('3→5: in CI too, an ended session names what would have kept it going', async () => {
    const { s } = setup({
      env: { CI: 'true' },
      profile: { settings: SETTINGS, session: session(0, { refreshIn: -1 }), secrets: { clientSecret: 'k' } },
    });
    const err = await s.token().catch((e) => e);
    expect(err.message).toMatch(/set PRS_USERNAME, PRS_PASSWORD and PRS_CLIENT_SECRET/);
    expect(err.hint).toMatch(/--save-password/);
  });

  it('3: an old store without the client secret, refused: one line to log in once more; session kept', async () => {
    const { s, http, store } = setup({ profile: { settings: SETTINGS, session: session(0) } });
    http.queue({
      status: 401,
      body: { error: 'unauthorized_client', error_description: 'Invalid client secret' },
    });
    const err = await s.token().catch((e) => e);
    expect(exitCodeFor(err)).toBe(4);
    expect(err.hint).toMatch(/older prs .* log in once more/);
    expect(store.get('default')?.session?.refreshToken).toBe('stored-refresh');
    http.done();
  });

  it.each([
    [
      'a refused client (wrong PRS_CLIENT_SECRET)',
      { status: 401, body: { error: 'unauthorized_client' } },
      4,
    ],
    ['a 5xx', { status: 503, text: 'down' }, 8],
  ])('3: %s leaves the stored session as it was', async (_n, answer, code) => {
    const { s, http, store } = setup({
      env: { PRS_CLIENT_SECRET: 'wrong', PRS_RETRIES: '0' },
      profile: { settings: SETTINGS, session: session(0), secrets: { clientSecret: 'kept' } },
    });
    http.queue(answer);
    const err = await s.token().catch((e) => e);
    expect(exitCodeFor(err)).toBe(code);
    expect(store.get('default')?.session).toEqual(session(0));
    http.done();
  });

  it('3: a still-valid token (10 s left) whose renewal fails is used, with a note', async () => {
    const { s, http, io } = setup({
      profile: { settings: SETTINGS, session: session(10_000), secrets: { clientSecret: 'kept' } },
    });
    // The first try and --retries (3) more, all refused.
    for (let i = 0; i < 4; i++) http.queue({ status: 503, text: 'down' });
    expect(await s.token()).toBe('stored-access');
    expect(io.stderrText()).toMatch(
      /note: could not renew the session \(the token endpoint at auth\.test answered HTTP 503\); using the current token, valid \d+ s more/,
    );
    http.done();
  });

  describe('binding (CLI.md "Session")', () => {
    const bound = {
      username: 'demo',
      authUrl: 'http://auth.test',
      realm: 'demo',
      clientId: 'prs-cli',
      baseUrl: 'https://api.example.com',
    };
    const profile = (): ProfileData => ({
      settings: { ...SETTINGS, 'base-url': bound.baseUrl },
      session: { ...session(100_000), bound },
      secrets: { clientSecret: 'kept', password: 'saved-pw' },
    });

    it.each([
      ['another user', { PRS_USERNAME: 'other' }, /another user/],
      ['another base URL', { PRS_BASE_URL: 'https://evil.example.com' }, /another base URL/],
      ['another realm', { PRS_REALM: 'r2' }, /another realm/],
    ])(
      '%s without env credentials: exit 4 naming whose session is stored; nothing sent or changed',
      async (_n, env, what) => {
        const { s, http, store } = setup({ env, profile: profile() });
        const err = await s.token().catch((e) => e);
        expect(exitCodeFor(err)).toBe(4);
        expect(err.message).toMatch(/session stored in profile default is for demo at auth\.test/);
        expect(err.message).toMatch(what);
        expect(store.get('default')).toEqual(profile());
        http.done(); // no request at all
      },
    );

    it('another user with env credentials signs in afresh for this run; the stored session is untouched', async () => {
      const { s, http, store } = setup({
        env: { PRS_USERNAME: 'other', PRS_PASSWORD: 'pw-other', PRS_CLIENT_SECRET: 'secret-env' },
        profile: profile(),
      });
      http.queue({
        expect: (f) => {
          expect(f.get('username')).toBe('other');
          expect(f.get('password')).toBe('pw-other');
        },
        body: tokens(7),
      });
      expect(await s.token()).toBe('access-7');
      expect(store.get('default')).toEqual(profile());
      http.done();
    });

    it('an old session without a binding is bound to the profile settings it was stored with', async () => {
      const { s, http } = setup({
        env: { PRS_USERNAME: 'other' },
        profile: { settings: SETTINGS, session: session(100_000) },
      });
      const err = await s.token().catch((e) => e);
      expect(err.message).toMatch(/is for demo at auth\.test; not used with another user/);
      http.done();
    });
  });

  it('a missing auth URL with credentials at hand is a usage error naming its variable', async () => {
    const { s } = setup({ env: ENV_CREDS, profile: { settings: { username: 'demo' } } });
    const err = await s.token().catch((e) => e);
    expect(err).toBeInstanceOf(UsageError);
    expect(err.message).toMatch(/missing auth URL: set PRS_AUTH_URL/);
  });

  it.each([
    ['a 5xx', { status: 503, text: '<html>down</html>' }, ServiceError],
    ['a non-JSON 200', { status: 200, text: '<html>login page</html>' }, ServiceError],
    ['a 200 without access_token', { status: 200, body: { foo: 1 } }, ServiceError],
    ['a 404 page', { status: 404, text: 'Not Found' }, ServiceError],
  ])('%s from the token endpoint is a service error', async (_n, answer, type) => {
    const { s, http } = setup({ env: { ...ENV_CREDS, PRS_RETRIES: '0' }, profile: { settings: SETTINGS } });
    http.queue(answer);
    const err = await s.token().catch((e) => e);
    expect(err).toBeInstanceOf(type);
    expect(exitCodeFor(err)).toBe(8);
    expect(err.message).not.toMatch(/<html|login page|down/);
  });

  it('an unreachable token endpoint stays a network error (exit 9)', async () => {
    const { s, http } = setup({ env: ENV_CREDS, profile: { settings: SETTINGS } });
    http.queue({ error: new NetworkError('connection refused by auth.test') });
    const err = await s.token().catch((e) => e);
    expect(exitCodeFor(err)).toBe(9);
  });

  it('without expires_in a token is trusted for one minute', async () => {
    const { s, http, store } = setup({ env: ENV_CREDS, profile: { settings: SETTINGS } });
    http.queue({ body: { access_token: 'opaque' } });
    await s.token();
    expect(store.get('default')?.session?.expiresAt).toBe(T0 + 60_000);
    http.done();
  });

  it('the realm is URL-encoded into the token path', async () => {
    const { s, http } = setup({
      env: ENV_CREDS,
      profile: { settings: { ...SETTINGS, realm: 'my realm/x' } },
    });
    http.queue({
      expect: (_f, req) => expect(req.url).toContain('/realms/my%20realm%2Fx/protocol/'),
      body: tokens(1),
    });
    await s.token();
    http.done();
  });

  it('parallel calls in one process share one renewal', async () => {
    const { s, http } = setup({ profile: { settings: SETTINGS, session: session(0) } });
    http.queue({ body: tokens(1) });
    const got = await Promise.all([s.token(), s.token(), s.token()]);
    expect(got).toEqual(['access-1', 'access-1', 'access-1']);
    http.done();
  });

  it('a store that cannot be written does not fail a run that got a token', async () => {
    const base = memoryStore({ default: { settings: SETTINGS, session: session(0) } });
    const store: Store = {
      ...base,
      update: async () => {
        throw new FileError('cannot write /ro/config.json: read-only file system');
      },
    };
    const { s, http, io } = setup({ store });
    http.queue({ body: tokens(1) });
    expect(await s.token()).toBe('access-1');
    expect(io.stderrText()).toMatch(/could not save the session/);
    http.done();
  });
});

describe('session.renew() after a 401', () => {
  it('discards the rejected token and refreshes once', async () => {
    const { s, http, store } = setup({ profile: { settings: SETTINGS, session: session(200_000) } });
    expect(await s.token()).toBe('stored-access');
    http.queue({ expect: (f) => expect(f.get('grant_type')).toBe('refresh_token'), body: tokens(1) });
    expect(await s.renew('stored-access')).toBe('access-1');
    expect(store.get('default')?.session?.accessToken).toBe('access-1');
    expect(await s.token()).toBe('access-1');
    http.done();
  });

  it('uses the token another process stored meanwhile instead of renewing', async () => {
    const { s, http, store } = setup({ profile: { settings: SETTINGS, session: session(200_000) } });
    await s.token();
    await store.update('default', (p) => ({
      ...p!,
      session: { ...session(250_000), accessToken: 'other-process' },
    }));
    expect(await s.renew('stored-access')).toBe('other-process');
    http.done();
  });

  it('falls back to the password grant when the refresh fails', async () => {
    const { s, http } = setup({ env: ENV_CREDS, profile: { settings: SETTINGS, session: session(200_000) } });
    http.queue(
      { status: 400, body: { error: 'invalid_grant', error_description: 'Token is not active' } },
      { expect: (f) => expect(f.get('grant_type')).toBe('password'), body: tokens(2) },
    );
    expect(await s.renew('stored-access')).toBe('access-2');
    http.done();
  });

  it('without refresh token or credentials: exit 4, and the rejected token is not used again', async () => {
    const { s, http, store } = setup({
      profile: { settings: SETTINGS, session: session(200_000, { refreshIn: null }) },
    });
    await expect(s.renew('stored-access')).rejects.toBeInstanceOf(AuthError);
    expect(store.get('default')?.session?.expiresAt).toBe(0);
    await expect(s.token()).rejects.toBeInstanceOf(AuthError);
    http.done();
  });
});

// A renewal whose lock was lost while it waited for the token endpoint (this process stalled past the
// stale time and another took the lock over), or that a login or logout did not wait for: what the
// other process stores meanwhile, done here from inside the request.
describe('another process changes the stored session during a renewal', () => {
  const other: StoredSession = {
    ...session(300_000),
    accessToken: 'other-access',
    refreshToken: 'other-refresh',
  };
  const kept = { clientSecret: 'kept' };
  const meanwhile = (store: Store, fn: (p: ProfileData | undefined) => ProfileData | undefined) => () => {
    void store.update('default', fn);
  };

  it('a refresh refused because the other renewed first (rotating the refresh token): its session is used and stays', async () => {
    const { s, http, store } = setup({ profile: { settings: SETTINGS, session: session(0), secrets: kept } });
    http.queue({
      expect: meanwhile(store, (p) => ({ ...p!, session: other })),
      status: 400,
      body: { error: 'invalid_grant', error_description: 'Stale token' },
    });
    expect(await s.token()).toBe('other-access');
    expect(store.get('default')?.session).toEqual(other);
    http.done();
  });

  it('a renewal that got its tokens leaves a newer session the other stored, and uses its own', async () => {
    const { s, http, store } = setup({ profile: { settings: SETTINGS, session: session(0), secrets: kept } });
    http.queue({ expect: meanwhile(store, (p) => ({ ...p!, session: other })), body: tokens(1) });
    expect(await s.token()).toBe('access-1');
    expect(store.get('default')?.session).toEqual(other);
    http.done();
  });

  it('a logout meanwhile: the session is not stored back', async () => {
    const { s, http, store } = setup({ profile: { settings: SETTINGS, session: session(0), secrets: kept } });
    http.queue({ expect: meanwhile(store, (p) => forgotten(p!)), body: tokens(1) });
    expect(await s.token()).toBe('access-1');
    expect(store.get('default')).toEqual({ settings: SETTINGS });
    http.done();
  });

  it('the other refused and dropped it (the login kept): this renewal stores its own', async () => {
    const { s, http, store } = setup({ profile: { settings: SETTINGS, session: session(0), secrets: kept } });
    http.queue({ expect: meanwhile(store, (p) => withSession(p, undefined)), body: tokens(1) });
    expect(await s.token()).toBe('access-1');
    expect(store.get('default')?.session?.refreshToken).toBe('refresh-1');
    http.done();
  });
});

describe('identity', () => {
  it.each([
    [{ token: 'abc', username: 'demo', profile: 'default' }, /^token:[0-9a-f]{12}$/],
    [{ username: 'demo', profile: 'default' }, /^demo$/],
    [{ profile: 'ci' }, /^profile:ci$/],
    [{ profile: 'ci', grant: 'client_credentials' as const, clientId: 'robot' }, /^client:robot$/],
  ])('%j → %s', (s, want) => expect(identityOf(s)).toMatch(want));
});

describe('a service account (grant client_credentials)', () => {
  const ROBOT = {
    'auth-url': 'http://auth.test',
    realm: 'demo',
    'client-id': 'robot',
    grant: 'client_credentials',
  };
  const robotSession = (accessIn: number): StoredSession => ({
    accessToken: 'stored-access',
    expiresAt: T0 + accessIn,
    bound: { grant: 'client_credentials', authUrl: 'http://auth.test', realm: 'demo', clientId: 'robot' },
  });

  it.each([
    ['the kept secret', {}, { clientSecret: 'kept' }, 'kept'],
    ['PRS_CLIENT_SECRET over the kept one', { PRS_CLIENT_SECRET: 'env' }, { clientSecret: 'kept' }, 'env'],
  ])(
    'an expired token is renewed by a new client_credentials grant with %s',
    async (_n, env, secrets, want) => {
      const { s, http, store } = setup({
        env,
        profile: { settings: ROBOT, session: robotSession(-1000), secrets },
      });
      http.queue({
        expect: (f) => {
          expect(Object.fromEntries(f)).toEqual({
            grant_type: 'client_credentials',
            client_id: 'robot',
            client_secret: want,
          });
        },
        body: { access_token: 'access-2', expires_in: 300, refresh_expires_in: 0, token_type: 'Bearer' },
      });
      expect(await s.token()).toBe('access-2');
      expect(store.get('default')?.session).toMatchObject({
        accessToken: 'access-2',
        bound: { grant: 'client_credentials', clientId: 'robot' },
      });
      expect(store.get('default')?.session?.refreshToken).toBeUndefined();
      http.done();
    },
  );

  it('a 401 on a still-valid token: one new grant (there is no refresh token to try)', async () => {
    const { s, http } = setup({
      profile: { settings: ROBOT, session: robotSession(200_000), secrets: { clientSecret: 'kept' } },
    });
    http.queue({ expect: (f) => expect(f.get('grant_type')).toBe('client_credentials'), body: tokens(2) });
    expect(await s.renew('stored-access')).toBe('access-2');
    http.done();
  });

  it('no secret anywhere (after logout): exit 4 naming `prs login --client-credentials`', async () => {
    const { s, http } = setup({ profile: { settings: ROBOT } });
    const err = await s.token().catch((e) => e);
    expect(err).toBeInstanceOf(AuthError);
    expect(err.message).toBe('not logged in or session expired — run `prs login --client-credentials`');
    http.done();
  });

  it('a user session is not used for a service account, nor changed: the env secret signs in for this run', async () => {
    const user = {
      ...session(200_000),
      bound: { username: 'demo', authUrl: 'http://auth.test', realm: 'demo', clientId: 'robot' },
    };
    const { s, http, store } = setup({
      env: { PRS_GRANT: 'client_credentials', PRS_CLIENT_SECRET: 'env' },
      profile: { settings: { ...SETTINGS, 'client-id': 'robot' }, session: user },
    });
    http.queue({ expect: (f) => expect(f.get('grant_type')).toBe('client_credentials'), body: tokens(2) });
    expect(await s.token()).toBe('access-2');
    expect(store.get('default')?.session?.accessToken).toBe('stored-access');
    http.done();
  });

  it('a refused client is exit 4 with the server description; the stored session stays', async () => {
    const { s, http, store } = setup({
      profile: { settings: ROBOT, session: robotSession(-1000), secrets: { clientSecret: 'kept' } },
    });
    http.queue({
      status: 400,
      body: {
        error: 'unauthorized_client',
        error_description: 'Client not enabled to retrieve service account',
      },
    });
    const err = await s.token().catch((e) => e);
    expect(exitCodeFor(err)).toBe(4);
    expect(err.message).toMatch(
      /^sign-in refused by auth\.test: Client not enabled to retrieve service account$/,
    );
    expect(err.hint).toMatch(/service accounts enabled/);
    expect(store.get('default')?.session?.accessToken).toBe('stored-access');
    http.done();
  });
});

describe('the token endpoint is retried like the API (CLI.md "Answers on the wire")', () => {
  const down = { status: 503, text: 'down' };
  const refused = () =>
    new NetworkError('connection refused by auth.test', { cause: { code: 'ECONNREFUSED' } });
  const ok = { body: tokens(5) };
  // Backoff with random() = 0: half of 1 s, 2 s, 4 s (http/retry.ts).
  it.each([
    ['a 503, then an answer', [down, ok], {}, 'access-5', [500]],
    ['a 502 and a 500, then an answer', [{ status: 502 }, { status: 500 }, ok], {}, 'access-5', [500, 1000]],
    [
      'a 503 with Retry-After: 7 (waited as asked)',
      [{ ...down, headers: { 'retry-after': '7' } }, ok],
      {},
      'access-5',
      [7000],
    ],
    [
      'a 429 with Retry-After: 2',
      [{ status: 429, body: {}, headers: { 'retry-after': '2' } }, ok],
      {},
      'access-5',
      [2000],
    ],
    ['a refused connection, then an answer', [{ error: refused() }, ok], {}, 'access-5', [500]],
    ['503 four times (--retries 3): exit 8', [down, down, down, down], {}, 8, [500, 1000, 2000]],
    ['503 with --retries 0: exit 8 at once', [down], { PRS_RETRIES: '0' }, 8, []],
    [
      'refused connections past --retries 1: exit 9',
      [{ error: refused() }, { error: refused() }],
      { PRS_RETRIES: '1' },
      9,
      [500],
    ],
    [
      'a Retry-After past 120 s: exit 8 at once, no wait',
      [{ ...down, headers: { 'retry-after': '600' } }],
      {},
      8,
      [],
    ],
    [
      '429 four times (--retries 3): exit 7, rate limited as at the API',
      [0, 1, 2, 3].map(() => ({ status: 429, body: {}, headers: { 'retry-after': '1' } })),
      {},
      7,
      [1000, 1000, 1000],
    ],
    [
      'a refusal (400 invalid_grant): never retried, exit 4',
      [{ status: 400, body: { error: 'invalid_grant', error_description: 'Invalid user credentials' } }],
      {},
      4,
      [],
    ],
    [
      'a refusal (401 invalid_client): never retried, exit 4',
      [{ status: 401, body: { error: 'invalid_client' } }],
      {},
      4,
      [],
    ],
  ] as const)('%s', async (_n, answers, env, want, sleeps) => {
    const { s, http, clock } = setup({ env: { ...ENV_CREDS, ...env }, profile: { settings: SETTINGS } });
    http.queue(...answers);
    const got = await s.token().catch((e) => exitCodeFor(e));
    expect(got).toBe(want);
    expect(clock.sleeps).toEqual(sleeps);
    http.done();
  });

  it('a Retry-After longer than prs waits is named in the error', async () => {
    const { s, http } = setup({ env: ENV_CREDS, profile: { settings: SETTINGS } });
    http.queue({ ...down, headers: { 'retry-after': '600' } });
    const err = await s.token().catch((e) => e);
    expect(err.message).toBe(
      'the token endpoint at auth.test answered HTTP 503 and asks to wait 600 s; prs waits at most 120 s',
    );
    http.done();
  });

  it('a renewal (refresh grant) is retried too, and each wait is a -v line', async () => {
    const { s, http, clock, io } = setup({
      profile: { settings: SETTINGS, session: session(0), secrets: { clientSecret: 'kept' } },
    });
    http.queue(
      { ...down, headers: { 'retry-after': '3' } },
      { expect: (f) => expect(f.get('grant_type')).toBe('refresh_token'), body: tokens(6) },
    );
    expect(await s.token()).toBe('access-6');
    expect(clock.sleeps).toEqual([3000]);
    expect(io.stderrText()).toContain('~ waiting 3.0 s (retry-after)');
    http.done();
  });
});
