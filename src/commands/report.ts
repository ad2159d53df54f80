/**
 * `prs report`: one JSON-endpoint request per portfolio × date (in sequence: the shared limiter spaces
 * them), in portfolio then date order. Each answer's rows come from the row stream as its body arrives
 * (rows/), go through the format's writer (render/writer.ts) into the answer's spool (render/spool.ts:
 * memory, then a temporary file), and once the whole answer checked out, to stdout or to a file that
 * appears whole at the end (render/sink.ts).
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
import type { CallHooks, ReportQuery, Service } from '../service/types.js';
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

/** The query and hooks of one item's request: the one request of report's two paths. */
function queryOf(o: ReportOptions, item: Item, ctx: ItemContext): [ReportQuery, CallHooks] {
  return [
    { portfolioId: item.portfolioId, reportType: o.type, date: item.date },
    { signal: ctx.signal, onWait: ctx.onWait },
  ];
}

/** The date an answer's rows are for: its first row's `effectiveDate`, when that is a date. */
function effectiveDateOf(v: unknown): string | undefined {
  return typeof v === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(v) ? v : undefined;
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
    await (await import('../fs/atomic.js')).assertOutputWritable(o.output, o.force);
    if (o.parquet) await assertParquetTarget(o.output);
  }
  if (o.dryRun) {
    const { reportPlan } = await import('../run/dry-run.js');
    await reportPlan({ ...o, json: o.format === 'json' }, deps);
    return { count: 0, empty: [] };
  }
  const service = await deps.service({ cache: o.cache, rows: true });
  if (o.raw) return rawReport(o, deps, service);
  if (o.parquet) return parquetReport(o, deps, service);
  const { reportWriter } = await import('../render/index.js');
  const { Spool } = await import('../render/spool.js');
  const { fileSink, streamSink } = await import('../render/sink.js');
  const { runItems, runWith } = await import('../run/engine.js');
  const { HolidayFilter } = await import('../run/holidays.js');
  const items = itemsOf(o.portfolioIds, o.dates);
  const total = items.length;
  const multi = o.portfolioIds.length > 1;
  const toTerminal = io.isStdoutTTY && o.output === undefined && !jq;
  const writer = reportWriter({
    type: o.type,
    format,
    fields: o.fields,
    multi,
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
        // The answer's output waits in its spool until all of it parsed (a retried answer starts anew).
        const got = await service.report(...queryOf(o, item, ctx), async (res) => {
          const spool = new Spool();
          const answer = writer.answer(`portfolio ${item.portfolioId} on ${item.date}`);
          let first: unknown;
          try {
            const rows = await res.read({
              rows(batch) {
                if (first === undefined) first = batch[0]!.effectiveDate ?? null;
                spool.write(
                  answer.rows(
                    multi ? batch.map((row) => ({ portfolioId: item.portfolioId, ...row })) : batch,
                  ),
                );
              },
            });
            return { spool, answer, rows, date: effectiveDateOf(first) };
          } catch (err) {
            spool.drop();
            throw err;
          }
        });
        if (o.dates.length > 1 && !holidays.admit(item, got.date)) {
          got.spool.drop();
          return { status: 'skipped' };
        }
        got.answer.done();
        const bytes = got.spool.size;
        // The spinner's line must not land between rows on a shared terminal.
        if (bytes > 0 && io.isStdoutTTY) ctx.clearProgress();
        await got.spool.copyTo(sink);
        return { status: got.rows === 0 ? 'empty' : 'written', bytes };
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
    const end = writer.end();
    const count = writer.rows;
    // An empty table has no file form; every other format has one ([] / nothing / a header).
    const widened = writer.widened();
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

/** --jq: output kept in memory (copied: a spool's read-back reuses its buffer) until the filter runs. */
function keepSink(kept: Buffer[]): Sink {
  return {
    async write(chunk) {
      kept.push(Buffer.from(chunk));
    },
    async commit() {},
    async abort() {},
  };
}

/**
 * --raw: one answer's body as received (decoded: no Content-Encoding left), checked to be a report
 * first (a malformed one is exit 8, and nothing is printed).
 */
async function rawReport(o: ReportOptions, deps: Deps, service: Service): Promise<ReportResult> {
  const { runItems, runWith } = await import('../run/engine.js');
  const { Spool } = await import('../render/spool.js');
  const { fileSink, streamSink } = await import('../render/sink.js');
  const items = itemsOf(o.portfolioIds, o.dates);
  let count = 0;
  const run = await runItems(
    items,
    async (item, ctx): Promise<ItemDone> => {
      const got = await service.report(...queryOf(o, item, ctx), async (res) => {
        const spool = new Spool();
        try {
          return { spool, rows: await res.read({ bytes: (chunk) => spool.write(chunk) }) };
        } catch (err) {
          spool.drop();
          throw err;
        }
      });
      count = got.rows;
      const bytes = got.spool.size;
      if (o.output !== undefined) {
        const { createAtomicFile } = await import('../fs/atomic.js');
        const file = await createAtomicFile(o.output, { force: o.force });
        try {
          await got.spool.copyTo(fileSink(file));
          await file.commit();
        } catch (err) {
          await file.abort();
          throw err;
        }
        if (count > 0) wroteNote(deps, count, o.output);
      } else await got.spool.copyTo(streamSink(deps.io.stdout, deps.io.stdoutGone));
      return { status: count > 0 ? 'written' : 'empty', bytes };
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
        // Rows go to the spool batch by batch as the body is read, kept once all of it parsed (a
        // retried answer starts anew at the same place).
        const got = await service.report(...queryOf(o, item, ctx), async (res) => {
          const answer = spool.answer();
          let first: unknown;
          try {
            const rows = await res.read({
              rows(batch) {
                if (first === undefined) first = batch[0]!.effectiveDate ?? null;
                answer.rows(multi ? batch.map((row) => ({ portfolioId: item.portfolioId, ...row })) : batch);
              },
            });
            return { answer, rows, date: effectiveDateOf(first) };
          } catch (err) {
            answer.drop();
            throw err;
          }
        });
        if (o.dates.length > 1 && !holidays.admit(item, got.date)) {
          got.answer.drop();
          return { status: 'skipped' };
        }
        got.answer.done();
        return { status: got.rows === 0 ? 'empty' : 'written' };
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
