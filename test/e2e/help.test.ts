// Help that teaches, through the built binary: examples under --help, `prs help <topic>`, the exit
// code table, and "did you mean" for typos (npm run build first).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runPrs, runPrsIntoClosedPipe, tempDir } from '../helpers/run.js';

const COMMANDS = [
  'login',
  'logout',
  'auth',
  'auth status',
  'auth token',
  'config',
  'config list',
  'config get',
  'config set',
  'config unset',
  'config path',
  'report',
  'export',
  'completion',
  'sandbox',
  'help',
];

describe('--version', () => {
  const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
  // On its own it is answered before the CLI loads (bin/prs.js); with anything else commander answers.
  it.each([['--version'], ['-V'], ['--version', '-q'], ['-q', '-V'], ['--no-color', '--version']])(
    '%j prints the package version and nothing else',
    async (...argv) => {
      const r = await runPrs(argv);
      expect(r).toMatchObject({ code: 0, stdout: `${version}\n`, stderr: '' });
    },
  );
});

describe('did you mean', () => {
  it.each([
    [['reprot'], "prs: unknown command 'reprot'\ndid you mean report?\n"],
    [['exprot', '1'], "prs: unknown command 'exprot'\ndid you mean export?\n"],
    [['report', '1', '--fromat', 'csv'], "prs: unknown option '--fromat'\ndid you mean --format?\n"],
    [['auth', 'stauts'], "prs: unknown command 'stauts'\ndid you mean status?\n"],
    [['--verbos', 'report'], "prs: unknown option '--verbos'\ndid you mean --verbose?\n"],
  ])('prs %j', async (args, stderr) => {
    const r = await runPrs(args);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(stderr);
  });
});

describe('-q drops the hint line, also in a group of short flags', () => {
  it.each([[['-q', 'reprot']], [['-qv', 'reprot']], [['reprot', '-vq']]])(
    'prs %j: the error line only',
    async (args) => {
      const r = await runPrs(args);
      expect(r.code).toBe(2);
      expect(r.stderr).toBe("prs: unknown command 'reprot'\n");
    },
  );

  it('after a command ran (the parsed flag decides)', async () => {
    const tmp = tempDir();
    try {
      const env = { PRS_CONFIG_DIR: tmp.path, PRS_CACHE_DIR: tmp.path };
      const loud = await runPrs(['config', 'get', 'realm', '-v'], { env });
      expect(loud.code).toBe(3);
      expect(loud.stderr).toMatch(/^prs: realm is not set .*\nhint: /);
      const quiet = await runPrs(['config', 'get', 'realm', '-qv'], { env });
      expect(quiet.code).toBe(3);
      expect(quiet.stderr).toBe('prs: realm is not set (profile default)\n');
    } finally {
      tmp.cleanup();
    }
  });
});

describe('prs help', () => {
  it('exit-codes lists every exit code of the contract, one line each', async () => {
    const r = await runPrs(['help', 'exit-codes']);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    const codes = r.stdout
      .split('\n')
      .map((l) => /^\s+(\d+) {2}\S/.exec(l)?.[1])
      .filter(Boolean)
      .map(Number);
    expect(codes).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 130]);
    expect(r.stdout).toMatch(/^\s+5 {2}forbidden \(403\) — check the tenant$/m);
  });

  it.each([
    [['help', 'report'], 'Usage: prs report [options] <portfolioId...>'],
    [['help', 'auth', 'status'], 'Usage: prs auth status [options]'],
    [['help'], 'Usage: prs [options] [command]'],
    [['report', '--help'], 'Usage: prs report [options] <portfolioId...>'],
  ])('prs %j shows that help on stdout, exit 0', async (args, usage) => {
    const r = await runPrs(args);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout.startsWith(`${usage}\n`)).toBe(true);
  });

  it('an unknown topic suggests the closest', async () => {
    const r = await runPrs(['help', 'exit-cods']);
    expect(r.code).toBe(2);
    expect(r.stderr.split('\n')[0]).toBe('prs: unknown help topic "exit-cods" — did you mean "exit-codes"?');
    expect(r.stderr.split('\n')[1]).toMatch(/^hint: topics: login, .*, exit-codes$/);
  });

  it('help into a pipe its reader has closed (`prs --help | head -3`) ends quietly with 0', async () => {
    for (const args of [['--help'], ['report', '--help'], ['help', 'exit-codes']]) {
      const r = await runPrsIntoClosedPipe(args);
      expect({ args, code: r.code, stderr: r.stderr }).toEqual({ args, code: 0, stderr: '' });
    }
  });

  it('the root --help ends with examples, the exit codes and where completions are', async () => {
    const r = await runPrs(['--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('\nExamples:\n  # ');
    expect(r.stdout).toMatch(/Exit codes: 0 ok, 1 internal error, 2 usage, .*\n.* 130 interrupted/);
    expect(r.stdout).toContain('prs help exit-codes');
    expect(r.stdout).toContain('prs completion --help');
    expect(r.stdout).toContain('  help [topic...]');
    expect(r.stdout).not.toContain('__complete');
  });

  it.each(COMMANDS)('prs %s --help has examples', async (command) => {
    const r = await runPrs([...command.split(' '), '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`^Usage: prs ${command} `));
    expect(r.stdout).toMatch(/\nExamples:\n( {2}# .+\n {2}\$ prs.+\n| {2}# .+\n {2}\$ .*prs .+\n)+/);
  });
});
