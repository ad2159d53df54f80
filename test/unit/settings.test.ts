import { describe, expect, it } from 'vitest';
import { resolveDirs } from '../../src/dirs.js';
import {
  isServiceAccount,
  parseGrant,
  parseRateLimit,
  parseRetries,
  parseTimeout,
  parseUrl,
  rateText,
  resolveProfileName,
  resolveSettings,
} from '../../src/settings.js';

describe('precedence: flag > env > profile > default', () => {
  const env = { PRS_BASE_URL: 'https://env.example', PRS_TIMEOUT: '30', HOME: '/home/u' };
  const profile = { 'base-url': 'https://profile.example', tenant: 'p-tenant', timeout: '10', retries: '1' };
  it('flag wins', () => {
    const s = resolveSettings({ 'base-url': 'https://flag.example' }, env, profile);
    expect(s.baseUrl).toBe('https://flag.example');
    expect(s.sources['base-url']).toBe('flag');
  });
  it('env beats profile', () => {
    const s = resolveSettings({}, env, profile);
    expect([s.baseUrl, s.timeoutMs, s.sources.timeout]).toEqual(['https://env.example', 30_000, 'env']);
  });
  it('profile beats default', () => {
    const s = resolveSettings({}, {}, profile);
    expect([s.tenant, s.retries, s.sources.retries]).toEqual(['p-tenant', 1, 'profile']);
  });
  it('defaults', () => {
    const s = resolveSettings({}, {}, {});
    expect([s.timeoutMs, s.retries, s.rateLimit, s.profile]).toEqual([
      60_000,
      3,
      { limit: 4, windowMs: 60_000 },
      'default',
    ]);
  });
  it('an empty env value does not hide the profile', () =>
    expect(resolveSettings({}, { PRS_TENANT: '' }, { tenant: 't' }).tenant).toBe('t'));
  it('names the source of a bad value', () =>
    expect(() => resolveSettings({}, { PRS_TIMEOUT: 'soon' }, {})).toThrow(
      /invalid timeout "soon".*PRS_TIMEOUT/,
    ));
  it('secrets and token come from the environment', () => {
    const s = resolveSettings({}, { PRS_TOKEN: 't0k', PRS_PASSWORD: 'pw', PRS_CLIENT_SECRET: 'cs' }, {});
    expect([s.token, s.password, s.clientSecret]).toEqual(['t0k', 'pw', 'cs']);
  });
  it('proxy variables in either case', () =>
    expect(resolveSettings({}, { https_proxy: 'http://p:3128', NO_PROXY: 'localhost' }, {}).proxy).toEqual({
      httpProxy: undefined,
      httpsProxy: 'http://p:3128',
      noProxy: 'localhost',
    }));
  it('CI detection', () => {
    expect(resolveSettings({}, { CI: 'true' }, {}).ci).toBe(true);
    expect(resolveSettings({}, { CI: 'false' }, {}).ci).toBe(false);
  });
});

describe('directories', () => {
  it.each([
    [{ PRS_CONFIG_DIR: '/c', PRS_CACHE_DIR: '/k', HOME: '/h' }, '/c', '/k'],
    [{ XDG_CONFIG_HOME: '/x', XDG_CACHE_HOME: '/y', HOME: '/h' }, '/x/prs', '/y/prs'],
    [{ HOME: '/h' }, '/h/.config/prs', '/h/.cache/prs'],
  ])('%j', (env, config, cache) => expect(resolveDirs(env)).toEqual({ configDir: config, cacheDir: cache }));
});

describe('profile names', () => {
  it.each([
    [undefined, {}, 'default'],
    [undefined, { PRS_PROFILE: 'prod' }, 'prod'],
    ['dev', { PRS_PROFILE: 'prod' }, 'dev'],
    [undefined, { PRS_PROFILE: '' }, 'default'],
  ])('flag %j env %j → %s', (flag, env, want) => expect(resolveProfileName(flag, env)).toBe(want));
  it.each(['../x', '', 'a b', '.hidden'])('rejects %j', (name) =>
    expect(() => resolveProfileName(name, {})).toThrow(/invalid profile/),
  );
});

