// `prs help`, `prs help exit-codes`, the examples under every --help, and the completion command.

import { readFileSync } from 'node:fs';
import { type Command, CommanderError } from 'commander';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../../src/cli.js';
import { completion } from '../../../src/commands/completion.js';
import { completionScript } from '../../../src/completion/scripts.js';
import { EXIT_CODES, ExitCode, UsageError } from '../../../src/errors.js';
import { CRON_LINE, EXAMPLES, exitCodesText } from '../../../src/help.js';
import { fakeDeps, memoryStore } from '../../helpers/deps.js';

interface Parsed {
  ran?: { name: string; options: unknown };
  out: string;
  error?: unknown;
}

/** Parses argv with every command's output captured and exits turned into throws. */
async function parse(argv: string[]): Promise<Parsed> {
  const result: Parsed = { out: '' };
  const program = buildProgram({
    version: '1.2.3',
    now: () => new Date(2024, 4, 6, 9),
    run: async (command, options) => {
      result.ran = { name: command.name, options };
    },
  });
  const quiet = (cmd: Command) => {
    cmd.exitOverride().configureOutput({
      writeOut: (s) => {
        result.out += s;
      },
      writeErr: (s) => {
        result.out += s;
      },
    });
    for (const sub of cmd.commands) quiet(sub);
  };
  quiet(program);
  try {
    await program.parseAsync(['node', 'prs', ...argv]);
  } catch (err) {
    result.error = err;
  }
  return result;
}

const isHelpExit = (err: unknown) => err instanceof CommanderError && err.exitCode === 0;

describe('prs help', () => {
  it('exit-codes runs the exit-codes command', async () => {
    const r = await parse(['help', 'exit-codes']);
    expect(r.error).toBeUndefined();
    expect(r.ran?.name).toBe('help.exit-codes');
  });

  it.each([
    [[], 'Usage: prs [options] [command]'],
    [['report'], 'Usage: prs report [options] <portfolioId...>'],
    [['auth'], 'Usage: prs auth [options] [command]'],
    [['auth', 'status'], 'Usage: prs auth status [options]'],
    [['config', 'set'], 'Usage: prs config set [options] <key> <value>'],
  ])('help %j shows that help and exits 0', async (topic, usage) => {
    const r = await parse(['help', ...topic]);
    expect(isHelpExit(r.error)).toBe(true);
    expect(r.out.startsWith(usage)).toBe(true);
    expect(r.ran).toBeUndefined();
  });

  it.each([
    [['reprot'], 'unknown help topic "reprot" — did you mean "report"?'],
    [['exit-code'], 'unknown help topic "exit-code" — did you mean "exit-codes"?'],
    [['auth', 'stats'], 'unknown help topic "auth stats" — did you mean "status"?'],
    [['zzzzzz'], 'unknown help topic "zzzzzz"'],
  ])('help %j is a usage error with the closest topic', async (topic, message) => {
    const r = await parse(['help', ...topic]);
    expect(r.error).toBeInstanceOf(UsageError);
    expect((r.error as UsageError).message).toBe(message);
    expect((r.error as UsageError).hint).toMatch(/^topics: /);
  });

  it('the hidden __complete command is neither listed nor a help topic', async () => {
    const r = await parse(['--help']);
    expect(r.out).not.toContain('__complete');
    expect((await parse(['help', '__complete'])).error).toBeInstanceOf(UsageError);
  });

  it('__complete -- <words…> runs the completion command, options among the words included', async () => {
    const r = await parse(['__complete', '--', 'report', '--profile', '']);
    expect(r.ran).toMatchObject({ name: 'completion', options: { words: ['report', '--profile', ''] } });
  });
});

