# fish completion for prs.
# Generated from the command definitions by scripts/gen-completions.mjs; do not edit by hand.
# fish:
#   prs completion fish > ~/.config/fish/completions/prs.fish

# Prints the command path typed so far ("" at the top, "auth status", ...) and, on a second line,
# how many positional arguments follow it.
function __prs_state
    set -l tokens (commandline -opc)
    set -e tokens[1]
    set -l cmd ''
    set -l nargs 0
    set -l skip 0
    for tok in $tokens
        if test $skip = 1
            set skip 0
            continue
        end
        switch $tok
            case '--' '--*=*'
                continue
            case '-*'
                switch "$cmd $tok"
                    case 'login --auth-url' 'login --realm' 'login --client-id' 'login --username' 'report -t' 'report --type' 'report -d' 'report --date' 'report --from' 'report --to' 'report -f' 'report --format' 'report --fields' 'report --jq' 'report -o' 'report --output' 'export -t' 'export --type' 'export -d' 'export --date' 'export --from' 'export --to' 'export -f' 'export --format' 'export --dir' 'export -o' 'export --output' 'export --name' 'export --name-template' 'export --parallel' 'diff -t' 'diff --type' 'diff --from' 'diff --to' 'diff -d' 'diff --date' 'diff --against' 'diff --key' 'diff --fields' 'diff -f' 'diff --format' 'diff --jq' 'diff -o' 'diff --output' 'sandbox --port' 'sandbox --host' 'sandbox --rate-limit' 'sandbox --token-ttl' 'sandbox --refresh-ttl' 'sandbox --big-rows' 'sandbox --export-delay' 'sandbox --json-style' '* --profile' '* --base-url' '* --tenant' '* --timeout' '* --retries' '* --rate-limit' '* --limiter' '* --cache' '* --log-format' '* --metrics-file' '* --ping-url'
                        set skip 1
                end
                continue
        end
        switch "$cmd $tok"
            case ' login' ' logout' ' auth' 'auth status' 'auth token' 'auth help' ' config' 'config list' 'config get' 'config set' 'config unset' 'config path' 'config help' ' report' ' export' ' diff' ' cache' 'cache info' 'cache clear' 'cache help' ' quota' ' completion' ' sandbox' ' help' 'help login' 'help logout' 'help auth' 'help auth status' 'help auth token' 'help config' 'help config list' 'help config get' 'help config set' 'help config unset' 'help config path' 'help report' 'help export' 'help diff' 'help cache' 'help cache info' 'help cache clear' 'help quota' 'help completion' 'help sandbox' 'help exit-codes'
                set cmd (string trim -- "$cmd $tok")
                set nargs 0
            case '*'
                set nargs (math $nargs + 1)
        end
    end
    printf "%s\n%s\n" $cmd $nargs
end

# Profile names from the config file, through the hidden helper command (nothing if prs is missing).
function __prs_profiles
    command -q prs; and command prs __complete profiles 2>/dev/null
end

# True when the command path is $argv[1] and, if given, exactly $argv[2] arguments follow it.
function __prs_at
    set -l state (__prs_state)
    test "$state[1]" = "$argv[1]"; or return 1
    test (count $argv) -lt 2; or test "$state[2]" = "$argv[2]"
end

# No file names unless an option asks for them.
complete -c prs -f

