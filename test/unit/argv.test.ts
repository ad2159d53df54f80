// A report's argv read without commander (src/argv.ts: main.ts's direct path, and the answer cache's
// in src/hit.ts). What it accepts it must read exactly as commander does: the same report options and
// the same global flags. Held here by a table of the argvs scripts write and by generated argvs over
// the flags' vocabulary, each compared with commander's own parse (the CLI's definitions,
// buildProgram); and what it does not know for certain it must leave to commander.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readArgv } from '../../src/argv.js';
import { buildProgram } from '../../src/cli.js';
import { cacheFlags } from '../../src/commands/flags.js';
import { reportOptions } from '../../src/commands/report.flags.js';
import { type GlobalOptions, globalSettingValues } from '../../src/settings.js';

const NOW = new Date(2024, 4, 6, 9);

/** Commander's reading: the report's options and the globals, or the error it threw. */
async function commanderReads(argv: string[]): Promise<{ options: unknown; globals: GlobalOptions } | Error> {
  let got: { options: unknown; globals: GlobalOptions } | undefined;
  const program = buildProgram({
    version: '1.2.3',
    now: () => NOW,
    run: async (_command, options, globals) => {
      got = { options, globals };
    },
  });
  const quiet = (c: typeof program) => {
    c.exitOverride().configureOutput({ writeErr: () => {}, writeOut: () => {} });
    for (const sub of c.commands) quiet(sub);
  };
  quiet(program);
  try {
    await program.parseAsync(['node', 'prs', ...argv]);
  } catch (err) {
    return err as Error;
  }
  return got ?? new Error('no command ran');
}

/** The fast path's reading, in the same shape; undefined when it leaves the argv to the CLI. */
function fastReads(argv: string[]): { options: unknown; globals: GlobalOptions } | Error | undefined {
  const read = readArgv(argv);
  if (!read) return undefined;
  try {
    return { options: reportOptions(read.ids, read.flags, NOW, read.globals), globals: read.globals };
  } catch (err) {
    return err as Error;
  }
}

/** What the run depends on among the globals: the setting values, the profile, the switches. */
const settingsOf = (g: GlobalOptions) => ({
  values: globalSettingValues(g),
  profile: g.profile,
  quiet: !!g.quiet,
  verbose: !!g.verbose,
  color: g.color !== false,
  noCache: !!g.noCache,
});

/** A random selection, in random order, of one value of each arbitrary. */
const someOf = (arbs: fc.Arbitrary<string[]>[]) =>
  fc.tuple(...arbs).chain((values) => fc.shuffledSubarray(values));

/** How many argvs the fast path accepted and options came of (the property below must not be vacuous). */
let compared = 0;

async function expectSameReading(argv: string[]) {
  const fast = fastReads(argv);
  if (fast === undefined) return;
  if (!(fast instanceof Error)) compared++;
  const cli = await commanderReads(argv);
  if (fast instanceof Error) {
    // A flag value the options refuse: commander's run refuses it with the same error.
    expect(cli, argv.join(' ')).toBeInstanceOf(Error);
    expect((cli as Error).message, argv.join(' ')).toBe(fast.message);
    return;
  }
  expect(cli, argv.join(' ')).not.toBeInstanceOf(Error);
  const c = cli as { options: unknown; globals: GlobalOptions };
  expect(fast.options, argv.join(' ')).toEqual(c.options);
  expect(settingsOf(fast.globals), argv.join(' ')).toEqual(settingsOf(c.globals));
}

const base = ['report', '42', '-t', 'index', '-d', '2024-05-01'];

