/**
 * `prs login`: a password grant with settings from flags > env > profile > prompt, then the resolved
 * (non-secret) settings and the tokens are stored in the profile. Password and client secret never
 * come from a flag, and are stored only with --save-password. Without a terminal nothing is prompted:
 * a missing value is exit 2 naming its variable.
 */
import { requestToken } from '../auth/token.js';
import type { ProfileData } from '../auth/types.js';
import type { Deps } from '../deps.js';
import { UsageError } from '../errors.js';
import { parseUrl, type SettingKey, type SettingValues } from '../settings.js';

export interface LoginOptions {
  authUrl?: string;
  realm?: string;
  clientId?: string;
  username?: string;
  passwordStdin: boolean;
  savePassword: boolean;
}

/** One value login needs, in prompt order. */
export interface LoginField {
  /** The setting it is stored as; secrets have none. */
  key?: SettingKey;
  secret?: 'password' | 'clientSecret';
  label: string;
  env: string;
  /** How else to give it, for the error message. */
  flag?: string;
  url?: boolean;
}

export const LOGIN_FIELDS: readonly LoginField[] = [
  { key: 'auth-url', label: 'auth URL', env: 'PRS_AUTH_URL', flag: '--auth-url', url: true },
  { key: 'realm', label: 'realm', env: 'PRS_REALM', flag: '--realm' },
  { key: 'client-id', label: 'client id', env: 'PRS_CLIENT_ID', flag: '--client-id' },
  { secret: 'clientSecret', label: 'client secret', env: 'PRS_CLIENT_SECRET' },
  { key: 'username', label: 'username', env: 'PRS_USERNAME', flag: '--username' },
  { secret: 'password', label: 'password', env: 'PRS_PASSWORD', flag: '--password-stdin' },
  { key: 'tenant', label: 'tenant', env: 'PRS_TENANT', flag: '--tenant' },
  { key: 'base-url', label: 'base URL', env: 'PRS_BASE_URL', flag: '--base-url', url: true },
];

/** "missing realm: pass --realm or set PRS_REALM", with the rest of the missing ones as the hint. */
export function missingError(missing: readonly LoginField[]): UsageError {
  const how = (f: LoginField) =>
    f.secret === 'password'
      ? `use --password-stdin or set ${f.env}`
      : f.flag
        ? `pass ${f.flag} or set ${f.env}`
        : `set ${f.env}`;
  const [first, ...rest] = missing;
  return new UsageError(`missing ${first.label}: ${how(first)}`, {
    hint: rest.length
      ? `also missing: ${rest.map((f) => `${f.label} (${f.env})`).join(', ')}`
      : 'no terminal to ask on; run `prs login` in a terminal, or give every value as above',
  });
}

/** --password-stdin: everything on stdin minus one trailing newline (what `echo` or a file adds). */
export function passwordFromStdin(text: string): string {
  const password = text.replace(/\r?\n$/, '');
  if (password === '') throw new UsageError('--password-stdin: stdin held no password');
  return password;
}

export async function login(o: LoginOptions, deps: Deps): Promise<void> {
  const { io } = deps;
  const extra: SettingValues = {};
  if (o.authUrl !== undefined) extra['auth-url'] = o.authUrl;
  if (o.realm !== undefined) extra.realm = o.realm;
  if (o.clientId !== undefined) extra['client-id'] = o.clientId;
  if (o.username !== undefined) extra.username = o.username;
  const s = await deps.settings(extra, { allowNewProfile: true });

  const values: Partial<Record<SettingKey, string>> = {
    'auth-url': s.authUrl,
    realm: s.realm,
    'client-id': s.clientId,
    username: s.username,
    tenant: s.tenant,
    'base-url': s.baseUrl,
  };
  const secrets: { password?: string; clientSecret?: string } = {
    password: s.password,
    clientSecret: s.clientSecret,
  };
  // With --password-stdin, stdin is the password: never prompt on it as well.
  const canPrompt = io.canPrompt && !o.passwordStdin;
  const has = (f: LoginField) =>
    f.secret === 'password'
      ? o.passwordStdin || !!secrets.password
      : f.secret
        ? !!secrets[f.secret]
        : !!values[f.key!];
  const missing = LOGIN_FIELDS.filter((f) => !has(f));
  if (missing.length && !canPrompt) throw missingError(missing);

  if (o.passwordStdin) secrets.password = passwordFromStdin(await io.readStdin());
  for (const f of missing) {
    const answer = (await io.prompt(`${capitalise(f.label)}: `, { hidden: !!f.secret })).trim();
    if (answer === '') throw new UsageError(`no ${f.label} given`);
    if (f.secret) secrets[f.secret] = answer;
    else values[f.key!] = f.url ? checkedUrl(answer, f.label) : answer;
  }

  const username = values.username!;
  const http = await deps.http();
  const session = await requestToken(
    http,
    {
      authUrl: values['auth-url']!,
      realm: values.realm!,
      clientId: values['client-id']!,
      clientSecret: secrets.clientSecret!,
    },
    { type: 'password', username, password: secrets.password! },
    { now: () => deps.clock.now(), signal: deps.signal },
  );

  const store = await deps.store();
  await store.update(s.profile, (cur) => {
    const next: ProfileData = {
      ...cur,
      settings: { ...cur?.settings, ...definedOnly(values) },
      session,
    };
    // A login without --save-password also drops what an earlier one saved: the user chose again.
    if (o.savePassword) next.secrets = { password: secrets.password, clientSecret: secrets.clientSecret };
    else delete next.secrets;
    return next;
  });

  io.err(
    `✓ Logged in to ${new URL(values['auth-url']!).host} as ${username} (profile ${s.profile}, tenant ${values.tenant})`,
  );
  if (o.savePassword) io.note(`password and client secret saved in ${store.path} (mode 0600)`);
}

function checkedUrl(value: string, label: string): string {
  try {
    return parseUrl(value);
  } catch (err) {
    throw new UsageError(`${(err as Error).message} (${label})`);
  }
}

function definedOnly(v: Partial<Record<SettingKey, string>>): SettingValues {
  return Object.fromEntries(Object.entries(v).filter(([, x]) => x !== undefined && x !== ''));
}

function capitalise(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}