complete -c prs -l profile -x -a '(__prs_profiles)' -d 'named settings and session (env PRS_PROFILE; default "default")'
complete -c prs -l base-url -x -d 'service base URL, the part before /api/v1 (env PRS_BASE_URL)'
complete -c prs -l tenant -x -d 'tenant id, sent as X-CLIENT-ID (env PRS_TENANT)'
complete -c prs -l timeout -x -d 'per-request timeout (env PRS_TIMEOUT; default 60)'
complete -c prs -l retries -x -d 'retries for 429, 5xx and network failures (env PRS_RETRIES; default 3)'
complete -c prs -n 'not __prs_at "sandbox"' -l rate-limit -x -d 'client-side limit for the JSON endpoint (env PRS_RATE_LIMIT; default "4/60s")'
complete -c prs -l limiter -x -d 'share the rate limit between machines: redis://[user:password@]host:port[/db] (env PRS_LIMITER)'
complete -c prs -l cache -x -d 'reuse stored report answers for past dates up to this age: 30m, 12h, 7d, off (env PRS_CACHE; default "off")'
complete -c prs -l no-cache -d 'neither read nor write the answer cache this run (report, diff); --cache is then off'
complete -c prs -l log-format -x -a 'text json' -d 'json: every stderr message one JSON object per line (env PRS_LOG_FORMAT; default "text")'
complete -c prs -l metrics-file -r -F -d 'after each report/export run, write Prometheus metrics there (env PRS_METRICS_FILE)'
complete -c prs -l ping-url -x -d 'tell a Healthchecks-style monitor of each run: start, success, failure (env PRS_PING_URL)'
complete -c prs -s q -l quiet -d 'no progress, notes or hints on stderr'
complete -c prs -s v -l verbose -d 'one line per HTTP request/response on stderr, secrets redacted'
complete -c prs -l no-color -d 'no colour (also NO_COLOR; FORCE_COLOR forces it)'

# prs
complete -c prs -n '__prs_at ""' -s V -l version -d 'print the version'
complete -c prs -n '__prs_at ""' -s h -l help -d 'show help'
complete -c prs -n '__prs_at "" 0' -a 'login' -d 'sign in and store the session in the profile'
complete -c prs -n '__prs_at "" 0' -a 'logout' -d 'forget the profile\'s tokens and any saved password or secret'
complete -c prs -n '__prs_at "" 0' -a 'auth' -d 'session status and tokens'
complete -c prs -n '__prs_at "" 0' -a 'config' -d 'profile settings (base-url, auth-url, realm, client-id, tenant, username, timeout, retries, rate-limit, limiter, cache, cache-size, grant, name-template, log-format, metrics-file, ping-url)'
complete -c prs -n '__prs_at "" 0' -a 'report' -d 'fetch report rows and print them as a table, JSON, NDJSON, CSV or TSV'
complete -c prs -n '__prs_at "" 0' -a 'export' -d 'download report files (JSON, or CSV in a zip), written whole or not at all'
complete -c prs -n '__prs_at "" 0' -a 'diff' -d 'what changed in a report: between two dates, or between two report types on one date'
complete -c prs -n '__prs_at "" 0' -a 'cache' -d 'the answer cache (see --cache): what it holds, and clearing it'
complete -c prs -n '__prs_at "" 0' -a 'quota' -d 'the rate limit in force, the requests counted in its window, and the next free slot'
complete -c prs -n '__prs_at "" 0' -a 'completion' -d 'print the shell completion script'
complete -c prs -n '__prs_at "" 0' -a 'sandbox' -d 'run a local stand-in for the service and its token endpoint, until interrupted'
complete -c prs -n '__prs_at "" 0' -a 'help' -d 'help for a command (prs help auth status), or: prs help exit-codes'

# prs login
complete -c prs -n '__prs_at "login"' -l auth-url -x -d 'Keycloak base URL, before /realms (env PRS_AUTH_URL)'
complete -c prs -n '__prs_at "login"' -l realm -x -d 'Keycloak realm (env PRS_REALM)'
complete -c prs -n '__prs_at "login"' -l client-id -x -d 'OAuth client id (env PRS_CLIENT_ID)'
complete -c prs -n '__prs_at "login"' -l username -x -d 'user name (env PRS_USERNAME)'
complete -c prs -n '__prs_at "login"' -l password-stdin -d 'read the password from stdin'
complete -c prs -n '__prs_at "login"' -l save-password -d 'also keep the password (the session and client secret are always kept, 0600) for unattended re-login'
complete -c prs -n '__prs_at "login"' -l client-credentials -d 'a service account: client id and secret, no user (grant client_credentials)'
complete -c prs -n '__prs_at "login"' -s h -l help -d 'show help'

