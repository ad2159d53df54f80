// biome-ignore-all lint/suspicious/noTemplateCurlyInString: shell source in plain strings
// The checked-in completion scripts in the real shells, asking the built prs (npm run build first):
// bash through its completion function with COMP_WORDS/COMP_CWORD set, fish through `complete -C`,
// zsh through a real completion widget driven in a pseudo-terminal (zpty). zsh and fish tests skip
// when the shell is not installed.
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { baseEnv, PRS_BIN } from '../helpers/run.js';
import { useTempDir } from '../helpers/session.js';

const completions = fileURLToPath(new URL('../../completions/', import.meta.url));
const has = (shell: string) => spawnSync('sh', ['-c', `command -v ${shell}`]).status === 0;

const tmp = useTempDir('prs-completion-');
let env: Record<string, string>;
let cwd: string;

beforeAll(() => {
  // The built prs on PATH, with three profiles for --profile.
  const bin = join(tmp.path, 'bin');
  mkdirSync(bin);
  writeFileSync(join(bin, 'prs'), `#!/bin/sh\nexec "${process.execPath}" "${PRS_BIN}" "$@"\n`);
  chmodSync(join(bin, 'prs'), 0o755);
  const config = join(tmp.path, 'config');
  mkdirSync(config);
  const profiles = { default: { settings: {} }, work: { settings: {} }, 'work-eu': { settings: {} } };
  writeFileSync(join(config, 'config.json'), JSON.stringify({ profiles }));
  // Files and directories for -o and --dir.
  cwd = join(tmp.path, 'cwd');
  mkdirSync(join(cwd, 'out'), { recursive: true });
  mkdirSync(join(cwd, 'data'));
  mkdirSync(join(cwd, 'docs'));
  writeFileSync(join(cwd, 'dfile'), '');
  writeFileSync(join(cwd, 'out', 'a.csv'), '');
  writeFileSync(join(cwd, 'out', 'ab.json'), '');
  const home = join(tmp.path, 'home');
  mkdirSync(home);
  env = baseEnv({
    HOME: home,
    ZDOTDIR: home,
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_DATA_HOME: join(home, '.local/share'),
    XDG_CACHE_HOME: join(home, '.cache'),
    PATH: `${bin}:${process.env.PATH}`,
    PRS_CONFIG_DIR: config,
    TERM: 'xterm',
  });
});

function run(cmd: string, args: string[], opts: { cwd?: string } = {}) {
  const r = spawnSync(cmd, args, { env, cwd: opts.cwd ?? cwd, encoding: 'utf8', timeout: 20_000 });
  if (r.error) throw r.error;
  return r;
}

const sorted = (xs: string[]) => [...xs].sort();

// Sources the script, sets the words as bash would for the line being completed, calls the function.
const BASH_DRIVER =
  'source "$0" || exit 9; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}; _prs; printf "%s\\n" "${COMPREPLY[@]}"';

