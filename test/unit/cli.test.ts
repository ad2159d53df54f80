// Parsing on its own (changesets-style): argv → the typed options a command receives, and bad input
// rejected before any command module is loaded.
import { CommanderError } from 'commander';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/cli.js';
import type { authStatus } from '../../src/commands/auth.js';
import type { CompletionOptions } from '../../src/commands/completion.js';
import type { ConfigOptions } from '../../src/commands/config.js';
import type { ExportOptions } from '../../src/commands/export.flags.js';
import type { LoginOptions } from '../../src/commands/login.js';
import type { logout } from '../../src/commands/logout.js';
import type { ReportOptions } from '../../src/commands/report.flags.js';
import { UsageError } from '../../src/errors.js';
import type { GlobalOptions } from '../../src/settings.js';

interface Ran {
  /** The command's name, as its definition gives it to the runner. */
  name: string;
  options: unknown;
  globals: GlobalOptions;
}

async function parse(argv: string[]): Promise<Ran> {
  let got: Ran | undefined;
  const program = buildProgram({
    version: '1.2.3',
    now: () => new Date(2024, 4, 6, 9),
    run: async (command, options, globals) => {
      got = { name: command.name, options, globals };
    },
  });
  program.exitOverride().configureOutput({ writeErr: () => {}, writeOut: () => {} });
  for (const c of program.commands)
    c.exitOverride().configureOutput({ writeErr: () => {}, writeOut: () => {} });
  await program.parseAsync(['node', 'prs', ...argv]);
  if (!got) throw new Error('no command ran');
  return got;
}

describe('report argv', () => {
  it.each([
    [
      'one date, json flag',
      ['report', '42', '-t', 'index', '-d', '2024-05-01', '--json'],
      { portfolioIds: [42], type: 'index', dates: ['2024-05-01'], format: 'json', raw: false, force: false },
    ],
    [
      'range, several ids, fields',
      [
        'report',
        '1',
        '2',
        '--type',
        'constituent.close',
        '--from',
        '2024-05-03',
        '--to',
        '2024-05-06',
        '--fields',
        'isin,closingPrice',
      ],
      {
        portfolioIds: [1, 2],
        dates: ['2024-05-03', '2024-05-06'],
        fields: ['isin', 'closingPrice'],
        format: undefined,
      },
    ],
    [
      'yesterday',
      ['report', '7', '-t', 'index', '-d', 'yesterday', '-f', 'csv'],
      { dates: ['2024-05-05'], format: 'csv' },
    ],
    [
      'output and force',
      ['report', '7', '-t', 'index', '-d', 'today', '-o', 'x.json', '--force'],
      { output: 'x.json', force: true },
    ],
    ['-o - is stdout', ['report', '7', '-t', 'index', '-d', 'today', '-o', '-'], { output: undefined }],
  ] satisfies [string, string[], Partial<ReportOptions>][])('%s', async (_name, argv, want) => {
    const { name, options } = await parse(argv);
    expect(name).toBe('report');
    expect(options).toMatchObject(want);
  });

  it('global options after the command reach the globals', async () => {
    const { globals } = await parse([
      'report',
      '42',
      '-t',
      'index',
      '-d',
      '2024-05-01',
      '--base-url',
      'http://x',
      '--tenant',
      't',
      '-q',
    ]);
    expect(globals).toMatchObject({ baseUrl: 'http://x', tenant: 't', quiet: true });
  });
  it('global options before the command too', async () => {
    const { globals } = await parse([
      '--profile',
      'prod',
      '--retries',
      '1',
      'report',
      '42',
      '-t',
      'index',
      '-d',
      '2024-05-01',
    ]);
    expect(globals).toMatchObject({ profile: 'prod', retries: '1' });
  });

  it.each([
    ['bad id', ['report', 'abc', '-t', 'index', '-d', '2024-05-01'], /invalid portfolio id/],
    ['missing type', ['report', '42', '-d', '2024-05-01'], /missing --type/],
    ['unknown type', ['report', '42', '-t', 'indx', '-d', '2024-05-01'], /did you mean "index"/],
    ['bad date', ['report', '42', '-t', 'index', '-d', '2024-02-30'], /invalid date/],
    ['bad format', ['report', '42', '-t', 'index', '-d', '2024-05-01', '-f', 'xml'], /unknown format "xml"/],
    [
      'json vs format',
      ['report', '42', '-t', 'index', '-d', '2024-05-01', '--json', '-f', 'csv'],
      /conflicts/,
    ],
    [
      'raw with range',
      ['report', '42', '-t', 'index', '--from', '2024-05-01', '--to', '2024-05-03', '--raw'],
      /one portfolio and one date/,
    ],
    [
      'raw with several ids',
      ['report', '1', '2', '-t', 'index', '-d', '2024-05-01', '--raw'],
      /one portfolio and one date/,
    ],
  ])('%s → UsageError', async (_name, argv, re) => {
    const err = await parse(argv).catch((e) => e);
    expect(err).toBeInstanceOf(UsageError);
    expect(String(err.message)).toMatch(re);
  });
});

