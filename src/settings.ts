import { type Env, resolveDirs } from './dirs.js';
import { UsageError } from './errors.js';
import { checkNameTemplate } from './fs/file-name.js';
import { wholeNumber } from './input.js';
import { redactPingUrl, redactUrlPassword } from './redact.js';

export type Completion =
  | 'file'
  | 'dir'
  | 'profiles'
  | { values: readonly string[]; descriptions?: Readonly<Record<string, string>> };

/**
 * One setting or global flag: commander, `prs config`, the resolver, masking, completions and hit.ts read
 * it. Every row but a switch is a setting: env PRS_<KEY>, and a config key unless `config: false`.
 */
export interface SettingRow {
  /** Commander's spelling: `--base-url <url>` (a value), `-q, --quiet` or `--no-color` (a switch). */
  flag?: string;
  on?: 'login';
  config?: false;
  default?: string;
  parse?: (value: string) => unknown;
  mask?: (value: string) => string;
  field?: string;
  help: string;
  complete?: Completion;
}

function choice<T extends string>(what: string, ...values: T[]): (value: string) => T {
  return (value) => {
    const v = value.trim().replace('-', '_') as T;
    if (values.includes(v)) return v;
    throw new Error(`invalid ${what} "${value}": expected ${values.join(' or ')}`);
  };
}

const parseLogFormat = choice('log format', 'text', 'json');
export const parseGrant = choice('grant', 'password', 'client_credentials');
/** A service account signs in by the client-credentials grant: no user, no refresh token. */
export const isServiceAccount = (s: { grant?: unknown }) => s.grant === 'client_credentials';

export const SETTINGS = {
  profile: {
    flag: '--profile <name>',
    config: false,
    default: 'default',
    help: 'named settings and session',
    complete: 'profiles',
  },
  'base-url': {
    flag: '--base-url <url>',
    parse: parseUrl,
    help: 'service base URL, the part before /api/v1',
  },
  'auth-url': {
    flag: '--auth-url <url>',
    on: 'login',
    parse: parseAuthUrl,
    help: 'Keycloak base URL, before /realms',
  },
  realm: { flag: '--realm <realm>', on: 'login', parse: parseRealm, help: 'Keycloak realm' },
  'client-id': { flag: '--client-id <id>', on: 'login', help: 'OAuth client id' },
  tenant: { flag: '--tenant <id>', help: 'tenant id, sent as X-CLIENT-ID' },
  username: { flag: '--username <user>', on: 'login', help: 'user name' },
  timeout: {
    flag: '--timeout <seconds>',
    default: '60',
    parse: parseTimeout,
    field: 'timeoutMs',
    help: 'per-request timeout',
  },
  retries: {
    flag: '--retries <n>',
    default: '3',
    parse: parseRetries,
    help: 'retries for 429, 5xx and network failures',
  },
  'rate-limit': {
    flag: '--rate-limit <n/window>',
    default: '4/60s',
    parse: parseRateLimit,
    help: 'client-side limit for the JSON endpoint',
  },
  limiter: {
    flag: '--limiter <url>',
    parse: parseLimiterUrl,
    mask: redactUrlPassword,
    help: 'share the rate limit between machines: redis://[user:password@]host:port[/db]',
  },
  cache: {
    flag: '--cache <max-age>',
    default: 'off',
    parse: parseMaxAge,
    field: 'cacheMaxAgeMs',
    help: 'reuse stored report answers for past dates up to this age: 30m, 12h, 7d, off',
  },
  'no-cache': {
    flag: '--no-cache',
    help: 'neither read nor write the answer cache this run (report, diff); --cache is then off',
  },
  'cache-size': {
    default: '1GiB',
    parse: parseSize,
    field: 'cacheMaxBytes',
    help: "the answer cache's bound: the least recently used answers go first",
  },
  grant: {
    default: 'password',
    parse: parseGrant,
    help: 'password, or client_credentials for a service account',
  },
  'name-template': {
    parse: checkNameTemplate,
    help: "export file names: {date} {name} {type} {portfolio}, e.g. '{date}_{name}_{type}' (export --name-template)",
  },
  'log-format': {
    flag: '--log-format <text|json>',
    default: 'text',
    parse: parseLogFormat,
    help: 'json: every stderr message one JSON object per line',
    complete: { values: ['text', 'json'] },
  },
  'metrics-file': {
    flag: '--metrics-file <path>',
    help: 'after each report/export/diff run, write Prometheus metrics there',
    complete: 'file',
  },
  'ping-url': {
    flag: '--ping-url <url>',
    parse: parsePingUrl,
    mask: redactPingUrl,
    help: 'tell a Healthchecks-style monitor of each run: start, success, failure',
  },
  quiet: { flag: '-q, --quiet', help: 'no progress, notes or hints on stderr' },
  verbose: { flag: '-v, --verbose', help: 'one line per HTTP request/response on stderr, secrets redacted' },
  color: { flag: '--no-color', help: 'no colour (also NO_COLOR; FORCE_COLOR forces it)' },
} as const satisfies Record<string, SettingRow>;

