/**
 * The one place that reads the environment. Everything else receives a `Settings` (or `Env`) value.
 * Precedence everywhere: flag > environment > profile > built-in default.
 */
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { ProfileData, Store } from './auth/types.js';
import type { GlobalOptions } from './cli.js';
import { UsageError } from './errors.js';
import { redactPingUrl, redactUrlPassword } from './redact.js';

export type Env = Readonly<Record<string, string | undefined>>;

/** Keys accepted by `prs config` and stored per profile. */
export const SETTING_KEYS = [
  'base-url',
  'auth-url',
  'realm',
  'client-id',
  'tenant',
  'username',
  'rate-limit',
  'timeout',
  'retries',
  'limiter',
  'cache',
  'cache-size',
  'grant',
  'log-format',
  'metrics-file',
  'ping-url',
] as const;
export type SettingKey = (typeof SETTING_KEYS)[number];
export type SettingValues = Partial<Record<SettingKey, string>>;

/** The environment variable behind each setting key. */
export const SETTING_ENV: Record<SettingKey, string> = {
  'base-url': 'PRS_BASE_URL',
  'auth-url': 'PRS_AUTH_URL',
  realm: 'PRS_REALM',
  'client-id': 'PRS_CLIENT_ID',
  tenant: 'PRS_TENANT',
  username: 'PRS_USERNAME',
  'rate-limit': 'PRS_RATE_LIMIT',
  timeout: 'PRS_TIMEOUT',
  retries: 'PRS_RETRIES',
  limiter: 'PRS_LIMITER',
  cache: 'PRS_CACHE',
  'cache-size': 'PRS_CACHE_SIZE',
  grant: 'PRS_GRANT',
  'log-format': 'PRS_LOG_FORMAT',
  'metrics-file': 'PRS_METRICS_FILE',
  'ping-url': 'PRS_PING_URL',
};

export const DEFAULTS = {
  timeout: '60',
  retries: '3',
  'rate-limit': '4/60s',
  cache: 'off',
  'cache-size': '1GiB',
  grant: 'password',
  'log-format': 'text',
  profile: 'default',
} as const;

export type LogFormat = 'text' | 'json';

/** How prs signs in: a user's password grant, or a service account's client-credentials grant. */
export type GrantType = 'password' | 'client_credentials';

export interface RateLimit {
  limit: number;
  windowMs: number;
}

export interface Settings {
  profile: string;
  /** Where the credential store lives: PRS_CONFIG_DIR, else $XDG_CONFIG_HOME/prs, else ~/.config/prs. */
  configDir: string;
  /** Where shared limiter state lives: PRS_CACHE_DIR, else $XDG_CACHE_HOME/prs, else ~/.cache/prs. */
  cacheDir: string;
  baseUrl?: string;
  authUrl?: string;
  realm?: string;
  clientId?: string;
  tenant?: string;
  username?: string;
  timeoutMs: number;
  retries: number;
  rateLimit: RateLimit;
  /** Where the rate-limit state is shared: a redis:// or rediss:// URL; absent → the file in cacheDir. */
  limiter?: string;
  /** The answer cache (CLI.md): reuse stored answers up to this age (ms); undefined = off. */
  cacheMaxAgeMs?: number;
  /** The answer cache's bound in bytes (`cache-size`): the least recently used entries go first. */
  cacheMaxBytes: number;
  /** `client_credentials`: a service account (no user, no password; CLI.md "Session"). */
  grant: GrantType;
  /** `json`: every stderr message as one JSON object per line (CLI.md "Unattended runs"). */
  logFormat: LogFormat;
  /** After each report/export run, Prometheus text metrics are written here (atomically). */
  metricsFile?: string;
  /** A Healthchecks-style monitor (a secret: shown redacted). */
  pingUrl?: string;
  /** PRS_TOKEN: a ready access token, used as is. */
  token?: string;
  /** From the environment only (PRS_PASSWORD, PRS_CLIENT_SECRET); saved ones come from the store. */
  password?: string;
  clientSecret?: string;
  /** PRS_DEBUG=1: print stack traces. */
  debug: boolean;
  /** Proxy settings from HTTPS_PROXY / HTTP_PROXY / NO_PROXY (either case). */
  proxy: { httpProxy?: string; httpsProxy?: string; noProxy?: string };
  /** Running under CI (CI env set): error hints name environment variables instead of `prs login`. */
  ci: boolean;
  /** Which layer each setting came from, for `prs config list` and `auth status`. */
  sources: Partial<Record<SettingKey, SettingSource>>;
}