describe('bash', () => {
  const script = join(completions, 'prs.bash');
  // The words as bash splits them (COMP_WORDBREAKS keeps "=" apart); the last one is being completed.
  const complete = (words: string[]) => {
    const r = run('bash', ['--norc', '--noprofile', '-c', BASH_DRIVER, script, ...words]);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    return r.stdout.split('\n').filter(Boolean);
  };

  it('registers the completion function for prs', () => {
    const r = run('bash', ['--norc', '--noprofile', '-c', 'source "$0"; complete -p prs', script]);
    expect(r.stdout.trim()).toBe('complete -F _prs prs');
  });

  it.each([
    [['prs', 'rep'], ['report']],
    [
      ['prs', ''],
      [
        'auth',
        'cache',
        'completion',
        'config',
        'diff',
        'export',
        'help',
        'login',
        'logout',
        'quota',
        'report',
        'sandbox',
      ],
    ],
    [
      ['prs', 'auth', ''],
      ['help', 'status', 'token'],
    ],
    [
      ['prs', 'config', 'get', 'r'],
      ['rate-limit', 'realm', 'retries'],
    ],
    [['prs', 'config', 'set', 'tenant', ''], []],
    [
      ['prs', 'report', '1', '-t', 'constituent.p'],
      ['constituent.proforma', 'constituent.proformacorporateactions'],
    ],
    [['prs', 'report', '1', '--type', '=', 'i'], ['index']],
    [
      ['prs', 'report', '1', '--format', '='],
      ['csv', 'json', 'ndjson', 'parquet', 'table', 'tsv'],
    ],
    [
      ['prs', 'export', '1', '-f', ''],
      ['csv', 'json'],
    ],
    [['prs', 'report', '1', '-d', 'y'], ['yesterday']],
    [
      ['prs', 'report', '1', '--fo'],
      ['--force', '--format'],
    ],
    [['prs', 'export', '1', '--e'], ['--extract']],
    [
      ['prs', 'report', '--profile', 'x', '1', '--j'],
      ['--jq', '--json'],
    ],
    [
      ['prs', '--profile', 'w'],
      ['work', 'work-eu'],
    ],
    [
      ['prs', 'report', '1', '--profile', ''],
      ['default', 'work', 'work-eu'],
    ],
    [['prs', 'completion', 'z'], ['zsh']],
    [['prs', 'completion', 'zsh', ''], []],
    [
      ['prs', 'help', 'ex'],
      ['exit-codes', 'export'],
    ],
    [
      ['prs', 'help', ''],
      [
        'auth',
        'cache',
        'completion',
        'config',
        'diff',
        'exit-codes',
        'export',
        'login',
        'logout',
        'quota',
        'report',
        'sandbox',
      ],
    ],
    [
      ['prs', 'help', 'auth', ''],
      ['status', 'token'],
    ],
    [['prs', 'help', 'report', ''], []],
    [
      ['prs', 'sandbox', '--rate-limit', '4/2s', '--r'],
      ['--rate-limit', '--refresh-ttl', '--retries'],
    ],
    [['prs', 'report', '1', '2', ''], []],
    [
      ['prs', 'report', '1', '-o', 'out/a'],
      ['out/a.csv', 'out/ab.json'],
    ],
    [
      ['prs', 'export', '1', '--dir', 'd'],
      ['data', 'docs'],
    ],
    [
      ['prs', '-q', 'log'],
      ['login', 'logout'],
    ],
    [
      ['prs', '--tenant', 'auth', ''],
      [
        'auth',
        'cache',
        'completion',
        'config',
        'diff',
        'export',
        'help',
        'login',
        'logout',
        'quota',
        'report',
        'sandbox',
      ],
    ],
  ])('%j', (words, want) => {
    expect(sorted(complete(words))).toEqual(sorted(want));
  });
});

describe.skipIf(!has('fish'))('fish', () => {
  const script = join(completions, 'prs.fish');
  const complete = (line: string) => {
    const r = run('fish', ['--no-config', '-c', 'source $argv[1]; and complete -C $argv[2]', script, line]);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    return r.stdout
      .split('\n')
      .filter(Boolean)
      .map((l) => l.split('\t'));
  };
  const words = (line: string) => complete(line).map(([w]) => w);

  it.each([
    ['prs rep', ['report']],
    [
      'prs ',
      [
        'auth',
        'cache',
        'completion',
        'config',
        'diff',
        'export',
        'help',
        'login',
        'logout',
        'quota',
        'report',
        'sandbox',
      ],
    ],
    ['prs auth ', ['help', 'status', 'token']],
    ['prs config unset r', ['rate-limit', 'realm', 'retries']],
    ['prs report 1 -t constituent.p', ['constituent.proforma', 'constituent.proformacorporateactions']],
    [
      'prs report 1 --format=',
      [
        '--format=csv',
        '--format=json',
        '--format=ndjson',
        '--format=parquet',
        '--format=table',
        '--format=tsv',
      ],
    ],
    ['prs export 1 --format ', ['csv', 'json']],
    ['prs --profile w', ['work', 'work-eu']],
    ['prs report 1 --fo', ['--force', '--format']],
    ['prs completion ', ['bash', 'fish', 'zsh']],
    ['prs completion fish ', []],
    ['prs help ex', ['exit-codes', 'export']],
    ['prs help auth ', ['status', 'token']],
    ['prs help config l', ['list']],
    ['prs help report ', []],
    ['prs report 1 -o out/a', ['out/a.csv', 'out/ab.json']],
    ['prs export 1 --dir d', ['data/', 'docs/']],
    ['prs report 1 ', []],
  ])('%j', (line, want) => {
    expect(sorted(words(line))).toEqual(sorted(want));
  });

  it("shows each value's own description, not the option's list of them all", () => {
    const types = complete('prs report 1 -t ');
    expect(types).toContainEqual(['index', 'index values and market values']);
    expect(types).toContainEqual(['constituent.close', 'constituents at the close']);
    expect(complete('prs export 1 -f ')).toContainEqual(['csv', expect.stringMatching(/zip/)]);
    expect(complete('prs report 1 --from ')).toContainEqual(['today', expect.stringMatching(/today/)]);
    for (const [, d] of types) expect(d).not.toMatch(/report type/);
  });

  it('shows descriptions, and one --rate-limit under sandbox (its own)', () => {
    expect(complete('prs rep')).toEqual([['report', expect.stringMatching(/^fetch report rows/)]]);
    const limits = complete('prs sandbox --rate');
    expect(limits).toEqual([['--rate-limit', expect.stringMatching(/sandbox/)]]);
  });
});