type Rows = typeof SETTINGS;
type Name = keyof Rows;
type Camel<S extends string> = S extends `${infer A}-${infer B}` ? `${A}${Capitalize<Camel<B>>}` : S;
type TakesValue<K extends Name> = Rows[K] extends { flag: string }
  ? Rows[K] extends { flag: `${string}<${string}` }
    ? true
    : false
  : true;

export type GlobalOptions = {
  [K in Name as Rows[K] extends { flag: string; on?: undefined }
    ? Camel<K>
    : never]?: TakesValue<K> extends true ? string : boolean;
};

/** `prs login`'s flags of the settings it stores. */
export type LoginFlags = { [K in Name as Rows[K] extends { on: 'login' } ? Camel<K> : never]?: string };

export type SettingKey = {
  [K in Name]: TakesValue<K> extends true ? (Rows[K] extends { config: false } ? never : K) : never;
}[Name];
export type SettingValues = Partial<Record<SettingKey, string>>;

const names = Object.keys(SETTINGS) as Name[];
const isSwitch = (row: SettingRow) => row.flag !== undefined && !row.flag.includes('<');
// Made once per name: a report reads the rows over and over.
const rows = new Map<Name, SettingRow & { env?: string }>();
export const settingRow = (name: Name): SettingRow & { env?: string } => {
  const r: SettingRow = SETTINGS[name];
  if (!rows.has(name))
    rows.set(name, isSwitch(r) ? r : { ...r, env: `PRS_${name.toUpperCase().replaceAll('-', '_')}` });
  return rows.get(name)!;
};
const row = settingRow;
export const SETTING_KEYS = names.filter((k) => !isSwitch(row(k)) && row(k).config !== false) as SettingKey[];
export const GLOBAL_FLAGS = names.filter((k) => row(k).flag && !row(k).on);
export const LOGIN_FLAGS = names.filter((k) => row(k).on === 'login');

export const longFlag = (name: Name): string => /--[\w-]+/.exec(row(name).flag ?? '')![0];
export const fieldOf = (name: string): string => name.replace(/-(\w)/g, (_, c: string) => c.toUpperCase());

/** A flag's row as commander shows it: the help names the variable and the default. */
export function settingFlag(name: Name): { flag: string; help: string; complete?: Completion } {
  const r = row(name);
  const fallback = r.default && `default ${/^\d+$/.test(r.default) ? r.default : `"${r.default}"`}`;
  const tail = [r.env && `env ${r.env}`, fallback].filter(Boolean).join('; ');
  return { flag: r.flag!, help: tail ? `${r.help} (${tail})` : r.help, complete: r.complete };
}

export function shownValue(key: Name, value: string): string {
  return row(key).mask?.(value) ?? value;
}

/** A global switch (`-q`, `--no-color`) in an argv commander has not read, also inside `-qv`. */
export function switchInArgv(argv: readonly string[], name: Name): boolean {
  const flag = row(name).flag ?? '';
  const short = /^-(\w),/.exec(flag)?.[1];
  // Every letter of a short group before this one must be a switch (`-oq` is `-o q`).
  const switches = names.map((n) => /^-(\w), --[\w-]+$/.exec(row(n).flag ?? '')?.[1] ?? '').join('');
  const group = short ? new RegExp(`^-[${switches}hV]*${short}`) : undefined;
  const end = argv.indexOf('--');
  return argv.slice(0, end < 0 ? argv.length : end).some((arg) => arg === longFlag(name) || group?.test(arg));
}

