import { boundOf, loggedIn } from '../auth/store.js';
import { type Grant, requestToken, TokenRefusedError } from '../auth/token.js';
import type { ProfileData, SessionBinding, StoredSession } from '../auth/types.js';
import type { Deps } from '../deps.js';
import type { WaitReason } from '../domain.js';
import { UsageError } from '../errors.js';
import { waitLine } from '../http/retry.js';
import {
  checkSetting,
  isServiceAccount,
  type LoginFlags,
  longFlag,
  type SettingKey,
  type SettingValues,
  settingRow,
} from '../settings.js';

export type LoginOptions = LoginFlags &
  Partial<Record<'passwordStdin' | 'savePassword' | 'clientCredentials', boolean>>;

interface LoginField {
  key?: SettingKey;
  secret?: 'password' | 'clientSecret';
  label: string;
  env: string;
  flag?: string;
}

const setting = (key: SettingKey, label: string): LoginField => {
  const { env, flag } = settingRow(key);
  return { key, label, env: env!, flag: flag && longFlag(key) };
};

/** Prompt order. */
const LOGIN_FIELDS: readonly LoginField[] = [
  setting('base-url', 'base URL'),
  setting('auth-url', 'auth URL'),
  setting('realm', 'realm'),
  setting('client-id', 'client id'),
  { secret: 'clientSecret', label: 'client secret', env: 'PRS_CLIENT_SECRET' },
  setting('username', 'username'),
  { secret: 'password', label: 'password', env: 'PRS_PASSWORD', flag: '--password-stdin' },
  setting('tenant', 'tenant'),
];

/** Wrong answers to one prompt (or refused passwords) before login gives up, as sudo does. */
const PROMPT_TRIES = 3;

function checkAnswer(f: LoginField, answer: string): string {
  const v = answer.trim();
  if (v === '') throw new Error(`no ${f.label} given`);
  return f.key ? checkSetting(f.key, v) : v;
}

