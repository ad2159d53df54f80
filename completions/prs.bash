# bash completion for prs: it asks `prs __complete` for the words to offer.
# Written by scripts/gen-completions.mjs from src/completion/scripts.ts; do not edit by hand.
# bash, this session only:
#   source <(prs completion bash)
# bash, for good (the bash-completion package loads this directory; without it, source the line above in ~/.bashrc):
#   prs completion bash > ~/.local/share/bash-completion/completions/prs

_prs() {
  local cur=${COMP_WORDS[COMP_CWORD]} prefix='' out line
  out=$(command prs __complete -- "${COMP_WORDS[@]:1:COMP_CWORD}" 2>/dev/null)
  COMPREPLY=()
  # "--format=" arrives as two words, "--format" and "=", since "=" is in COMP_WORDBREAKS.
  [[ $cur == = ]] && cur=''
  if [[ $out == :files || $out == :dirs ]]; then
    [[ $cur == --*=* ]] && prefix=${cur%%=*}= && cur=${cur#*=}
    compopt -o filenames 2>/dev/null
    if [[ $out == :files ]]; then out=$(compgen -f -- "$cur"); else out=$(compgen -d -- "$cur"); fi
  fi
  while IFS= read -r line; do
    line=${line%%$'\t'*}
    [[ -n $line && $line == "$cur"* ]] && COMPREPLY+=("$prefix$line")
  done <<<"$out"
  return 0
}

complete -F _prs prs
