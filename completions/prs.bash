# bash completion for prs.
# Generated from the command definitions by scripts/gen-completions.mjs; do not edit by hand.
# bash, this session only:
#   source <(prs completion bash)
# bash, for good (the bash-completion package loads this directory; without it, source the line above in ~/.bashrc):
#   prs completion bash > ~/.local/share/bash-completion/completions/prs

# Sets _prs_v for option $2 of command path $1: w:<words>, f (file), d (dir), p (profile),
# n (any value); empty when the option takes no value.
_prs_value() {
  case "$1 $2" in
    'login --auth-url') _prs_v='n' ;;
    'login --realm') _prs_v='n' ;;
    'login --client-id') _prs_v='n' ;;
    'login --username') _prs_v='n' ;;
    'report -t'|'report --type') _prs_v='w:index constituent.close constituent.open constituent.proforma constituent.corporateactions constituent.proformacorporateactions' ;;
    'report -d'|'report --date') _prs_v='w:today yesterday previous-weekday' ;;
    'report --from') _prs_v='w:today yesterday previous-weekday' ;;
    'report --to') _prs_v='w:today yesterday previous-weekday' ;;
    'report -f'|'report --format') _prs_v='w:table json ndjson csv tsv parquet' ;;
    'report --fields') _prs_v='n' ;;
    'report --jq') _prs_v='n' ;;
    'report -o'|'report --output') _prs_v='f' ;;
    'export -t'|'export --type') _prs_v='w:index constituent.close constituent.open constituent.proforma constituent.corporateactions constituent.proformacorporateactions' ;;
    'export -d'|'export --date') _prs_v='w:today yesterday previous-weekday' ;;
    'export --from') _prs_v='w:today yesterday previous-weekday' ;;
    'export --to') _prs_v='w:today yesterday previous-weekday' ;;
    'export -f'|'export --format') _prs_v='w:json csv' ;;
    'export --dir') _prs_v='d' ;;
    'export -o'|'export --output') _prs_v='f' ;;
    'export --name') _prs_v='n' ;;
    'export --name-template') _prs_v='n' ;;
    'export --parallel') _prs_v='n' ;;
    'diff -t'|'diff --type') _prs_v='w:index constituent.close constituent.open constituent.proforma constituent.corporateactions constituent.proformacorporateactions' ;;
    'diff --from') _prs_v='w:today yesterday previous-weekday' ;;
    'diff --to') _prs_v='w:today yesterday previous-weekday' ;;
    'diff -d'|'diff --date') _prs_v='w:today yesterday previous-weekday' ;;
    'diff --against') _prs_v='w:index constituent.close constituent.open constituent.proforma constituent.corporateactions constituent.proformacorporateactions' ;;
    'diff --key') _prs_v='n' ;;
    'diff --fields') _prs_v='n' ;;
    'diff -f'|'diff --format') _prs_v='w:table json ndjson csv tsv' ;;
    'diff --jq') _prs_v='n' ;;
    'diff -o'|'diff --output') _prs_v='f' ;;
    'sandbox --port') _prs_v='n' ;;
    'sandbox --host') _prs_v='n' ;;
    'sandbox --rate-limit') _prs_v='n' ;;
    'sandbox --token-ttl') _prs_v='n' ;;
    'sandbox --refresh-ttl') _prs_v='n' ;;
    'sandbox --big-rows') _prs_v='n' ;;
    'sandbox --export-delay') _prs_v='n' ;;
    'sandbox --json-style') _prs_v='n' ;;
    *' --profile') _prs_v='p' ;;
    *' --base-url') _prs_v='n' ;;
    *' --tenant') _prs_v='n' ;;
    *' --timeout') _prs_v='n' ;;
    *' --retries') _prs_v='n' ;;
    *' --rate-limit') _prs_v='n' ;;
    *' --limiter') _prs_v='n' ;;
    *' --cache') _prs_v='n' ;;
    *' --log-format') _prs_v='w:text json' ;;
    *' --metrics-file') _prs_v='f' ;;
    *' --ping-url') _prs_v='n' ;;
    *) _prs_v='' ;;
  esac
}

_prs_reply() {
  local line
  COMPREPLY=()
  while IFS= read -r line; do COMPREPLY+=("$line"); done
}

_prs_complete_value() {
  case $_prs_v in
    w:*) _prs_reply < <(compgen -W "${_prs_v#w:}" -- "$cur") ;;
    f) compopt -o filenames 2>/dev/null; _prs_reply < <(compgen -f -- "$cur") ;;
    d) compopt -o filenames 2>/dev/null; _prs_reply < <(compgen -d -- "$cur") ;;
    p) _prs_reply < <(compgen -W "$(command prs __complete profiles 2>/dev/null)" -- "$cur") ;;
  esac
}