/** The global flags as setting values (the resolver's `flags` layer). */
export function globalSettingValues(g: GlobalOptions): SettingValues {
  const v: SettingValues = {};
  if (g.baseUrl !== undefined) v['base-url'] = g.baseUrl;
  if (g.tenant !== undefined) v.tenant = g.tenant;
  if (g.timeout !== undefined) v.timeout = g.timeout;
  if (g.retries !== undefined) v.retries = g.retries;
  if (g.rateLimit !== undefined) v['rate-limit'] = g.rateLimit;
  if (g.limiter !== undefined) v.limiter = g.limiter;
  if (g.cache !== undefined) v.cache = g.cache;
  if (g.logFormat !== undefined) v['log-format'] = g.logFormat;
  if (g.metricsFile !== undefined) v['metrics-file'] = g.metricsFile;
  if (g.pingUrl !== undefined) v['ping-url'] = g.pingUrl;
  return v;
}

/** The one "profile does not exist" check (see Deps.profile). */
export function storedProfile(
  store: Pick<Store, 'get' | 'profileNames'>,
  name: string,
  allowNew = false,
): ProfileData | undefined {
  const stored = store.get(name);
  // A named profile that was never created is a typo far more often than a wish for an empty one.
  if (!stored && name !== 'default' && !allowNew) {
    const names = store.profileNames();
    throw new UsageError(`profile "${name}" does not exist`, {
      hint: names.length ? `profiles: ${names.join(', ')}` : 'create it with `prs login --profile <name>`',
    });
  }
  return stored;
}

/** Directories only, for code that must find the store before a profile can be read. */
export function resolveDirs(env: Env): { configDir: string; cacheDir: string } {
  const home = env.HOME || homedir();
  const configDir = env.PRS_CONFIG_DIR || join(env.XDG_CONFIG_HOME || join(home, '.config'), 'prs');
  const cacheDir = env.PRS_CACHE_DIR || join(env.XDG_CACHE_HOME || join(home, '.cache'), 'prs');
  return { configDir, cacheDir };
}

/** Profile name: flag > PRS_PROFILE > "default". An empty PRS_PROFILE is unset, as for every PRS_* setting. */
export function resolveProfileName(flag: string | undefined, env: Env): string {
  const name = flag ?? (env.PRS_PROFILE || undefined) ?? DEFAULTS.profile;
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/.test(name)) {
    throw new UsageError(`invalid profile name "${name}"`, {
      hint: 'use letters, digits, ".", "_" or "-"',
    });
  }
  return name;
}

export type SettingSource = 'flag' | 'env' | 'profile' | 'default';

/**
 * The precedence rule, written once: each key's raw value and the layer it came from (flag >
 * environment > profile > default; an empty variable is unset). resolveSettings validates these;
 * `prs config list/get` shows them.
 */
export function effectiveSettings(
  flags: SettingValues,
  env: Env,
  profile: SettingValues,
): Record<SettingKey, { value?: string; source?: SettingSource }> {
  const layer = (key: SettingKey): { value?: string; source?: SettingSource } => {
    const fromEnv = env[SETTING_ENV[key]];
    if (flags[key] !== undefined) return { value: flags[key], source: 'flag' };
    if (fromEnv !== undefined && fromEnv !== '') return { value: fromEnv, source: 'env' };
    if (profile[key] !== undefined) return { value: profile[key], source: 'profile' };
    if (key in DEFAULTS) return { value: DEFAULTS[key as keyof typeof DEFAULTS], source: 'default' };
    return {};
  };
  return Object.fromEntries(SETTING_KEYS.map((key) => [key, layer(key)])) as Record<
    SettingKey,
    { value?: string; source?: SettingSource }
  >;
}

/**
 * Merges flags, environment, the stored profile and defaults into validated settings.
 * Throws UsageError for malformed values, naming where the bad value came from.
 */
