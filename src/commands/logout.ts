// Forget the secrets, keep the settings; then, best effort and bounded, end each forgotten session at
// the token service, so a copied refresh token dies with it.
import { boundOf, forgotten, holdsSession } from '../auth/store.js';
import { endSession, type TokenEndpoint } from '../auth/token.js';
import type { ProfileData } from '../auth/types.js';
import type { Deps } from '../deps.js';
import { plural, UsageError } from '../errors.js';
import { hostOf } from '../http/client.js';
import { clearCache } from './cache.js';

const END_SESSION_BUDGET_MS = 5_000;

type EndAt = TokenEndpoint & { refreshToken: string };

function endpointToEnd(p: ProfileData, envSecret: string | undefined): EndAt | undefined {
  const { authUrl, realm, clientId } = boundOf(p);
  const refreshToken = p.session?.refreshToken;
  if (!refreshToken || !authUrl || !realm || !clientId) return undefined;
  return { authUrl, realm, clientId, clientSecret: envSecret ?? p.secrets?.clientSecret, refreshToken };
}

/** Never throws: the local forgetting is done already. */
async function endRemotely(targets: EndAt[], deps: Deps): Promise<void> {
  if (!targets.length) return;
  const signal = AbortSignal.any([deps.signal, AbortSignal.timeout(END_SESSION_BUDGET_MS)]);
  await Promise.all(
    targets.map(async (t) => {
      const host = hostOf(t.authUrl);
      try {
        const http = await deps.http();
        const status = await endSession(http, t, t.refreshToken, signal);
        if (status >= 200 && status < 300) deps.io.debug(`logout: session ended at ${host}`);
        else
          deps.io.note(`prs: note: ${host} did not end the session (HTTP ${status}); it was forgotten here`);
      } catch (err) {
        deps.io.note(
          `prs: note: could not end the session at ${host} (${signal.aborted ? 'no answer in time' : (err as Error).message}); it was forgotten here`,
        );
      }
    }),
  );
}

export async function logout(o: { all: boolean }, deps: Deps): Promise<void> {
  const { io } = deps;
  // The cached answers are the tenant's data: they go with the session, best effort.
  try {
    const cleared = clearCache(deps, o.all);
    if (cleared.entries > 0) io.err(cleared.said);
  } catch (err) {
    io.note(`prs: note: ${(err as Error).message}`);
  }
  const store = await deps.store();
  const name = deps.profileName();
  if (!o.all && !holdsSession(store.get(name))) {
    io.err(`Not logged in (profile ${name}); nothing to forget`);
    return;
  }
  let names = [name];
  if (o.all) {
    try {
      names = store.profileNames();
    } catch (err) {
      if (!(err instanceof UsageError) || !store.reset) throw err;
      // Another prs may have repaired or replaced the file since it was read: then there is nothing to move.
      const { movedTo } = await store.reset();
      if (movedTo) {
        io.err(
          `✓ Logged out: the unreadable config file was moved to ${movedTo}; settings start fresh (see \`prs config\`)`,
        );
        return;
      }
      names = store.profileNames();
    }
  }
  // PRS_CLIENT_SECRET is the current profile's.
  const envSecret = o.all ? undefined : deps.env.PRS_CLIENT_SECRET || undefined;
  const loggedOut: string[] = [];
  const targets: EndAt[] = [];
  for (const n of names) {
    await store.update(n, (p) => {
      if (!p || !holdsSession(p)) return p;
      loggedOut.push(n);
      const target = endpointToEnd(p, envSecret);
      if (target) targets.push(target);
      return forgotten(p);
    });
  }
  io.err(
    !o.all
      ? `✓ Logged out (profile ${name})`
      : loggedOut.length
        ? `✓ Logged out of ${plural(loggedOut.length, 'profile')} ${loggedOut.join(', ')}`
        : 'Not logged in anywhere; nothing to forget',
  );
  await endRemotely(targets, deps);
}
