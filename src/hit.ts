/**
 * The answer cache's fast path (issue 25), loaded by the fast entry (src/fast.ts): `prs report`
 * answered from the cache before commander and the CLI load. It takes the case cron jobs and pipes
 * meet (one portfolio, one date, a machine format to a pipe or a file, the answer stored) and builds
 * the output with the CLI's own pieces (report's flag table and options, the settings resolver, the
 * store, the row stream); anything else is undefined before a byte is written, and the CLI runs.
 * test/unit/hit.test.ts holds its argv reading to commander's, test/e2e/cache-hit.test.ts its output
 * to the CLI's.
 */
import { openStore } from './auth/store.js';
import { answerKey, cacheableDate, storeFor } from './cache/answers.js';
import { type CachedAnswer, entryChunks } from './cache/store.js';
import { spelling } from './commands/flags.js';
import { defaultFormat, REPORT_FLAGS, type ReportFlags, reportOptions } from './commands/report.flags.js';
import { ExitCode } from './errors.js';
import { reportWriter } from './render/index.js';
import { RowTokenizer } from './rows/tokenizer.js';
import {
  type Env,
  fieldOf,
  GLOBAL_FLAGS,
  type GlobalOptions,
  globalSettingValues,
  resolveDirs,
  resolveProfileName,
  resolveSettings,
  settingRow,
  storedProfile,
} from './settings.js';
import { stdoutIsTerminal, stdoutWriter } from './stdout.js';

/** What the fast path reads from argv: report's positional ids, its flags, the global flags. */
export interface FastArgv {
  ids: string[];
  flags: ReportFlags;
  globals: GlobalOptions;
}

/** Where a spelling goes: a global or a report field; a value from argv, or a switch's boolean. */
type Reading = { into: 'globals' | 'flags'; field: string; takesValue: boolean; on: boolean };

/**
 * The spellings this path reads, from the flag tables: report's flags, every global flag with a value
 * (a setting: the resolver reads it) and the global switches known to change nothing here but stderr.
 */
const SPELLINGS: Map<string, Reading> = (() => {
  const map = new Map<string, Reading>();
  const add = (flag: string, into: Reading['into'], field: string) => {
    const s = spelling(flag);
    const reading = { into, field, takesValue: s.value, on: !s.negated };
    for (const name of [s.short, s.long]) if (name) map.set(name, reading);
  };
  for (const name of GLOBAL_FLAGS) {
    const { flag } = settingRow(name);
    if (spelling(flag!).value || name === 'quiet' || name === 'color') add(flag!, 'globals', fieldOf(name));
  }
  for (const [field, row] of Object.entries(REPORT_FLAGS)) add(row.flag, 'flags', field);
  return map;
})();

/**
 * argv after node and the script → report's ids, flags and the globals, read as commander reads them;
 * undefined for anything this reader does not know for certain. Commander takes the word after a flag
 * with a value as that value whatever it looks like (`--cache -q` is the max-age "-q"), and so does
 * this. Global flags go before or after `report`; report's own only after it.
 */
export function readArgv(args: readonly string[]): FastArgv | undefined {
  const ids: string[] = [];
  const flags: Record<string, unknown> = {};
  const globals: Record<string, unknown> = {};
  const seen = new Set<string>();
  let command = false;
  /** One flag once: commander keeps the last of a repeat, an unusual argv this path leaves to it. */
  const set = (into: Record<string, unknown>, field: string, value: unknown) => {
    if (seen.has(field)) return false;
    seen.add(field);
    into[field] = value;
    return true;
  };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (!arg.startsWith('-') || arg === '-') {
      if (!command) {
        if (arg !== 'report') return undefined;
        command = true;
      } else ids.push(arg);
      continue;
    }
    const eq = arg.startsWith('--') ? arg.indexOf('=') : -1;
    const name = eq > 0 ? arg.slice(0, eq) : arg;
    const nextValue = () => (eq > 0 ? arg.slice(eq + 1) : args[++i]);
    const reading = SPELLINGS.get(name);
    // Report's own flags only after `report`; `--json=1` is commander's error, not ours.
    if (!reading || (reading.into === 'flags' && !command)) return undefined;
    const into = reading.into === 'globals' ? globals : flags;
    let ok: boolean;
    if (reading.takesValue) {
      const value = nextValue();
      ok = value !== undefined && set(into, reading.field, value);
    } else if (eq > 0) return undefined;
    else ok = set(into, reading.field, reading.on);
    if (!ok) return undefined;
  }
  if (!command) return undefined;
  return { ids, flags: flags as ReportFlags, globals: globals as GlobalOptions };
}

