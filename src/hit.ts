/** A one-portfolio, one-date report to a pipe or file answered from the answer cache before the CLI loads. */
import { openStore } from './auth/store.js';
import { answerKey, cacheableDate, storeFor } from './cache/answers.js';
import { entryChunks } from './cache/store.js';
import { spelling } from './commands/flags.js';
import { defaultFormat, REPORT_FLAGS, type ReportFlags, reportOptions } from './commands/report.flags.js';
import { ExitCode, SIGNAL_EXITS } from './errors.js';
import { reportWriter } from './render/index.js';
import { Spool } from './render/spool.js';
import { readAnswer } from './rows/answer.js';
import {
  type Env,
  fieldOf,
  GLOBAL_FLAGS,
  type GlobalOptions,
  isDebug,
  resolveDirs,
  settingRow,
  settingsFrom,
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

export async function answerFromCache(argv: readonly string[], env: Env): Promise<number | undefined> {
  const read = readArgv(argv.slice(2));
  const hit = read && (await storedHit(read, env));
  if (!hit) return undefined;
  const writer = reportWriter({
    type: hit.options.type,
    format: hit.format,
    multi: false,
    terminal: false,
    color: false,
    width: 80,
  });
  const answer = writer.answer();
  // Nothing is written before the whole answer is read: no rows, or a body the row stream refuses,
  // is the CLI's to say.
  const spool = new Spool();
  // A signal ends the run with the CLI's line and exit code (the spool's file has no name to remove).
  const leave = (signal: keyof typeof SIGNAL_EXITS) => {
    process.stderr.write(`prs: ${SIGNAL_EXITS[signal]}\n`);
    process.exit(ExitCode[SIGNAL_EXITS[signal]]);
  };
  process.once('SIGINT', leave).once('SIGTERM', leave);
  try {
    const rows = await readAnswer(
      entryChunks(hit.entry),
      { rows: (batch) => spool.write(answer.rows(batch)) },
      (m) => m,
    ).catch(() => 0);
    if (rows === 0) {
      spool.drop();
      return undefined;
    }
    // CSV/TSV whose columns grew after the first batch: rewritten with every column, as the CLI does.
    const widened = answer.done();
    // Node's stdout stream makes a pipe non-blocking: a write that would wait hands over to the stream,
    // where a signal still ends the run (`--version`'s few bytes go without it).
    void process.stdout;
    const out = stdoutWriter({ flag: read.globals.color, env });
    // From the first byte on this path owns the run.
    try {
      let code: number | undefined;
      await spool.copyTo(
        {
          write: async (chunk) => {
            code ??= await out(chunk);
          },
        },
        widened,
      );
      return code ?? (await out(writer.end().text)) ?? ExitCode.ok;
    } catch (err) {
      process.stderr.write(`prs: internal error: ${(err as Error)?.message}\n`);
      return ExitCode.internal;
    }
  } finally {
    process.off('SIGINT', leave).off('SIGTERM', leave);
  }
}

async function storedHit(read: FastArgv, env: Env) {
  const now = Date.now();
  try {
    const o = reportOptions(read.ids, read.flags, new Date(now));
    if (o.portfolioIds.length !== 1 || o.dates.length !== 1 || o.cache !== 'use') return undefined;
    if (o.output !== undefined || o.fields || o.raw || o.dryRun) return undefined;
    if (stdoutIsTerminal()) return undefined;
    const format = o.format ?? defaultFormat(undefined, false);
    if (format === 'table') return undefined;
    const s = settingsFrom(await openStore(resolveDirs(env).configDir), read.globals, env);
    if (s.cacheMaxAgeMs === undefined || s.logFormat === 'json' || s.metricsFile || s.pingUrl || isDebug(env))
      return undefined;
    const q = { portfolioId: o.portfolioIds[0]!, reportType: o.type, date: o.dates[0]! };
    const key = cacheableDate(q.date, now) ? answerKey(s, q) : undefined;
    const stored = key && storeFor(s, Date)?.get(s.profile, key, s.cacheMaxAgeMs);
    return stored ? { options: o, format, entry: stored } : undefined;
  } catch {
    return undefined;
  }
}