/** By flag (the last before `--`) or variable, before commander and the settings have read them. */
export function jsonLogWanted(argv: readonly string[], env: Env): boolean {
  const flag = longFlag('log-format');
  let value: string | undefined;
  for (let i = 0; i < argv.length && argv[i] !== '--'; i++) {
    if (argv[i] === flag) value = argv[i + 1];
    else if (argv[i]!.startsWith(`${flag}=`)) value = argv[i]!.slice(flag.length + 1);
  }
  // The flag without its value is commander's error to say, in the variable's format.
  value ??= env[row('log-format').env!] || undefined;
  return value?.trim() === 'json';
}

type Parsed<K extends Name> = Rows[K] extends { parse: (v: string) => infer T } ? T : string;
type FieldName<K extends Name> = Rows[K] extends { field: infer F extends string } ? F : Camel<K>;
/** A default that parses to a value: set whatever the user does. */
type Always<K extends SettingKey> = Rows[K] extends { default: string }
  ? undefined extends Parsed<K>
    ? never
    : K
  : never;
type SettingFields = { [K in SettingKey as K extends Always<K> ? FieldName<K> : never]: Parsed<K> } & {
  [K in SettingKey as K extends Always<K> ? never : FieldName<K>]?: Exclude<Parsed<K>, undefined>;
};

export interface RateLimit {
  limit: number;
  windowMs: number;
}

export interface Settings extends SettingFields {
  profile: string;
  configDir: string;
  cacheDir: string;
  token?: string;
  /** From the environment only; saved ones come from the store. */
  password?: string;
  clientSecret?: string;
  proxy: { httpProxy?: string; httpsProxy?: string; noProxy?: string };
  /** Error hints name environment variables instead of `prs login`. */
  ci: boolean;
  sources: Partial<Record<SettingKey, SettingSource>>;
}

export function globalSettingValues(g: GlobalOptions): SettingValues {
  const v: SettingValues = {};
  for (const key of SETTING_KEYS) {
    const value = row(key).on ? undefined : (g as Record<string, unknown>)[fieldOf(key)];
    if (typeof value === 'string') v[key] = value;
  }
  return v;
}

type ProfileStore<P> = { get(name: string): P | undefined; profileNames(): readonly string[] };

export function storedProfile<P>(store: ProfileStore<P>, name: string, allowNew = false): P | undefined {
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

export function resolveProfileName(flag: string | undefined, env: Env): string {
  const name = flag ?? (env[row('profile').env!] || undefined) ?? SETTINGS.profile.default;
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/.test(name))
    throw new UsageError(`invalid profile name "${name}"`, { hint: 'use letters, digits, ".", "_" or "-"' });
  return name;
}

type SettingSource = 'flag' | 'env' | 'profile' | 'default';
type Layer = { value?: string; source?: SettingSource };

/** Each key's raw value and its layer (an empty variable is unset); `prs config list/get` shows them. */
export function effectiveSettings(
  flags: SettingValues,
  env: Env,
  profile: SettingValues,
): Record<SettingKey, Layer> {
  const layer = (key: SettingKey): Layer => {
    const { env: name, default: fallback } = row(key);
    const fromEnv = name === undefined ? undefined : env[name];
    if (flags[key] !== undefined) return { value: flags[key], source: 'flag' };
    if (fromEnv !== undefined && fromEnv !== '') return { value: fromEnv, source: 'env' };
    if (profile[key] !== undefined) return { value: profile[key], source: 'profile' };
    if (fallback !== undefined) return { value: fallback, source: 'default' };
    return {};
  };
  return Object.fromEntries(SETTING_KEYS.map((key) => [key, layer(key)])) as Record<SettingKey, Layer>;
}

