/** resolveSettings: a setting with control characters is bad input, whatever layer it came from (issue 18 defect 3). */
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
import { resolveSettings } from '../../src/settings.js';

const ok = { PRS_BASE_URL: 'https://svc.example', PRS_TENANT: 'T1' };

describe('control characters in settings', () => {
  it.each([
    [
      'tenant (env)',
      {},
      { PRS_TENANT: 'T1\nX-Evil: 1' },
      {},
      /^invalid tenant "T1\nX-Evil: 1": control characters .*\(from PRS_TENANT\)$/,
    ],
    ['tenant (flag)', { tenant: 'T1\r' }, {}, {}, /\(from --tenant\)$/],
    ['tenant (profile)', {}, { PRS_TENANT: '' }, { tenant: 'a\u0000b' }, /\(from profile setting tenant\)$/],
    ['base-url', { 'base-url': 'https://svc.example/\napi' }, {}, {}, /^invalid base-url/],
    ['auth-url', {}, { PRS_AUTH_URL: 'https://auth.example\t/x' }, {}, /^invalid auth-url/],
    ['realm', {}, { PRS_REALM: 'r\u001b[31m' }, {}, /^invalid realm/],
    ['client-id', {}, { PRS_CLIENT_ID: 'prs\u007f' }, {}, /^invalid client-id/],
    ['username', {}, { PRS_USERNAME: 'demo\n' }, {}, /^invalid username/],
    [
      'limiter (password hidden)',
      {},
      { PRS_LIMITER: 'redis://u:secret@h:6379/0\n' },
      {},
      /^invalid limiter "redis:\/\/u:\*+@/,
    ],
    [
      'PRS_TOKEN (value never shown)',
      {},
      { PRS_TOKEN: 'abc\ndef' },
      {},
      /^invalid PRS_TOKEN: it contains control characters$/,
    ],
  ])('%s → UsageError', (_name, flags, env, profile, message) => {
    let err: unknown;
    try {
      resolveSettings(flags, { ...ok, ...env }, profile);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(UsageError);
    expect((err as Error).message).toMatch(message);
    expect((err as Error).message).not.toContain('secret');
  });

  it('plain values pass (a space, non-ASCII letters)', () => {
    const s = resolveSettings({ tenant: 'Team Zürich' }, { ...ok, PRS_TOKEN: 'a.b-c_d' });
    expect([s.tenant, s.token]).toEqual(['Team Zürich', 'a.b-c_d']);
  });
});