describe('report argv: the answer cache and --dry-run', () => {
  const R = ['report', '42', '-t', 'index', '-d', '2024-05-01'];
  it.each([
    ['nothing said', [], { cache: 'use', dryRun: false }, undefined],
    ['--refresh', ['--refresh'], { cache: 'refresh' }, undefined],
    ['--no-cache', ['--no-cache'], { cache: 'off' }, undefined],
    ['--dry-run', ['--dry-run'], { dryRun: true }, undefined],
    // --cache <max-age> and --no-cache share commander's attribute: the last one given wins.
    ['--cache 7d after the command', ['--cache', '7d'], { cache: 'use' }, '7d'],
    ['--cache 7d and --no-cache', ['--cache', '7d', '--no-cache'], { cache: 'off' }, undefined],
  ])('%s', async (_n, extra, want, globalCache) => {
    const { options, globals } = await parse([...R, ...extra]);
    expect(options).toMatchObject(want);
    expect((globals as { cache?: string }).cache).toBe(globalCache);
  });
  it('--no-cache before the command too (CLI.md: `prs --no-cache report …`)', async () => {
    const { options, globals } = await parse(['--no-cache', ...R]);
    expect(options).toMatchObject({ cache: 'off' });
    expect(globals).toMatchObject({ noCache: true });
    await expect(parse(['--no-cache', ...R, '--refresh'])).rejects.toThrow(
      /--refresh conflicts with --no-cache/,
    );
  });
  it('--cache before the command', async () => {
    const { globals } = await parse(['--cache', '12h', ...R]);
    expect((globals as { cache?: string }).cache).toBe('12h');
  });
  it('--refresh with --no-cache: a usage error', async () => {
    await expect(parse([...R, '--refresh', '--no-cache'])).rejects.toThrow(
      /--refresh conflicts with --no-cache/,
    );
  });
});

describe('export argv', () => {
  it('defaults', async () => {
    const { name, options } = await parse(['export', '42', '-t', 'constituent.close', '-d', '2024-05-01']);
    expect(name).toBe('export');
    expect(options).toEqual({
      portfolioIds: [42],
      type: 'constituent.close',
      dates: ['2024-05-01'],
      format: 'json',
      dir: '.',
      output: undefined,
      name: undefined,
      force: false,
      extract: false,
      skipExisting: false,
      parallel: 1,
      failFast: false,
      json: false,
      dryRun: false,
    } satisfies ExportOptions);
  });
  it.each([
    [
      'parallel 0',
      ['export', '42', '-t', 'index', '-d', '2024-05-01', '--parallel', '0'],
      /invalid --parallel/,
    ],
    [
      'parallel 9',
      ['export', '42', '-t', 'index', '-d', '2024-05-01', '--parallel', '9'],
      /invalid --parallel/,
    ],
    [
      'parallel x',
      ['export', '42', '-t', 'index', '-d', '2024-05-01', '--parallel', '2x'],
      /invalid --parallel/,
    ],
    [
      'json with -o -',
      ['export', '42', '-t', 'index', '-d', '2024-05-01', '--json', '-o', '-'],
      /--json cannot be used with --output -/,
    ],
    [
      'extract needs csv',
      ['export', '42', '-t', 'index', '-d', '2024-05-01', '--extract'],
      /--extract goes with --format csv/,
    ],
    [
      'output with a range',
      ['export', '42', '-t', 'index', '--from', '2024-05-01', '--to', '2024-05-02', '-o', 'x'],
      /one portfolio and one date/,
    ],
    ['bad format', ['export', '42', '-t', 'index', '-d', '2024-05-01', '-f', 'table'], /unknown format/],
  ])('%s', async (_n, argv, re) => {
    await expect(parse(argv)).rejects.toThrow(re);
  });
});

type OtherOptions =
  | LoginOptions
  | Parameters<typeof logout>[0]
  | Parameters<typeof authStatus>[0]
  | ConfigOptions
  | CompletionOptions
  | Record<string, never>;

describe('other commands', () => {
  it.each([
    [['login', '--username', 'u', '--password-stdin'], 'login', { username: 'u', passwordStdin: true }],
    [['logout', '--all'], 'logout', { all: true }],
    [['auth', 'status', '--json'], 'auth.status', { json: true }],
    [['auth', 'token'], 'auth.token', {}],
    [['config', 'set', 'tenant', 't1'], 'config', { action: 'set', key: 'tenant', value: 't1' }],
    [['config', 'path'], 'config', { action: 'path' }],
    [['completion', 'zsh'], 'completion', { shell: 'zsh' }],
    [['__complete', '--', 'report', '-'], 'completion', { words: ['report', '-'] }],
    [['help', 'exit-codes'], 'help.exit-codes', {}],
  ] satisfies [string[], string, Partial<OtherOptions>][])('%j', async (argv, wantName, want) => {
    const { name, options } = await parse(argv);
    expect(name).toBe(wantName);
    expect(options).toMatchObject(want);
  });

  it('login keeps no password unless --save-password', async () => {
    expect((await parse(['login'])).options).not.toMatchObject({ savePassword: true });
    expect((await parse(['login', '--save-password'])).options).toMatchObject({ savePassword: true });
  });

  it('unknown command suggests the closest', async () => {
    const err = await parse(['reprot']).catch((e) => e);
    expect(err).toBeInstanceOf(CommanderError);
    expect(err.message).toMatch(/Did you mean report\?/);
  });
  it('completion rejects an unknown shell', async () => {
    await expect(parse(['completion', 'tcsh'])).rejects.toBeInstanceOf(CommanderError);
  });
});