# prs logout
complete -c prs -n '__prs_at "logout"' -l all -d 'every profile'
complete -c prs -n '__prs_at "logout"' -s h -l help -d 'show help'

# prs auth
complete -c prs -n '__prs_at "auth"' -s h -l help -d 'show help'
complete -c prs -n '__prs_at "auth" 0' -a 'status' -d 'show the session; exit 0 when an API call would succeed without a prompt'
complete -c prs -n '__prs_at "auth" 0' -a 'token' -d 'print a valid access token on stdout (refreshing if needed)'
complete -c prs -n '__prs_at "auth" 0' -a 'help' -d 'display help for command'

# prs auth status
complete -c prs -n '__prs_at "auth status"' -l json -d 'machine-readable output'
complete -c prs -n '__prs_at "auth status"' -s h -l help -d 'show help'

# prs auth token
complete -c prs -n '__prs_at "auth token"' -s h -l help -d 'show help'

# prs auth help
complete -c prs -n '__prs_at "auth help" 0' -x -a 'status token'

# prs config
complete -c prs -n '__prs_at "config"' -s h -l help -d 'show help'
complete -c prs -n '__prs_at "config" 0' -a 'list' -d 'all settings of the profile, with where each comes from'
complete -c prs -n '__prs_at "config" 0' -a 'get' -d 'print one setting'
complete -c prs -n '__prs_at "config" 0' -a 'set' -d 'store one setting in the profile'
complete -c prs -n '__prs_at "config" 0' -a 'unset' -d 'remove one setting from the profile'
complete -c prs -n '__prs_at "config" 0' -a 'path' -d 'print the config file path'
complete -c prs -n '__prs_at "config" 0' -a 'help' -d 'display help for command'

# prs config list
complete -c prs -n '__prs_at "config list"' -l json -d 'machine-readable output'
complete -c prs -n '__prs_at "config list"' -s h -l help -d 'show help'

# prs config get
complete -c prs -n '__prs_at "config get"' -s h -l help -d 'show help'
complete -c prs -n '__prs_at "config get" 0' -x -a 'base-url auth-url realm client-id tenant username timeout retries rate-limit limiter cache cache-size grant name-template log-format metrics-file ping-url'

# prs config set
complete -c prs -n '__prs_at "config set"' -s h -l help -d 'show help'
complete -c prs -n '__prs_at "config set" 0' -x -a 'base-url auth-url realm client-id tenant username timeout retries rate-limit limiter cache cache-size grant name-template log-format metrics-file ping-url'

# prs config unset
complete -c prs -n '__prs_at "config unset"' -s h -l help -d 'show help'
complete -c prs -n '__prs_at "config unset" 0' -x -a 'base-url auth-url realm client-id tenant username timeout retries rate-limit limiter cache cache-size grant name-template log-format metrics-file ping-url'

# prs config path
complete -c prs -n '__prs_at "config path"' -s h -l help -d 'show help'

# prs config help
complete -c prs -n '__prs_at "config help" 0' -x -a 'list get set unset path'

