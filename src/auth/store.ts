// `config.json` (0600 in 0700) holds every profile, replaced whole under a lock and read anew each time.
import {
  chmodSync,
  closeSync,
  fstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  statSync,
} from 'node:fs';
import { join } from 'node:path';
import { CONFIG_FILE } from '../dirs.js';
import { FileError, fileError, UsageError } from '../errors.js';
import { replaceFile } from '../fs/atomic.js';
import { withLock } from '../fs/lock.js';
import { isServiceAccount, SETTING_KEYS, type SettingValues } from '../settings.js';
import type { ProfileData, SessionBinding, Store, StoredSession } from './types.js';

type StoreData = { profiles: Record<string, ProfileData> };

function corruptStoreError(path: string, reason: string): UsageError {
  return new UsageError(`config file ${path} is unreadable: ${reason}`, {
    hint: 'run `prs logout --all` to reset it (the old file is kept as config.json.corrupt), or fix or delete it',
  });
}

/** The data, or why it is unusable: strict on shapes (a half-understood credential file is worse). */
export function parseStoreText(text: string): { data: StoreData } | { error: string } {
  if (text.trim() === '') return { data: { profiles: {} } };
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    return { error: `invalid JSON (${(err as Error).message.split('\n')[0]})` };
  }
  if (!isObject(raw)) return { error: 'expected a JSON object' };
  const profiles = raw.profiles ?? {};
  if (!isObject(profiles)) return { error: '"profiles" must be an object' };
  for (const [name, p] of Object.entries(profiles)) {
    const problem = profileProblem(p);
    if (problem) return { error: `profile "${name}": ${problem}` };
  }
  return { data: { ...raw, profiles: profiles as Record<string, ProfileData> } };
}

const FIELDS = {
  session: [
    ['accessToken', 'string', true],
    ['expiresAt', 'number', true],
    ['refreshToken', 'string', false],
    ['refreshExpiresAt', 'number', false],
    ['obtainedAt', 'number', false],
  ],
  secrets: [
    ['password', 'string', false],
    ['clientSecret', 'string', false],
  ],
} as const;

function profileProblem(p: unknown): string | undefined {
  if (!isObject(p)) return 'expected an object';
  const settings = p.settings ?? {};
  if (!isObject(settings)) return '"settings" must be an object';
  for (const [k, v] of Object.entries(settings)) {
    if (!(SETTING_KEYS as readonly string[]).includes(k)) return `unknown setting "${k}"`;
    if (typeof v !== 'string') return `setting "${k}" must be a string`;
  }
  for (const part of ['session', 'secrets'] as const) {
    const v = p[part];
    if (v === undefined) continue;
    if (!isObject(v)) return `"${part}" must be an object`;
    for (const [k, type, required] of FIELDS[part])
      if ((required || v[k] !== undefined) && typeof v[k] !== type) return `${part}.${k} must be a ${type}`;
  }
  return undefined;
}

export function loggedIn(
  cur: ProfileData | undefined,
  settings: SettingValues,
  session: StoredSession,
  secrets: { clientSecret?: string; password?: string },
  savePassword: boolean,
): ProfileData {
  const { clientSecret, password } = secrets;
  return { ...cur, settings, session, secrets: savePassword ? { password, clientSecret } : { clientSecret } };
}

export function withSession(cur: ProfileData | undefined, next: StoredSession | undefined) {
  const base: ProfileData = cur ?? { settings: {} };
  if (next) return { ...base, session: next };
  const { session: _dropped, ...rest } = base;
  return cur ? rest : undefined;
}

export function tokenRefused(cur: ProfileData | undefined, token: string): ProfileData | undefined {
  return cur?.session?.accessToken === token ? { ...cur, session: { ...cur.session, expiresAt: 0 } } : cur;
}

export function forgotten(cur: ProfileData): ProfileData {
  const { session: _session, secrets: _secrets, ...rest } = cur;
  return rest;
}

export const holdsSession = (p: ProfileData | undefined): boolean => !!(p?.session || p?.secrets);

/** What a profile's session is for; a session stored before sessions were bound: the profile's settings. */
export function boundOf(p: ProfileData): Partial<SessionBinding> {
  const st = p.settings;
  return (
    p.session?.bound ?? {
      username: st.username,
      grant: isServiceAccount(st) ? 'client_credentials' : undefined,
      authUrl: st['auth-url'],
      realm: st.realm,
      clientId: st['client-id'],
      baseUrl: st['base-url'],
    }
  );
}

