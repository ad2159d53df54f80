#compdef prs
# zsh completion for prs.
# Generated from the command definitions by scripts/gen-completions.mjs; do not edit by hand.
# zsh: a directory on $fpath (in ~/.zshrc, before compinit: fpath=(~/.zfunc $fpath)):
#   mkdir -p ~/.zfunc && prs completion zsh > ~/.zfunc/_prs
# zsh, in a running shell (after compinit):
#   source <(prs completion zsh)

_prs_profiles() {
  local -a profiles
  profiles=(${(f)"$(_call_program profiles prs __complete profiles 2>/dev/null)"})
  _wanted profiles expl 'profile' compadd -a profiles
}

# Global options, accepted before or after any command; sets the caller's "globals".
_prs_globals() {
  globals=(
    '--profile=[named settings and session (env PRS_PROFILE; default "default")]:name:_prs_profiles'
    '--base-url=[service base URL, the part before /api/v1 (env PRS_BASE_URL)]:url: '
    '--tenant=[tenant id, sent as X-CLIENT-ID (env PRS_TENANT)]:id: '
    '--timeout=[per-request timeout (env PRS_TIMEOUT; default 60)]:seconds: '
    '--retries=[retries for 429, 5xx and network failures (env PRS_RETRIES; default 3)]:n: '
    '--rate-limit=[client-side limit for the JSON endpoint (env PRS_RATE_LIMIT; default "4/60s")]:n/window: '
    '--limiter=[share the rate limit between machines: redis://\[user:password@\]host:port\[/db\] (env PRS_LIMITER)]:url: '
    '--cache=[reuse stored report answers for past dates up to this age: 30m, 12h, 7d, off (env PRS_CACHE; default "off")]:max-age: '
    '--no-cache[neither read nor write the answer cache this run (report, diff); --cache is then off]'
    '--log-format=[json: every stderr message one JSON object per line (env PRS_LOG_FORMAT; default "text")]:text|json:(text json)'
    '--metrics-file=[after each report/export run, write Prometheus metrics there (env PRS_METRICS_FILE)]:path:_files'
    '--ping-url=[tell a Healthchecks-style monitor of each run: start, success, failure (env PRS_PING_URL)]:url: '
    '(-q --quiet)-q[no progress, notes or hints on stderr]'
    '(-q --quiet)--quiet[no progress, notes or hints on stderr]'
    '(-v --verbose)-v[one line per HTTP request/response on stderr, secrets redacted]'
    '(-v --verbose)--verbose[one line per HTTP request/response on stderr, secrets redacted]'
    '--no-color[no colour (also NO_COLOR; FORCE_COLOR forces it)]'
  )
}

_prs() {
  local curcontext=$curcontext state state_descr line ret=1
  typeset -A opt_args
  local -a globals
  _prs_globals
  _arguments -C -s -S : $globals \
    '(- *)-V[print the version]' \
    '(- *)--version[print the version]' \
    '(- *)-h[show help]' \
    '(- *)--help[show help]' \
    '1: :->command' \
    '*:: :->args' && ret=0
  case $state in
    command)
      local -a commands=(
        'login:sign in and store the session in the profile'
        'logout:forget the profile'\''s tokens and any saved password or secret'
        'auth:session status and tokens'
        'config:profile settings (base-url, auth-url, realm, client-id, tenant, username, timeout, retries, rate-limit, limiter, cache, cache-size, grant, name-template, log-format, metrics-file, ping-url)'
        'report:fetch report rows and print them as a table, JSON, NDJSON, CSV or TSV'
        'export:download report files (JSON, or CSV in a zip), written whole or not at all'
        'diff:what changed in a report: between two dates, or between two report types on one date'
        'cache:the answer cache (see --cache): what it holds, and clearing it'
        'quota:the rate limit in force, the requests counted in its window, and the next free slot'
        'completion:print the shell completion script'
        'sandbox:run a local stand-in for the service and its token endpoint, until interrupted'
        'help:help for a command (prs help auth status), or: prs help exit-codes'
      )
      _describe -t commands 'prs command' commands && ret=0
      ;;
    args)
      curcontext=${curcontext%:*:*}:prs-$words[1]:
      case $words[1] in
        login) _prs_cmd_login && ret=0 ;;
        logout) _prs_cmd_logout && ret=0 ;;
        auth) _prs_cmd_auth && ret=0 ;;
        config) _prs_cmd_config && ret=0 ;;
        report) _prs_cmd_report && ret=0 ;;
        export) _prs_cmd_export && ret=0 ;;
        diff) _prs_cmd_diff && ret=0 ;;
        cache) _prs_cmd_cache && ret=0 ;;
        quota) _prs_cmd_quota && ret=0 ;;
        completion) _prs_cmd_completion && ret=0 ;;
        sandbox) _prs_cmd_sandbox && ret=0 ;;
        help) _prs_cmd_help && ret=0 ;;
      esac
      ;;
  esac
  return ret
}