_prs() {
  local cur=${COMP_WORDS[COMP_CWORD]} cmd='' word _prs_v='' nargs=0 i=1 j
  COMPREPLY=()
  while ((i < COMP_CWORD)); do
    word=${COMP_WORDS[i]}
    case $word in
      --) ;;
      -*)
        _prs_value "$cmd" "$word"
        if [[ -n $_prs_v ]]; then
          # The value is the next word; "--opt=value" arrives as three words, since "=" is in
          # COMP_WORDBREAKS.
          j=$((i + 1))
          [[ ${COMP_WORDS[j]} == = ]] && j=$((j + 1))
          if ((j >= COMP_CWORD)); then
            [[ $cur == = ]] && cur=
            _prs_complete_value
            return 0
          fi
          i=$j
        fi
        ;;
      *)
        case "$cmd $word" in
          ' login'|' logout'|' auth'|'auth status'|'auth token'|'auth help'|' config'|'config list'|'config get'|'config set'|'config unset'|'config path'|'config help'|' report'|' export'|' diff'|' cache'|'cache info'|'cache clear'|'cache help'|' quota'|' completion'|' sandbox'|' help'|'help login'|'help logout'|'help auth'|'help auth status'|'help auth token'|'help config'|'help config list'|'help config get'|'help config set'|'help config unset'|'help config path'|'help report'|'help export'|'help diff'|'help cache'|'help cache info'|'help cache clear'|'help quota'|'help completion'|'help sandbox'|'help exit-codes')
            cmd=${cmd:+$cmd }$word
            nargs=0
            ;;
          *) nargs=$((nargs + 1)) ;;
        esac
        ;;
    esac
    i=$((i + 1))
  done

  # "--format=cs" as one word (when "=" is not a word break).
  if [[ $cur == --*=* ]]; then
    _prs_value "$cmd" "${cur%%=*}"
    local prefix=${cur%%=*}=
    cur=${cur#*=}
    _prs_complete_value
    local k
    for k in "${!COMPREPLY[@]}"; do COMPREPLY[k]=$prefix${COMPREPLY[k]}; done
    return 0
  fi

  local words=
  if [[ $cur == -* ]]; then
    case $cmd in
      '') words='-V --version -h --help --profile --base-url --tenant --timeout --retries --rate-limit --limiter --cache --no-cache --log-format --metrics-file --ping-url -q --quiet -v --verbose --no-color' ;;
      'login') words='--auth-url --realm --client-id --username --password-stdin --save-password --client-credentials -h --help --profile --base-url --tenant --timeout --retries --rate-limit --limiter --cache --no-cache --log-format --metrics-file --ping-url -q --quiet -v --verbose --no-color' ;;
      'logout') words='--all -h --help --profile --base-url --tenant --timeout --retries --rate-limit --limiter --cache --no-cache --log-format --metrics-file --ping-url -q --quiet -v --verbose --no-color' ;;
      'auth') words='-h --help --profile --base-url --tenant --timeout --retries --rate-limit --limiter --cache --no-cache --log-format --metrics-file --ping-url -q --quiet -v --verbose --no-color' ;;
      'auth status') words='--json -h --help --profile --base-url --tenant --timeout --retries --rate-limit --limiter --cache --no-cache --log-format --metrics-file --ping-url -q --quiet -v --verbose --no-color' ;;
      'auth token') words='-h --help --profile --base-url --tenant --timeout --retries --rate-limit --limiter --cache --no-cache --log-format --metrics-file --ping-url -q --quiet -v --verbose --no-color' ;;
      'auth help') words='--profile --base-url --tenant --timeout --retries --rate-limit --limiter --cache --no-cache --log-format --metrics-file --ping-url -q --quiet -v --verbose --no-color' ;;
      'config') words='-h --help --profile --base-url --tenant --timeout --retries --rate-limit --limiter --cache --no-cache --log-format --metrics-file --ping-url -q --quiet -v --verbose --no-color' ;;
      'config list') words='--json -h --help --profile --base-url --tenant --timeout --retries --rate-limit --limiter --cache --no-cache --log-format --metrics-file --ping-url -q --quiet -v --verbose --no-color' ;;
      'config get') words='-h --help --profile --base-url --tenant --timeout --retries --rate-limit --limiter --cache --no-cache --log-format --metrics-file --ping-url -q --quiet -v --verbose --no-color' ;;
      'config set') words='-h --help --profile --base-url --tenant --timeout --retries --rate-limit --limiter --cache --no-cache --log-format --metrics-file --ping-url -q --quiet -v --verbose --no-color' ;;
      'config unset') words='-h --help --profile --base-url --tenant --timeout --retries --rate-limit --limiter --cache --no-cache --log-format --metrics-file --ping-url -q --quiet -v --verbose --no-color' ;;
      'config path') words='-h --help --profile --base-url --tenant --timeout --retries --rate-limit --limiter --cache --no-cache --log-format --metrics-file --ping-url -q --quiet -v --verbose --no-color' ;;
      'config help') words='--profile --base-url --tenant --timeout --retries --rate-limit --limiter --cache --no-cache --log-format --metrics-file --ping-url -q --quiet -v --verbose --no-color' ;;
      'report') words='-t --type -d --date --from --to --weekends -f --format --json --fields --jq -o --output --force --raw --fail-fast --dry-run --refresh --no-pager -h --help --profile --base-url --tenant --timeout --retries --rate-limit --limiter --cache --no-cache --log-format --metrics-file --ping-url -q --quiet -v --verbose --no-color' ;;
      'export') words='-t --type -d --date --from --to --weekends -f --format --dir -o --output --name --name-template --force --extract --skip-existing --parallel --fail-fast --json --dry-run -h --help --profile --base-url --tenant --timeout --retries --rate-limit --limiter --cache --no-cache --log-format --metrics-file --ping-url -q --quiet -v --verbose --no-color' ;;
      'diff') words='-t --type --from --to --each --weekends -d --date --against --key --fields -f --format --jq -o --output --force --fail-fast --dry-run --refresh --no-pager --exit-code -h --help --profile --base-url --tenant --timeout --retries --rate-limit --limiter --cache --no-cache --log-format --metrics-file --ping-url -q --quiet -v --verbose --no-color' ;;
      'cache') words='-h --help --profile --base-url --tenant --timeout --retries --rate-limit --limiter --cache --no-cache --log-format --metrics-file --ping-url -q --quiet -v --verbose --no-color' ;;
      'cache info') words='--json -h --help --profile --base-url --tenant --timeout --retries --rate-limit --limiter --cache --no-cache --log-format --metrics-file --ping-url -q --quiet -v --verbose --no-color' ;;
      'cache clear') words='--all -h --help --profile --base-url --tenant --timeout --retries --rate-limit --limiter --cache --no-cache --log-format --metrics-file --ping-url -q --quiet -v --verbose --no-color' ;;
      'cache help') words='--profile --base-url --tenant --timeout --retries --rate-limit --limiter --cache --no-cache --log-format --metrics-file --ping-url -q --quiet -v --verbose --no-color' ;;
      'quota') words='--json -h --help --profile --base-url --tenant --timeout --retries --rate-limit --limiter --cache --no-cache --log-format --metrics-file --ping-url -q --quiet -v --verbose --no-color' ;;
      'completion') words='-h --help --profile --base-url --tenant --timeout --retries --rate-limit --limiter --cache --no-cache --log-format --metrics-file --ping-url -q --quiet -v --verbose --no-color' ;;
      'sandbox') words='--port --host --rate-limit --token-ttl --refresh-ttl --big-rows --export-delay --json-style --gzip -h --help --profile --base-url --tenant --timeout --retries --limiter --cache --no-cache --log-format --metrics-file --ping-url -q --quiet -v --verbose --no-color' ;;
      'help') words='-h --help --profile --base-url --tenant --timeout --retries --rate-limit --limiter --cache --no-cache --log-format --metrics-file --ping-url -q --quiet -v --verbose --no-color' ;;
      'help login') words='--profile --base-url --tenant --timeout --retries --rate-limit --limiter --cache --no-cache --log-format --metrics-file --ping-url -q --quiet -v --verbose --no-color' ;;
      'help logout') words='--profile --base-url --tenant --timeout --retries --rate-limit --limiter --cache --no-cache --log-format --metrics-file --ping-url -q --quiet -v --verbose --no-color' ;;
      'help auth') words='--profile --base-url --tenant --timeout --retries --rate-limit --limiter --cache --no-cache --log-format --metrics-file --ping-url -q --quiet -v --verbose --no-color' ;;
      'help auth status') words='--profile --base-url --tenant --timeout --retries --rate-limit --limiter --cache --no-cache --log-format --metrics-file --ping-url -q --quiet -v --verbose --no-color' ;;
      'help auth token') words='--profile --base-url --tenant --timeout --retries --rate-limit --limiter --cache --no-cache --log-format --metrics-file --ping-url -q --quiet -v --verbose --no-color' ;;
      'help config') words='--profile --base-url --tenant --timeout --retries --rate-limit --limiter --cache --no-cache --log-format --metrics-file --ping-url -q --quiet -v --verbose --no-color' ;;
      'help config list') words='--profile --base-url --tenant --timeout --retries --rate-limit --limiter --cache --no-cache --log-format --metrics-file --ping-url -q --quiet -v --verbose --no-color' ;;
      'help config get') words='--profile --base-url --tenant --timeout --retries --rate-limit --limiter --cache --no-cache --log-format --metrics-file --ping-url -q --quiet -v --verbose --no-color' ;;
      'help config set') words='--profile --base-url --tenant --timeout --retries --rate-limit --limiter --cache --no-cache --log-format --metrics-file --ping-url -q --quiet -v --verbose --no-color' ;;
      'help config unset') words='--profile --base-url --tenant --timeout --retries --rate-limit --limiter --cache --no-cache --log-format --metrics-file --ping-url -q --quiet -v --verbose --no-color' ;;
      'help config path') words='--profile --base-url --tenant --timeout --retries --rate-limit --limiter --cache --no-cache --log-format --metrics-file --ping-url -q --quiet -v --verbose --no-color' ;;
      'help report') words='--profile --base-url --tenant --timeout --retries --rate-limit --limiter --cache --no-cache --log-format --metrics-file --ping-url -q --quiet -v --verbose --no-color' ;;
      'help export') words='--profile --base-url --tenant --timeout --retries --rate-limit --limiter --cache --no-cache --log-format --metrics-file --ping-url -q --quiet -v --verbose --no-color' ;;
      'help diff') words='--profile --base-url --tenant --timeout --retries --rate-limit --limiter --cache --no-cache --log-format --metrics-file --ping-url -q --quiet -v --verbose --no-color' ;;
      'help cache') words='--profile --base-url --tenant --timeout --retries --rate-limit --limiter --cache --no-cache --log-format --metrics-file --ping-url -q --quiet -v --verbose --no-color' ;;
      'help cache info') words='--profile --base-url --tenant --timeout --retries --rate-limit --limiter --cache --no-cache --log-format --metrics-file --ping-url -q --quiet -v --verbose --no-color' ;;
      'help cache clear') words='--profile --base-url --tenant --timeout --retries --rate-limit --limiter --cache --no-cache --log-format --metrics-file --ping-url -q --quiet -v --verbose --no-color' ;;
      'help quota') words='--profile --base-url --tenant --timeout --retries --rate-limit --limiter --cache --no-cache --log-format --metrics-file --ping-url -q --quiet -v --verbose --no-color' ;;
      'help completion') words='--profile --base-url --tenant --timeout --retries --rate-limit --limiter --cache --no-cache --log-format --metrics-file --ping-url -q --quiet -v --verbose --no-color' ;;
      'help sandbox') words='--profile --base-url --tenant --timeout --retries --rate-limit --limiter --cache --no-cache --log-format --metrics-file --ping-url -q --quiet -v --verbose --no-color' ;;
      'help exit-codes') words='--profile --base-url --tenant --timeout --retries --rate-limit --limiter --cache --no-cache --log-format --metrics-file --ping-url -q --quiet -v --verbose --no-color' ;;
    esac
  else
    case $cmd in
      '') words='login logout auth config report export diff cache quota completion sandbox help' ;;
      'auth') words='status token help' ;;
      'auth help') ((nargs == 0)) && { _prs_v='w:status token'; _prs_complete_value; return 0; } ;;
      'config') words='list get set unset path help' ;;
      'config get') ((nargs == 0)) && { _prs_v='w:base-url auth-url realm client-id tenant username timeout retries rate-limit limiter cache cache-size grant name-template log-format metrics-file ping-url'; _prs_complete_value; return 0; } ;;
      'config set') ((nargs == 0)) && { _prs_v='w:base-url auth-url realm client-id tenant username timeout retries rate-limit limiter cache cache-size grant name-template log-format metrics-file ping-url'; _prs_complete_value; return 0; } ;;
      'config unset') ((nargs == 0)) && { _prs_v='w:base-url auth-url realm client-id tenant username timeout retries rate-limit limiter cache cache-size grant name-template log-format metrics-file ping-url'; _prs_complete_value; return 0; } ;;
      'config help') ((nargs == 0)) && { _prs_v='w:list get set unset path'; _prs_complete_value; return 0; } ;;
      'cache') words='info clear help' ;;
      'cache help') ((nargs == 0)) && { _prs_v='w:info clear'; _prs_complete_value; return 0; } ;;
      'completion') ((nargs == 0)) && { _prs_v='w:bash zsh fish'; _prs_complete_value; return 0; } ;;
      'help') words='login logout auth config report export diff cache quota completion sandbox exit-codes' ;;
      'help auth') words='status token' ;;
      'help config') words='list get set unset path' ;;
      'help cache') words='info clear' ;;
    esac
  fi
  [[ -n $words ]] && _prs_reply < <(compgen -W "$words" -- "$cur")
  return 0
}

complete -F _prs prs
