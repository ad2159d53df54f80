/** Help beyond commander's own: examples, the exit-code texts, `prs help <topic>`. */
import type { Command } from 'commander';
import { EXIT_CODES, UsageError } from './errors.js';
import { suggest } from './input.js';

export const HELP_TOPICS = { 'exit-codes': 'every exit code and what it means' };

export function helpTarget(program: Command, topic: string[]): Command {
  let target = program;
  for (const word of topic) {
    const subs = target.commands.filter((c) => !(c as unknown as { _hidden: boolean })._hidden);
    const next = subs.find((c) => c.name() === word || c.aliases().includes(word));
    if (!next) {
      const names = [...subs.map((c) => c.name()), ...(target === program ? Object.keys(HELP_TOPICS) : [])];
      const guess = suggest(word, names);
      throw new UsageError(
        `unknown help topic "${topic.join(' ')}"${guess ? ` — did you mean "${guess}"?` : ''}`,
        { hint: `topics: ${names.join(', ')}` },
      );
    }
    target = next;
  }
  return target;
}

/** README's "Running from cron" line. */
export const CRON_LINE =
  '0 6 * * 1-5  prs --profile nightly -q export 42 1 -t constituent.close -d previous-weekday -f csv --dir /data/prs --skip-existing || [ $? -eq 3 ]';