function missingError(missing: readonly LoginField[]): UsageError {
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

/** Less one trailing newline (what `echo` or a file adds). */
export function passwordFromStdin(text: string): string {
  const password = text.replace(/\r?\n$/, '');
  if (password === '') throw new UsageError('--password-stdin: stdin held no password');
  return password;
}

export async function login(o: LoginOptions, deps: Deps): Promise<void> {
  const { io } = deps;
  const given = { 'auth-url': o.authUrl, realm: o.realm, 'client-id': o.clientId, username: o.username };
  const extra: SettingValues = Object.fromEntries(Object.entries(given).filter(([, v]) => v !== undefined));
  if (o.clientCredentials) extra.grant = 'client_credentials';
  const s = await deps.settings(extra, { allowNewProfile: true });
  const service = isServiceAccount(s);
  if (service && (o.passwordStdin || o.savePassword))
    throw new UsageError(
      `${o.passwordStdin ? '--password-stdin' : '--save-password'}: a service account has no password`,
      {
        hint: 'its client secret (PRS_CLIENT_SECRET or the prompt) is its whole credential, and it is always kept',
      },
    );
  if (o.passwordStdin && io.isStdinTTY)
    throw new UsageError('--password-stdin: stdin is a terminal, not a pipe', {
      hint: 'pipe the password in (printf \'%s\' "$PRS_PASSWORD" | prs login --password-stdin …), or leave out --password-stdin to be asked for it',
    });

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
    clientSecret: s.clientSecret ?? keptClientSecret(await deps.profile({ allowNew: true }), values),
  };
  // With --password-stdin, stdin is the password: never prompt on it as well.
  const canPrompt = io.canPrompt && !o.passwordStdin;
  const has = (f: LoginField) =>
    f.secret === 'password'
      ? o.passwordStdin || !!secrets.password
      : f.secret
        ? !!secrets[f.secret]
        : !!values[f.key!];
  const fields = LOGIN_FIELDS.filter((f) => !service || (f.key !== 'username' && f.secret !== 'password'));
  const missing = fields.filter((f) => !has(f));
  if (missing.length && !canPrompt) throw missingError(missing);

  if (o.passwordStdin) secrets.password = passwordFromStdin(await io.readStdin());
  for (const f of missing) {
    const answer = await ask(f);
    if (f.secret) secrets[f.secret] = answer;
    else values[f.key!] = answer;
  }

  async function ask(f: LoginField): Promise<string> {
    for (let attempt = 1; ; attempt++) {
      const answer = await io.prompt(`${f.label[0]!.toUpperCase()}${f.label.slice(1)}: `, {
        hidden: !!f.secret,
      });
      try {
        return checkAnswer(f, answer);
      } catch (err) {
        const message = (err as Error).message;
        if (attempt >= PROMPT_TRIES) throw new UsageError(`${message} (${f.label})`);
        io.err(`${message}; try again`);
      }
    }
  }

  const username = values.username;
  const http = await deps.http();
  const endpoint = {
    authUrl: values['auth-url']!,
    realm: values.realm!,
    clientId: values['client-id']!,
    clientSecret: secrets.clientSecret!,
  };
  const passwordPrompted = missing.some((f) => f.secret === 'password');
  let session: StoredSession | undefined;
  // A refused password asks again for the password only, up to 3 tries, as sudo does.
  const call = {
    clock: deps.clock,
    retries: s.retries,
    signal: deps.signal,
    onWait: (ms: number, reason: WaitReason) => io.debug(...waitLine(ms, reason)),
  };
  const grant = (): Grant =>
    service
      ? { type: 'client_credentials' }
      : { type: 'password', username: username!, password: secrets.password! };
  for (let attempt = 1; !session; attempt++) {
    try {
      session = await requestToken(http, endpoint, grant(), call);
    } catch (err) {
      const wrongPassword = err instanceof TokenRefusedError && err.error === 'invalid_grant';
      if (!wrongPassword || !passwordPrompted || attempt >= PROMPT_TRIES) throw err;
      io.err('Sorry, try again.');
      const again = await io.prompt('Password: ', { hidden: true });
      if (again === '') throw new UsageError('no password given');
      secrets.password = again;
    }
  }
  const { clientSecret: _secret, ...where } = endpoint;
  const bound: SessionBinding = {
    ...(service ? { grant: 'client_credentials' as const } : { username }),
    ...where,
    baseUrl: values['base-url'],
  };

  const store = await deps.store();
  await store.update(s.profile, (cur) =>
    loggedIn(
      cur,
      grantSetting({ ...cur?.settings, ...definedOnly(values) }, service),
      { ...session, bound },
      secrets,
      !!o.savePassword,
    ),
  );

  io.err(
    `✓ Logged in to ${new URL(values['auth-url']!).host} as ${service ? `service account ${endpoint.clientId}` : username} (profile ${s.profile}, tenant ${values.tenant})`,
  );
  if (o.savePassword)
    io.note(`password saved with the session and client secret in ${store.path} (mode 0600)`);
  else
    io.debug(`auth: session and client secret kept in ${store.path} (mode 0600); the password is not kept`);
}

export function keptClientSecret(
  stored: ProfileData | undefined,
  values: Partial<Record<SettingKey, string>>,
): string | undefined {
  const b = stored && boundOf(stored);
  const same =
    b?.authUrl === values['auth-url'] && b?.realm === values.realm && b?.clientId === values['client-id'];
  return same ? stored?.secrets?.clientSecret : undefined;
}

/** A service account's grant is remembered (and its user name dropped); a user's login removes it. */
function grantSetting(settings: SettingValues, service: boolean): SettingValues {
  const { grant: _grant, ...rest } = settings;
  if (!service) return rest;
  const { username: _username, ...withoutUser } = rest;
  return { ...withoutUser, grant: 'client_credentials' };
}

function definedOnly(v: Partial<Record<SettingKey, string>>): SettingValues {
  return Object.fromEntries(Object.entries(v).filter(([, x]) => x !== undefined && x !== ''));
}