_prs_cmd_login() {
  local -a globals
  _prs_globals
  _arguments -s -S : $globals \
    '--auth-url=[Keycloak base URL, before /realms (env PRS_AUTH_URL)]:url: ' \
    '--realm=[Keycloak realm (env PRS_REALM)]:realm: ' \
    '--client-id=[OAuth client id (env PRS_CLIENT_ID)]:id: ' \
    '--username=[user name (env PRS_USERNAME)]:user: ' \
    '--password-stdin[read the password from stdin]' \
    '--save-password[also keep the password (the session and client secret are always kept, 0600) for unattended re-login]' \
    '--client-credentials[a service account: client id and secret, no user (grant client_credentials)]' \
    '(- *)-h[show help]' \
    '(- *)--help[show help]'
}

_prs_cmd_logout() {
  local -a globals
  _prs_globals
  _arguments -s -S : $globals \
    '--all[every profile]' \
    '(- *)-h[show help]' \
    '(- *)--help[show help]'
}

_prs_cmd_auth() {
  local curcontext=$curcontext state state_descr line ret=1
  typeset -A opt_args
  local -a globals
  _prs_globals
  _arguments -C -s -S : $globals \
    '(- *)-h[show help]' \
    '(- *)--help[show help]' \
    '1: :->command' \
    '*:: :->args' && ret=0
  case $state in
    command)
      local -a commands=(
        'status:show the session; exit 0 when an API call would succeed without a prompt'
        'token:print a valid access token on stdout (refreshing if needed)'
        'help:display help for command'
      )
      _describe -t commands 'prs auth command' commands && ret=0
      ;;
    args)
      curcontext=${curcontext%:*:*}:prs-auth-$words[1]:
      case $words[1] in
        status) _prs_cmd_auth_status && ret=0 ;;
        token) _prs_cmd_auth_token && ret=0 ;;
        help) _prs_cmd_auth_help && ret=0 ;;
      esac
      ;;
  esac
  return ret
}

_prs_cmd_auth_status() {
  local -a globals
  _prs_globals
  _arguments -s -S : $globals \
    '--json[machine-readable output]' \
    '(- *)-h[show help]' \
    '(- *)--help[show help]'
}

_prs_cmd_auth_token() {
  local -a globals
  _prs_globals
  _arguments -s -S : $globals \
    '(- *)-h[show help]' \
    '(- *)--help[show help]'
}

_prs_cmd_auth_help() {
  local -a globals
  _prs_globals
  _arguments -s -S : $globals \
    '1:command:(status token)'
}

_prs_cmd_config() {
  local curcontext=$curcontext state state_descr line ret=1
  typeset -A opt_args
  local -a globals
  _prs_globals
  _arguments -C -s -S : $globals \
    '(- *)-h[show help]' \
    '(- *)--help[show help]' \
    '1: :->command' \
    '*:: :->args' && ret=0
  case $state in
    command)
      local -a commands=(
        'list:all settings of the profile, with where each comes from'
        'get:print one setting'
        'set:store one setting in the profile'
        'unset:remove one setting from the profile'
        'path:print the config file path'
        'help:display help for command'
      )
      _describe -t commands 'prs config command' commands && ret=0
      ;;
    args)
      curcontext=${curcontext%:*:*}:prs-config-$words[1]:
      case $words[1] in
        list) _prs_cmd_config_list && ret=0 ;;
        get) _prs_cmd_config_get && ret=0 ;;
        set) _prs_cmd_config_set && ret=0 ;;
        unset) _prs_cmd_config_unset && ret=0 ;;
        path) _prs_cmd_config_path && ret=0 ;;
        help) _prs_cmd_config_help && ret=0 ;;
      esac
      ;;
  esac
  return ret
}

