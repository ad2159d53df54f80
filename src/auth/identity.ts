// A module of its own: a cache hit keys its answer without loading the session (settings.ts it reads anyway).
import { isServiceAccount, type Settings } from '../settings.js';

/** Whom the limiter and the cache count a request for: a digest of a token, never the token. */
export function identityOf(
  s: Pick<Settings, 'token' | 'username' | 'profile'> & Partial<Pick<Settings, 'grant' | 'clientId'>>,
): string {
  if (s.token) {
    const { createHash } = process.getBuiltinModule('node:crypto');
    return `token:${createHash('sha256').update(s.token).digest('hex').slice(0, 12)}`;
  }
  if (isServiceAccount(s) && s.clientId) return `client:${s.clientId}`;
  return s.username ?? `profile:${s.profile}`;
}
