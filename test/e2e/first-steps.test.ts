/**
 * A newcomer's first hour (CLI.md "Installing, help and first steps"): the BUILT binary on a machine
 * where prs has never run (empty HOME, no PRS_* variables).
 */
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runPrs, tempDir } from '../helpers/run.js';

const tmp = tempDir('prs-first-steps-');
afterAll(() => tmp.cleanup());
const fresh = { HOME: tmp.path, XDG_CONFIG_HOME: '', XDG_CACHE_HOME: '' };
const prs = (args: string[], env: Record<string, string> = {}) =>
  runPrs(args, { env: { ...fresh, ...env }, cwd: tmp.path });

describe('never logged in', () => {
  it.each([
    ['report', ['report', '42', '-t', 'index', '-d', '2024-05-02']],
    ['export', ['export', '42', '-t', 'index', '-d', '2024-05-02']],
    [
      'report with --base-url only',
      ['--base-url', 'https://api.example.com', 'report', '42', '-t', 'index', '-d', '2024-05-02'],
    ],
  ])('%s: exit 4 "not logged in — run `prs login`", nothing written', async (_n, args) => {
    const r = await prs(args);
    expect([r.code, r.stdout]).toEqual([4, '']);
    expect(r.stderr).toMatch(/^prs: not logged in — run `prs login`\nhint: .*\n$/);
  });

  it('in CI: the variables to set', async () => {
    const r = await prs(['report', '42', '-t', 'index', '-d', '2024-05-02'], { CI: 'true' });
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(
      /^prs: not logged in — set PRS_BASE_URL, PRS_TENANT, PRS_AUTH_URL, PRS_REALM, PRS_CLIENT_ID with PRS_USERNAME, PRS_PASSWORD and PRS_CLIENT_SECRET \(or PRS_TOKEN\)\n/,
    );
  });

  it('a ready token without a base URL still names the missing setting (exit 2)', async () => {
    const r = await prs(['report', '42', '-t', 'index', '-d', '2024-05-02'], {
      PRS_TOKEN: 'ready',
      PRS_CONFIG_DIR: join(tmp.path, 'other'),
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^prs: no base URL for the report service\n/);
  });
});