const holdsSecrets = (data: StoreData) => Object.values(data.profiles).some(holdsSession);

// Loose modes are tightened to 0700/0600; where prs cannot, secrets are refused (as ssh refuses a key
// file). Without secrets a loose mode is the user's choice. `told`: reading, each path tightened is said.
function ensurePrivate(dir: string, file: string, secrets: boolean, told?: (line: string) => void): void {
  for (const [path, mode] of [
    [dir, 0o700],
    [file, 0o600],
  ] as const) {
    const current = (statSync(path, { throwIfNoEntry: false })?.mode ?? 0) & 0o777;
    if ((current & 0o077) === 0) continue;
    const was = current.toString(8);
    try {
      chmodSync(path, mode);
      told?.(
        `prs: warning: ${path} holds secrets and others could ${path === file ? 'read' : 'open'} it (mode ${was}): made it 0${mode.toString(8)}`,
      );
    } catch (err) {
      if (!secrets) continue;
      throw new FileError(
        `refusing to ${told ? 'use the secrets in' : 'store the session in'} ${path}: others can read or write it (mode ${was}) and prs cannot change that (${(err as NodeJS.ErrnoException).code ?? 'error'})`,
        {
          hint: `make it private (chmod ${mode.toString(8)} ${path}) or set PRS_CONFIG_DIR to a directory of your own`,
        },
      );
    }
  }
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** `warn`: a file with secrets is tightened when read, saying so; without it (the fast path), refused. */
export async function openStore(
  configDir: string,
  o: { warn?: (line: string) => void } = {},
): Promise<Store> {
  const path = join(configDir, CONFIG_FILE);
  const ensureDir = () => {
    try {
      mkdirSync(configDir, { recursive: true, mode: 0o700 });
    } catch (err) {
      throw fileError(err, configDir, 'cannot create config directory');
    }
  };

  const read = (): StoreData => {
    let text: string;
    let mode: number;
    try {
      // One open file for both, so the mode checked is the mode of the text read.
      const fd = openSync(path, 'r');
      try {
        mode = fstatSync(fd).mode;
        text = readFileSync(fd, 'utf8');
      } finally {
        closeSync(fd);
      }
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { profiles: {} };
      if ((err as NodeJS.ErrnoException).code === 'EISDIR')
        throw corruptStoreError(path, 'it is a directory');
      throw fileError(err, path, 'cannot read');
    }
    const parsed = parseStoreText(text);
    if ('error' in parsed) throw corruptStoreError(path, parsed.error);
    const loose = () => (mode & 0o077) !== 0 || (statSync(configDir).mode & 0o077) !== 0;
    if (holdsSecrets(parsed.data) && loose()) {
      if (!o.warn) throw new FileError(`${path} holds secrets others can read`);
      ensurePrivate(configDir, path, true, o.warn);
    }
    return parsed.data;
  };

  /** False: not written, its lock lost meanwhile (`held`). */
  const write = (data: StoreData, held: () => boolean) => {
    ensurePrivate(configDir, path, holdsSecrets(data));
    try {
      return replaceFile(path, JSON.stringify(data, undefined, '\t'), { mode: 0o600, held });
    } catch (err) {
      throw fileError(err, path);
    }
  };

  return {
    path,
    profileNames: () => Object.keys(read().profiles).sort(),
    get: (profile) => read().profiles[profile],
    update: async (profile, fn) => {
      ensureDir();
      // A lock taken over while this process stalled: read and decide again, as updateFile does.
      const once = (held: () => boolean) => {
        const data = read();
        const current = data.profiles[profile];
        const next = fn(current);
        if (next === undefined && current === undefined) return true;
        if (next === undefined) delete data.profiles[profile];
        else data.profiles[profile] = next;
        return write(data, held);
      };
      while (!(await withLock(path, once)));
    },
    reset: async () => {
      ensureDir();
      // A lock taken over meanwhile: the file is looked at again (the other may have replaced it).
      const once = (held: () => boolean) => {
        try {
          read();
          return { movedTo: undefined };
        } catch (err) {
          if (!(err instanceof UsageError)) throw err;
        }
        if (!held()) return undefined;
        try {
          renameSync(path, `${path}.corrupt`);
        } catch (e) {
          throw fileError(e, path, 'cannot move aside');
        }
        return { movedTo: `${path}.corrupt` };
      };
      for (;;) {
        const done = await withLock(path, once);
        if (done) return done;
      }
    },
  };
}
