/**
 * `prs report`: one JSON-endpoint request per portfolio × date (in sequence: the shared limiter spaces
 * them), in portfolio then date order; each answer's rows are written as it arrives (render/stream.ts)
 * to stdout or to a file that appears whole at the end (render/sink.ts).
 *
 * A run of many items (CLI.md "Runs of many items", run by src/run/engine.ts): an item that fails on
 * its own (400, 404, 5xx, a malformed answer) is reported as it happens and the run goes on; the
 * others' rows are kept (an -o file too) and the run ends with a summary and the first failure's exit
 * code. A run-level failure (authentication, 403, a 429 that persists, network, local file, interrupt,
 * an unknown --fields name) stops at once, and an -o file is not written at all (whole or nothing);
 * --fail-fast and a run of one item stop so at any failure. An answer for a date whose rows were
 * already delivered for that portfolio (a holiday answered with the day before) is not repeated.
 */
import type { Deps } from '../deps.js';
import type { Item } from '../domain.js';
import { NoDataError, UsageError } from '../errors.js';
import type { Sink } from '../render/sink.js';
import type { ItemContext, ItemDone } from '../run/engine.js';
import { itemsOf, runFailure } from '../run/outcomes.js';
import type { Service } from '../service/types.js';
import { defaultFormat, type ReportOptions } from './report.flags.js';

/** Defined with the command's flags; re-exported for the modules and tests that import it from here. */
export { defaultFormat, type ReportOptions };

/** What a run produced: how many rows, and the requests that came back empty. */
export interface ReportResult {
  count: number;
  empty: { portfolioId: number; date: string }[];
}

/** "portfolio 42 on 2024-05-03, 2024-05-06" per portfolio, at most `max` dates each. */
export function describeEmpty(empty: ReportResult['empty'], max = 8): string {
  const byId = new Map<number, string[]>();
  for (const e of empty) byId.set(e.portfolioId, [...(byId.get(e.portfolioId) ?? []), e.date]);
  return [...byId]
    .map(([id, dates]) => {
      const list =
        dates.length > max
          ? `${dates.slice(0, max).join(', ')} and ${dates.length - max} more`
          : dates.join(', ');
      return `portfolio ${id} on ${list}`;
    })
    .join('; ');
}

/** One item's answer from the service: the one request of report's two paths. */
function ask(service: Service, o: ReportOptions, item: Item, ctx: ItemContext) {
  return service.report(
    { portfolioId: item.portfolioId, reportType: o.type, date: item.date },
    { signal: ctx.signal, onWait: ctx.onWait },
  );
}

/** Exit 4 when the whole run found no rows. */
function noData(o: ReportOptions, empty: ReportResult['empty']): NoDataError {
  return new NoDataError(`no data for ${describeEmpty(empty)}`, {
    hint: `check the date (a weekend or holiday?) and the report type ${o.type}`,
  });
}

function wroteNote(deps: Deps, count: number, path: string): void {
  deps.io.note(`wrote ${count} row${count === 1 ? '' : 's'} to ${path}`);
}

