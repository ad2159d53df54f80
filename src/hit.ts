/** A one-portfolio, one-date report to a pipe or file answered from the answer cache before the CLI loads. */

import { type ReportArgv, readArgv } from './argv.js';
import { openStore } from './auth/store.js';
import { answerKey, cacheableDate, storeFor } from './cache/answers.js';
import { entryChunks } from './cache/store.js';
import { defaultFormat, reportOptions } from './commands/report.flags.js';
import { type Env, isDebug, resolveDirs } from './dirs.js';
import { ExitCode, SIGNAL_EXITS } from './errors.js';
import { Spool } from './render/spool.js';
import { createWriter } from './render/writer.js';
import { readAnswer } from './rows/answer.js';
import { settingsFrom } from './settings.js';
import { stdoutIsTerminal, stdoutWriter } from './stdout.js';

export async function answerFromCache(argv: readonly string[], env: Env): Promise<number | undefined> {
  const read = readArgv(argv.slice(2));
  const hit = read && (await storedHit(read, env));
  if (!hit) return undefined;
  const writer = createWriter({
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
    const widened = answer.done();
    // A write that would wait hands over to Node's stream, where a signal still ends the run.
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

async function storedHit(read: ReportArgv, env: Env) {
  const now = Date.now();
  // -v's lines are the CLI's to say.
  if (read.globals.verbose) return undefined;
  try {
    const o = reportOptions(read.ids, read.flags, new Date(now), read.globals);
    if (o.portfolioIds.length !== 1 || o.dates.length !== 1 || o.cache !== 'use') return undefined;
    // A filter is the CLI's to run (jq-fast or jq-web): the stored answer goes through it there.
    if (o.output !== undefined || o.fields || o.raw || o.dryRun || o.jq !== undefined) return undefined;
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
