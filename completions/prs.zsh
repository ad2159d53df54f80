#compdef prs
# zsh completion for prs: it asks `prs __complete` for the words to offer.
# Written by scripts/gen-completions.mjs from src/completion/scripts.ts; do not edit by hand.
# zsh: a directory on $fpath (in ~/.zshrc, before compinit: fpath=(~/.zfunc $fpath)):
#   mkdir -p ~/.zfunc && prs completion zsh > ~/.zfunc/_prs
# zsh, in a running shell (after compinit):
#   source <(prs completion zsh)

_prs() {
  local -a lines candidates
  local line word
  lines=("${(@f)$(command prs __complete -- "${(@Q)words[2,CURRENT]}" 2>/dev/null)}")
  compset -P '--*='
  case $lines[1] in
    :files) _files; return ;;
    :dirs) _files -/; return ;;
  esac
  for line in $lines; do
    [[ -n $line ]] || continue
    word=${${line%%$'\t'*}#$IPREFIX}
    word=${word//:/\\:}
    if [[ $line == *$'\t'* ]]; then candidates+=("$word:${line#*$'\t'}"); else candidates+=("$word"); fi
  done
  _describe -t values prs candidates
}

if [[ $funcstack[1] == _prs ]]; then
  _prs "$@"
else
  compdef _prs prs
fi
