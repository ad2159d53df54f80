import {
  allCommands,
  COMPLETE_COMMAND,
  type CommandSpec,
  type CompletionSpec,
  flagsOf,
  type OptionSpec,
  subcommandKeys,
  type ValueSpec,
  valueOptions,
} from './model.js';

export const fishQuote = (s: string): string => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;

const key = (cmd: CommandSpec) => cmd.path.join(' ');

function valueArgs(v: ValueSpec | undefined, name: string): string {
  if (v?.kind === 'choices') {
    const words = v.values.map((x) => (v.descriptions?.[x] ? `${x}\\t${fishQuote(v.descriptions[x])}` : x));
    return `-x -a ${fishQuote(words.join(' '))}`;
  }
  const dir = fishQuote('(__fish_complete_directories (commandline -ct) "")');
  const kinds = {
    file: '-r -F',
    dir: `-x -a ${dir}`,
    profiles: `-x -a ${fishQuote(`(__${name}_profiles)`)}`,
  };
  return v && v.kind !== 'none' ? kinds[v.kind] : '-x';
}

function optionLine(name: string, cond: string, o: OptionSpec): string {
  const parts = [`complete -c ${name} -n ${fishQuote(cond)}`];
  if (o.short) parts.push(`-s ${o.short.slice(1)}`);
  if (o.long) parts.push(`-l ${o.long.slice(2)}`);
  if (o.takesValue) parts.push(valueArgs(o.value, name));
  parts.push(`-d ${fishQuote(o.description)}`);
  return parts.join(' ');
}

export function renderFish(spec: CompletionSpec, header: string): string {
  const name = spec.name;
  const fn = `__${name}`;
  const commands = allCommands(spec.root);
  const out: string[] = [...header.split('\n').map((l) => `# ${l}`.trimEnd()), ''];
  const emit = (...l: string[]) => out.push(...l);

  const valueFlags = valueOptions(spec).flatMap(({ at, option }) =>
    flagsOf(option).map((f) => fishQuote(`${at} ${f}`)),
  );

  emit(
    `# Prints the command path typed so far ("" at the top, "auth status", ...) and, on a second line,`,
    '# how many positional arguments follow it.',
    `function ${fn}_state`,
    '    set -l tokens (commandline -opc)',
    '    set -e tokens[1]',
    "    set -l cmd ''",
    '    set -l nargs 0',
    '    set -l skip 0',
    '    for tok in $tokens',
    '        if test $skip = 1',
    '            set skip 0',
    '            continue',
    '        end',
    '        switch $tok',
    "            case '--' '--*=*'",
    '                continue',
    "            case '-*'",
    '                switch "$cmd $tok"',
    `                    case ${valueFlags.join(' ')}`,
    '                        set skip 1',
    '                end',
    '                continue',
    '        end',
    '        switch "$cmd $tok"',
    `            case ${subcommandKeys(spec).map(fishQuote).join(' ')}`,
    '                set cmd (string trim -- "$cmd $tok")',
    '                set nargs 0',
    "            case '*'",
    '                set nargs (math $nargs + 1)',
    '        end',
    '    end',
    '    printf "%s\\n%s\\n" $cmd $nargs',
    'end',
    '',
    '# Profile names from the config file, through the hidden helper command (nothing if prs is missing).',
    `function ${fn}_profiles`,
    `    command -q ${name}; and command ${name} ${COMPLETE_COMMAND} profiles 2>/dev/null`,
    'end',
    '',
    '# True when the command path is $argv[1] and, if given, exactly $argv[2] arguments follow it.',
    `function ${fn}_at`,
    `    set -l state (${fn}_state)`,
    '    test "$state[1]" = "$argv[1]"; or return 1',
    '    test (count $argv) -lt 2; or test "$state[2]" = "$argv[2]"',
    'end',
    '',
    `# No file names unless an option asks for them.`,
    `complete -c ${name} -f`,
    '',
  );

  for (const g of spec.globalOptions) {
    const shadows = commands.filter(
      (c) => c.path.length > 0 && c.options.some((o) => o.long && o.long === g.long),
    );
    const cond = shadows.length ? shadows.map((c) => `not ${fn}_at "${key(c)}"`).join('; and ') : '';
    const line = optionLine(name, cond, g);
    emit(cond ? line : line.replace(` -n ${fishQuote('')}`, ''));
  }

  for (const cmd of commands) {
    const here = `${fn}_at "${key(cmd)}"`;
    emit('', `# ${[name, ...cmd.path].join(' ')}`);
    for (const o of cmd.options) emit(optionLine(name, here, o));
    if (cmd.commands.length > 0) {
      for (const c of cmd.commands)
        emit(
          `complete -c ${name} -n ${fishQuote(`${here} 0`)} -a ${fishQuote(c.name)} -d ${fishQuote(c.description)}`,
        );
      continue;
    }
    cmd.args.forEach((a, i) => {
      if (a.value.kind === 'none') return;
      const cond = a.variadic ? here : `${here} ${i}`;
      emit(`complete -c ${name} -n ${fishQuote(cond)} ${valueArgs(a.value, name)}`);
    });
  }
  return `${out.join('\n')}\n`;
}