export async function report(o: ReportOptions, deps: Deps): Promise<ReportResult> {
  const { io } = deps;
  // --jq: the rows array as -f json prints it goes to the filter, checked before any request.
  const jq = o.jq === undefined ? undefined : await (await import('../render/jq.js')).compileJq(o.jq);
  const format = jq ? 'json' : (o.format ?? defaultFormat(o.output, io.isStdoutTTY));
  // Before any request: a run that cannot write its result should not spend the rate limit.
  if (o.output !== undefined) {
    const { assertWritableDir, assertWritableTarget } = await import('../fs/atomic.js');
    await assertWritableDir(o.output);
    await assertWritableTarget(o.output, o.force);
    if (o.parquet) await assertParquetTarget(o.output);
  }
  if (o.dryRun) {
    const { reportPlan } = await import('../run/dry-run.js');
    await reportPlan({ ...o, json: o.format === 'json' }, deps);
    return { count: 0, empty: [] };
  }
  const service = await deps.service({ cache: o.cache });
  if (o.raw) return rawReport(o, deps, service);
  if (o.parquet) return parquetReport(o, deps, service);
  const { createRowStream } = await import('../render/stream.js');
  const { effectiveDateOf } = await import('../json/report-body.js');
  const { fileSink, streamSink } = await import('../render/sink.js');
  const { runItems, runWith } = await import('../run/engine.js');
  const { HolidayFilter } = await import('../run/holidays.js');
  const items = itemsOf(o.portfolioIds, o.dates);
  const total = items.length;
  const toTerminal = io.isStdoutTTY && o.output === undefined && !jq;
  const stream = createRowStream({
    type: o.type,
    format,
    fields: o.fields,
    multi: o.portfolioIds.length > 1,
    terminal: toTerminal,
    // Colour follows stdout (not stderr): a terminal, or FORCE_COLOR; never NO_COLOR/--no-color or a file.
    color: o.output === undefined && io.colorStdout && !jq,
    width: io.columns,
    // A file appears only at the end: its CSV/TSV header can be every answer's columns.
    union: o.output !== undefined,
  });
  let sink = streamSink(io.stdout, io.stdoutGone);
  const open = async () => {
    const { createAtomicFile, removeStaleBeside } = await import('../fs/atomic.js');
    // A run killed there before (`kill -9`) left its temporary: gone now, as export's go.
    await removeStaleBeside(o.output!);
    return createAtomicFile(o.output!, { force: o.force });
  };
  const file = o.output === undefined ? undefined : await open();
  if (file) sink = fileSink(file);
  const out = sink;
  // The filter needs the whole array: the answers' output is kept until the end, then filtered.
  const kept: Buffer[] = [];
  if (jq) sink = keepSink(kept);
  const holidays = new HolidayFilter();
  try {
    const run = await runItems(
      items,
      async (item, ctx): Promise<ItemDone> => {
        const res = await ask(service, o, item, ctx);
        if (o.dates.length > 1 && !holidays.admit(item, effectiveDateOf(res.bytes))) {
          res.release?.();
          return { status: 'skipped' };
        }
        const before = stream.rows;
        const chunk = stream.add({ ...item, bytes: res.bytes, rows: res.rows, release: res.release });
        // The spinner's line must not land between rows on a shared terminal.
        if (chunk.length > 0 && io.isStdoutTTY) ctx.clearProgress();
        await sink.write(chunk);
        stream.release(); // written: the next answer may reuse its memory
        return { status: stream.rows === before ? 'empty' : 'written', bytes: chunk.length };
      },
      {
        ...runWith(deps, 'report'),
        failFast: o.failFast,
        rate: total > 1 ? (await deps.settings()).rateLimit : undefined,
        limiterState: service.limiterState && (() => service.limiterState!()),
      },
    );
    if (run.stopped) throw run.stopped;
    const empty = run.outcomes.filter((r) => r.status === 'empty').map((r) => r.item);
    const written = run.outcomes.filter((r) => r.status === 'written').length;
    const end = stream.end();
    const count = stream.rows;
    // An empty table has no file form; every other format has one ([] / nothing / a header).
    const widened = stream.widened();
    if (count === 0 && format === 'table') await sink.abort();
    else if (file && widened) await (await import('../render/union.js')).commitWidened(file, open, widened);
    else {
      // A table on the terminal: through the pager when taller than the screen (io.page decides).
      if (format === 'table' && !file) await io.page(String(end.text), { pager: o.pager });
      else await sink.write(end.text);
      if (jq) {
        const text = jq.run(Buffer.concat(kept));
        kept.length = 0;
        sink = out;
        await sink.write(text);
      }
      await sink.commit();
    }
    for (const warning of end.warnings) io.err(`prs: ${warning}`);
    for (const note of end.notes) io.note(note);
    for (const note of holidays.notes()) io.note(note);
    if (o.output !== undefined && count > 0) wroteNote(deps, count, o.output);
    const failed = runFailure(
      [
        [written, 'written'],
        [holidays.count, 'not repeated'],
        [empty.length, 'empty'],
      ],
      run.failures,
    );
    if (failed) {
      if (empty.length > 0) io.note(`no data for ${describeEmpty(empty)}`);
      throw failed;
    }
    if (count === 0) throw noData(o, empty);
    if (empty.length > 0) io.note(`no data for ${describeEmpty(empty)}`);
    return { count, empty };
  } catch (err) {
    await out.abort();
    throw err;
  }
}

/** --jq: output kept in memory (copied: the row stream reuses its buffers) until the filter runs. */
function keepSink(kept: Buffer[]): Sink {
  return {
    async write(chunk) {
      kept.push(Buffer.from(chunk));
    },
    async commit() {},
    async abort() {},
  };
}

