/**
 * Whom the rate limiter and the answer cache count a request for (see auth/session.ts). A module of
 * its own, with no runtime imports, so that a cache hit can key its answer without loading the session and
 * the token client (~17 kB of a hit's start).
 */
import type { Settings } from '../settings.js';

/** What the rate limiter counts requests for. A digest, never the token itself. */
export function identityOf(
  s: Pick<Settings, 'token' | 'username' | 'profile'> & Partial<Pick<Settings, 'grant' | 'clientId'>>,
): string {
  if (s.token) {
    // node:crypto loaded only here: a static import costs every start a few ms.
    const { createHash } = process.getBuiltinModule('node:crypto');
    return `token:${createHash('sha256').update(s.token).digest('hex').slice(0, 12)}`;
  }
  if (s.grant === 'client_credentials' && s.clientId) return `client:${s.clientId}`;
  return s.username ?? `profile:${s.profile}`;
}
