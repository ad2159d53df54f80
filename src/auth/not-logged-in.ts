import { AuthError } from '../errors.js';
import { isServiceAccount, type Settings } from '../settings.js';

const login = (s: Pick<Settings, 'profile'>, flag = '') =>
  `\`prs login${s.profile === 'default' ? '' : ` --profile ${s.profile}`}${flag}\``;

export function notLoggedIn(
  s: Pick<Settings, 'ci' | 'profile'> & { grant?: Settings['grant'] },
  hint?: string,
): AuthError {
  const service = isServiceAccount(s);
  if (!s.ci)
    return new AuthError(
      `not logged in or session expired — run ${login(s, service ? ' --client-credentials' : '')}`,
      { hint },
    );
  return new AuthError(
    service
      ? 'not logged in — set PRS_CLIENT_ID and PRS_CLIENT_SECRET with PRS_GRANT=client_credentials (or PRS_TOKEN)'
      : 'not logged in or session expired — set PRS_USERNAME, PRS_PASSWORD and PRS_CLIENT_SECRET (or PRS_TOKEN)',
    { hint },
  );
}

export function neverLoggedIn(
  s: Pick<Settings, 'token' | 'username' | 'password' | 'clientSecret' | 'grant' | 'sources'>,
): boolean {
  if (s.token) return false;
  if (isServiceAccount(s) ? s.clientSecret : s.username && s.password && s.clientSecret) return false;
  return !Object.values(s.sources).includes('profile');
}

export function neverLoggedInError(s: Pick<Settings, 'ci' | 'profile'>): AuthError {
  return s.ci
    ? new AuthError(
        'not logged in — set PRS_BASE_URL, PRS_TENANT, PRS_AUTH_URL, PRS_REALM, PRS_CLIENT_ID with PRS_USERNAME, PRS_PASSWORD and PRS_CLIENT_SECRET (or PRS_TOKEN)',
        { hint: 'a service account: PRS_GRANT=client_credentials with PRS_CLIENT_ID and PRS_CLIENT_SECRET' },
      )
    : new AuthError(`not logged in — run ${login(s)}`, {
        hint: 'it asks for the service URL, the sign-in details and your tenant, and keeps them in the profile',
      });
}
