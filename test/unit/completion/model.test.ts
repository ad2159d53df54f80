// The walk of the commander program into the data the three scripts are rendered from.
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../../src/cli.js';
import { OPTION_VALUES } from '../../../src/commands/completion-values.js';
import {
  ARGUMENT_VALUES,
  allCommands,
  type CommandSpec,
  type CompletionSpec,
  optionsFor,
  specFromProgram,
} from '../../../src/completion/model.js';
import { EXPORT_FORMATS, REPORT_FORMATS, REPORT_TYPES } from '../../../src/domain.js';
import { SETTING_KEYS } from '../../../src/settings.js';

const spec = specFromProgram(buildProgram({ version: '1.0.0', run: async () => {} }), OPTION_VALUES);
const find = (path: string): CommandSpec => {
  const cmd = allCommands(spec.root).find((c) => c.path.join(' ') === path);
  if (!cmd) throw new Error(`no command "${path}"`);
  return cmd;
};
const option = (s: CompletionSpec, path: string, flag: string) =>
  optionsFor(s, find(path)).find((o) => o.long === flag || o.short === flag);

/** Fixed values, with each one's description (its text is tested below). */
const choicesOf = (values: readonly string[]) => ({
  kind: 'choices',
  values: [...values],
  descriptions: expect.any(Object),
});

describe('specFromProgram', () => {
  it('lists the commands and subcommands in definition order, without hidden ones', () => {
    expect(spec.root.commands.map((c) => c.name)).toEqual([
      'login',
      'logout',
      'auth',
      'config',
      'report',
      'export',
      'diff',
      'cache',
      'quota',
      'completion',
      'sandbox',
      'help',
    ]);
    expect(find('auth').commands.map((c) => c.name)).toEqual(['status', 'token', 'help']);
    expect(find('config').commands.map((c) => c.name)).toEqual([
      'list',
      'get',
      'set',
      'unset',
      'path',
      'help',
    ]);
    expect(find('auth status').description).toMatch(/^show the session/);
  });

  it('keeps the global options apart, and the version and help options at the top only', () => {
    expect(spec.globalOptions.map((o) => o.long)).toEqual([
      '--profile',
      '--base-url',
      '--tenant',
      '--timeout',
      '--retries',
      '--rate-limit',
      '--limiter',
      '--cache',
      '--no-cache',
      '--log-format',
      '--metrics-file',
      '--ping-url',
      '--quiet',
      '--verbose',
      '--no-color',
    ]);
    expect(spec.root.options.map((o) => o.long)).toEqual(['--version', '--help']);
    expect(find('report').options.map((o) => o.long)).not.toContain('--version');
    expect(find('report').options.map((o) => o.long)).toContain('--help');
  });

  it.each([
    ['report', '--type', choicesOf(REPORT_TYPES)],
    ['export', '-t', choicesOf(REPORT_TYPES)],
    ['report', '--format', choicesOf([...REPORT_FORMATS, 'parquet'])],
    ['export', '-f', choicesOf(EXPORT_FORMATS)],
    ['diff', '-f', choicesOf(REPORT_FORMATS)],
    ['diff', '--against', choicesOf(REPORT_TYPES)],
    ['report', '--date', choicesOf(['today', 'yesterday', 'previous-weekday'])],
    ['report', '-o', { kind: 'file' }],
    ['export', '--output', { kind: 'file' }],
    ['export', '--dir', { kind: 'dir' }],
    ['report', '--profile', { kind: 'profiles' }],
    ['', '--profile', { kind: 'profiles' }],
    ['login', '--realm', { kind: 'none' }],
    ['sandbox', '--rate-limit', { kind: 'none' }],
  ])('%s %s completes %j', (path, flag, value) => {
    const o = option(spec, path, flag);
    expect(o?.takesValue).toBe(true);
    expect(o?.value).toEqual(value);
  });

  it.each([
    ['report', '--type'],
    ['report', '--format'],
    ['export', '--format'],
    ['export', '--from'],
  ])('%s %s: every value has a description of its own, one line, no colon', (path, flag) => {
    const v = option(spec, path, flag)?.value;
    if (v?.kind !== 'choices') throw new Error('not choices');
    for (const x of v.values) expect(v.descriptions?.[x], x).toMatch(/^[^:\n]{5,60}$/);
    expect(Object.keys(v.descriptions ?? {}).sort()).toEqual([...v.values].sort());
  });

  it('flags take no value', () => {
    expect(option(spec, 'report', '--json')).toMatchObject({ takesValue: false });
    expect(option(spec, 'report', '--json')?.value).toBeUndefined();
    expect(option(spec, '', '-q')).toMatchObject({ short: '-q', long: '--quiet', takesValue: false });
    expect(option(spec, '', '--help')).toMatchObject({ exclusive: true });
  });

  it('a command option shadows the global one of the same name', () => {
    const limits = optionsFor(spec, find('sandbox')).filter((o) => o.long === '--rate-limit');
    expect(limits).toHaveLength(1);
    expect(limits[0].description).toMatch(/sandbox/);
  });

  it.each([
    ['config get', [...SETTING_KEYS]],
    ['config set', [...SETTING_KEYS]],
    ['config unset', [...SETTING_KEYS]],
    ['completion', ['bash', 'zsh', 'fish']],
    ['auth help', ['status', 'token']],
  ])('the first argument of %s completes to %j', (path, values) => {
    expect(find(path).args[0].value).toEqual({ kind: 'choices', values });
  });

  it.each([
    [
      'help',
      [
        'login',
        'logout',
        'auth',
        'config',
        'report',
        'export',
        'diff',
        'cache',
        'quota',
        'completion',
        'sandbox',
        'exit-codes',
      ],
    ],
    ['help auth', ['status', 'token']],
    ['help config', ['list', 'get', 'set', 'unset', 'path']],
    ['help report', []],
  ])('`prs %s` is followed by the topics under it: %j', (path, names) => {
    const help = find(path);
    expect(help.commands.map((c) => c.name)).toEqual(names);
    // Names only: no options or arguments of the commands they are about.
    for (const c of help.commands.flatMap(allCommands)) expect([c.options, c.args]).toEqual([[], []]);
  });

  it('portfolio ids complete to nothing', () => {
    expect(find('report').args).toEqual([{ name: 'portfolioId', variadic: true, value: { kind: 'none' } }]);
  });

  it('every value hint names a real option or argument (renaming one must not silently drop it)', () => {
    const commands = allCommands(spec.root);
    for (const key of Object.keys(OPTION_VALUES)) {
      const words = key.split(' ');
      const flag = words.pop()!;
      const where = words.length ? commands.filter((c) => c.path.join(' ') === words.join(' ')) : commands;
      expect(
        where.some((c) => optionsFor(spec, c).some((o) => o.long === flag && o.takesValue)),
        key,
      ).toBe(true);
    }
    for (const key of Object.keys(ARGUMENT_VALUES)) {
      const words = key.split(' ');
      const arg = words.pop()!;
      expect(
        find(words.join(' ')).args.map((a) => a.name),
        key,
      ).toContain(arg);
    }
  });

  it('refuses a command name the scripts could not quote', () => {
    const program = buildProgram({ version: '1', run: async () => {} });
    program.command('bad$name');
    expect(() => specFromProgram(program, OPTION_VALUES)).toThrow(/not a plain word/);
  });
});