export function resolveSettings(
  flags: SettingValues & { profile?: string },
  env: Env,
  profile: SettingValues = {},
): Settings {
  const effective = effectiveSettings(flags, env, profile);
  const sources: Settings['sources'] = {};
  const pick = (key: SettingKey): string | undefined => {
    const { value, source } = effective[key];
    if (source) sources[key] = source;
    // Every setting ends up in a header, a URL or a form: a control character there would split a
    // header (`T1\nX-Evil: 1`) or be silently dropped from a URL. Bad input, before any request.
    const bad = value === undefined ? undefined : controlCharacters(key, value);
    if (bad) throw new UsageError(`${bad} (from ${where(key)})`, repair(key));
    return value;
  };
  const where = (key: SettingKey) =>
    sources[key] === 'env'
      ? SETTING_ENV[key]
      : sources[key] === 'profile'
        ? `profile setting ${key}`
        : `--${key}`;
  // A hand-edited bad value in the config file: say how to repair it with prs itself.
  const repair = (key: SettingKey) => {
    if (sources[key] !== 'profile') return {};
    const name = resolveProfileName(flags.profile, env);
    const prs = name === DEFAULTS.profile ? 'prs' : `prs --profile ${name}`;
    return { hint: `fix it with \`${prs} config set ${key} <value>\` or \`${prs} config unset ${key}\`` };
  };
  const checked = <T>(key: SettingKey, parse: (v: string) => T): T => {
    const raw = pick(key)!;
    try {
      return parse(raw);
    } catch (err) {
      throw new UsageError(`${(err as Error).message} (from ${where(key)})`, repair(key));
    }
  };
  /** A key whose empty value means unset; otherwise checked by its one parser (checkSetting). */
  const optional = (key: SettingKey): string | undefined => {
    const raw = pick(key);
    if (raw === undefined || raw === '') return undefined;
    try {
      return checkSetting(key, raw);
    } catch (err) {
      throw new UsageError(`${(err as Error).message} (from ${where(key)})`, repair(key));
    }
  };

  const grant = checked('grant', parseGrant);
  return {
    profile: resolveProfileName(flags.profile, env),
    ...resolveDirs(env),
    baseUrl: optional('base-url'),
    authUrl: optional('auth-url'),
    realm: optional('realm'),
    clientId: pick('client-id') || undefined,
    tenant: pick('tenant') || undefined,
    // A service account has no user: a PRS_USERNAME left in the environment names nobody.
    username: grant === 'client_credentials' ? undefined : pick('username') || undefined,
    timeoutMs: checked('timeout', parseTimeout),
    retries: checked('retries', parseRetries),
    rateLimit: checked('rate-limit', parseRateLimit),
    limiter: pick('limiter') ? checked('limiter', parseLimiterUrl) : undefined,
    cacheMaxAgeMs: checked('cache', parseMaxAge),
    cacheMaxBytes: checked('cache-size', parseSize),
    grant,
    logFormat: checked('log-format', parseLogFormat),
    metricsFile: optional('metrics-file'),
    pingUrl: optional('ping-url'),
    token: headerSafe('PRS_TOKEN', env.PRS_TOKEN),
    password: env.PRS_PASSWORD || undefined,
    clientSecret: env.PRS_CLIENT_SECRET || undefined,
    debug: isDebug(env),
    ci: isCI(env),
    proxy: resolveProxy(env),
    sources,
  };
}

/**
 * Each key's check, written once: the resolver, `config set` and login's prompts use it. Returns the
 * value as it is stored (URLs normalised); throws Error with a one-line message naming the value.
 */
export function checkSetting(key: SettingKey, value: string): string {
  const v = value.trim();
  const bad = controlCharacters(key, v);
  if (bad) throw new Error(bad);
  switch (key) {
    case 'base-url':
      return parseUrl(v);
    case 'auth-url':
      return parseAuthUrl(v);
    case 'realm':
      return parseRealm(v);
    case 'rate-limit':
      parseRateLimit(v);
      return v;
    case 'timeout':
      parseTimeout(v);
      return v;
    case 'retries':
      parseRetries(v);
      return v;
    case 'limiter':
      return parseLimiterUrl(v);
    case 'grant':
      return parseGrant(v);
    case 'log-format':
      return parseLogFormat(v);
    case 'ping-url':
      return parsePingUrl(v);
    case 'cache':
      parseMaxAge(v);
      return v;
    case 'cache-size':
      parseSize(v);
      return v;
    default:
      if (v === '') throw new Error(`invalid ${key} "${value}"`);
      return v;
  }
}