_prs_cmd_config_list() {
  local -a globals
  _prs_globals
  _arguments -s -S : $globals \
    '--json[machine-readable output]' \
    '(- *)-h[show help]' \
    '(- *)--help[show help]'
}

_prs_cmd_config_get() {
  local -a globals
  _prs_globals
  _arguments -s -S : $globals \
    '(- *)-h[show help]' \
    '(- *)--help[show help]' \
    '1:key:(base-url auth-url realm client-id tenant username timeout retries rate-limit limiter cache cache-size grant name-template log-format metrics-file ping-url)'
}

_prs_cmd_config_set() {
  local -a globals
  _prs_globals
  _arguments -s -S : $globals \
    '(- *)-h[show help]' \
    '(- *)--help[show help]' \
    '1:key:(base-url auth-url realm client-id tenant username timeout retries rate-limit limiter cache cache-size grant name-template log-format metrics-file ping-url)' \
    '2:value: '
}

_prs_cmd_config_unset() {
  local -a globals
  _prs_globals
  _arguments -s -S : $globals \
    '(- *)-h[show help]' \
    '(- *)--help[show help]' \
    '1:key:(base-url auth-url realm client-id tenant username timeout retries rate-limit limiter cache cache-size grant name-template log-format metrics-file ping-url)'
}

_prs_cmd_config_path() {
  local -a globals
  _prs_globals
  _arguments -s -S : $globals \
    '(- *)-h[show help]' \
    '(- *)--help[show help]'
}

_prs_cmd_config_help() {
  local -a globals
  _prs_globals
  _arguments -s -S : $globals \
    '1:command:(list get set unset path)'
}

_prs_cmd_report() {
  local -a globals
  _prs_globals
  _arguments -s -S : $globals \
    '(-t --type)-t+[report type (required): index, constituent.close, constituent.open, constituent.proforma, constituent.corporateactions, constituent.proformacorporateactions]:type:((index\:"index values and market values" constituent.close\:"constituents at the close" constituent.open\:"constituents at the open" constituent.proforma\:"pro-forma constituents" constituent.corporateactions\:"corporate actions of the constituents" constituent.proformacorporateactions\:"pro-forma corporate actions"))' \
    '(-t --type)--type=[report type (required): index, constituent.close, constituent.open, constituent.proforma, constituent.corporateactions, constituent.proformacorporateactions]:type:((index\:"index values and market values" constituent.close\:"constituents at the close" constituent.open\:"constituents at the open" constituent.proforma\:"pro-forma constituents" constituent.corporateactions\:"corporate actions of the constituents" constituent.proformacorporateactions\:"pro-forma corporate actions"))' \
    '(-d --date)-d+[YYYY-MM-DD, today, yesterday or previous-weekday]:date:((today\:"today'\''s date (local time)" yesterday\:"yesterday'\''s date (local time)" previous-weekday\:"the latest Monday–Friday before today (for cron)"))' \
    '(-d --date)--date=[YYYY-MM-DD, today, yesterday or previous-weekday]:date:((today\:"today'\''s date (local time)" yesterday\:"yesterday'\''s date (local time)" previous-weekday\:"the latest Monday–Friday before today (for cron)"))' \
    '--from=[first date of an inclusive range]:date:((today\:"today'\''s date (local time)" yesterday\:"yesterday'\''s date (local time)" previous-weekday\:"the latest Monday–Friday before today (for cron)"))' \
    '--to=[last date of an inclusive range]:date:((today\:"today'\''s date (local time)" yesterday\:"yesterday'\''s date (local time)" previous-weekday\:"the latest Monday–Friday before today (for cron)"))' \
    '--weekends[include Saturdays and Sundays in a range]' \
    '(-f --format)-f+[table | json | ndjson | csv | tsv | parquet (default: table on a terminal, else json)]:fmt:((table\:"aligned columns (the default on a terminal)" json\:"an array of rows (the default in a pipe)" ndjson\:"one JSON row per line" csv\:"comma-separated, a header line first" tsv\:"tab-separated, a header line first" parquet\:"one Parquet file, with -o (DECIMAL, DATE, UTF-8)"))' \
    '(-f --format)--format=[table | json | ndjson | csv | tsv | parquet (default: table on a terminal, else json)]:fmt:((table\:"aligned columns (the default on a terminal)" json\:"an array of rows (the default in a pipe)" ndjson\:"one JSON row per line" csv\:"comma-separated, a header line first" tsv\:"tab-separated, a header line first" parquet\:"one Parquet file, with -o (DECIMAL, DATE, UTF-8)"))' \
    '--json[same as -f json]' \
    '--fields=[columns to keep, in this order; dotted paths for nested values]:a,b,...: ' \
    '--jq=[a jq filter over the rows (the array -f json prints): strings raw, else compact JSON; digits kept]:filter: ' \
    '(-o --output)-o+[write to a file (atomically); - for stdout]:file:_files' \
    '(-o --output)--output=[write to a file (atomically); - for stdout]:file:_files' \
    '--force[overwrite an existing --output file]' \
    '--raw[print the response body exactly as received (one portfolio, one date)]' \
    '--fail-fast[stop at the first item that fails]' \
    '--dry-run[send nothing: print the plan (items, requests after cache hits, waits, ETA)]' \
    '--refresh[ask the service again and update the answer cache]' \
    '--no-pager[a table taller than the terminal is not paged (pager: PRS_PAGER, else PAGER, else less -FRX)]' \
    '(- *)-h[show help]' \
    '(- *)--help[show help]' \
    '*:portfolioId: '
}

