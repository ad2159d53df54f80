// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the strings are shell source, not templates.
// Each script hands the words typed to `prs __complete` and offers what it prints: a word and its
// description per line, or `:files`/`:dirs` for the shell's own file completion.
import { EXAMPLES } from '../help.js';

export const SHELLS = ['bash', 'zsh', 'fish'] as const;
export type Shell = (typeof SHELLS)[number];

const BASH = `_prs() {
  local cur=\${COMP_WORDS[COMP_CWORD]} prefix='' out line
  out=$(command prs __complete -- "\${COMP_WORDS[@]:1:COMP_CWORD}" 2>/dev/null)
  COMPREPLY=()
  # "--format=" arrives as two words, "--format" and "=", since "=" is in COMP_WORDBREAKS.
  [[ $cur == = ]] && cur=''
  if [[ $out == :files || $out == :dirs ]]; then
    [[ $cur == --*=* ]] && prefix=\${cur%%=*}= && cur=\${cur#*=}
    compopt -o filenames 2>/dev/null
    if [[ $out == :files ]]; then out=$(compgen -f -- "$cur"); else out=$(compgen -d -- "$cur"); fi
  fi
  while IFS= read -r line; do
    line=\${line%%$'\\t'*}
    [[ -n $line && $line == "$cur"* ]] && COMPREPLY+=("$prefix$line")
  done <<<"$out"
  return 0
}

complete -F _prs prs
`;

const ZSH = `_prs() {
  local -a lines candidates
  local line word
  lines=("\${(@f)$(command prs __complete -- "\${(@Q)words[2,CURRENT]}" 2>/dev/null)}")
  compset -P '--*='
  case $lines[1] in
    :files) _files; return ;;
    :dirs) _files -/; return ;;
  esac
  for line in $lines; do
    [[ -n $line ]] || continue
    word=\${\${line%%$'\\t'*}#$IPREFIX}
    word=\${word//:/\\\\:}
    if [[ $line == *$'\\t'* ]]; then candidates+=("$word:\${line#*$'\\t'}"); else candidates+=("$word"); fi
  done
  _describe -t values prs candidates
}

if [[ $funcstack[1] == _prs ]]; then
  _prs "$@"
else
  compdef _prs prs
fi
`;

const FISH = `function __prs_complete
    set -l token (commandline -ct)
    set -l out (command prs __complete -- (commandline -opc)[2..-1] $token 2>/dev/null)
    set -l prefix (string match -r -- '^--[^=]*=' $token)
    set token (string replace -r -- '^--[^=]*=' '' $token)
    switch "$out"
        case :files
            __fish_complete_path $token | string replace -r -- '^' "$prefix"
        case :dirs
            __fish_complete_directories $token '' | string replace -r -- '^' "$prefix"
        case '*'
            string join \\n -- $out
    end
end

complete -c prs -f -a '(__prs_complete)'
`;

const SCRIPTS: Record<Shell, string> = { bash: BASH, zsh: ZSH, fish: FISH };

export function completionScript(shell: Shell): string {
  const install = EXAMPLES.completion!.filter(([, command]) => command.includes(`completion ${shell}`));
  const header = [
    `${shell} completion for prs: it asks \`prs __complete\` for the words to offer.`,
    'Written by scripts/gen-completions.mjs from src/completion/scripts.ts; do not edit by hand.',
    ...install.flatMap(([comment, command]) => [`${comment}:`, `  ${command}`]),
  ].map((l) => `# ${l}`);
  return [...(shell === 'zsh' ? ['#compdef prs'] : []), ...header, '', SCRIPTS[shell]].join('\n');
}