describe('readArgv: what it accepts, commander reads the same way', () => {
  it.each([
    ['the plain form', base],
    ['--cache before the command', ['--cache', '7d', ...base, '-f', 'json']],
    ['--cache after it, with =', [...base, '--cache=12h', '--format=csv']],
    ['long flags with =', ['report', '42', '--type=index', '--date=2024-05-01', '-f', 'tsv']],
    ['--json', [...base, '--json', '--cache', '7d']],
    [
      'the globals that change nothing on a hit',
      ['--timeout', '5', '--retries', '1', ...base, '--rate-limit', '4/60s'],
    ],
    [
      'profile, tenant, base URL',
      ['--profile', 'prod', ...base, '--tenant', 'T1', '--base-url', 'http://h:1'],
    ],
    ['-q and --no-color', ['-q', ...base, '--no-color', '-f', 'ndjson']],
    ['a word that looks like a flag is a flag value', [...base, '--cache', '-q']],
    ['yesterday', ['report', '42', '-t', 'index', '-d', 'yesterday']],
    ['-o - and --force', [...base, '-o', '-', '--force']],
    ['switches that a hit does not take', [...base, '--raw', '--fail-fast', '--weekends']],
    ['--refresh', [...base, '--refresh']],
    ['two portfolios', ['report', '1', '2', '-t', 'index', '-d', '2024-05-01']],
    ['a range', ['report', '1', '-t', 'index', '--from', '2024-05-01', '--to', '2024-05-03']],
    ['a bad portfolio id', ['report', 'abc', '-t', 'index', '-d', '2024-05-01']],
    ['a bad type', ['report', '42', '-t', 'indx', '-d', '2024-05-01']],
    ['--json with -f csv', [...base, '--json', '-f', 'csv']],
    ['-v', [...base, '-v']],
    ['--verbose before the command', ['--verbose', ...base]],
    ['--no-cache after the command', [...base, '--no-cache']],
    ['--no-cache before the command', ['--no-cache', ...base]],
    ['--no-cache with --refresh', [...base, '--no-cache', '--refresh']],
  ])('%s', async (_name, argv) => {
    expect(readArgv(argv)).toBeDefined();
    await expectSameReading(argv);
  });

  it('generated argvs over the flags of report and the globals (fast-check, 1,500 runs)', async () => {
    compared = 0;
    const pair = (names: string[], values: string[]) =>
      fc
        .tuple(fc.constantFrom(...names), fc.constantFrom(...values), fc.boolean())
        .map(([n, v, eq]) => (eq && n.startsWith('--') ? [`${n}=${v}`] : [n, v]));
    const flag = (...names: string[]) => fc.constantFrom(...names).map((n) => [n]);
    const globals = someOf([
      pair(['--cache'], ['7d', '30m', 'off', '-q', '7']),
      pair(['--profile'], ['p', 'bad name']),
      pair(['--tenant'], ['T1']),
      pair(['--base-url'], ['http://h:1', 'nope']),
      pair(['--timeout'], ['5', 'x']),
      pair(
        ['--retries', '--rate-limit', '--limiter', '--log-format', '--metrics-file', '--ping-url'],
        ['1', 'json'],
      ),
      flag('-q', '--quiet'),
      flag('-v', '--verbose'),
      flag('--no-color'),
    ]);
    // -t and -d nearly always (else nothing is compared), the rest some of the time; in any order.
    const own = fc
      .tuple(
        pair(['-t', '--type'], ['index', 'constituent.close', 'indx']),
        pair(['-d', '--date'], ['2024-05-01', 'yesterday', 'today', '2024-13-01']),
        someOf([
          pair(['--from'], ['2024-05-01']),
          pair(['--to'], ['2024-05-03']),
          pair(['-f', '--format'], ['json', 'ndjson', 'csv', 'tsv', 'table', 'xml']),
          pair(['--fields'], ['isin,name', '']),
          pair(['-o', '--output'], ['-', 'x.csv']),
          flag('--json'),
          flag('--force'),
          flag('--raw'),
          flag('--fail-fast'),
          flag('--dry-run'),
          flag('--refresh'),
          flag('--no-cache'),
          flag('--weekends'),
        ]),
      )
      .chain(([t, d, rest]) => fc.shuffledSubarray([t, d, ...rest], { minLength: rest.length + 1 }));
    // Some global flags before the command, the rest among report's own after the ids.
    const argv = fc
      .record({
        gs: globals,
        os: own,
        ids: fc.shuffledSubarray(['42', '7', 'abc'], { minLength: 1, maxLength: 2 }),
        split: fc.nat(),
        at: fc.nat(),
      })
      .map(({ gs, os, ids, split, at }) => {
        const k = split % (gs.length + 1);
        const i = at % (os.length + 1);
        return [
          ...gs.slice(0, k),
          'report',
          ...ids,
          ...os.slice(0, i),
          ...gs.slice(k),
          ...os.slice(i),
        ].flat();
      });
    await fc.assert(
      fc.asyncProperty(argv, async (args) => {
        await expectSameReading(args);
      }),
      { numRuns: 1500, seed: 25 },
    );
    expect(compared).toBeGreaterThan(60);
  });
});

describe('readArgv: what it leaves to commander', () => {
  it.each([
    ['another command', ['export', '42', '-t', 'index', '-d', '2024-05-01']],
    ['no command', ['--cache', '7d']],
    ['no portfolio id', ['report', '-t', 'index', '-d', '2024-05-01']],
    ['--help', [...base, '--help']],
    ['-h', ['report', '-h']],
    ['--', [...base, '--', '43']],
    ['a group of short flags', [...base, '-qv']],
    ['a short flag with its value attached', ['report', '42', '-tindex', '-d', '2024-05-01']],
    ['a repeated flag (commander keeps the last)', [...base, '-d', '2024-05-02']],
    ['a switch given a value', [...base, '--json=1']],
    ['an unknown flag', [...base, '--bogus']],
    ['--cache and --no-cache (commander keeps the last)', ['--cache', '7d', ...base, '--no-cache']],
    ['report flags before the command', ['-t', 'index', 'report', '42', '-d', '2024-05-01']],
    ['a flag missing its value', [...base, '-f']],
    ['a second command word', ['help', 'report']],
  ])('%s', (_name, argv) => {
    expect(readArgv(argv)).toBeUndefined();
  });
});

describe("cacheFlags: commander's `cache` as the globals' cache and noCache", () => {
  it.each([
    ['--no-cache', false, { cache: undefined, noCache: true }],
    ['--cache 7d', '7d', { cache: '7d' }],
    ['--cache off', 'off', { cache: 'off' }],
    ['neither', undefined, { cache: undefined }],
  ])('%s', (_name, cache, want) => expect(cacheFlags(cache)).toStrictEqual(want));
});