/** `text` (the default) or `json`. */
export function parseLogFormat(value: string): LogFormat {
  const v = value.trim();
  if (v === 'text' || v === 'json') return v;
  throw new Error(`invalid log format "${value}": expected text or json`);
}

/**
 * A monitor's ping URL (Healthchecks: https://hc-ping.com/<uuid>). It is a secret, so a bad one is
 * named without its path: whoever reads the log must not be able to ping it.
 */
export function parsePingUrl(value: string): string {
  let u: URL;
  try {
    u = new URL(value);
  } catch {
    throw new Error('invalid ping URL: expected http(s)://host/…');
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:')
    throw new Error(`invalid ping URL (${u.protocol}//…): use http or https`);
  if (u.search || u.hash) throw new Error(`invalid ping URL (${u.host}/…): no query or fragment expected`);
  return u.toString().replace(/\/+$/, '');
}

/** The Keycloak base URL, before /realms: the token URL pasted whole is refused with the way out. */
export function parseAuthUrl(value: string): string {
  const url = parseUrl(value);
  if (/\/realms(\/|$)/.test(new URL(url).pathname))
    throw new Error(`invalid auth URL "${value}": give the part before /realms`);
  return url;
}

/** A realm is a name: a URL typed there (a common slip at the prompt) is refused. */
export function parseRealm(value: string): string {
  // Keycloak allows odd realm names (they are URL-encoded into the path), but never a URL.
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(value) || value === '')
    throw new Error(`invalid realm "${value}": a realm is a name such as "acme", not a URL`);
  return value;
}

/** C0 controls and DEL: never part of a header value, a URL or a name. */
const CONTROL = /[\u0000-\u001f\u007f]/;

/** Why a setting's value cannot be used, when it holds a control character (also `config set`'s check). */
export function controlCharacters(key: SettingKey, value: string): string | undefined {
  if (!CONTROL.test(value)) return undefined;
  const shown =
    key === 'limiter' ? redactUrlPassword(value) : key === 'ping-url' ? redactPingUrl(value) : value;
  return `invalid ${key} "${shown}": control characters are not allowed`;
}

/** An environment value sent as a header, shown by its name only (a token is a secret). */
function headerSafe(name: string, value: string | undefined): string | undefined {
  if (!value) return undefined;
  if (CONTROL.test(value)) throw new UsageError(`invalid ${name}: it contains control characters`);
  return value;
}

export function resolveProxy(env: Env): Settings['proxy'] {
  const get = (name: string) => env[name] || env[name.toLowerCase()] || undefined;
  return { httpProxy: get('HTTP_PROXY'), httpsProxy: get('HTTPS_PROXY'), noProxy: get('NO_PROXY') };
}

/** PRS_DEBUG=1 (or true): stack traces with errors, mapped to src/*.ts lines (src/entry.ts). */
export function isDebug(env: Env): boolean {
  return env.PRS_DEBUG === '1' || env.PRS_DEBUG === 'true';
}

export function isCI(env: Env): boolean {
  return !!env.CI && env.CI !== 'false' && env.CI !== '0';
}

/** Checks a limiter URL (config set, settings): redis:// or rediss://, a host, an optional numeric db. */
export function parseLimiterUrl(value: string): string {
  let u: URL;
  try {
    u = new URL(value);
  } catch {
    throw new Error(
      `invalid limiter URL "${redactUrlPassword(value)}": expected redis://[user:password@]host:port[/db]`,
    );
  }
  const shown = redactUrlPassword(value);
  if (u.protocol !== 'redis:' && u.protocol !== 'rediss:') {
    throw new Error(`invalid limiter URL "${shown}": it must start with redis:// or rediss://`);
  }
  if (!u.hostname) throw new Error(`invalid limiter URL "${shown}": no host`);
  if (!/^(\/\d{0,5})?$/.test(u.pathname)) {
    throw new Error(`invalid limiter URL "${shown}": the path must be a database number, e.g. /0`);
  }
  if (u.search || u.hash) throw new Error(`invalid limiter URL "${shown}": no query or fragment expected`);
  return value;
}

/** `password` or `client_credentials` (the OAuth grant_type names; `client-credentials` is accepted too). */
export function parseGrant(value: string): GrantType {
  const v = value.trim().replace('-', '_');
  if (v === 'password' || v === 'client_credentials') return v;
  throw new Error(`invalid grant "${value}": expected password or client_credentials`);
}

