// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the strings are bash source, not templates.
/** Needs neither the bash-completion package nor bash 4 features beyond `compopt` (used when present). */
import {
  allCommands,
  COMPLETE_COMMAND,
  type CommandSpec,
  type CompletionSpec,
  flagsOf,
  optionsFor,
  subcommandKeys,
  type ValueSpec,
  valueOptions,
} from './model.js';

export const bashQuote = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;

const key = (cmd: CommandSpec) => cmd.path.join(' ');

function valueCode(v: ValueSpec | undefined): string {
  if (v?.kind === 'choices') return `w:${v.values.join(' ')}`;
  return { file: 'f', dir: 'd', profiles: 'p', none: 'n' }[v?.kind ?? 'none'];
}

export function renderBash(spec: CompletionSpec, header: string): string {
  const fn = `_${spec.name}`;
  const commands = allCommands(spec.root);
  const lines: string[] = [];
  const emit = (...l: string[]) => lines.push(...l);

  // A command's own options come first: they may shadow a global one.
  const valueCases = valueOptions(spec).map(({ at, option: o }) => {
    const pats = flagsOf(o).map((f) => (at === '*' ? `*${bashQuote(` ${f}`)}` : bashQuote(`${at} ${f}`)));
    return `    ${pats.join('|')}) ${fn}_v=${bashQuote(valueCode(o.value))} ;;`;
  });
  const subcommandPats = subcommandKeys(spec).map(bashQuote);

  emit(
    ...header.split('\n').map((l) => `# ${l}`.trimEnd()),
    '',
    `# Sets ${fn}_v for option $2 of command path $1: w:<words>, f (file), d (dir), p (profile),`,
    '# n (any value); empty when the option takes no value.',
    `${fn}_value() {`,
    '  case "$1 $2" in',
    ...valueCases,
    `    *) ${fn}_v='' ;;`,
    '  esac',
    '}',
    '',
    `${fn}_reply() {`,
    '  local line',
    '  COMPREPLY=()',
    '  while IFS= read -r line; do COMPREPLY+=("$line"); done',
    '}',
    '',
    `${fn}_complete_value() {`,
    `  case $${fn}_v in`,
    `    w:*) ${fn}_reply < <(compgen -W "\${${fn}_v#w:}" -- "$cur") ;;`,
    `    f) compopt -o filenames 2>/dev/null; ${fn}_reply < <(compgen -f -- "$cur") ;;`,
    `    d) compopt -o filenames 2>/dev/null; ${fn}_reply < <(compgen -d -- "$cur") ;;`,
    `    p) ${fn}_reply < <(compgen -W "$(command ${spec.name} ${COMPLETE_COMMAND} profiles 2>/dev/null)" -- "$cur") ;;`,
    '  esac',
    '}',
    '',
    `${fn}() {`,
    `  local cur=\${COMP_WORDS[COMP_CWORD]} cmd='' word ${fn}_v='' nargs=0 i=1 j`,
    '  COMPREPLY=()',
    '  while ((i < COMP_CWORD)); do',
    '    word=${COMP_WORDS[i]}',
    '    case $word in',
    '      --) ;;',
    '      -*)',
    `        ${fn}_value "$cmd" "$word"`,
    `        if [[ -n $${fn}_v ]]; then`,
    '          # The value is the next word; "--opt=value" arrives as three words, since "=" is in',
    '          # COMP_WORDBREAKS.',
    '          j=$((i + 1))',
    '          [[ ${COMP_WORDS[j]} == = ]] && j=$((j + 1))',
    '          if ((j >= COMP_CWORD)); then',
    '            [[ $cur == = ]] && cur=',
    `            ${fn}_complete_value`,
    '            return 0',
    '          fi',
    '          i=$j',
    '        fi',
    '        ;;',
    '      *)',
    '        case "$cmd $word" in',
    `          ${subcommandPats.join('|')})`,
    '            cmd=${cmd:+$cmd }$word',
    '            nargs=0',
    '            ;;',
    '          *) nargs=$((nargs + 1)) ;;',
    '        esac',
    '        ;;',
    '    esac',
    '    i=$((i + 1))',
    '  done',
    '',
    '  # "--format=cs" as one word (when "=" is not a word break).',
    '  if [[ $cur == --*=* ]]; then',
    `    ${fn}_value "$cmd" "\${cur%%=*}"`,
    '    local prefix=${cur%%=*}=',
    '    cur=${cur#*=}',
    `    ${fn}_complete_value`,
    '    local k',
    '    for k in "${!COMPREPLY[@]}"; do COMPREPLY[k]=$prefix${COMPREPLY[k]}; done',
    '    return 0',
    '  fi',
    '',
    '  local words=',
    '  if [[ $cur == -* ]]; then',
    '    case $cmd in',
  );
  for (const cmd of commands) {
    const opts = optionsFor(spec, cmd).flatMap(flagsOf);
    emit(`      ${bashQuote(key(cmd))}) words=${bashQuote(opts.join(' '))} ;;`);
  }
  emit('    esac', '  else', '    case $cmd in');
  for (const cmd of commands) {
    const body = wordsBody(cmd, fn);
    if (body) emit(`      ${bashQuote(key(cmd))}) ${body} ;;`);
  }
  emit(
    '    esac',
    '  fi',
    `  [[ -n $words ]] && ${fn}_reply < <(compgen -W "$words" -- "$cur")`,
    '  return 0',
    '}',
    '',
    `complete -F ${fn} ${spec.name}`,
  );
  return `${lines.join('\n')}\n`;
}

function wordsBody(cmd: CommandSpec, fn: string): string | undefined {
  if (cmd.commands.length > 0) return `words=${bashQuote(cmd.commands.map((c) => c.name).join(' '))}`;
  const parts: string[] = [];
  cmd.args.forEach((a, i) => {
    if (a.value.kind === 'none') return;
    const when = a.variadic ? `nargs >= ${i}` : `nargs == ${i}`;
    parts.push(
      `((${when})) && { ${fn}_v=${bashQuote(valueCode(a.value))}; ${fn}_complete_value; return 0; }`,
    );
  });
  return parts.length ? parts.join('; ') : undefined;
}
