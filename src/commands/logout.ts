/**
 * `prs logout [--all]`: forget tokens and saved secrets, keep the settings. Exit 0 even when there was
 * nothing to forget. `--all` also repairs an unreadable config file by moving it aside.
 */
import type { ProfileData } from '../auth/types.js';
import type { Deps } from '../deps.js';
import { UsageError } from '../errors.js';

export interface LogoutOptions {
  all: boolean;
}

/** A profile without its session and secrets. */
export function forget(p: ProfileData): ProfileData {
  const { session: _session, secrets: _secrets, ...rest } = p;
  return rest;
}

const holdsSomething = (p: ProfileData | undefined) => !!(p?.session || p?.secrets);

export async function logout(o: LogoutOptions, deps: Deps): Promise<void> {
  const { io } = deps;
  const store = await deps.store();
  if (!o.all) {
    const name = deps.profileName();
    if (!holdsSomething(store.get(name))) {
      io.err(`Not logged in (profile ${name}); nothing to forget`);
      return;
    }
    await store.update(name, (p) => (p ? forget(p) : p));
    io.err(`✓ Logged out (profile ${name})`);
    return;
  }

  let names: string[];
  try {
    names = store.profileNames();
  } catch (err) {
    if (!(err instanceof UsageError) || !store.reset) throw err;
    const { movedTo } = await store.reset();
    io.err(
      `✓ Logged out: the unreadable config file was moved to ${movedTo}; settings start fresh (see \`prs config\`)`,
    );
    return;
  }
  const forgotten: string[] = [];
  for (const name of names) {
    await store.update(name, (p) => {
      if (!p || !holdsSomething(p)) return p;
      forgotten.push(name);
      return forget(p);
    });
  }
  io.err(
    forgotten.length
      ? `✓ Logged out of ${forgotten.length === 1 ? 'profile' : 'profiles'} ${forgotten.join(', ')}`
      : 'Not logged in anywhere; nothing to forget',
  );
}