/** A rate limit as its user writes it: "4/60s", "10/500ms" (parseRateLimit's inverse). */
export function rateText(rate: RateLimit): string {
  return rate.windowMs % 1000 === 0
    ? `${rate.limit}/${rate.windowMs / 1000}s`
    : `${rate.limit}/${rate.windowMs}ms`;
}

/** "4/60s", "4/2s", "10/1m", "100/500ms", "4/60" (seconds) → { limit, windowMs }. */
export function parseRateLimit(value: string): RateLimit {
  const m = /^\s*(\d+)\s*\/\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h)?\s*$/.exec(value);
  if (!m) throw new Error(`invalid rate limit "${value}": expected <requests>/<window>, e.g. 4/60s`);
  const limit = Number(m[1]);
  const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[(m[3] ?? 's') as 'ms' | 's' | 'm' | 'h'];
  const windowMs = Math.round(Number(m[2]) * unit);
  if (limit < 1 || windowMs < 1)
    throw new Error(`invalid rate limit "${value}": both numbers must be positive`);
  return { limit, windowMs };
}

/**
 * The answer cache's max-age: `30m`, `12h`, `7d` (also `s`, `w`) → milliseconds; `off` → undefined.
 * A bare number has no unit anyone could guess, so it is refused.
 */
export function parseMaxAge(value: string): number | undefined {
  const v = value.trim().toLowerCase();
  if (v === 'off') return undefined;
  const m = /^(\d{1,6})(s|m|h|d|w)$/.exec(v);
  const ms = m
    ? Number(m[1]) * { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 }[m[2] as 's']
    : 0;
  if (!(ms > 0)) {
    throw new Error(`invalid cache max-age "${value}": expected a duration such as 30m, 12h or 7d, or off`);
  }
  return ms;
}

/** A size: `1GiB`, `500MiB`, `64KiB`, `2GB`, `1048576` (bytes) → bytes; must be > 0. */
export function parseSize(value: string): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(b|k|kb|kib|m|mb|mib|g|gb|gib|t|tb|tib)?\s*$/i.exec(value);
  const unit = (m?.[2] ?? 'b').toLowerCase();
  const scale: Record<string, number> = {
    b: 1,
    k: 1024,
    kb: 1e3,
    kib: 1024,
    m: 1024 ** 2,
    mb: 1e6,
    mib: 1024 ** 2,
  };
  Object.assign(scale, { g: 1024 ** 3, gb: 1e9, gib: 1024 ** 3, t: 1024 ** 4, tb: 1e12, tib: 1024 ** 4 });
  const bytes = m ? Math.floor(Number(m[1]) * scale[unit]!) : 0;
  if (!(bytes > 0) || !Number.isSafeInteger(bytes)) {
    throw new Error(`invalid cache size "${value}": expected a size such as 1GiB, 500MiB or 64KiB`);
  }
  return bytes;
}

/**
 * The longest timeout: one day. Longer is no timeout at all in practice, and past 24.8 days Node's
 * timers overflow and fire at once (a TimeoutOverflowWarning, then a 1 ms timeout).
 */
export const MAX_TIMEOUT_SECONDS = 86_400;

/** Seconds (digits, may be fractional) → milliseconds; from 1 ms to MAX_TIMEOUT_SECONDS. */
export function parseTimeout(value: string): number {
  const ms = Math.round(Number(value) * 1000);
  if (!/^\s*\d+(\.\d+)?\s*$/.test(value) || !(ms >= 1) || ms > MAX_TIMEOUT_SECONDS * 1000) {
    throw new Error(
      `invalid timeout "${value}": expected seconds from 0.001 to ${MAX_TIMEOUT_SECONDS}, in digits (e.g. 60 or 2.5)`,
    );
  }
  return ms;
}

export function parseRetries(value: string): number {
  if (!/^\s*\d{1,3}\s*$/.test(value) || Number(value) > 100) {
    throw new Error(`invalid retries "${value}": expected a whole number from 0 to 100`);
  }
  return Number(value);
}

/** An http(s) URL without a trailing slash. */
export function parseUrl(value: string): string {
  let u: URL;
  try {
    u = new URL(value);
  } catch {
    throw new Error(`invalid URL "${value}"`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:')
    throw new Error(`invalid URL "${value}": use http or https`);
  if (u.username || u.password) throw new Error('URLs must not carry credentials');
  return u.toString().replace(/\/+$/, '');
}