/** --raw: one answer's body exactly as received (checked to be a report: a malformed one is exit 8). */
async function rawReport(o: ReportOptions, deps: Deps, service: Service): Promise<ReportResult> {
  const { runItems, runWith } = await import('../run/engine.js');
  const items = itemsOf(o.portfolioIds, o.dates);
  let count = 0;
  const run = await runItems(
    items,
    async (item, ctx): Promise<ItemDone> => {
      const res = await ask(service, o, item, ctx);
      count = res.rows().length;
      if (o.output !== undefined) {
        const { writeFileAtomic } = await import('../fs/atomic.js');
        await writeFileAtomic(o.output, res.bytes, { force: o.force });
        if (count > 0) wroteNote(deps, count, o.output);
      } else if (res.bytes.length > 0) deps.io.out(res.bytes);
      return { status: count > 0 ? 'written' : 'empty', bytes: res.bytes.length };
    },
    runWith(deps, 'report'),
  );
  if (run.stopped) throw run.stopped;
  if (count === 0) throw noData(o, items);
  return { count, empty: [] };
}

/** Parquet is binary and written whole at the end: never to a terminal or a pipe (/dev/stdout, a FIFO). */
async function assertParquetTarget(path: string): Promise<void> {
  const { stat } = await import('node:fs/promises');
  const s = await stat(path).catch(() => undefined);
  if (s && (s.isCharacterDevice() || s.isFIFO() || s.isSocket())) {
    throw new UsageError(`-f parquet writes a file, and ${path} is a terminal or a pipe`, {
      hint: 'give a file name: -o report.parquet',
    });
  }
}

/**
 * -f parquet: each answer's rows are spooled beside the target as they come (render/parquet.ts), and
 * the file is written from the spool at the end, into a temporary that appears whole (fs/atomic.ts).
 */
async function parquetReport(o: ReportOptions, deps: Deps, service: Service): Promise<ReportResult> {
  const { createAtomicFile, removeStaleBeside } = await import('../fs/atomic.js');
  const { ParquetSpool } = await import('../render/parquet.js');
  const { runItems, runWith } = await import('../run/engine.js');
  const { HolidayFilter } = await import('../run/holidays.js');
  const { effectiveDateOf } = await import('../json/report-body.js');
  const output = o.output!;
  await removeStaleBeside(output);
  const file = await createAtomicFile(output, { force: o.force });
  const { tempNameFor } = await import('../fs/temp-names.js');
  const { basename, dirname, join } = await import('node:path');
  // Named as a temporary, so that a run killed meanwhile leaves nothing the next one does not remove.
  const spoolPath = join(dirname(output), tempNameFor(`${basename(output)}.rows`));
  const spool = new ParquetSpool(spoolPath, { fields: o.fields });
  const items = itemsOf(o.portfolioIds, o.dates);
  const multi = o.portfolioIds.length > 1;
  const holidays = new HolidayFilter();
  try {
    const run = await runItems(
      items,
      async (item, ctx): Promise<ItemDone> => {
        const res = await ask(service, o, item, ctx);
        if (o.dates.length > 1 && !holidays.admit(item, effectiveDateOf(res.bytes)))
          return { status: 'skipped' };
        const rows = res.rows();
        await spool.add(multi ? rows.map((r) => ({ portfolioId: item.portfolioId, ...r })) : rows);
        res.release?.();
        return { status: rows.length === 0 ? 'empty' : 'written', bytes: res.bytes.length };
      },
      {
        ...runWith(deps, 'report'),
        failFast: o.failFast,
        rate: items.length > 1 ? (await deps.settings()).rateLimit : undefined,
        limiterState: service.limiterState && (() => service.limiterState!()),
      },
    );
    if (run.stopped) throw run.stopped;
    const empty = run.outcomes.filter((r) => r.status === 'empty').map((r) => r.item);
    const written = run.outcomes.filter((r) => r.status === 'written').length;
    const count = spool.rows;
    if (count > 0) {
      await spool.write(file.stream);
      await file.commit();
    } else await file.abort();
    for (const note of holidays.notes()) deps.io.note(note);
    if (count > 0) wroteNote(deps, count, output);
    const failed = runFailure(
      [
        [written, 'written'],
        [holidays.count, 'not repeated'],
        [empty.length, 'empty'],
      ],
      run.failures,
    );
    if (failed) throw failed;
    if (count === 0) throw noData(o, empty);
    if (empty.length > 0) deps.io.note(`no data for ${describeEmpty(empty)}`);
    return { count, empty };
  } catch (err) {
    await file.abort();
    throw err;
  } finally {
    await spool.discard();
  }
}
