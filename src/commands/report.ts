/** `prs report`: each answer's rows are held back (a spool) until the whole answer checked out. */
import type { Deps } from '../deps.js';
import type { Row } from '../domain.js';
import { NoDataError, plural, UsageError } from '../errors.js';
import type { RowBatch } from '../rows/tape.js';
import type { ItemContext, ItemDone } from '../run/engine.js';
import { itemLabel, itemsOf } from '../run/outcomes.js';
import type { ReportService } from '../service/types.js';
import { endRun, type Output, outputRun } from './output.js';
import type { ReportOptions } from './report.flags.js';

export async function report(o: ReportOptions, deps: Deps): Promise<void> {
  return outputRun(o, deps, {
    name: 'report',
    check: o.parquet ? assertParquetTarget : undefined,
    plan: { dates: o.dates },
    run: async (out) => {
      const service = await deps.service({ cache: o.cache });
      const target = o.parquet ? await parquetTarget(o, out) : await spoolTarget(o, deps, out);
      try {
        return await reportRows(o, deps, service, out, target);
      } finally {
        await target.discard?.();
      }
    },
  });
}

/** Where each answer goes: the format's writer, the Parquet spool, or as received (--raw). */
interface Target {
  /** `lead`: several portfolios' portfolioId. */
  answer(
    label: string,
    lead?: Row,
  ): {
    rows?(batch: RowBatch): void;
    bytes?(chunk: Uint8Array): void;
    drop(): void;
    /** The answer checked out: its output delivered, its size in bytes. */
    done(ctx: ItemContext): Promise<number | undefined>;
  };
  end(): Promise<void>;
  discard?(): Promise<void>;
}

async function spoolTarget(o: ReportOptions, deps: Deps, out: Output): Promise<Target> {
  const { Spool } = await import('../render/spool.js');
  const writer = o.raw
    ? undefined
    : (out.writer?.() ??
      (await import('../render/writer.js')).createWriter({
        ...out,
        type: o.type,
        fields: o.fields,
        multi: o.portfolioIds.length > 1,
        // A file appears only at the end: its CSV/TSV header can be every answer's columns.
        union: o.output !== undefined,
      }));
  const sink = await out.sink();
  return {
    answer(label, lead) {
      const spool = new Spool();
      const answer = writer?.answer(label, lead);
      return {
        ...(answer
          ? { rows: (batch: RowBatch) => spool.write(answer.rows(batch)) }
          : { bytes: (chunk: Uint8Array) => spool.write(chunk) }),
        drop: () => spool.drop(),
        async done(ctx) {
          const widened = answer?.done();
          const bytes = spool.size;
          // The spinner's line must not land between rows on a shared terminal.
          if (bytes > 0 && deps.io.isStdoutTTY) ctx.progress.stop();
          await spool.copyTo(sink, widened);
          return bytes;
        },
      };
    },
    async end() {
      if (!writer) return sink.commit();
      const end = writer.end();
      await out.finish(String(end.text), writer.rows === 0 && out.format === 'table', writer.widened());
      for (const warning of end.warnings) deps.io.warn(`prs: ${warning}`);
      for (const note of end.notes) deps.io.note(note);
    },
  };
}

async function parquetTarget(o: ReportOptions, out: Output): Promise<Target> {
  const { ParquetSpool } = await import('../render/parquet.js');
  const { tempNameFor } = await import('../fs/temp-names.js');
  const { basename, dirname, join } = await import('node:path');
  const file = await out.file();
  // Named as a temporary, so that a run killed meanwhile leaves nothing the next one does not remove.
  const spool = new ParquetSpool(join(dirname(file.path), tempNameFor(`${basename(file.path)}.rows`)), {
    fields: o.fields,
  });
  return {
    answer: (_label, lead) => spool.answer(lead),
    async end() {
      if (spool.rows > 0) {
        await spool.write(file.stream);
        await file.commit();
      } else await file.abort();
    },
    discard: () => spool.discard(),
  };
}

async function reportRows(
  o: ReportOptions,
  deps: Deps,
  service: ReportService,
  out: Output,
  target: Target,
): Promise<void> {
  const { runItems } = await import('../run/engine.js');
  const { HolidayFilter } = await import('../run/holidays.js');
  const items = itemsOf(o.portfolioIds, o.dates);
  const multi = o.portfolioIds.length > 1;
  const holidays = new HolidayFilter();
  let count = 0;
  const run = await runItems(
    items,
    async (item, ctx): Promise<ItemDone> => {
      if (ctx.index === 1) scavengeWhenIdle(true);
      const got = await service.report({ ...item, reportType: o.type }, ctx, async (res) => {
        const answer = target.answer(itemLabel(item), multi ? { portfolioId: item.portfolioId } : undefined);
        let first: unknown;
        try {
          const rows = await res.read(
            answer.bytes
              ? { bytes: answer.bytes }
              : {
                  rows(batch) {
                    if (first === undefined) first = batch.object(0).effectiveDate ?? null;
                    answer.rows!(batch);
                  },
                },
          );
          const date = typeof first === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(first) ? first : undefined;
          return { answer, rows, date };
        } catch (err) {
          answer.drop();
          throw err;
        }
      });
      if (o.dates.length > 1 && !holidays.admit(item, got.date)) {
        got.answer.drop();
        return { status: 'skipped' };
      }
      const bytes = await got.answer.done(ctx);
      count += got.rows;
      return { status: got.rows === 0 ? 'empty' : 'written', bytes };
    },
    await out.runOptions(
      service,
      items.map((item) => ({ ...item, reportType: o.type })),
    ),
  ).finally(() => scavengeWhenIdle(false));
  if (run.stopped) throw run.stopped;
  const written = run.outcomes.filter((r) => r.status === 'written').length;
  await target.end();
  const wrote = o.output && `wrote ${count} ${plural(count, 'row')} to ${o.output}`;
  const hint = `check the date (a weekend or holiday?) and the report type ${o.type}`;
  endRun(deps, run, holidays, [written, 'written'], wrote, (noData) => new NoDataError(noData!, { hint }));
}

/**
 * From a range's second answer on, V8 scavenges its young generation on an idle turn once a fifth of it
 * is used (its default: four fifths). Each body arrives in socket buffers that only a scavenge frees, and
 * the row stream allocates so little JS that many of them waited for one, so a range's peak depended on
 * when scavenges fell (docs/performance.md). Not for one answer (a small report pays for the extra
 * scavenge), and set back after the run: V8 keys the code caches written at exit by its flags.
 */
function scavengeWhenIdle(on: boolean): void {
  process.getBuiltinModule('node:v8').setFlagsFromString(`--minor-gc-task-trigger=${on ? 20 : 80}`);
}

async function assertParquetTarget(path: string): Promise<void> {
  if (await (await import('../fs/atomic.js')).isSpecialFile(path))
    throw new UsageError(`-f parquet writes a file, and ${path} is a terminal or a pipe`, {
      hint: 'give a file name: -o report.parquet',
    });
}
