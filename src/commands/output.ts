/** What report and diff share: --jq, the format, -o (checked first, written whole), --dry-run, the sink. */
import type { Deps } from '../deps.js';
import type { ReportFormat, ReportType } from '../domain.js';
import type { AtomicFile } from '../fs/atomic.js';
import type { Sink } from '../render/sink.js';
import type { RowWriter, Widened } from '../render/writer.js';
import type { RunEnd, RunOptions } from '../run/engine.js';
import type { HolidayFilter } from '../run/holidays.js';
import { runFailure } from '../run/outcomes.js';
import type { ReportQuery, ReportService } from '../service/types.js';
import type { OutputOptions } from './flags.js';
import { defaultFormat } from './report.flags.js';

export interface Output {
  format: ReportFormat;
  terminal: boolean;
  color: boolean;
  width: number;
  /** --jq's own writer, when its filter is in jq-fast's subset. */
  writer?: () => RowWriter;
  /** Stdout, the -o file (a temporary until the end), or memory for --jq. */
  sink(): Promise<Sink>;
  file(): Promise<AtomicFile>;
  runOptions(service: ReportService, queries: readonly ReportQuery[], parallel?: number): Promise<RunOptions>;
  /** `text` is paged if a table's; `nothing`: an empty table; `widened`: a CSV/TSV file's union columns. */
  finish(text: string, nothing: boolean, widened?: Widened): Promise<void>;
}

/** "portfolio 42 on 2024-05-03, 2024-05-06" per portfolio, at most 8 dates each. */
export function describeEmpty(empty: readonly { portfolioId: number; date: string }[]): string {
  const byId = new Map<number, string[]>();
  for (const e of empty) byId.set(e.portfolioId, [...(byId.get(e.portfolioId) ?? []), e.date]);
  return [...byId]
    .map(([id, dates]) => {
      const more = dates.length > 8 ? ` and ${dates.length - 8} more` : '';
      return `portfolio ${id} on ${dates.slice(0, 8).join(', ')}${more}`;
    })
    .join('; ');
}

export function endRun(
  deps: Deps,
  run: RunEnd,
  holidays: HolidayFilter,
  done: [count: number, what: string],
  wrote: string | undefined,
  nothing: (noData: string | undefined) => Error,
): void {
  const empty = run.outcomes.filter((r) => r.status === 'empty').map((r) => r.item);
  const noData = empty.length > 0 ? `no data for ${describeEmpty(empty)}` : undefined;
  for (const note of holidays.notes()) deps.io.note(note);
  if (done[0] > 0 && wrote !== undefined) deps.io.note(wrote);
  const failed = runFailure([done, [holidays.count, 'not repeated'], [empty.length, 'empty']], run.failures);
  // With nothing done and nothing failed, the error names the empty items itself.
  if (noData && (failed || done[0] > 0)) deps.io.note(noData);
  if (failed) throw failed;
  if (done[0] === 0) throw nothing(noData);
}

export async function outputRun(
  o: OutputOptions & { portfolioIds: number[]; type: ReportType },
  deps: Deps,
  command: {
    name: 'report' | 'diff';
    check?: (output: string) => Promise<void>;
    /** What --dry-run counts. */
    plan: { dates: string[]; types?: readonly ReportType[] };
    run: (out: Output) => Promise<void>;
  },
): Promise<void> {
  const { io } = deps;
  // Diff's rows are objects, not report's batches: jq-web only.
  const jq =
    o.jq === undefined
      ? undefined
      : await (await import('../render/jq.js')).compileJq(o.jq, { fast: command.name === 'report' });
  const format = jq ? jq.format : (o.format ?? defaultFormat(o.output, io.isStdoutTTY));
  // Before any request: a run that cannot write its result should not spend the rate limit.
  if (o.output !== undefined) {
    const { assertWritableDir, assertWritableTarget } = await import('../fs/atomic.js');
    await assertWritableDir(o.output);
    await assertWritableTarget(o.output, o.force);
    await command.check?.(o.output);
  }
  if (o.dryRun) {
    const { reportPlan } = await import('../run/dry-run.js');
    await reportPlan({ ...o, ...command.plan, command: command.name, json: o.format === 'json' }, deps);
    return;
  }
  const opened: AtomicFile[] = [];
  let target: Sink | undefined;
  let rows: Sink | undefined;
  let rowsFile: AtomicFile | undefined;
  const filtered = jq?.collect();
  const out: Output = {
    format,
    terminal: io.isStdoutTTY && o.output === undefined && !jq,
    color: o.output === undefined && io.colorStdout && !jq,
    width: io.columns,
    writer: jq?.writer,
    async file() {
      const { createAtomicFile, assertWritableDir } = await import('../fs/atomic.js');
      await assertWritableDir(o.output!, true);
      const file = await createAtomicFile(o.output!, { force: o.force });
      opened.push(file);
      return file;
    },
    async sink() {
      const { fileSink, streamSink } = await import('../render/sink.js');
      rowsFile = o.output === undefined ? undefined : await out.file();
      target = rowsFile ? fileSink(rowsFile) : streamSink(io.stdout, io.stdoutGone);
      rows = filtered
        ? { write: async (chunk) => filtered.write(chunk), commit: async () => {}, abort: async () => {} }
        : target;
      return rows;
    },
    async runOptions(service, queries, parallel) {
      return {
        ...deps,
        command: command.name,
        failFast: o.failFast,
        parallel,
        rate: queries.length > 1 ? (await deps.settings()).rateLimit : undefined,
        limiterState: service.limiterState && (() => service.limiterState!()),
        asks: service.asks && ((index) => service.asks!(queries[index]!)),
      };
    },
    async finish(text, nothing, widened) {
      if (nothing) return target!.abort();
      if (rowsFile && widened)
        return (await import('../render/union.js')).commitWidened(rowsFile, out.file, widened);
      if (format === 'table' && !rowsFile) await io.page(text, { pager: o.pager });
      else await rows!.write(text);
      if (filtered) await target!.write(await filtered.end());
      await target!.commit();
    },
  };
  try {
    return await command.run(out);
  } catch (err) {
    await target?.abort();
    for (const file of opened) await file.abort();
    throw err;
  }
}