_prs_cmd_export() {
  local -a globals
  _prs_globals
  _arguments -s -S : $globals \
    '(-t --type)-t+[report type (required): index, constituent.close, constituent.open, constituent.proforma, constituent.corporateactions, constituent.proformacorporateactions]:type:((index\:"index values and market values" constituent.close\:"constituents at the close" constituent.open\:"constituents at the open" constituent.proforma\:"pro-forma constituents" constituent.corporateactions\:"corporate actions of the constituents" constituent.proformacorporateactions\:"pro-forma corporate actions"))' \
    '(-t --type)--type=[report type (required): index, constituent.close, constituent.open, constituent.proforma, constituent.corporateactions, constituent.proformacorporateactions]:type:((index\:"index values and market values" constituent.close\:"constituents at the close" constituent.open\:"constituents at the open" constituent.proforma\:"pro-forma constituents" constituent.corporateactions\:"corporate actions of the constituents" constituent.proformacorporateactions\:"pro-forma corporate actions"))' \
    '(-d --date)-d+[YYYY-MM-DD, today, yesterday or previous-weekday]:date:((today\:"today'\''s date (local time)" yesterday\:"yesterday'\''s date (local time)" previous-weekday\:"the latest Monday–Friday before today (for cron)"))' \
    '(-d --date)--date=[YYYY-MM-DD, today, yesterday or previous-weekday]:date:((today\:"today'\''s date (local time)" yesterday\:"yesterday'\''s date (local time)" previous-weekday\:"the latest Monday–Friday before today (for cron)"))' \
    '--from=[first date of an inclusive range]:date:((today\:"today'\''s date (local time)" yesterday\:"yesterday'\''s date (local time)" previous-weekday\:"the latest Monday–Friday before today (for cron)"))' \
    '--to=[last date of an inclusive range]:date:((today\:"today'\''s date (local time)" yesterday\:"yesterday'\''s date (local time)" previous-weekday\:"the latest Monday–Friday before today (for cron)"))' \
    '--weekends[include Saturdays and Sundays in a range]' \
    '(-f --format)-f+[json | csv (csv arrives as a zip)]:fmt:((json\:"the rows as one JSON file (the default)" csv\:"a zip of CSV files (--extract writes them out too)"))' \
    '(-f --format)--format=[json | csv (csv arrives as a zip)]:fmt:((json\:"the rows as one JSON file (the default)" csv\:"a zip of CSV files (--extract writes them out too)"))' \
    '--dir=[directory for the files]:dir:_files -/' \
    '(-o --output)-o+[file path, or - for the raw bytes on stdout (with --extract: the CSV) (one portfolio, one date)]:file|-:_files' \
    '(-o --output)--output=[file path, or - for the raw bytes on stdout (with --extract: the CSV) (one portfolio, one date)]:file|-:_files' \
    '--name=[the <name> part of <date>_<name>_index.<ext> when the server sends no file name]:words: ' \
    '--name-template=[file names over {date} {name} {type} {portfolio}, e.g. '\''{date}_{name}_{type}'\'' (env PRS_NAME_TEMPLATE)]:t: ' \
    '--force[overwrite existing files]' \
    '--extract[csv: also write the CSV file(s) inside the zip; with -o -, only those, to stdout]' \
    '--skip-existing[skip items already exported here and unchanged (resume a run)]' \
    '--parallel=[exports in flight at once, 1-8]:n: ' \
    '--fail-fast[stop at the first item that fails]' \
    '--json[print a JSON array, one object per item, instead of paths]' \
    '--dry-run[send nothing: print the plan (items, requests after --skip-existing, ETA)]' \
    '(- *)-h[show help]' \
    '(- *)--help[show help]' \
    '*:portfolioId: '
}