// Drives an interactive zsh in a pseudo-terminal: loads compinit with the script on $fpath, replaces
// compadd to print each candidate (and still add it, so fallbacks run only as they would for a
// user), types the line and a Tab. Markers are split in the source text so the terminal's echo of
// the commands never matches them.
const ZSH_PROBE = String.raw`
zmodload zsh/zpty || exit 3
zpty z zsh -f -i
zpty -w z "fpath=(${'$'}{(q)1} \$fpath); autoload -U compinit; compinit -u -D"
zpty -w z 'PROMPT= ; RPROMPT= ; unsetopt zle_bracketed_paste 2>/dev/null'
zpty -w z "zstyle ':completion:*' insert-tab false"
zpty -w z 'compadd () {
  if [[ ${'$'}{@[1,(i)(-|--)]} == *-(O|A|D)\ * ]]; then builtin compadd "$@"; return $?; fi
  typeset -a __hits
  builtin compadd -A __hits "$@"
  local h
  for h in $__hits; do print -r -- "<CA""ND>$h"; done
  builtin compadd "$@"
}'
zpty -w z '_probe_widget () { unset "compstate[vared]"; _main_complete "$@"; compstate[insert]=; compstate[list]=; print -r -- "<DO""NE>"; exit }'
zpty -w z 'zle -C probe-complete complete-word _probe_widget; bindkey "^I" probe-complete'
zpty -w z 'print -r -- "<REA""DY>"'
zpty -r z line '*<READY>*' || exit 4
zpty -w -n z "$2"$'\t'
while zpty -r z line; do
  line=${'$'}{line//$'\r'/}
  line=${'$'}{line%$'\n'}
  [[ $line == *'<DONE>'* ]] && break
  [[ $line == *'<CAND>'* ]] && print -r -- "${'$'}{line#*<CAND>}"
done
zpty -d z
`;

describe.skipIf(!has('zsh'))('zsh', () => {
  const script = join(completions, 'prs.zsh');
  let fpathDir: string;
  let probe: string;
  beforeAll(() => {
    fpathDir = join(tmp.path, 'zfunc');
    mkdirSync(fpathDir);
    copyFileSync(script, join(fpathDir, '_prs'));
    probe = join(tmp.path, 'probe.zsh');
    writeFileSync(probe, ZSH_PROBE);
  });

  it('loads under compinit without error, both sourced and from $fpath', () => {
    const sourced = run('zsh', [
      '-f',
      '-c',
      'autoload -U compinit && compinit -u -D && source "$1" && print -r -- $_comps[prs]',
      'zsh',
      script,
    ]);
    expect(sourced.stderr).toBe('');
    expect(sourced.stdout.trim()).toBe('_prs');
    const autoloaded = run('zsh', [
      '-f',
      '-c',
      'fpath=("$1" $fpath); autoload -U compinit && compinit -u -D && print -r -- $_comps[prs]',
      'zsh',
      fpathDir,
    ]);
    expect(autoloaded.stderr).toBe('');
    expect(autoloaded.stdout.trim()).toBe('_prs');
  });

  const complete = (line: string) => {
    const r = run('zsh', ['-f', probe, fpathDir, line]);
    expect(r.status).toBe(0);
    // _files may add a directory once per tag it tries; the menu shows it once.
    return [...new Set(r.stdout.split('\n').filter(Boolean))];
  };

  it.each([
    ['prs rep', ['report']],
    ['prs auth ', ['help', 'status', 'token']],
    ['prs config get r', ['rate-limit', 'realm', 'retries']],
    ['prs report 1 -t constituent.p', ['constituent.proforma', 'constituent.proformacorporateactions']],
    ['prs export 1 --format=', ['csv', 'json']],
    ['prs report 1 -f ', ['csv', 'json', 'ndjson', 'parquet', 'table', 'tsv']],
    ['prs --profile w', ['work', 'work-eu']],
    ['prs report 1 --fo', ['--force', '--format']],
    ['prs completion ', ['bash', 'fish', 'zsh']],
    ['prs help ex', ['exit-codes', 'export']],
    ['prs help auth ', ['status', 'token']],
    ['prs help config l', ['list']],
    ['prs sandbox --rate', ['--rate-limit']],
    ['prs export 1 --dir d', ['data', 'docs']],
  ])('%j', (line, want) => {
    expect(sorted(complete(line))).toEqual(sorted(want));
  });
});