describe('examples under --help', () => {
  const program = buildProgram({ version: '1', run: async () => {} });
  const paths: string[] = [];
  const walk = (cmd: Command, path: string[]) => {
    if (!(cmd as unknown as { _hidden: boolean })._hidden) paths.push(path.join(' '));
    for (const sub of cmd.commands) walk(sub, [...path, sub.name()]);
  };
  walk(program, []);

  it('every command has examples, and every example belongs to a command', () => {
    expect(Object.keys(EXAMPLES).sort()).toEqual(paths.sort());
  });

  it.each(paths)('"prs %s --help" shows its examples', async (path) => {
    const r = await parse([...path.split(' ').filter(Boolean), '--help']);
    expect(isHelpExit(r.error)).toBe(true);
    expect(r.out).toContain('\nExamples:\n');
    for (const [comment, command, kind] of EXAMPLES[path])
      expect(r.out).toContain(`  # ${comment}\n  ${kind === 'crontab' ? '' : '$ '}${command}\n`);
  });

  it('the examples cover the common tasks', () => {
    const all = Object.values(EXAMPLES)
      .flat()
      .map(([, command]) => command)
      .join('\n');
    expect(all).toMatch(/^0 6 \* \* 1-5 .*prs .*export .*--skip-existing \|\| \[ \$\? -eq 3 \]$/m); // cron
    expect(all).toMatch(/prs report .*--json \| jq/); // jq pipe
    expect(all).toMatch(/--from \S+ --to \S+/); // date range
    expect(all).toMatch(/-t constituent\.corporateactions .*-f csv/); // corporate actions as CSV
    expect(all).toMatch(/--password-stdin/); // login non-interactively
    expect(all).toMatch(/--profile \w+/); // profiles
  });

  it("the crontab example pastes into crontab as printed (no `$ `) and is README's own line", async () => {
    const r = await parse(['export', '--help']);
    expect(r.out).toContain(`\n  ${CRON_LINE}\n`);
    expect(r.out).not.toMatch(/\$ [\d*]+ [\d*]+ /);
    const readme = readFileSync(new URL('../../../README.md', import.meta.url), 'utf8');
    expect(readme).toContain(`\n${CRON_LINE}\n`);
  });

  // Every `prs ...` in an example must parse: an example can never drift from the real options.
  const invocations = Object.values(EXAMPLES)
    .flat()
    .flatMap(([, command]) => [
      ...command.matchAll(/(?:^|[\s(])prs((?:\s+(?:'[^']*'|"[^"]*"|[^\s|;&)>'"]+))*)/g),
    ])
    .map((m) => [...m[1].matchAll(/'([^']*)'|"([^"]*)"|(\S+)/g)].map((t) => t[1] ?? t[2] ?? t[3]));

  it('finds the invocations', () => {
    expect(invocations.length).toBeGreaterThan(40);
  });

  it.each(invocations.map((args) => [args.join(' '), args]))('prs %s parses', async (_line, args) => {
    const r = await parse(args as string[]);
    if (r.error !== undefined) expect(isHelpExit(r.error), String(r.error)).toBe(true);
    else expect(r.ran).toBeDefined();
  });
});

describe('exit codes', () => {
  it('list every exit code of the contract once, in order', () => {
    expect(EXIT_CODES.map((e) => e.code)).toEqual(Object.values(ExitCode));
  });

  it('prs help exit-codes prints one line per code', () => {
    const text = exitCodesText();
    const lines = text.split('\n');
    for (const e of EXIT_CODES) expect(lines).toContain(`${String(e.code).padStart(5)}  ${e.meaning}`);
    expect(text).toContain('  4  authentication needed or refused');
    expect(text).toContain('130  interrupted (Ctrl-C)');
  });

  it('the root --help footer names every code', async () => {
    const r = await parse(['--help']);
    const footer = r.out.slice(r.out.indexOf('Exit codes:')).replace(/\s+/g, ' ');
    for (const e of EXIT_CODES) expect(footer).toContain(`${e.code} ${e.short}`);
    expect(footer).toContain('prs help exit-codes');
  });
});

describe('completion command', () => {
  const program = buildProgram({ version: '0.0.0', run: async () => {} });
  it.each(['bash', 'zsh', 'fish'] as const)('prints the %s script', async (shell) => {
    const deps = fakeDeps();
    await completion({ shell, program }, deps);
    expect(deps.io.stdoutText()).toBe(completionScript(shell));
    expect(deps.io.stderrText()).toBe('');
  });

  it.each([
    [['report', '1', '--format=c'], /^--format=csv\tcomma-separated/m],
    [['report', '1', '-o', ''], /^:files\n$/],
    [['export', '1', '--dir', ''], /^:dirs\n$/],
    [['completion', ''], /^bash\nzsh\nfish\n$/],
  ])('%j prints %s', async (words, want) => {
    const deps = fakeDeps();
    await completion({ words, program }, deps);
    expect(deps.io.stdoutText()).toMatch(want);
  });

  it('lists profile names, sorted, one per line', async () => {
    const deps = fakeDeps({
      store: memoryStore({
        work: { settings: {} },
        default: { settings: {} },
        'ci.nightly': { settings: {} },
      }),
    });
    await completion({ words: ['--profile', ''], program }, deps);
    expect(deps.io.stdoutText()).toBe('ci.nightly\ndefault\nwork\n');
  });

  it('prints nothing when there are no profiles', async () => {
    const deps = fakeDeps({ store: memoryStore({}) });
    await completion({ words: ['--profile', ''], program }, deps);
    expect(deps.io.stdoutText()).toBe('');
  });

  it('prints nothing, and no error, when the config cannot be read', async () => {
    const deps = fakeDeps();
    deps.store = async () => {
      throw new UsageError('config file is corrupt');
    };
    await completion({ words: ['report', '--profile', 'w'], program }, deps);
    expect(deps.io.stdoutText()).toBe('');
    expect(deps.io.stderrText()).toBe('');
  });
});