_prs_cmd_diff() {
  local -a globals
  _prs_globals
  _arguments -s -S : $globals \
    '(-t --type)-t+[report type (required): index, constituent.close, constituent.open, constituent.proforma, constituent.corporateactions, constituent.proformacorporateactions]:type:((index\:"index values and market values" constituent.close\:"constituents at the close" constituent.open\:"constituents at the open" constituent.proforma\:"pro-forma constituents" constituent.corporateactions\:"corporate actions of the constituents" constituent.proformacorporateactions\:"pro-forma corporate actions"))' \
    '(-t --type)--type=[report type (required): index, constituent.close, constituent.open, constituent.proforma, constituent.corporateactions, constituent.proformacorporateactions]:type:((index\:"index values and market values" constituent.close\:"constituents at the close" constituent.open\:"constituents at the open" constituent.proforma\:"pro-forma constituents" constituent.corporateactions\:"corporate actions of the constituents" constituent.proformacorporateactions\:"pro-forma corporate actions"))' \
    '--from=[the old date]:date:((today\:"today'\''s date (local time)" yesterday\:"yesterday'\''s date (local time)" previous-weekday\:"the latest Monday–Friday before today (for cron)"))' \
    '--to=[the new date]:date:((today\:"today'\''s date (local time)" yesterday\:"yesterday'\''s date (local time)" previous-weekday\:"the latest Monday–Friday before today (for cron)"))' \
    '--each[with --from/--to: every consecutive pair of weekdays in the range (a change log)]' \
    '--weekends[with --each: include Saturdays and Sundays]' \
    '(-d --date)-d+[with --against: the one date on which two report types are compared]:date:((today\:"today'\''s date (local time)" yesterday\:"yesterday'\''s date (local time)" previous-weekday\:"the latest Monday–Friday before today (for cron)"))' \
    '(-d --date)--date=[with --against: the one date on which two report types are compared]:date:((today\:"today'\''s date (local time)" yesterday\:"yesterday'\''s date (local time)" previous-weekday\:"the latest Monday–Friday before today (for cron)"))' \
    '--against=[with -d: the report type compared with --type (e.g. constituent.proforma)]:type:((index\:"index values and market values" constituent.close\:"constituents at the close" constituent.open\:"constituents at the open" constituent.proforma\:"pro-forma constituents" constituent.corporateactions\:"corporate actions of the constituents" constituent.proformacorporateactions\:"pro-forma corporate actions"))' \
    '--key=[the fields that identify a row (default by type: isin, eventId, indexId)]:a,b: ' \
    '--fields=[compare only these fields (default: all but the key and effectiveDate)]:a,b: ' \
    '(-f --format)-f+[table | json | ndjson | csv | tsv (default: table on a terminal, else json)]:fmt:((table\:"aligned columns (the default on a terminal)" json\:"an array of rows (the default in a pipe)" ndjson\:"one JSON row per line" csv\:"comma-separated, a header line first" tsv\:"tab-separated, a header line first"))' \
    '(-f --format)--format=[table | json | ndjson | csv | tsv (default: table on a terminal, else json)]:fmt:((table\:"aligned columns (the default on a terminal)" json\:"an array of rows (the default in a pipe)" ndjson\:"one JSON row per line" csv\:"comma-separated, a header line first" tsv\:"tab-separated, a header line first"))' \
    '--jq=[a jq filter over the diff rows (the array -f json prints): strings raw, else compact JSON; digits kept]:filter: ' \
    '(-o --output)-o+[write to a file (atomically); - for stdout]:file:_files' \
    '(-o --output)--output=[write to a file (atomically); - for stdout]:file:_files' \
    '--force[overwrite an existing --output file]' \
    '--fail-fast[stop at the first item that fails]' \
    '--dry-run[send nothing: print the plan (requests after cache hits, waits, ETA)]' \
    '--refresh[ask the service again and update the answer cache]' \
    '--no-pager[a table taller than the terminal is not paged (pager: PRS_PAGER, else PAGER, else less -FRX)]' \
    '--exit-code[exit 11 when anything changed, 0 when nothing did]' \
    '(- *)-h[show help]' \
    '(- *)--help[show help]' \
    '*:portfolioId: '
}

