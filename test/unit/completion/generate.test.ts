// The checked-in completions/ files must be what the generator makes of the current command
// definitions; and the renderers must quote whatever text a description holds.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../../src/cli.js';
import { OPTION_VALUES } from '../../../src/commands/completion-values.js';
import { bashQuote, renderBash } from '../../../src/completion/bash.js';
import { fishQuote, renderFish } from '../../../src/completion/fish.js';
import { COMPLETION_FILES, generateAll, generateCompletion } from '../../../src/completion/generate.js';
import type { CompletionSpec } from '../../../src/completion/model.js';
import { optionSpecs, renderZsh, zshQuote } from '../../../src/completion/zsh.js';

const root = new URL('../../../', import.meta.url);
/** The program as the CLI builds it; actions never run here. */
const program = () => buildProgram({ version: '0.0.0', run: async () => {} });

describe('checked-in completion scripts', () => {
  const generated = generateAll(program(), OPTION_VALUES);
  it.each(Object.entries(COMPLETION_FILES))(
    '%s: %s is up to date (else run: npm run completions)',
    (shell, path) => {
      const onDisk = readFileSync(new URL(path, root), 'utf8');
      expect(onDisk).toBe(generated[shell as keyof typeof generated]);
    },
  );

  it('generation is deterministic', () => {
    expect(generateAll(program(), OPTION_VALUES)).toEqual(generated);
    expect(generateCompletion('zsh', program(), OPTION_VALUES)).toBe(generated.zsh);
  });

  it('each script says it is generated and how to install it', () => {
    expect(generated.bash).toMatch(/^# bash completion for prs\.\n# Generated .*do not edit/);
    expect(generated.bash).toContain('source <(prs completion bash)');
    expect(generated.zsh.split('\n')[0]).toBe('#compdef prs');
    expect(generated.zsh).toContain('fpath=(~/.zfunc $fpath)');
    expect(generated.fish).toContain('~/.config/fish/completions/prs.fish');
  });
});

describe('quoting', () => {
  it.each([
    ['plain', "'plain'"],
    ["it's", "'it'\\''s'"],
    ['$HOME `x` "y"', `'$HOME \`x\` "y"'`],
  ])('bash and zsh quote %j as %s', (input, want) => {
    expect(bashQuote(input)).toBe(want);
    expect(zshQuote(input)).toBe(want);
  });

  it.each([
    ['plain', "'plain'"],
    ["it's", "'it\\'s'"],
    ['back\\slash', "'back\\\\slash'"],
  ])('fish quotes %j as %s', (input, want) => {
    expect(fishQuote(input)).toBe(want);
  });

  it.each([
    [{ long: '--json', description: 'machine output', takesValue: false }, ["'--json[machine output]'"]],
    [
      { short: '-q', long: '--quiet', description: "don't [ever] talk", takesValue: false },
      ["'(-q --quiet)-q[don'\\''t \\[ever\\] talk]'", "'(-q --quiet)--quiet[don'\\''t \\[ever\\] talk]'"],
    ],
    [
      {
        short: '-t',
        long: '--type',
        description: 'type',
        takesValue: true,
        valueName: 'a:b',
        value: { kind: 'choices' as const, values: ['x.y', 'a b'] },
      },
      ["'(-t --type)-t+[type]:a\\:b:(x.y a\\ b)'", "'(-t --type)--type=[type]:a\\:b:(x.y a\\ b)'"],
    ],
    [
      {
        long: '--format',
        description: 'format',
        takesValue: true,
        valueName: 'fmt',
        value: {
          kind: 'choices' as const,
          values: ['csv', 'raw'],
          descriptions: { csv: 'a "plain": $HOME `x` \\ y', raw: "it's raw" },
        },
      },
      [`'--format=[format]:fmt:((csv\\:"a \\"plain\\"\\: \\$HOME \\\`x\\\` \\\\ y" raw\\:"it'\\''s raw"))'`],
    ],
    [
      { short: '-h', long: '--help', description: 'help', takesValue: false, exclusive: true },
      ["'(- *)-h[help]'", "'(- *)--help[help]'"],
    ],
    [
      {
        long: '--dir',
        description: 'd',
        takesValue: true,
        valueName: 'dir',
        value: { kind: 'dir' as const },
      },
      ["'--dir=[d]:dir:_files -/'"],
    ],
  ])('zsh option spec %#', (option, want) => {
    expect(optionSpecs(option, '_x')).toEqual(want);
  });
});

describe('renderers on a hand-built spec', () => {
  const spec: CompletionSpec = {
    name: 'x',
    globalOptions: [
      { long: '--profile', description: 'profile', takesValue: true, value: { kind: 'profiles' } },
    ],
    root: {
      path: [],
      name: 'x',
      description: '',
      options: [],
      args: [],
      commands: [
        {
          path: ['go'],
          name: 'go',
          description: "it's [fast]: really",
          options: [
            { short: '-o', long: '--out', description: 'file', takesValue: true, value: { kind: 'file' } },
          ],
          commands: [],
          args: [{ name: 'what', variadic: false, value: { kind: 'choices', values: ['a', 'b'] } }],
        },
      ],
    },
  };

  it('bash: value options, subcommands and arguments', () => {
    const text = renderBash(spec, 'header');
    expect(text).toContain(`'go -o'|'go --out') _x_v='f' ;;`);
    expect(text).toContain(`*' --profile') _x_v='p' ;;`);
    expect(text).toContain(`command x __complete profiles`);
    expect(text).toContain(`' go')`);
    expect(text).toContain(`'go') ((nargs == 0)) && { _x_v='w:a b'; _x_complete_value; return 0; } ;;`);
    expect(text.trimEnd().endsWith('complete -F _x x')).toBe(true);
  });

  it('zsh: one function per command, descriptions quoted', () => {
    const text = renderZsh(spec, 'header');
    expect(text).toContain('_x_cmd_go() {');
    expect(text).toContain(`'go:it'\\''s [fast]: really'`);
    expect(text).toContain(`'1:what:(a b)'`);
    expect(text).toContain(`'--profile=[profile]:value:_x_profiles'`);
  });

  it('fish: guarded complete lines', () => {
    const text = renderFish(spec, 'header');
    expect(text).toContain(`complete -c x -n '__x_at "" 0' -a 'go' -d 'it\\'s [fast]: really'`);
    expect(text).toContain(`complete -c x -n '__x_at "go"' -s o -l out -r -F -d 'file'`);
    expect(text).toContain(`complete -c x -n '__x_at "go" 0' -x -a 'a b'`);
    expect(text).toContain(`complete -c x -l profile -x -a '(__x_profiles)' -d 'profile'`);
  });
});