/**
 * `prs report …` answered from the answer cache: the exit code, or undefined when this path does not
 * answer it (see the top of this file). Nothing is written unless it answers.
 */
export async function answerFromCache(
  argv: readonly string[],
  env: Env,
  clock: { now(): number } = Date,
): Promise<number | undefined> {
  const read = readArgv(argv.slice(2));
  const hit = read && (await storedHit(read, env, clock));
  if (!hit) return undefined;
  const { options: o, format, entry } = hit;
  // The whole answer is checked before a byte is written (no rows is exit 3 in the CLI's words; a body
  // the row stream refuses is removed by the CLI's path, which says so: both left to it).
  if (!(rowCount(entry) > 0)) return undefined;
  const out = stdoutWriter({ flag: read.globals.color, env });
  // From the first byte on this path owns the run: it never hands over to the CLI (which would print
  // the answer a second time). One answer has no notes or warnings (they come from the table and from
  // a later answer's columns).
  try {
    const writer = reportWriter({
      type: o.type,
      format,
      multi: false,
      terminal: false,
      color: false,
      width: 80,
    });
    const answer = writer.answer();
    const tokens = new RowTokenizer();
    const put = (chunk: string | Uint8Array) => out(typeof chunk === 'string' ? chunk : Buffer.from(chunk));
    for (const bytes of entryChunks(entry)) {
      const rows = tokens.push(bytes);
      const code = rows.length > 0 ? await put(answer.rows(rows)) : undefined;
      if (code !== undefined) return code;
    }
    const rows = tokens.end();
    const code = rows.length > 0 ? await put(answer.rows(rows)) : undefined;
    if (code !== undefined) return code;
    answer.done();
    return (await put(writer.end().text)) ?? ExitCode.ok;
  } catch (err) {
    process.stderr.write(`prs: internal error: ${(err as Error)?.message}\n`);
    return ExitCode.internal;
  }
}

/**
 * The rows of a stored answer, read through the row stream without keeping them (the first of two
 * passes: a whole answer checked before any of it is written, without a copy of its output); -1 for
 * one the row stream refuses.
 */
function rowCount(entry: CachedAnswer): number {
  const tokens = new RowTokenizer();
  let count = 0;
  try {
    for (const bytes of entryChunks(entry)) {
      count += tokens.push(bytes).length;
      if (tokens.failed) break;
    }
    return count + tokens.end().length;
  } catch {
    return -1;
  }
}

/** The options, the format and the stored answer when this path answers the argv; else undefined. */
async function storedHit(read: FastArgv, env: Env, clock: { now(): number }) {
  try {
    const o = reportOptions(read.ids, read.flags, new Date(clock.now()));
    if (o.portfolioIds.length !== 1 || o.dates.length !== 1 || o.cache !== 'use') return undefined;
    if (o.output !== undefined || o.fields || o.raw || o.dryRun) return undefined;
    // A terminal gets the table or indented JSON, from the CLI.
    if (stdoutIsTerminal()) return undefined;
    const format = o.format ?? defaultFormat(undefined, false);
    if (format === 'table') return undefined;
    const g = read.globals;
    const profile = storedProfile(
      await openStore(resolveDirs(env).configDir),
      resolveProfileName(g.profile, env),
    );
    const s = resolveSettings(
      { ...globalSettingValues(g), profile: g.profile },
      env,
      profile?.settings ?? {},
    );
    if (s.cacheMaxAgeMs === undefined || s.logFormat === 'json' || s.metricsFile || s.pingUrl || s.debug)
      return undefined;
    const q = { portfolioId: o.portfolioIds[0]!, reportType: o.type, date: o.dates[0]! };
    const key = cacheableDate(q.date, clock.now()) ? answerKey(s, q) : undefined;
    const stored = key && storeFor(s, clock)?.get(s.profile, key, s.cacheMaxAgeMs);
    return stored ? { options: o, format, entry: stored } : undefined;
  } catch {
    // A bad flag or setting, an unreadable config: the CLI says it in its words.
    return undefined;
  }
}