_prs_cmd_cache() {
  local curcontext=$curcontext state state_descr line ret=1
  typeset -A opt_args
  local -a globals
  _prs_globals
  _arguments -C -s -S : $globals \
    '(- *)-h[show help]' \
    '(- *)--help[show help]' \
    '1: :->command' \
    '*:: :->args' && ret=0
  case $state in
    command)
      local -a commands=(
        'info:directory, entries, bytes, oldest and newest stored answers'
        'clear:remove this profile'\''s stored answers'
        'help:display help for command'
      )
      _describe -t commands 'prs cache command' commands && ret=0
      ;;
    args)
      curcontext=${curcontext%:*:*}:prs-cache-$words[1]:
      case $words[1] in
        info) _prs_cmd_cache_info && ret=0 ;;
        clear) _prs_cmd_cache_clear && ret=0 ;;
        help) _prs_cmd_cache_help && ret=0 ;;
      esac
      ;;
  esac
  return ret
}

_prs_cmd_cache_info() {
  local -a globals
  _prs_globals
  _arguments -s -S : $globals \
    '--json[machine-readable output]' \
    '(- *)-h[show help]' \
    '(- *)--help[show help]'
}

_prs_cmd_cache_clear() {
  local -a globals
  _prs_globals
  _arguments -s -S : $globals \
    '--all[every profile'\''s]' \
    '(- *)-h[show help]' \
    '(- *)--help[show help]'
}

_prs_cmd_cache_help() {
  local -a globals
  _prs_globals
  _arguments -s -S : $globals \
    '1:command:(info clear)'
}

_prs_cmd_quota() {
  local -a globals
  _prs_globals
  _arguments -s -S : $globals \
    '--json[machine-readable output]' \
    '(- *)-h[show help]' \
    '(- *)--help[show help]'
}

_prs_cmd_completion() {
  local -a globals
  _prs_globals
  _arguments -s -S : $globals \
    '(- *)-h[show help]' \
    '(- *)--help[show help]' \
    '1:shell:(bash zsh fish)'
}

_prs_cmd_sandbox() {
  local -a globals=(
    '--profile=[named settings and session (env PRS_PROFILE; default "default")]:name:_prs_profiles'
    '--base-url=[service base URL, the part before /api/v1 (env PRS_BASE_URL)]:url: '
    '--tenant=[tenant id, sent as X-CLIENT-ID (env PRS_TENANT)]:id: '
    '--timeout=[per-request timeout (env PRS_TIMEOUT; default 60)]:seconds: '
    '--retries=[retries for 429, 5xx and network failures (env PRS_RETRIES; default 3)]:n: '
    '--limiter=[share the rate limit between machines: redis://\[user:password@\]host:port\[/db\] (env PRS_LIMITER)]:url: '
    '--cache=[reuse stored report answers for past dates up to this age: 30m, 12h, 7d, off (env PRS_CACHE; default "off")]:max-age: '
    '--no-cache[neither read nor write the answer cache this run (report, diff); --cache is then off]'
    '--log-format=[json: every stderr message one JSON object per line (env PRS_LOG_FORMAT; default "text")]:text|json:(text json)'
    '--metrics-file=[after each report/export run, write Prometheus metrics there (env PRS_METRICS_FILE)]:path:_files'
    '--ping-url=[tell a Healthchecks-style monitor of each run: start, success, failure (env PRS_PING_URL)]:url: '
    '(-q --quiet)-q[no progress, notes or hints on stderr]'
    '(-q --quiet)--quiet[no progress, notes or hints on stderr]'
    '(-v --verbose)-v[one line per HTTP request/response on stderr, secrets redacted]'
    '(-v --verbose)--verbose[one line per HTTP request/response on stderr, secrets redacted]'
    '--no-color[no colour (also NO_COLOR; FORCE_COLOR forces it)]'
  )
  _arguments -s -S : $globals \
    '--port=[port (0 picks a free one)]:n: ' \
    '--host=[address to listen on]:host: ' \
    '--rate-limit=[the sandbox'\''s JSON endpoint limit per user (default: 4/60s)]:n/window: ' \
    '--token-ttl=[access token lifetime]:seconds: ' \
    '--refresh-ttl=[refresh token lifetime]:seconds: ' \
    '--big-rows=[constituent rows of portfolio 900, streamed (default: 1000)]:n: ' \
    '--export-delay=[milliseconds added to each export answer (default: 0)]:ms: ' \
    '--json-style=[JSON bodies compact (default) or spaced, as Python json.dumps writes them]:style: ' \
    '--gzip[answer gzip-compressed when the request accepts it, as a compressing gateway does]' \
    '(- *)-h[show help]' \
    '(- *)--help[show help]'
}