// Each command's examples as its --help shows them, under its path in brackets. A line without `$ `
// is a crontab line: printed as is, so that it pastes into `crontab -e`.
const EXAMPLE_TEXT = `
[]
# start a local stand-in for the service (prints how to log in to it)
$ prs sandbox
# sign in; prompts for what is missing, password hidden
$ prs login
# yesterday's index values: a table on a terminal, JSON in a pipe
$ prs report 42 -t index -d yesterday
# pipe JSON into jq
$ prs report 42 -t index -d 2024-05-02 --json | jq '.[].indexValue'
# corporate actions of a month as CSV
$ prs report 42 -t constituent.corporateactions --from 2024-05-01 --to 2024-05-31 -f csv -o ca.csv
# download the CSV export (a zip) into a folder
$ prs export 42 -t constituent.close -d yesterday -f csv --dir ~/reports
# a second set of settings and session
$ prs --profile prod login
[diff]
# what changed between two dates (entered, left, weights, shares, prices)
$ prs diff 77 -t constituent.close --from 2024-03-15 --to 2024-03-18
# what the coming rebalance changes: close against pro forma
$ prs diff 77 -t constituent.close -d 2024-03-15 --against constituent.proforma
# a change log of every weekday of a month, as CSV
$ prs diff 77 -t constituent.close --from 2024-03-01 --to 2024-03-29 --each -f csv -o changes.csv
# a nightly check: exit 11 when anything changed
$ prs diff 77 -t constituent.close --from previous-weekday --to today --exit-code -q
[login]
# interactive, secrets hidden; keeps the session and client secret (0600), not the password
$ prs login
# settings as flags (stored in the profile for next time)
$ prs login --base-url https://api.example.com --auth-url https://login.example.com --realm acme --client-id report-cli --tenant T123 --username jane
# non-interactive (CI): password on stdin, client secret from PRS_CLIENT_SECRET
$ printf '%s' "$PRS_PASSWORD" | prs login --username jane --password-stdin
# unattended re-login for cron: also keep the password in the private config (mode 0600)
$ prs login --profile nightly --save-password
# a service account for cron (no user, no password; client secret from PRS_CLIENT_SECRET)
$ prs login --profile nightly --client-credentials --client-id report-robot
# against the sandbox (\`prs sandbox\` prints the exact line)
$ prs login --profile sandbox
[logout]
# forget the default profile's tokens
$ prs logout
# one named profile
$ prs --profile prod logout
# every profile
$ prs logout --all
[auth status]
# profile, URLs, user, tenant and token expiry
$ prs auth status
# machine-readable
$ prs auth status --json | jq .
# log in only when needed
$ prs auth status -q || prs login
[auth token]
# call the API with curl
$ curl -H "Authorization: Bearer $(prs auth token)" -H "X-CLIENT-ID: $(prs config get tenant)" "$(prs config get base-url)/api/v1/report-service/report/generate/portfolio/42?reportType=index&date=2024-05-02"
[config list]
# every setting and where it comes from (flag, env, profile, default)
$ prs config list
# as JSON
$ prs config list --json | jq .
[config get]
# one value, for scripts
$ prs config get base-url
[config set]
# set the service URL of the default profile
$ prs config set base-url https://api.example.com
# set the tenant of another profile
$ prs --profile prod config set tenant T123
# a gentler client-side rate limit
$ prs config set rate-limit 2/60s
# keep report answers for past dates for a week (see prs cache)
$ prs config set cache 7d
[config unset]
# remove a setting (back to env or default)
$ prs config unset rate-limit
[config path]
# open the config file
$ "$EDITOR" "$(prs config path)"
[report]
# yesterday's index values: a table on a terminal, JSON in a pipe
$ prs report 42 -t index -d yesterday
# pipe into jq
$ prs report 42 -t index -d 2024-05-02 --json | jq '.[0].indexValue'
# a date range (weekdays only unless --weekends), several portfolios, to a CSV file
$ prs report 42 1 -t constituent.close --from 2024-05-01 --to 2024-05-31 -f csv -o may.csv
# corporate actions as CSV, selected columns (nested values by dotted path)
$ prs report 42 -t constituent.corporateactions -d yesterday -f csv --fields isin,eventType,exDate,indexId.Net
# one JSON row per line, filtered with jq
$ prs report 42 -t constituent.close -d yesterday -f ndjson | jq -c 'select(.indexWeighting > 0.05)'
# the body exactly as the service sent it
$ prs report 42 -t index -d 2024-05-02 --raw > body.json
# ask once, reformat freely: past dates answered from disk for a week (no request, no rate-limit slot)
$ prs --cache 7d report 42 -t index -d 2024-05-02 -f csv
# plan a backfill first: items, requests left after cache hits, waits and ETA; nothing sent
$ prs --cache 7d report 42 1 -t constituent.close --from 2024-01-01 --to 2024-06-30 -f csv -o h1.csv --dry-run
[export]
# the JSON file into the current folder (named by the server)
$ prs export 42 -t index -d yesterday
# corporate actions as CSV (a zip), also unpacked
$ prs export 42 -t constituent.corporateactions -d yesterday -f csv --dir ~/reports --extract
# a month of files
$ prs export 42 -t constituent.close --from 2024-05-01 --to 2024-05-31 -f csv --dir may
# raw bytes on stdout
$ prs export 42 -t index -d 2024-05-02 -o - | jq length
# a year, four at a time; re-run the same line to resume after an interruption
$ prs export 42 1 -t constituent.close --from 2024-01-01 --to 2024-12-31 -f csv --dir 2024 --parallel 4 --skip-existing
# crontab line: weekdays 06:00, the previous weekday, after \`prs login --profile nightly --save-password\`; a rerun fetches only what is missing; exit 3 (no data: a holiday) is no failure
${CRON_LINE}
[cache]
# turn it on: keep answers for past dates for a week, in this profile
$ prs config set cache 7d
[cache info]
# directory, entries, size, oldest and newest
$ prs cache info
# as JSON
$ prs cache info --json | jq .bytes
[cache clear]
# this profile's answers
$ prs cache clear
# every profile's
$ prs cache clear --all
[quota]
# how much of the rate limit is used, and when the next request may go
$ prs quota
# the window shared through Redis, as JSON
$ prs --limiter redis://cache.internal:6379 quota --json
[completion]
# bash, this session only
$ source <(prs completion bash)
# bash, for good (the bash-completion package loads this directory; without it, source the line above in ~/.bashrc)
$ prs completion bash > ~/.local/share/bash-completion/completions/prs
# zsh: a directory on $fpath (in ~/.zshrc, before compinit: fpath=(~/.zfunc $fpath))
$ mkdir -p ~/.zfunc && prs completion zsh > ~/.zfunc/_prs
# zsh, in a running shell (after compinit)
$ source <(prs completion zsh)
# fish
$ prs completion fish > ~/.config/fish/completions/prs.fish
[sandbox]
# on a free port; prints the login line to use
$ prs sandbox
# a fixed port, a fast rate limit and short-lived tokens, to watch retries and re-login
$ prs sandbox --port 8080 --rate-limit 4/2s --token-ttl 5
[help]
# help for a command
$ prs help report
# a nested command
$ prs help auth status
# what each exit code means
$ prs help exit-codes
`;

