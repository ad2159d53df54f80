// Help that teaches, through the built binary: examples under --help, `prs help <topic>`, the exit
// code table, and "did you mean" for typos (npm run build first).
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXAMPLES } from '../../src/help.js';
import { loginArgs } from '../../src/sandbox/index.js';
import { baseEnv, PRS_BIN, runPrs, runPrsIntoClosedPipe, tempDir } from '../helpers/run.js';
import { useSandbox } from '../helpers/session.js';

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
    expect(codes).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 130, 143]);
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

describe('the examples run as written against `prs sandbox`', () => {
  // Every example of --help and the README that reads (report, export, auth, config get/list/path,
  // help), run by bash (pipefail) with `prs` on PATH, each in a fresh folder with the folders it names. Left
  // out: those that change the session or the machine (login, logout, config set/unset, completion,
  // sandbox) and those that need the reader's own values ($URL, $EDITOR, example.com).
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
  const fromReadme = [...readme.matchAll(/```sh\n([\s\S]*?)```/g)]
    .flatMap((m) => m[1].split('\n'))
    .filter((l) => /(^|\s)prs /.test(l) && !l.trimEnd().endsWith('\\'));
  const fromHelp = Object.values(EXAMPLES)
    .flat()
    .map(([, command]) => command);
  const reads = [...new Set([...fromHelp, ...fromReadme])]
    .map((l) => l.replace(/\s+# .*$/, ''))
    .filter(
      (l) =>
        /prs (--profile \S+ )?(-q )?(report|export|auth (status|token)|config (list|get|path)|help) /.test(
          l,
        ) && !/\$URL|\$EDITOR|example\.com|redis\.internal|\.\.\.|sandbox|login|logout/.test(l),
    );

  const sandbox = useSandbox({ rateLimit: '1000/1s' });
  const home = tempDir('prs-examples-');
  const bin = join(home.path, 'bin');
  const env = {
    PRS_CONFIG_DIR: join(home.path, 'config'),
    PRS_CACHE_DIR: join(home.path, 'cache'),
    PRS_RATE_LIMIT: '1000/1s',
    PRS_CLIENT_SECRET: 'sandbox-secret',
  };

  beforeAll(async () => {
    mkdirSync(bin);
    writeFileSync(join(bin, 'prs'), `#!/bin/sh\nexec "${process.execPath}" "${PRS_BIN}" "$@"\n`, {
      mode: 0o755,
    });
    const [demo] = sandbox.users;
    for (const profile of ['default', 'nightly', 'prod']) {
      const r = await runPrs(['--profile', profile, ...loginArgs(sandbox, demo)], {
        input: demo.password,
        env,
      });
      expect(r.code, r.stderr).toBe(0);
    }
  });
  afterAll(async () => {
    home.cleanup();
  });

  it('finds them', () => expect(reads.length).toBeGreaterThan(25));

  it.each(reads)('%s', async (line) => {
    const dir = mkdtempSync(join(home.path, 'run-'));
    for (const d of ['may', 'reports', 'data/prs', '2024']) mkdirSync(join(dir, d), { recursive: true });
    // A crontab line is its command after the five time fields; /data/prs is the reader's folder.
    const command = line
      .replace(/^[\d*,/-]+ [\d*,/-]+ \S+ \S+ \S+\s+/, '')
      .replace(' /data/prs', ' data/prs');
    const r = await run(command, {
      cwd: dir,
      env: baseEnv({ ...env, HOME: dir, PATH: `${bin}:${process.env.PATH}` }),
    });
    // "yesterday" may be a weekend or holiday: then "no data" (exit 3) is the right answer.
    const noData = /\b(yesterday|today|previous-weekday)\b/.test(line) && r.code === 3;
    if (noData) expect(r.stderr).toMatch(/^prs: no data for portfolio 42 on \d{4}-\d\d-\d\d/);
    else expect(r.stderr).not.toMatch(/^prs: /m);
    expect(r.code, r.stderr).toBe(noData ? 3 : 0);
  });
});

function run(
  command: string,
  o: { cwd: string; env: Record<string, string> },
): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn('bash', ['-o', 'pipefail', '-c', `${command} > out.txt`], {
      cwd: o.cwd,
      env: o.env,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (c) => {
      stderr += c;
    });
    child.on('close', (code) => resolve({ code, stderr }));
  });
}

describe('the error line is red only when colour is on (the IO decides, once)', () => {
  const red = "\x1b[31mprs: unknown command 'reprot'\x1b[39m\n";
  const plain = "prs: unknown command 'reprot'\n";
  it.each([
    [['reprot'], { FORCE_COLOR: '1' }, red],
    [['--no-color', 'reprot'], { FORCE_COLOR: '1' }, plain],
    [['reprot'], { FORCE_COLOR: '1', NO_COLOR: '1' }, plain],
    [['reprot'], { FORCE_COLOR: '0' }, plain],
    [['reprot'], {}, plain], // stderr is a pipe
  ])('prs %j with %j', async (args, env, first) => {
    const r = await runPrs(args, { env });
    expect(r.code).toBe(2);
    expect(r.stderr.slice(0, r.stderr.indexOf('\n') + 1)).toBe(first);
  });

  it('after a command ran, its parsed --no-color holds too', async () => {
    const dir = tempDir();
    const env = { FORCE_COLOR: '1', PRS_CONFIG_DIR: dir.path, PRS_CACHE_DIR: dir.path };
    const args = ['report', '42', '-t', 'index', '-d', '2024-05-02'];
    const colored = await runPrs(args, { env });
    const plainRun = await runPrs(['--no-color', ...args], { env });
    dir.cleanup();
    expect(colored.code).toBe(4); // never logged in
    expect(colored.stderr).toMatch(/^\x1b\[31mprs: .*\x1b\[39m\n/);
    expect(plainRun.stderr).toMatch(/^prs: /);
  });
});