_prs_cmd_help() {
  local curcontext=$curcontext state state_descr line ret=1
  typeset -A opt_args
  local -a globals
  _prs_globals
  _arguments -C -s -S : $globals \
    '(- *)-h[show help]' \
    '(- *)--help[show help]' \
    '1: :->command' \
    '*:: :->args' && ret=0
  case $state in
    command)
      local -a commands=(
        'login:sign in and store the session in the profile'
        'logout:forget the profile'\''s tokens and any saved password or secret'
        'auth:session status and tokens'
        'config:profile settings (base-url, auth-url, realm, client-id, tenant, username, timeout, retries, rate-limit, limiter, cache, cache-size, grant, name-template, log-format, metrics-file, ping-url)'
        'report:fetch report rows and print them as a table, JSON, NDJSON, CSV or TSV'
        'export:download report files (JSON, or CSV in a zip), written whole or not at all'
        'diff:what changed in a report: between two dates, or between two report types on one date'
        'cache:the answer cache (see --cache): what it holds, and clearing it'
        'quota:the rate limit in force, the requests counted in its window, and the next free slot'
        'completion:print the shell completion script'
        'sandbox:run a local stand-in for the service and its token endpoint, until interrupted'
        'exit-codes:every exit code and what it means'
      )
      _describe -t commands 'prs help command' commands && ret=0
      ;;
    args)
      curcontext=${curcontext%:*:*}:prs-help-$words[1]:
      case $words[1] in
        login) _prs_cmd_help_login && ret=0 ;;
        logout) _prs_cmd_help_logout && ret=0 ;;
        auth) _prs_cmd_help_auth && ret=0 ;;
        config) _prs_cmd_help_config && ret=0 ;;
        report) _prs_cmd_help_report && ret=0 ;;
        export) _prs_cmd_help_export && ret=0 ;;
        diff) _prs_cmd_help_diff && ret=0 ;;
        cache) _prs_cmd_help_cache && ret=0 ;;
        quota) _prs_cmd_help_quota && ret=0 ;;
        completion) _prs_cmd_help_completion && ret=0 ;;
        sandbox) _prs_cmd_help_sandbox && ret=0 ;;
        exit-codes) _prs_cmd_help_exit_codes && ret=0 ;;
      esac
      ;;
  esac
  return ret
}

_prs_cmd_help_login() {
  local -a globals
  _prs_globals
  _arguments -s -S : $globals
}

_prs_cmd_help_logout() {
  local -a globals
  _prs_globals
  _arguments -s -S : $globals
}

_prs_cmd_help_auth() {
  local curcontext=$curcontext state state_descr line ret=1
  typeset -A opt_args
  local -a globals
  _prs_globals
  _arguments -C -s -S : $globals \
    '1: :->command' \
    '*:: :->args' && ret=0
  case $state in
    command)
      local -a commands=(
        'status:show the session; exit 0 when an API call would succeed without a prompt'
        'token:print a valid access token on stdout (refreshing if needed)'
      )
      _describe -t commands 'prs help auth command' commands && ret=0
      ;;
    args)
      curcontext=${curcontext%:*:*}:prs-help-auth-$words[1]:
      case $words[1] in
        status) _prs_cmd_help_auth_status && ret=0 ;;
        token) _prs_cmd_help_auth_token && ret=0 ;;
      esac
      ;;
  esac
  return ret
}

