/** A one-portfolio, one-date report to a pipe or file answered from the answer cache before the CLI loads. */
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

interface FastArgv {
  ids: string[];
  flags: ReportFlags;
  globals: GlobalOptions;
}

type Reading = { into: 'globals' | 'flags'; field: string; takesValue: boolean; on: boolean };

/** Report's flags, the global flags with a value, and the switches that change nothing here but stderr. */
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

/** argv as commander reads it (`--cache -q` is the max-age "-q"); undefined for anything uncertain. */
export function readArgv(args: readonly string[]): FastArgv | undefined {
  const ids: string[] = [];
  const flags: Record<string, unknown> = {};
  const globals: Record<string, unknown> = {};
  const seen = new Set<string>();
  let command = false;
  // A repeat is left to commander.
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
    const reading = SPELLINGS.get(eq > 0 ? arg.slice(0, eq) : arg);
    const nextValue = () => (eq > 0 ? arg.slice(eq + 1) : args[++i]);
    if (!reading || (reading.into === 'flags' && !command)) return undefined;
    const into = reading.into === 'globals' ? globals : flags;
    const value = reading.takesValue ? nextValue() : eq > 0 ? undefined : reading.on;
    if (value === undefined || !set(into, reading.field, value)) return undefined;
  }
  if (!command) return undefined;
  return { ids, flags: flags as ReportFlags, globals: globals as GlobalOptions };
}

export async function answerFromCache(
  argv: readonly string[],
  env: Env,
  clock: { now(): number } = Date,
): Promise<number | undefined> {
  const read = readArgv(argv.slice(2));
  const hit = read && (await storedHit(read, env, clock));
  if (!hit) return undefined;
  const { options: o, format, entry } = hit;
  // No rows, or a body the row stream refuses: the CLI's path says so.
  if (!(rowCount(entry) > 0)) return undefined;
  const out = stdoutWriter({ flag: read.globals.color, env });
  // From the first byte on this path owns the run.
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
    const put = (chunk: string | Uint8Array) => out(typeof chunk === 'string' ? chunk : Buffer.from(chunk));
    for (const rows of rowBatches(entry)) {
      const code = rows.length > 0 ? await put(answer.rows(rows)) : undefined;
      if (code !== undefined) return code;
    }
    answer.done();
    return (await put(writer.end().text)) ?? ExitCode.ok;
  } catch (err) {
    process.stderr.write(`prs: internal error: ${(err as Error)?.message}\n`);
    return ExitCode.internal;
  }
}

function* rowBatches(entry: CachedAnswer) {
  const tokens = new RowTokenizer();
  for (const bytes of entryChunks(entry)) {
    yield tokens.push(bytes);
    if (tokens.failed) break;
  }
  yield tokens.end();
}

/** The rows of a stored answer, not kept; -1 when the row stream refuses it. */
function rowCount(entry: CachedAnswer): number {
  let count = 0;
  try {
    for (const rows of rowBatches(entry)) count += rows.length;
    return count;
  } catch {
    return -1;
  }
}

async function storedHit(read: FastArgv, env: Env, clock: { now(): number }) {
  try {
    const o = reportOptions(read.ids, read.flags, new Date(clock.now()));
    if (o.portfolioIds.length !== 1 || o.dates.length !== 1 || o.cache !== 'use') return undefined;
    if (o.output !== undefined || o.fields || o.raw || o.dryRun) return undefined;
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
    return undefined;
  }
}
