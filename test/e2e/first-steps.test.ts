/**
 * A newcomer's first hour (CLI.md "Installing, help and first steps"): the BUILT binary on a machine
 * where prs has never run (empty HOME, no PRS_* variables).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { EXAMPLE_PORTFOLIO_ID } from '../helpers/portfolios.js';
import { runPrs, tempDir } from '../helpers/run.js';
import { useLoggedIn } from '../helpers/session.js';

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

describe('-o given a format name (kubectl and aws users type -o json)', () => {
  const setup = useLoggedIn('prs-first-steps-o-', { rateLimit: '100/1s' });
  const id = String(EXAMPLE_PORTFOLIO_ID);
  const run = (args: string[], cwd: string) => runPrs(args, { env: setup.env, cwd });

  it.each([
    ['report -o json', ['report', id, '-t', 'index', '-d', '2024-05-03', '-o', 'json'], 'json'],
    ['report --output CSV', ['report', id, '-t', 'index', '-d', '2024-05-03', '--output', 'CSV'], 'csv'],
    ['export -o csv', ['export', id, '-t', 'index', '-d', '2024-05-03', '-o', 'csv'], 'csv'],
  ])('%s: exit 2 "did you mean -f …?" before any request, no file', async (_n, args, format) => {
    const cwd = tempDir('prs-o-');
    const before = setup.sandbox.stats.requests.length;
    const r = await run(args, cwd.path);
    const given = args.at(-1)!;
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      `prs: -o ${given} names a format, not a file — did you mean -f ${format}?\nhint: to write a file named ${given}, say -o ./${given}\n`,
    );
    expect(existsSync(join(cwd.path, given))).toBe(false);
    expect(setup.sandbox.stats.requests.length).toBe(before);
    cwd.cleanup();
  });

  it('-o ./json writes the file named json', async () => {
    const cwd = tempDir('prs-o-');
    const r = await run(['report', id, '-t', 'index', '-d', '2024-05-03', '-o', './json'], cwd.path);
    expect([r.code, r.stderr]).toEqual([0, 'wrote 2 rows to ./json\n']);
    expect(JSON.parse(readFileSync(join(cwd.path, 'json'), 'utf8')).length).toBeGreaterThan(0);
    cwd.cleanup();
  });
});

describe('help: own options, then the global options once, in a section of their own', () => {
  it.each([['report'], ['export'], ['login'], ['auth', 'status'], ['config', 'set']])(
    'prs %s --help',
    async (...path) => {
      const r = await prs([...path, '--help']);
      expect(r.code).toBe(0);
      const out = r.stdout;
      const own = out.indexOf('\nOptions:\n');
      const globals = out.indexOf(
        '\nGlobal options (before or after the command; `prs --help` explains each):\n',
      );
      const examples = out.indexOf('\nExamples:\n');
      expect(own).toBeGreaterThan(0);
      expect(globals).toBeGreaterThan(own);
      expect(examples).toBeGreaterThan(globals);
      const section = out.slice(globals, examples);
      for (const flag of ['--base-url <url>', '--retries <n>', '--no-cache', '-q/--quiet', '--no-color'])
        expect(section).toContain(flag);
      // Named there, explained once: in `prs --help`.
      expect(out).not.toContain('service base URL');
      expect(out).not.toMatch(/^ +--base-url <url> {2,}/m);
    },
  );

  it('prs --help explains each global option', async () => {
    const r = await prs(['--help']);
    expect(r.stdout).toMatch(/--base-url <url> +service base URL/);
    expect(r.stdout).not.toContain('Global options (before or after');
  });

  it.each([
    [['report', '42', '--bogus'], "prs: unknown option '--bogus'\nrun `prs report --help` for usage\n"],
    [
      ['auth', 'status', '--bogus'],
      "prs: unknown option '--bogus'\nrun `prs auth status --help` for usage\n",
    ],
    [['report'], "prs: missing required argument 'portfolioId'\nrun `prs report --help` for usage\n"],
    [['bogus'], "prs: unknown command 'bogus'\nrun `prs --help` for usage\n"],
  ])("prs %j: the hint names that command's own help", async (args, stderr) => {
    const r = await prs(args);
    expect([r.code, r.stderr]).toEqual([2, stderr]);
  });
});

describe('auth status -q prints nothing: the exit code says it', () => {
  const setup = useLoggedIn('prs-first-steps-q-');

  it.each([
    ['logged in', () => setup.env, 0],
    ['never logged in', () => ({ ...fresh, PRS_CONFIG_DIR: join(tmp.path, 'q-none') }), 4],
  ])('%s: exit %i, nothing on stdout or stderr', async (_n, env, code) => {
    for (const args of [
      ['auth', 'status', '-q'],
      ['-q', 'auth', 'status'],
    ]) {
      const r = await runPrs(args, { env: env() });
      expect([r.code, r.stdout, r.stderr]).toEqual([code, '', '']);
    }
    // Without -q: the status, and the error line when not ready.
    const loud = await runPrs(['auth', 'status'], { env: env() });
    expect(loud.stdout).toMatch(/^profile: /);
    expect(loud.code).toBe(code);
  });
});