_prs_cmd_help_auth_status() {
  local -a globals
  _prs_globals
  _arguments -s -S : $globals
}

_prs_cmd_help_auth_token() {
  local -a globals
  _prs_globals
  _arguments -s -S : $globals
}

_prs_cmd_help_config() {
  local curcontext=$curcontext state state_descr line ret=1
  typeset -A opt_args
  local -a globals
  _prs_globals
  _arguments -C -s -S : $globals \
    '1: :->command' \
    '*:: :->args' && ret=0
  case $state in
    command)
      local -a commands=(
        'list:all settings of the profile, with where each comes from'
        'get:print one setting'
        'set:store one setting in the profile'
        'unset:remove one setting from the profile'
        'path:print the config file path'
      )
      _describe -t commands 'prs help config command' commands && ret=0
      ;;
    args)
      curcontext=${curcontext%:*:*}:prs-help-config-$words[1]:
      case $words[1] in
        list) _prs_cmd_help_config_list && ret=0 ;;
        get) _prs_cmd_help_config_get && ret=0 ;;
        set) _prs_cmd_help_config_set && ret=0 ;;
        unset) _prs_cmd_help_config_unset && ret=0 ;;
        path) _prs_cmd_help_config_path && ret=0 ;;
      esac
      ;;
  esac
  return ret
}

_prs_cmd_help_config_list() {
  local -a globals
  _prs_globals
  _arguments -s -S : $globals
}

_prs_cmd_help_config_get() {
  local -a globals
  _prs_globals
  _arguments -s -S : $globals
}

_prs_cmd_help_config_set() {
  local -a globals
  _prs_globals
  _arguments -s -S : $globals
}

_prs_cmd_help_config_unset() {
  local -a globals
  _prs_globals
  _arguments -s -S : $globals
}

_prs_cmd_help_config_path() {
  local -a globals
  _prs_globals
  _arguments -s -S : $globals
}

_prs_cmd_help_report() {
  local -a globals
  _prs_globals
  _arguments -s -S : $globals
}

_prs_cmd_help_export() {
  local -a globals
  _prs_globals
  _arguments -s -S : $globals
}

_prs_cmd_help_diff() {
  local -a globals
  _prs_globals
  _arguments -s -S : $globals
}

_prs_cmd_help_cache() {
  local curcontext=$curcontext state state_descr line ret=1
  typeset -A opt_args
  local -a globals
  _prs_globals
  _arguments -C -s -S : $globals \
    '1: :->command' \
    '*:: :->args' && ret=0
  case $state in
    command)
      local -a commands=(
        'info:directory, entries, bytes, oldest and newest stored answers'
        'clear:remove this profile'\''s stored answers'
      )
      _describe -t commands 'prs help cache command' commands && ret=0
      ;;
    args)
      curcontext=${curcontext%:*:*}:prs-help-cache-$words[1]:
      case $words[1] in
        info) _prs_cmd_help_cache_info && ret=0 ;;
        clear) _prs_cmd_help_cache_clear && ret=0 ;;
      esac
      ;;
  esac
  return ret
}

_prs_cmd_help_cache_info() {
  local -a globals
  _prs_globals
  _arguments -s -S : $globals
}

_prs_cmd_help_cache_clear() {
  local -a globals
  _prs_globals
  _arguments -s -S : $globals
}

_prs_cmd_help_quota() {
  local -a globals
  _prs_globals
  _arguments -s -S : $globals
}

_prs_cmd_help_completion() {
  local -a globals
  _prs_globals
  _arguments -s -S : $globals
}

_prs_cmd_help_sandbox() {
  local -a globals
  _prs_globals
  _arguments -s -S : $globals
}

_prs_cmd_help_exit_codes() {
  local -a globals
  _prs_globals
  _arguments -s -S : $globals
}

if [[ $funcstack[1] == _prs ]]; then
  _prs "$@"
else
  compdef _prs prs
fi