# prs report
complete -c prs -n '__prs_at "report"' -s t -l type -x -a 'index\\t\'index values and market values\' constituent.close\\t\'constituents at the close\' constituent.open\\t\'constituents at the open\' constituent.proforma\\t\'pro-forma constituents\' constituent.corporateactions\\t\'corporate actions of the constituents\' constituent.proformacorporateactions\\t\'pro-forma corporate actions\'' -d 'report type (required): index, constituent.close, constituent.open, constituent.proforma, constituent.corporateactions, constituent.proformacorporateactions'
complete -c prs -n '__prs_at "report"' -s d -l date -x -a 'today\\t\'today\\\'s date (local time)\' yesterday\\t\'yesterday\\\'s date (local time)\' previous-weekday\\t\'the latest Monday–Friday before today (for cron)\'' -d 'YYYY-MM-DD, today, yesterday or previous-weekday'
complete -c prs -n '__prs_at "report"' -l from -x -a 'today\\t\'today\\\'s date (local time)\' yesterday\\t\'yesterday\\\'s date (local time)\' previous-weekday\\t\'the latest Monday–Friday before today (for cron)\'' -d 'first date of an inclusive range'
complete -c prs -n '__prs_at "report"' -l to -x -a 'today\\t\'today\\\'s date (local time)\' yesterday\\t\'yesterday\\\'s date (local time)\' previous-weekday\\t\'the latest Monday–Friday before today (for cron)\'' -d 'last date of an inclusive range'
complete -c prs -n '__prs_at "report"' -l weekends -d 'include Saturdays and Sundays in a range'
complete -c prs -n '__prs_at "report"' -s f -l format -x -a 'table\\t\'aligned columns (the default on a terminal)\' json\\t\'an array of rows (the default in a pipe)\' ndjson\\t\'one JSON row per line\' csv\\t\'comma-separated, a header line first\' tsv\\t\'tab-separated, a header line first\' parquet\\t\'one Parquet file, with -o (DECIMAL, DATE, UTF-8)\'' -d 'table | json | ndjson | csv | tsv | parquet (default: table on a terminal, else json)'
complete -c prs -n '__prs_at "report"' -l json -d 'same as -f json'
complete -c prs -n '__prs_at "report"' -l fields -x -d 'columns to keep, in this order; dotted paths for nested values'
complete -c prs -n '__prs_at "report"' -l jq -x -d 'a jq filter over the rows (the array -f json prints): strings raw, else compact JSON; digits kept'
complete -c prs -n '__prs_at "report"' -s o -l output -r -F -d 'write to a file (atomically); - for stdout'
complete -c prs -n '__prs_at "report"' -l force -d 'overwrite an existing --output file'
complete -c prs -n '__prs_at "report"' -l raw -d 'print the response body exactly as received (one portfolio, one date)'
complete -c prs -n '__prs_at "report"' -l fail-fast -d 'stop at the first item that fails'
complete -c prs -n '__prs_at "report"' -l dry-run -d 'send nothing: print the plan (items, requests after cache hits, waits, ETA)'
complete -c prs -n '__prs_at "report"' -l refresh -d 'ask the service again and update the answer cache'
complete -c prs -n '__prs_at "report"' -l no-pager -d 'a table taller than the terminal is not paged (pager: PRS_PAGER, else PAGER, else less -FRX)'
complete -c prs -n '__prs_at "report"' -s h -l help -d 'show help'

