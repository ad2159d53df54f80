/**
 * `prs report`: one JSON-endpoint request per portfolio × date (in sequence: the shared limiter spaces
 * them), in portfolio then date order; each answer's rows are written as it arrives (render/stream.ts)
 * to stdout or to a file that appears whole at the end (render/sink.ts).
 *
 * A run of many items (CLI.md "Runs of many items", the rules in src/runs.ts): an item that fails on
 * its own (400, 404, 5xx, a malformed answer) is reported as it happens and the run goes on; the
 * others' rows are kept (an -o file too) and the run ends with a summary and the first failure's exit
 * code. A run-level failure (authentication, 403, a 429 that persists, network, local file, interrupt,
 * an unknown --fields name) stops at once, and an -o file is not written at all (whole or nothing);
 * --fail-fast and a run of one item stop so at any failure. An answer for a date whose rows were
 * already delivered for that portfolio (a holiday answered with the day before) is not repeated.
 */
import type { Deps } from '../deps.js';
import { InterruptedError, NoDataError } from '../errors.js';
import type { ReportFormat, ReportType } from '../input.js';
import {
  etaMs,
  type Failure,
  HolidayFilter,
  isItemFailure,
  itemFailureReporter,
  itemLabel,
  itemsOf,
  progressText,
  runFailure,
  runProgress,
} from '../runs.js';

export interface ReportOptions {
  portfolioIds: number[];
  type: ReportType;
  dates: string[];
  /** undefined: table when stdout is a terminal, else json. */
  format?: ReportFormat;
  fields?: string[];
  output?: string;
  force: boolean;
  raw: boolean;
  /** Stop at the first item that fails. */
  failFast?: boolean;
  /** --dry-run: print the plan, send nothing. */
  dryRun?: boolean;
  /** The answer cache: use it (when on), --refresh, --no-cache. */
  cache?: 'use' | 'refresh' | 'off';
}

/** What a run produced: how many rows, and the requests that came back empty. */
export interface ReportResult {
  count: number;
  empty: { portfolioId: number; date: string }[];
}

/**
 * The format when none was asked for: by the extension of an --output file (never a table in a
 * file), else table on a terminal and JSON in a pipe (CLI.md).
 */