/** Validated settings; a malformed value is a UsageError naming where it came from (`lenient`: unset). */
export function resolveSettings(
  flags: SettingValues & { profile?: string },
  env: Env,
  profile: SettingValues = {},
  lenient = false,
): Settings {
  const effective = effectiveSettings(flags, env, profile);
  const profileName = resolveProfileName(flags.profile, env);
  const sources: Settings['sources'] = {};
  const where = (key: SettingKey) =>
    ({ env: row(key).env, profile: `profile setting ${key}` })[sources[key] as string] ?? `--${key}`;
  const repair = (key: SettingKey) => {
    if (sources[key] !== 'profile') return {};
    const prs = profileName === SETTINGS.profile.default ? 'prs' : `prs --profile ${profileName}`;
    return { hint: `fix it with \`${prs} config set ${key} <value>\` or \`${prs} config unset ${key}\`` };
  };
  const value = (key: SettingKey): unknown => {
    const { value: raw, source } = effective[key];
    if (source) sources[key] = source;
    if (raw === undefined || (raw === '' && row(key).default === undefined)) return undefined;
    try {
      return parseSetting(key, raw);
    } catch (err) {
      if (lenient) return undefined;
      throw new UsageError(`${(err as Error).message} (from ${where(key)})`, repair(key));
    }
  };
  const fields: Record<string, unknown> = {};
  for (const key of SETTING_KEYS) fields[row(key).field ?? fieldOf(key)] = value(key);
  // A service account has no user: a PRS_USERNAME left in the environment names nobody.
  if (isServiceAccount(fields)) {
    fields.username = undefined;
    delete sources.username;
  }
  // A secret: named only.
  if (CONTROL.test(env.PRS_TOKEN ?? '') && !lenient)
    throw new UsageError('invalid PRS_TOKEN: it contains control characters');
  return {
    ...(fields as unknown as SettingFields),
    profile: profileName,
    ...resolveDirs(env),
    token: env.PRS_TOKEN || undefined,
    password: env.PRS_PASSWORD || undefined,
    clientSecret: env.PRS_CLIENT_SECRET || undefined,
    ci: !!env.CI && env.CI !== 'false' && env.CI !== '0',
    proxy: resolveProxy(env, lenient),
    sources,
  };
}

export function settingsFrom(
  store: ProfileStore<{ settings?: SettingValues }>,
  globals: GlobalOptions,
  env: Env,
  o: { extra?: SettingValues; allowNewProfile?: boolean; lenient?: boolean } = {},
): Settings {
  const stored = storedProfile(store, resolveProfileName(globals.profile, env), o.allowNewProfile);
  const flags = { ...globalSettingValues(globals), ...o.extra, profile: globals.profile };
  return resolveSettings(flags, env, stored?.settings ?? {}, o.lenient);
}

/** `config set` and login's prompts: the value as stored (URLs normalised); throws a one-line Error. */
export function checkSetting(key: SettingKey, value: string): string {
  const v = value.trim();
  if (v === '' && !row(key).parse) throw new Error(`invalid ${key} "${value}"`);
  const parsed = parseSetting(key, v);
  return typeof parsed === 'string' ? parsed : v;
}

/** Every setting ends up in a header, a URL or a form, where a control character splits or vanishes. */
function parseSetting(key: SettingKey, value: string): unknown {
  if (CONTROL.test(value))
    throw new Error(`invalid ${key} "${shownValue(key, value)}": control characters are not allowed`);
  const { parse } = row(key);
  return parse ? parse(value.trim()) : value;
}

/** A secret: a bad one is named without its path. */
function parsePingUrl(value: string): string {
  if (!URL.canParse(value)) throw new Error('invalid ping URL: expected http(s)://host/…');
  const u = new URL(value);
  if (u.protocol !== 'http:' && u.protocol !== 'https:')
    throw new Error(`invalid ping URL (${u.protocol}//…): use http or https`);
  if (u.search || u.hash) throw new Error(`invalid ping URL (${u.host}/…): no query or fragment expected`);
  return u.toString().replace(/\/+$/, '');
}

function parseAuthUrl(value: string): string {
  const url = parseUrl(value);
  if (/\/realms(\/|$)/.test(new URL(url).pathname))
    throw new Error(`invalid auth URL "${value}": give the part before /realms`);
  return url;
}