# prs export
complete -c prs -n '__prs_at "export"' -s t -l type -x -a 'index\\t\'index values and market values\' constituent.close\\t\'constituents at the close\' constituent.open\\t\'constituents at the open\' constituent.proforma\\t\'pro-forma constituents\' constituent.corporateactions\\t\'corporate actions of the constituents\' constituent.proformacorporateactions\\t\'pro-forma corporate actions\'' -d 'report type (required): index, constituent.close, constituent.open, constituent.proforma, constituent.corporateactions, constituent.proformacorporateactions'
complete -c prs -n '__prs_at "export"' -s d -l date -x -a 'today\\t\'today\\\'s date (local time)\' yesterday\\t\'yesterday\\\'s date (local time)\' previous-weekday\\t\'the latest Monday–Friday before today (for cron)\'' -d 'YYYY-MM-DD, today, yesterday or previous-weekday'
complete -c prs -n '__prs_at "export"' -l from -x -a 'today\\t\'today\\\'s date (local time)\' yesterday\\t\'yesterday\\\'s date (local time)\' previous-weekday\\t\'the latest Monday–Friday before today (for cron)\'' -d 'first date of an inclusive range'
complete -c prs -n '__prs_at "export"' -l to -x -a 'today\\t\'today\\\'s date (local time)\' yesterday\\t\'yesterday\\\'s date (local time)\' previous-weekday\\t\'the latest Monday–Friday before today (for cron)\'' -d 'last date of an inclusive range'
complete -c prs -n '__prs_at "export"' -l weekends -d 'include Saturdays and Sundays in a range'
complete -c prs -n '__prs_at "export"' -s f -l format -x -a 'json\\t\'the rows as one JSON file (the default)\' csv\\t\'a zip of CSV files (--extract writes them out too)\'' -d 'json | csv (csv arrives as a zip)'
complete -c prs -n '__prs_at "export"' -l dir -x -a '(__fish_complete_directories (commandline -ct) "")' -d 'directory for the files'
complete -c prs -n '__prs_at "export"' -s o -l output -r -F -d 'file path, or - for the raw bytes on stdout (with --extract: the CSV) (one portfolio, one date)'
complete -c prs -n '__prs_at "export"' -l name -x -d 'the <name> part of <date>_<name>_index.<ext> when the server sends no file name'
complete -c prs -n '__prs_at "export"' -l name-template -x -d 'file names over {date} {name} {type} {portfolio}, e.g. \'{date}_{name}_{type}\' (env PRS_NAME_TEMPLATE)'
complete -c prs -n '__prs_at "export"' -l force -d 'overwrite existing files'
complete -c prs -n '__prs_at "export"' -l extract -d 'csv: also write the CSV file(s) inside the zip; with -o -, only those, to stdout'
complete -c prs -n '__prs_at "export"' -l skip-existing -d 'skip items already exported here and unchanged (resume a run)'
complete -c prs -n '__prs_at "export"' -l parallel -x -d 'exports in flight at once, 1-8'
complete -c prs -n '__prs_at "export"' -l fail-fast -d 'stop at the first item that fails'
complete -c prs -n '__prs_at "export"' -l json -d 'print a JSON array, one object per item, instead of paths'
complete -c prs -n '__prs_at "export"' -l dry-run -d 'send nothing: print the plan (items, requests after --skip-existing, ETA)'
complete -c prs -n '__prs_at "export"' -s h -l help -d 'show help'

