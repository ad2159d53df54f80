/**
 * A corrupt or hand-edited config file, against the BUILT binary (`npm run build` first): every
 * command that reads it stops with exit 2 naming the file (never a crash, never a request), and
 * `prs logout --all` / `prs config set|unset` repair it. (The first case, bad JSON → logout --all, is
 * also in test/e2e/auth.test.ts; this is the matrix of shapes.)
 * Row ids in [brackets] are listed in docs/reliability.md (checked by test/unit/reliability/doc.test.ts).
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runPrs } from '../helpers/run.js';
import { dirsEnv, useTempDir } from '../helpers/session.js';
import { expectCleanFailure, readJson } from './reliability-helpers.js';

const tmp = useTempDir('prs-reliability-config-');

/** A fresh config dir holding `content` as config.json (a directory for `{ dir: true }`). */
function configWith(content: string | Buffer | { dir: true }) {
  const root = tmp.fresh('c');
  const env = dirsEnv(root);
  mkdirSync(env.PRS_CONFIG_DIR, { recursive: true, mode: 0o700 });
  const file = join(env.PRS_CONFIG_DIR, 'config.json');
  if (typeof content === 'object' && 'dir' in content) mkdirSync(file);
  else writeFileSync(file, content, { mode: 0o600 });
  return { env, file };
}

// A port nothing listens on: a request that got out would be exit 9, not 2.
const api = { PRS_BASE_URL: 'http://127.0.0.1:9', PRS_TENANT: 't', PRS_TOKEN: 'tok' };
const readers: [string, string[], Record<string, string>][] = [
  ['auth status', ['auth', 'status'], {}],
  ['config list', ['config', 'list'], {}],
  ['config set', ['config', 'set', 'tenant', 'x'], {}],
  ['report (PRS_TOKEN)', ['report', '42', '-t', 'index', '-d', '2024-05-03'], api],
  ['export (PRS_TOKEN)', ['export', '42', '-t', 'index', '-d', '2024-05-03', '--dir', '.'], api],
  ['logout', ['logout'], {}],
];

describe('a corrupt config file', () => {
  it.each<[string, string | Buffer | { dir: true }, RegExp]>([
    ['[R-C01] bad JSON', '{"profiles": {"default": ', /invalid JSON/],
    ['[R-C02] binary garbage', Buffer.from([0xff, 0xfe, 0, 1, 2, 0x7b, 0x80]), /invalid JSON/],
    ['[R-C03] a JSON array', '[]', /expected a JSON object/],
    ['[R-C04] "profiles" is an array', '{"profiles":[]}', /"profiles" must be an object/],
    [
      '[R-C05] a profile that is a string',
      '{"profiles":{"default":"https://x"}}',
      /profile "default": expected an object/,
    ],
    [
      '[R-C06] a setting that is a number',
      '{"profiles":{"default":{"settings":{"timeout":5}}}}',
      /setting "timeout" must be a string/,
    ],
    [
      '[R-C07] an unknown setting',
      '{"profiles":{"default":{"settings":{"base_url":"x"}}}}',
      /unknown setting "base_url"/,
    ],
    [
      '[R-C08] a session of the wrong shape',
      '{"profiles":{"default":{"settings":{},"session":{"accessToken":1}}}}',
      /session\.accessToken must be a string/,
    ],
    ['[R-C09] config.json is a directory', { dir: true }, /it is a directory/],
    ['[R-C10] a UTF-8 byte order mark (an editor on Windows)', '\uFEFF{"profiles":{}}', /invalid JSON/],
  ])(
    '%s: exit 2 naming the file from every command; `prs logout --all` repairs it',
    async (_t, content, reason) => {
      const { env, file } = configWith(content);
      const runs = await Promise.all(
        readers.map(([, args, extra]) => runPrs(args, { env: { ...env, ...extra } })),
      );
      for (const [i, r] of runs.entries()) {
        const what = `${readers[i]![0]}: ${r.stderr}`;
        expect(r.code, what).toBe(2);
        expectCleanFailure(
          r,
          2,
          new RegExp(`^prs: config file ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is unreadable: `),
        );
        expect(r.stderr.split('\n')[0], what).toMatch(reason);
        expect(r.stderr).toContain('hint: run `prs logout --all` to reset it');
      }
      const fix = await runPrs(['logout', '--all'], { env });
      expect(fix.code, fix.stderr).toBe(0);
      expect(fix.stderr).toContain(`moved to ${file}.corrupt`);
      expect(existsSync(`${file}.corrupt`)).toBe(true);
      const set = await runPrs(['config', 'set', 'tenant', 'acme'], { env });
      expect(set.code, set.stderr).toBe(0);
      expect(readJson(file)).toEqual({ profiles: { default: { settings: { tenant: 'acme' } } } });
      const status = await runPrs(['auth', 'status'], { env });
      expect(status.code).toBe(4); // sound again: simply not logged in
    },
  );

  it.each([
    ['timeout', 'abc', '30'],
    ['rate-limit', '4 per minute', '4/60s'],
    ['retries', '-1', '2'],
    ['base-url', 'ftp://example.com', 'https://example.com'],
  ])(
    '[R-C11] a hand-edited bad value (%s = %s): exit 2 naming the setting; `prs config set` repairs it',
    async (key, bad, good) => {
      const { env, file } = configWith(
        JSON.stringify({ profiles: { default: { settings: { tenant: 't', [key]: bad } } } }),
      );
      const e = {
        ...env,
        PRS_TOKEN: 'tok',
        ...(key === 'base-url' ? {} : { PRS_BASE_URL: 'http://127.0.0.1:9' }),
      };
      const r = await runPrs(['report', '42', '-t', 'index', '-d', '2024-05-03'], { env: e });
      expectCleanFailure(r, 2, new RegExp(`\\(from profile setting ${key}\\)$`));
      expect(r.stderr).toContain(`prs config set ${key}`);
      const list = await runPrs(['config', 'list'], { env }); // still readable: shows the bad value
      expect(list.code).toBe(0);
      expect(list.stdout).toContain(bad);
      const set = await runPrs(['config', 'set', key, good], { env });
      expect(set.code, set.stderr).toBe(0);
      expect(JSON.parse(readFileSync(file, 'utf8')).profiles.default.settings[key]).toBe(
        good.replace(/\/$/, ''),
      );
      const again = await runPrs(['report', '42', '-t', 'index', '-d', '2024-05-03', '--retries', '0'], {
        env: e,
      });
      expect(again.code).not.toBe(2); // past the settings now (a network error: nothing listens there)
    },
  );
});