describe('value parsers', () => {
  it.each([
    ['4/60s', 4, 60_000],
    ['4/2s', 4, 2000],
    ['10/1m', 10, 60_000],
    ['100/500ms', 100, 500],
    ['4/60', 4, 60_000],
    ['1/1h', 1, 3_600_000],
  ])('rate limit %s', (v, limit, windowMs) => expect(parseRateLimit(v)).toEqual({ limit, windowMs }));
  it.each(['4', '0/60s', '4/0s', 'x/60s', '4/60y', '-1/60s'])('bad rate limit %j', (v) =>
    expect(() => parseRateLimit(v)).toThrow(),
  );
  it.each([
    ['4/60s', '4/60s'],
    ['10/1m', '10/60s'],
    ['1/1h', '1/3600s'],
    ['100/500ms', '100/500ms'],
    ['3/1500ms', '3/1500ms'],
  ])('rate limit %s is written back as %s', (v, text) => expect(rateText(parseRateLimit(v))).toBe(text));
  it.each([
    ['60', 60_000],
    ['0.5', 500],
    ['0.001', 1],
    ['86400', 86_400_000],
  ])('timeout %s', (v, ms) => expect(parseTimeout(v)).toBe(ms));
  // 1e12 was "expected … greater than 0"; 1000000000000 was accepted and overflowed Node's timers.
  it.each(['0', '-1', 'abc', '', '1e3', '1e12', '0.0001', '86400.5', '1000000000000'])(
    'bad timeout %j',
    (v) =>
      expect(() => parseTimeout(v)).toThrow(
        `invalid timeout "${v}": expected seconds from 0.001 to 86400, in digits (e.g. 60 or 2.5)`,
      ),
  );
  it.each([
    ['0', 0],
    ['3', 3],
  ])('retries %s', (v, n) => expect(parseRetries(v)).toBe(n));
  it.each(['-1', '1.5', 'x', '101'])('bad retries %j', (v) => expect(() => parseRetries(v)).toThrow());
  it.each([
    ['https://api.example.com/', 'https://api.example.com'],
    ['http://127.0.0.1:8080/base//', 'http://127.0.0.1:8080/base'],
  ])('url %s', (v, want) => expect(parseUrl(v)).toBe(want));
  it.each(['ftp://x', 'not a url', 'https://user:pw@host'])('bad url %j', (v) =>
    expect(() => parseUrl(v)).toThrow(),
  );
  it.each([
    ['password', 'password'],
    ['client_credentials', 'client_credentials'],
    ['client-credentials', 'client_credentials'],
  ])('grant %s', (v, want) => expect(parseGrant(v)).toBe(want));
  it.each(['', 'implicit', 'Password', 'client credentials'])('bad grant %j', (v) =>
    expect(() => parseGrant(v)).toThrow(/expected password or client_credentials/),
  );
  it('a service account has no user: PRS_USERNAME is not used with PRS_GRANT=client_credentials', () => {
    const s = resolveSettings({}, { PRS_GRANT: 'client_credentials', PRS_USERNAME: 'demo' }, {});
    expect(s.grant).toBe('client_credentials');
    expect(s.username).toBeUndefined();
    expect(resolveSettings({}, {}, {}).grant).toBe('password');
    expect(() => resolveSettings({}, { PRS_GRANT: 'robot' }, {})).toThrow(
      /invalid grant "robot".*\(from PRS_GRANT\)/,
    );
  });
});

describe('isServiceAccount: the client-credentials grant', () => {
  it.each<[{ grant?: string }, boolean]>([
    [{ grant: 'client_credentials' }, true],
    [{ grant: 'password' }, false],
    [{}, false],
  ])('%o: %s', (s, want) => expect(isServiceAccount(s)).toBe(want));
});