type Example = [comment: string, command: string, kind?: 'crontab'];

export const EXAMPLES: Record<string, Example[]> = {};
let examples: Example[] = [];
for (const [, path, comment, line] of EXAMPLE_TEXT.matchAll(/^\[(.*)\]$|^# (.*)\n(.*)$/gm)) {
  if (path !== undefined) EXAMPLES[path] = examples = [];
  else examples.push(line!.startsWith('$ ') ? [comment!, line!.slice(2)] : [comment!, line!, 'crontab']);
}
// A group's help (`prs config --help`) shows its commands' examples.
for (const [path, list] of Object.entries(EXAMPLES)) {
  const group = path.split(' ')[0]!;
  if (group !== path) EXAMPLES[group] = [...(EXAMPLES[group] ?? []), ...list];
}

export function exitCodesText(): string {
  const width = Math.max(...EXIT_CODES.map((e) => String(e.code).length));
  return [
    'Exit codes of prs (stable: scripts and cron jobs may rely on them)',
    '',
    ...EXIT_CODES.map((e) => `  ${String(e.code).padStart(width)}  ${e.meaning}`),
    '',
    'Errors are one line "prs: <message>" on stderr, plus at most one hint line.',
    '',
  ].join('\n');
}

/** Items, a comma after each but the last, in lines of at most `width`; a new line starts with `indent`. */
function wrap(first: string | undefined, items: string[], width: number, indent = ''): string[] {
  const lines = first === undefined ? [] : [first];
  for (const [i, item] of items.entries()) {
    const word = i < items.length - 1 ? `${item},` : item;
    const last = lines.at(-1);
    if (last === undefined || `${last} ${word}`.length > width) lines.push(indent + word);
    else lines[lines.length - 1] = `${last} ${word}`;
  }
  return lines;
}

function exitCodesFooter(): string[] {
  const lines = wrap(
    'Exit codes:',
    EXIT_CODES.map((e) => `${e.code} ${e.short}`),
    90,
  );
  lines[lines.length - 1] += ' (details: prs help exit-codes)';
  return [...lines, 'Tab completion for bash, zsh and fish: prs completion --help'];
}

/** The global options' spellings after a command's own (gh's "INHERITED FLAGS"); the root explains them. */
function globalOptionsSection(program: Command): string[] {
  const names = program.options
    .filter((o) => o.long !== '--version' && o.long !== '--help')
    .map((o) => o.flags.replace(', ', '/'));
  return [
    'Global options (before or after the command; `prs --help` explains each):',
    ...wrap(undefined, names, 80, '  '),
  ];
}

export function addHelpTexts(program: Command): void {
  const inherited = globalOptionsSection(program);
  const visit = (cmd: Command, path: string[]) => {
    const examples = EXAMPLES[path.join(' ')];
    const lines: string[] = [];
    if (path.length > 0) lines.push('', ...inherited);
    if (examples?.length) {
      lines.push('', 'Examples:');
      for (const [comment, command, kind] of examples)
        lines.push(`  # ${comment}`, kind === 'crontab' ? `  ${command}` : `  $ ${command}`);
    }
    if (path.length === 0) lines.push('', ...exitCodesFooter());
    if (lines.length) cmd.addHelpText('after', lines.join('\n'));
    for (const sub of cmd.commands) visit(sub, [...path, sub.name()]);
  };
  visit(program, []);
}