export function defaultFormat(output: string | undefined, isStdoutTTY: boolean): ReportFormat {
  if (output !== undefined) {
    const ext = /\.([a-z0-9]+)$/i.exec(output)?.[1]?.toLowerCase();
    return ext === 'csv'
      ? 'csv'
      : ext === 'tsv'
        ? 'tsv'
        : ext === 'ndjson' || ext === 'jsonl'
          ? 'ndjson'
          : 'json';
  }
  return isStdoutTTY ? 'table' : 'json';
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

export async function report(o: ReportOptions, deps: Deps): Promise<ReportResult> {
  const { io } = deps;
  const format = o.format ?? defaultFormat(o.output, io.isStdoutTTY);
  // Before any request: a run that cannot write its result should not spend the rate limit.
  if (o.output !== undefined) {
    const { assertWritableDir, assertWritableTarget } = await import('../fs/atomic.js');
    await assertWritableDir(o.output);
    await assertWritableTarget(o.output, o.force);
  }
  if (o.dryRun) {
    const { reportPlan } = await import('../run/dry-run.js');
    await reportPlan({ ...o, json: o.format === 'json' }, deps);
    return { count: 0, empty: [] };
  }
  const service = await deps.service({ cache: o.cache });
  if (o.raw) return rawReport(o, deps, service);
  const { createRowStream } = await import('../render/stream.js');
  const { effectiveDateOf } = await import('../json/report-body.js');
  const { fileSink, streamSink } = await import('../render/sink.js');
  const items = itemsOf(o.portfolioIds, o.dates);
  const total = items.length;
  const toTerminal = io.isStdoutTTY && o.output === undefined;
  const stream = createRowStream({
    type: o.type,
    format,
    fields: o.fields,
    multi: o.portfolioIds.length > 1,
    terminal: toTerminal,
    // Colour follows stdout (not stderr): a terminal, or FORCE_COLOR; never NO_COLOR/--no-color or a file.
    color: o.output === undefined && io.colorStdout,
    width: io.columns,
  });
  let sink = streamSink(io.stdout);
  if (o.output !== undefined) {
    const { createAtomicFile } = await import('../fs/atomic.js');
    sink = fileSink(await createAtomicFile(o.output, { force: o.force }));
  }
  const rate = total > 1 ? (await deps.settings()).rateLimit : undefined;
  const holidays = new HolidayFilter();
  const progress = runProgress(io);
  const empty: ReportResult['empty'] = [];
  const failures: Failure[] = [];
  const reportFailure = itemFailureReporter(io);
  let written = 0;
  try {
    for (const [i, item] of items.entries()) {
      if (deps.signal.aborted) throw new InterruptedError();
      if (total > 1) {
        const eta = rate ? etaMs(total - i - 1, rate.limit, rate.windowMs) : undefined;
        progress.show(progressText(i + 1, total, item, eta));
      }
      try {
        const res = await service.report(
          { portfolioId: item.portfolioId, reportType: o.type, date: item.date },
          // On a terminal the progress line goes on from its count; a log line must say which item.
          {
            signal: deps.signal,
            onWait: progress.onWait(
              total === 1 ? '' : io.isStderrTTY ? `${i + 1}/${total}` : itemLabel(item),
            ),
          },
        );
        if (o.dates.length > 1 && !holidays.admit(item, effectiveDateOf(res.bytes))) continue;
        const before = stream.rows;
        const chunk = stream.add({ portfolioId: item.portfolioId, bytes: res.bytes, rows: res.rows });
        if (stream.rows === before) empty.push(item);
        else written++;
        // The spinner's line must not land between rows on a shared terminal.
        if (chunk.length > 0 && io.isStdoutTTY) progress.stop();
        await sink.write(chunk);
      } catch (err) {
        // An interrupt, or a failure that every other item would meet too, ends the run here.
        if (deps.signal.aborted || !isItemFailure(err) || o.failFast || total === 1) throw err;
        failures.push({ item, error: err });
        progress.stop();
        reportFailure(item, err);
      }
    }
    progress.stop();
    const end = stream.end();
    const count = stream.rows;
    // An empty table has no file form; every other format has one ([] / nothing / a header).
    if (count === 0 && format === 'table') await sink.abort();
    else {
      await sink.write(end.text);
      await sink.commit();
    }
    for (const note of end.notes) io.note(note);
    for (const note of holidays.notes()) io.note(note);
    if (o.output !== undefined && count > 0)
      io.note(`wrote ${count} row${count === 1 ? '' : 's'} to ${o.output}`);
    const failed = runFailure(
      [
        [written, 'written'],
        [holidays.count, 'not repeated'],
        [empty.length, 'empty'],
      ],
      failures,
    );
    if (failed) {
      if (empty.length > 0) io.note(`no data for ${describeEmpty(empty)}`);
      throw failed;
    }
    if (count === 0) {
      throw new NoDataError(`no data for ${describeEmpty(empty)}`, {
        hint: `check the date (a weekend or holiday?) and the report type ${o.type}`,
      });
    }
    if (empty.length > 0) io.note(`no data for ${describeEmpty(empty)}`);
    return { count, empty };
  } catch (err) {
    progress.stop();
    await sink.abort();
    throw err;
  }
}

/** --raw: one answer's body exactly as received (checked to be a report: a malformed one is exit 8). */
async function rawReport(
  o: ReportOptions,
  deps: Deps,
  service: Awaited<ReturnType<Deps['service']>>,
): Promise<ReportResult> {
  const item = { portfolioId: o.portfolioIds[0]!, date: o.dates[0]! };
  const res = await service.report(
    { portfolioId: item.portfolioId, reportType: o.type, date: item.date },
    { signal: deps.signal, onWait: runProgress(deps.io).onWait('') },
  );
  const count = res.rows().length;
  if (o.output !== undefined) {
    const { writeFileAtomic } = await import('../fs/atomic.js');
    await writeFileAtomic(o.output, res.bytes, { force: o.force });
    if (count > 0) deps.io.note(`wrote ${count} row${count === 1 ? '' : 's'} to ${o.output}`);
  } else if (res.bytes.length > 0) deps.io.out(res.bytes);
  if (count === 0) {
    throw new NoDataError(`no data for ${describeEmpty([item])}`, {
      hint: `check the date (a weekend or holiday?) and the report type ${o.type}`,
    });
  }
  return { count, empty: [] };
}
