/**
 * Secrets never travel on argv (where `ps`, shell history and CI logs see them): no option of any
 * command takes a password, secret or token as its value, and a mistyped `--password=...` is refused
 * without echoing the value.
 */
import type { Command, Option } from 'commander';
import { CommanderError } from 'commander';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../../src/cli.js';
import { errorLines, errorReport } from '../../../src/main.js';

function allOptions(cmd: Command, path: string[] = []): { path: string; option: Option }[] {
  const here = cmd.options.map((option) => ({ path: [...path, cmd.name()].join(' '), option }));
  return [...here, ...cmd.commands.flatMap((c) => allOptions(c, [...path, cmd.name()]))];
}

describe('secrets and argv', () => {
  it('[R-S01] no option of any command takes a password, secret or token as a value', () => {
    const program = buildProgram({ version: '0', run: async () => {} });
    const options = allOptions(program);
    expect(options.length).toBeGreaterThan(30);
    const secretish = options.filter(
      // --token-ttl (the sandbox's token lifetime) is a number, not a token.
      ({ option }) =>
        /pass|secret|token|credential|bearer/i.test(option.long ?? '') && option.long !== '--token-ttl',
    );
    // Only flags about secrets exist: they take no value.
    expect(secretish.map(({ path, option }) => `${path} ${option.long}`).sort()).toEqual([
      'prs login --client-credentials',
      'prs login --password-stdin',
      'prs login --save-password',
    ]);
    for (const { option } of secretish) expect(option.required || option.optional).toBe(false);
  });

  it('an unknown --password=value is refused without echoing the value', () => {
    const err = new CommanderError(
      1,
      'commander.unknownOption',
      "error: unknown option '--password=hunter2'",
    );
    const lines = errorLines(errorReport(err, false));
    expect(lines[0]).toBe("prs: unknown option '--password=…'");
    expect(lines.join('\n')).not.toContain('hunter2');
  });
});
