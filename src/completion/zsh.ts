import {
  allCommands,
  COMPLETE_COMMAND,
  type CommandSpec,
  type CompletionSpec,
  type OptionSpec,
  type ValueSpec,
} from './model.js';

export const zshQuote = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;

/** Text inside an _arguments `[explanation]`. */
const explanation = (s: string) => s.replace(/\\/g, '\\\\').replace(/\[/g, '\\[').replace(/\]/g, '\\]');
/** A message or value name between colons. */
const message = (s: string) => s.replace(/\\/g, '\\\\').replace(/:/g, '\\:');

function action(v: ValueSpec | undefined, fn: string): string {
  if (v?.kind === 'choices') {
    const word = (x: string) => x.replace(/([\\\s()'"])/g, '\\$1');
    if (!v.descriptions) return `(${v.values.map(word).join(' ')})`;
    const text = (d: string) => `"${d.replace(/([\\"$`])/g, '\\$1').replace(/:/g, '\\:')}"`;
    return `((${v.values.map((x) => (v.descriptions?.[x] ? `${word(x)}\\:${text(v.descriptions[x])}` : word(x))).join(' ')}))`;
  }
  return { file: '_files', dir: '_files -/', profiles: `${fn}_profiles`, none: ' ' }[v?.kind ?? 'none'];
}

export function optionSpecs(o: OptionSpec, fn: string): string[] {
  const flags = [o.short, o.long].filter((f): f is string => !!f);
  const exclusion = o.exclusive ? '(- *)' : flags.length > 1 ? `(${flags.join(' ')})` : '';
  return flags.map((f) => {
    const suffix = o.takesValue ? (f.startsWith('--') ? '=' : '+') : '';
    const arg = o.takesValue ? `:${message(o.valueName ?? 'value')}:${action(o.value, fn)}` : '';
    return zshQuote(`${exclusion}${f}${suffix}[${explanation(o.description)}]${arg}`);
  });
}

const funcName = (fn: string, cmd: CommandSpec) =>
  cmd.path.length === 0 ? fn : `${fn}_cmd_${cmd.path.join('_').replace(/[^A-Za-z0-9_]/g, '_')}`;

export function renderZsh(spec: CompletionSpec, header: string): string {
  const fn = `_${spec.name}`;
  const out: string[] = [`#compdef ${spec.name}`, ...header.split('\n').map((l) => `# ${l}`.trimEnd()), ''];
  const emit = (...l: string[]) => out.push(...l);

  emit(
    `${fn}_profiles() {`,
    '  local -a profiles',
    `  profiles=(\${(f)"$(_call_program profiles ${spec.name} ${COMPLETE_COMMAND} profiles 2>/dev/null)"})`,
    "  _wanted profiles expl 'profile' compadd -a profiles",
    '}',
    '',
    '# Global options, accepted before or after any command; sets the caller\'s "globals".',
    `${fn}_globals() {`,
    '  globals=(',
    ...spec.globalOptions.flatMap((o) => optionSpecs(o, fn)).map((s) => `    ${s}`),
    '  )',
    '}',
    '',
  );

  for (const cmd of allCommands(spec.root)) {
    const name = funcName(fn, cmd);
    const own = new Set(cmd.options.map((o) => o.long));
    const shadowed = cmd.path.length > 0 && spec.globalOptions.some((g) => own.has(g.long));
    const specs = cmd.options.flatMap((o) => optionSpecs(o, fn));
    emit(`${name}() {`);
    if (cmd.commands.length > 0) {
      emit(
        '  local curcontext=$curcontext state state_descr line ret=1',
        '  typeset -A opt_args',
        '  local -a globals',
        `  ${fn}_globals`,
        '  _arguments -C -s -S : $globals \\',
        ...specs.map((s) => `    ${s} \\`),
        "    '1: :->command' \\",
        "    '*:: :->args' && ret=0",
        '  case $state in',
        '    command)',
        '      local -a commands=(',
        ...cmd.commands.map((c) => `        ${zshQuote(`${c.name}:${c.description}`)}`),
        '      )',
        `      _describe -t commands ${zshQuote(`${[spec.name, ...cmd.path].join(' ')} command`)} commands && ret=0`,
        '      ;;',
        '    args)',
        `      curcontext=\${curcontext%:*:*}:${[spec.name, ...cmd.path].join('-')}-$words[1]:`,
        '      case $words[1] in',
        ...cmd.commands.map((c) => `        ${c.name}) ${funcName(fn, c)} && ret=0 ;;`),
        '      esac',
        '      ;;',
        '  esac',
        '  return ret',
      );
    } else {
      const args = cmd.args.map((a, i) =>
        zshQuote(`${a.variadic ? '*' : `${i + 1}`}:${message(a.name)}:${action(a.value, fn)}`),
      );
      if (shadowed) {
        const kept = spec.globalOptions.filter((g) => !own.has(g.long)).flatMap((o) => optionSpecs(o, fn));
        emit('  local -a globals=(', ...kept.map((s) => `    ${s}`), '  )');
      } else {
        emit('  local -a globals', `  ${fn}_globals`);
      }
      const all = [...specs, ...args];
      emit(
        `  _arguments -s -S : $globals${all.length ? ' \\' : ''}`,
        ...all.map((s, i) => `    ${s}${i < all.length - 1 ? ' \\' : ''}`),
      );
    }
    emit('}', '');
  }

  emit(`if [[ $funcstack[1] == ${fn} ]]; then`, `  ${fn} "$@"`, 'else', `  compdef ${fn} ${spec.name}`, 'fi');
  return `${out.join('\n')}\n`;
}