/** Keycloak allows odd realm names (URL-encoded into the path), but a URL there is a slip at the prompt. */
function parseRealm(value: string): string {
  if (/^[a-zA-Z][a-zA-Z0-9+.-]*:\/\//.test(value) || value === '')
    throw new Error(`invalid realm "${value}": a realm is a name such as "acme", not a URL`);
  return value;
}

const CONTROL = /[\u0000-\u001f\u007f]/;

/** A proxy the agent would refuse at the first request: refused here, before anything is sent. */
function resolveProxy(env: Env, lenient: boolean): Settings['proxy'] {
  const get = (name: string) => env[name] || env[name.toLowerCase()] || undefined;
  const proxy = (name: string) => {
    const value = get(name);
    if (!value) return undefined;
    // `proxy.corp:3128`, as curl, Go and Python's requests take it: http://.
    const url = value.includes('://') ? value : `http://${value}`;
    if (isProxyUrl(url)) return url;
    if (lenient) return undefined;
    const shown = redactUrlPassword(value);
    const from = env[name] ? name : name.toLowerCase();
    throw new UsageError(
      `invalid proxy URL "${shown}": expected http://[user:password@]host:port (from ${from})`,
    );
  };
  return { httpProxy: proxy('HTTP_PROXY'), httpsProxy: proxy('HTTPS_PROXY'), noProxy: get('NO_PROXY') };
}

/** What undici's proxy agent takes (socks: its experimental SOCKS5): an origin, no path. */
function isProxyUrl(value: string): boolean {
  const u = URL.canParse(value) ? new URL(value) : undefined;
  return (
    /^(https?|socks5?):$/.test(u?.protocol ?? '') &&
    !!u?.hostname &&
    /^\/?$/.test(u.pathname + u.search + u.hash)
  );
}

export function parseLimiterUrl(value: string): string {
  const shown = redactUrlPassword(value);
  if (!URL.canParse(value))
    throw new Error(`invalid limiter URL "${shown}": expected redis://[user:password@]host:port[/db]`);
  const u = new URL(value);
  if (u.protocol !== 'redis:' && u.protocol !== 'rediss:')
    throw new Error(`invalid limiter URL "${shown}": it must start with redis:// or rediss://`);
  if (!u.hostname) throw new Error(`invalid limiter URL "${shown}": no host`);
  if (!/^(\/\d{0,5})?$/.test(u.pathname))
    throw new Error(`invalid limiter URL "${shown}": the path must be a database number, e.g. /0`);
  const query = [...u.searchParams];
  const seconds = ([k, v]: string[]) => k === 'timeout' && /^\d{1,5}(\.\d{1,3})?$/.test(v!) && Number(v) > 0;
  if (u.hash || !query.every(seconds) || (u.search && query.length === 0))
    throw new Error(`invalid limiter URL "${shown}": the only query expected is ?timeout=<seconds>`);
  return value;
}

export function rateText(rate: RateLimit): string {
  return rate.windowMs % 1000 === 0
    ? `${rate.limit}/${rate.windowMs / 1000}s`
    : `${rate.limit}/${rate.windowMs}ms`;
}

const MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 } as const;

export function parseRateLimit(value: string): RateLimit {
  const m = /^\s*(\d+)\s*\/\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h)?\s*$/.exec(value);
  if (!m) throw new Error(`invalid rate limit "${value}": expected <requests>/<window>, e.g. 4/60s`);
  const limit = Number(m[1]);
  const windowMs = Math.round(Number(m[2]) * MS[(m[3] ?? 's') as 's']);
  if (limit < 1 || windowMs < 1)
    throw new Error(`invalid rate limit "${value}": both numbers must be positive`);
  return { limit, windowMs };
}

/** `30m`, `12h`, `7d` (also `s`, `w`); `off` is undefined. A bare number has no unit anyone could guess. */
export function parseMaxAge(value: string): number | undefined {
  const v = value.trim().toLowerCase();
  if (v === 'off') return undefined;
  const m = /^(\d{1,6})(s|m|h|d|w)$/.exec(v);
  const ms = m ? Number(m[1]) * MS[m[2] as 's'] : 0;
  if (!(ms > 0))
    throw new Error(`invalid cache max-age "${value}": expected a duration such as 30m, 12h or 7d, or off`);
  return ms;
}

export function parseSize(value: string): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(?:[bB]|([kmgtKMGT])([iI][bB]|[bB])?)?\s*$/.exec(value);
  const power = m?.[2] ? 'kmgt'.indexOf(m[2].toLowerCase()) + 1 : 0;
  const base = m?.[3]?.toLowerCase() === 'b' ? 1000 : 1024;
  const bytes = m ? Math.floor(Number(m[1]) * base ** power) : 0;
  if (!(bytes > 0) || !Number.isSafeInteger(bytes))
    throw new Error(`invalid cache size "${value}": expected a size such as 1GiB, 500MiB or 64KiB`);
  return bytes;
}

/** One day: past 24.8 days Node's timers overflow and fire at once. */
const MAX_TIMEOUT_SECONDS = 86_400;

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
  return wholeNumber('retries', value, 0, 100);
}

export function parseUrl(value: string): string {
  if (!URL.canParse(value)) throw new Error(`invalid URL "${value}"`);
  const u = new URL(value);
  if (u.protocol !== 'http:' && u.protocol !== 'https:')
    throw new Error(`invalid URL "${value}": use http or https`);
  if (u.username || u.password) throw new Error('URLs must not carry credentials');
  return u.toString().replace(/\/+$/, '');
}
