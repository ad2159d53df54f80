import { describe, expect, it } from 'vitest';
import { exitCodeFor } from '../../../src/errors.js';
import { target } from '../../../src/service/service.js';
import { resolveSettings } from '../../../src/settings.js';

const DIRS = { PRS_CONFIG_DIR: '/tmp/prs-unit' };
const CREDS = { PRS_USERNAME: 'u', PRS_PASSWORD: 'p', PRS_CLIENT_SECRET: 's' };

/** target()'s verdict: the exit code and message, or the target. */
function verdict(
  flags: Record<string, string>,
  env: Record<string, string>,
  profile: Record<string, string>,
) {
  try {
    return target(resolveSettings(flags, { ...DIRS, ...env }, profile));
  } catch (err) {
    return `${exitCodeFor(err)} ${(err as Error).message}`;
  }
}

describe('never logged in: exit 4 whatever setting is missing first (CLI.md "first steps")', () => {
  it.each([
    ['nothing at all', {}, {}, {}, '4 not logged in — run `prs login`'],
    ['only --base-url', { 'base-url': 'https://api.test' }, {}, {}, '4 not logged in — run `prs login`'],
    ['only PRS_TENANT', {}, { PRS_TENANT: 't' }, {}, '4 not logged in — run `prs login`'],
    ['a named profile', { profile: 'prod' }, {}, {}, '4 not logged in — run `prs login --profile prod`'],
    [
      'in CI: the variables',
      {},
      { CI: 'true' },
      {},
      /^4 not logged in — set PRS_BASE_URL, PRS_TENANT, .*PRS_CLIENT_SECRET/,
    ],
    // Something to sign in with, or a profile a login wrote: the missing setting is named (exit 2).
    ['PRS_TOKEN', {}, { PRS_TOKEN: 'x' }, {}, '2 no base URL for the report service'],
    ['env credentials', {}, CREDS, {}, '2 no base URL for the report service'],
    [
      'a service account in the env',
      {},
      { PRS_GRANT: 'client_credentials', PRS_CLIENT_SECRET: 's' },
      {},
      '2 no base URL for the report service',
    ],
    [
      'a profile without a tenant',
      {},
      {},
      { 'base-url': 'https://api.test' },
      '2 no tenant (sent as X-CLIENT-ID)',
    ],
  ])('%s', (_n, flags, env, profile, want) => {
    const got = verdict(flags, env, profile);
    if (typeof want === 'string') expect(got).toBe(want);
    else expect(got).toMatch(want);
  });

  it('base URL and tenant at hand: the target (the session says whether one can sign in)', () => {
    expect(verdict({ 'base-url': 'https://api.test', tenant: 't' }, {}, {})).toEqual({
      baseUrl: 'https://api.test',
      tenant: 't',
    });
  });
});