# prs diff
complete -c prs -n '__prs_at "diff"' -s t -l type -x -a 'index\\t\'index values and market values\' constituent.close\\t\'constituents at the close\' constituent.open\\t\'constituents at the open\' constituent.proforma\\t\'pro-forma constituents\' constituent.corporateactions\\t\'corporate actions of the constituents\' constituent.proformacorporateactions\\t\'pro-forma corporate actions\'' -d 'report type (required): index, constituent.close, constituent.open, constituent.proforma, constituent.corporateactions, constituent.proformacorporateactions'
complete -c prs -n '__prs_at "diff"' -l from -x -a 'today\\t\'today\\\'s date (local time)\' yesterday\\t\'yesterday\\\'s date (local time)\' previous-weekday\\t\'the latest Monday–Friday before today (for cron)\'' -d 'the old date'
complete -c prs -n '__prs_at "diff"' -l to -x -a 'today\\t\'today\\\'s date (local time)\' yesterday\\t\'yesterday\\\'s date (local time)\' previous-weekday\\t\'the latest Monday–Friday before today (for cron)\'' -d 'the new date'
complete -c prs -n '__prs_at "diff"' -l each -d 'with --from/--to: every consecutive pair of weekdays in the range (a change log)'
complete -c prs -n '__prs_at "diff"' -l weekends -d 'with --each: include Saturdays and Sundays'
complete -c prs -n '__prs_at "diff"' -s d -l date -x -a 'today\\t\'today\\\'s date (local time)\' yesterday\\t\'yesterday\\\'s date (local time)\' previous-weekday\\t\'the latest Monday–Friday before today (for cron)\'' -d 'with --against: the one date on which two report types are compared'
complete -c prs -n '__prs_at "diff"' -l against -x -a 'index\\t\'index values and market values\' constituent.close\\t\'constituents at the close\' constituent.open\\t\'constituents at the open\' constituent.proforma\\t\'pro-forma constituents\' constituent.corporateactions\\t\'corporate actions of the constituents\' constituent.proformacorporateactions\\t\'pro-forma corporate actions\'' -d 'with -d: the report type compared with --type (e.g. constituent.proforma)'
complete -c prs -n '__prs_at "diff"' -l key -x -d 'the fields that identify a row (default by type: isin, eventId, indexId)'
complete -c prs -n '__prs_at "diff"' -l fields -x -d 'compare only these fields (default: all but the key and effectiveDate)'
complete -c prs -n '__prs_at "diff"' -s f -l format -x -a 'table\\t\'aligned columns (the default on a terminal)\' json\\t\'an array of rows (the default in a pipe)\' ndjson\\t\'one JSON row per line\' csv\\t\'comma-separated, a header line first\' tsv\\t\'tab-separated, a header line first\'' -d 'table | json | ndjson | csv | tsv (default: table on a terminal, else json)'
complete -c prs -n '__prs_at "diff"' -l jq -x -d 'a jq filter over the diff rows (the array -f json prints): strings raw, else compact JSON; digits kept'
complete -c prs -n '__prs_at "diff"' -s o -l output -r -F -d 'write to a file (atomically); - for stdout'
complete -c prs -n '__prs_at "diff"' -l force -d 'overwrite an existing --output file'
complete -c prs -n '__prs_at "diff"' -l fail-fast -d 'stop at the first item that fails'
complete -c prs -n '__prs_at "diff"' -l dry-run -d 'send nothing: print the plan (requests after cache hits, waits, ETA)'
complete -c prs -n '__prs_at "diff"' -l refresh -d 'ask the service again and update the answer cache'
complete -c prs -n '__prs_at "diff"' -l no-pager -d 'a table taller than the terminal is not paged (pager: PRS_PAGER, else PAGER, else less -FRX)'
complete -c prs -n '__prs_at "diff"' -l exit-code -d 'exit 11 when anything changed, 0 when nothing did'
complete -c prs -n '__prs_at "diff"' -s h -l help -d 'show help'

# prs cache
complete -c prs -n '__prs_at "cache"' -s h -l help -d 'show help'
complete -c prs -n '__prs_at "cache" 0' -a 'info' -d 'directory, entries, bytes, oldest and newest stored answers'
complete -c prs -n '__prs_at "cache" 0' -a 'clear' -d 'remove this profile\'s stored answers'
complete -c prs -n '__prs_at "cache" 0' -a 'help' -d 'display help for command'

# prs cache info
complete -c prs -n '__prs_at "cache info"' -l json -d 'machine-readable output'
complete -c prs -n '__prs_at "cache info"' -s h -l help -d 'show help'

# prs cache clear
complete -c prs -n '__prs_at "cache clear"' -l all -d 'every profile\'s'
complete -c prs -n '__prs_at "cache clear"' -s h -l help -d 'show help'

# prs cache help
complete -c prs -n '__prs_at "cache help" 0' -x -a 'info clear'

# prs quota
complete -c prs -n '__prs_at "quota"' -l json -d 'machine-readable output'
complete -c prs -n '__prs_at "quota"' -s h -l help -d 'show help'

# prs completion
complete -c prs -n '__prs_at "completion"' -s h -l help -d 'show help'
complete -c prs -n '__prs_at "completion" 0' -x -a 'bash zsh fish'

# prs sandbox
complete -c prs -n '__prs_at "sandbox"' -l port -x -d 'port (0 picks a free one)'
complete -c prs -n '__prs_at "sandbox"' -l host -x -d 'address to listen on'
complete -c prs -n '__prs_at "sandbox"' -l rate-limit -x -d 'the sandbox\'s JSON endpoint limit per user (default: 4/60s)'
complete -c prs -n '__prs_at "sandbox"' -l token-ttl -x -d 'access token lifetime'
complete -c prs -n '__prs_at "sandbox"' -l refresh-ttl -x -d 'refresh token lifetime'
complete -c prs -n '__prs_at "sandbox"' -l big-rows -x -d 'constituent rows of portfolio 900, streamed (default: 1000)'
complete -c prs -n '__prs_at "sandbox"' -l export-delay -x -d 'milliseconds added to each export answer (default: 0)'
complete -c prs -n '__prs_at "sandbox"' -l json-style -x -d 'JSON bodies compact (default) or spaced, as Python json.dumps writes them'
complete -c prs -n '__prs_at "sandbox"' -l gzip -d 'answer gzip-compressed when the request accepts it, as a compressing gateway does'
complete -c prs -n '__prs_at "sandbox"' -s h -l help -d 'show help'

# prs help
complete -c prs -n '__prs_at "help"' -s h -l help -d 'show help'
complete -c prs -n '__prs_at "help" 0' -a 'login' -d 'sign in and store the session in the profile'
complete -c prs -n '__prs_at "help" 0' -a 'logout' -d 'forget the profile\'s tokens and any saved password or secret'
complete -c prs -n '__prs_at "help" 0' -a 'auth' -d 'session status and tokens'
complete -c prs -n '__prs_at "help" 0' -a 'config' -d 'profile settings (base-url, auth-url, realm, client-id, tenant, username, timeout, retries, rate-limit, limiter, cache, cache-size, grant, name-template, log-format, metrics-file, ping-url)'
complete -c prs -n '__prs_at "help" 0' -a 'report' -d 'fetch report rows and print them as a table, JSON, NDJSON, CSV or TSV'
complete -c prs -n '__prs_at "help" 0' -a 'export' -d 'download report files (JSON, or CSV in a zip), written whole or not at all'
complete -c prs -n '__prs_at "help" 0' -a 'diff' -d 'what changed in a report: between two dates, or between two report types on one date'
complete -c prs -n '__prs_at "help" 0' -a 'cache' -d 'the answer cache (see --cache): what it holds, and clearing it'
complete -c prs -n '__prs_at "help" 0' -a 'quota' -d 'the rate limit in force, the requests counted in its window, and the next free slot'
complete -c prs -n '__prs_at "help" 0' -a 'completion' -d 'print the shell completion script'
complete -c prs -n '__prs_at "help" 0' -a 'sandbox' -d 'run a local stand-in for the service and its token endpoint, until interrupted'
complete -c prs -n '__prs_at "help" 0' -a 'exit-codes' -d 'every exit code and what it means'

# prs help login

# prs help logout

# prs help auth
complete -c prs -n '__prs_at "help auth" 0' -a 'status' -d 'show the session; exit 0 when an API call would succeed without a prompt'
complete -c prs -n '__prs_at "help auth" 0' -a 'token' -d 'print a valid access token on stdout (refreshing if needed)'

# prs help auth status

# prs help auth token

# prs help config
complete -c prs -n '__prs_at "help config" 0' -a 'list' -d 'all settings of the profile, with where each comes from'
complete -c prs -n '__prs_at "help config" 0' -a 'get' -d 'print one setting'
complete -c prs -n '__prs_at "help config" 0' -a 'set' -d 'store one setting in the profile'
complete -c prs -n '__prs_at "help config" 0' -a 'unset' -d 'remove one setting from the profile'
complete -c prs -n '__prs_at "help config" 0' -a 'path' -d 'print the config file path'

# prs help config list

# prs help config get

# prs help config set

# prs help config unset

# prs help config path

# prs help report

# prs help export

# prs help diff

# prs help cache
complete -c prs -n '__prs_at "help cache" 0' -a 'info' -d 'directory, entries, bytes, oldest and newest stored answers'
complete -c prs -n '__prs_at "help cache" 0' -a 'clear' -d 'remove this profile\'s stored answers'

# prs help cache info

# prs help cache clear

# prs help quota

# prs help completion

# prs help sandbox

# prs help exit-codes
