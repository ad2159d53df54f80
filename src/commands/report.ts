/**
 * `prs report`: one JSON-endpoint request per portfolio × date (in sequence: the shared limiter spaces
 * them), rows collected in portfolio then date order, rendered once in the chosen format.
 */
import type { Deps } from '../deps.js';
import { InterruptedError, NoDataError } from '../errors.js';
import type { ReportFormat, ReportType } from '../input.js';
import type { Progress } from '../io.js';
import type { DirectFormat } from '../render/index.js';
import type { CallHooks, ReportResponse, Row } from '../service/types.js';

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

/** The progress line while waiting: "3/20 · waiting 41 s for the rate limit". */
export function waitText(
  prefix: string,
  ms: number,
  reason: Parameters<NonNullable<CallHooks['onWait']>>[1],
): string {
  const s = Math.max(1, Math.ceil(ms / 1000));
  const what =
    reason === 'rate-limit'
      ? `waiting ${s} s for the rate limit`
      : reason === 'retry-after'
        ? `waiting ${s} s: the service asked to retry later`
        : `retrying in ${s} s`;
  return prefix ? `${prefix} · ${what}` : what;
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
  const service = await deps.service();
  const multi = o.portfolioIds.length > 1;
  const total = o.portfolioIds.length * o.dates.length;
  const toTerminal = io.isStdoutTTY && o.output === undefined;
  // One answer to CSV, TSV, NDJSON or compact JSON is rendered straight from its bytes, never parsed
  // into rows (render/direct.ts). JSON to a terminal is indented: the general path.
  const direct =
    total === 1 &&
    !o.raw &&
    (format === 'csv' || format === 'tsv' || format === 'ndjson' || (format === 'json' && !toTerminal));
  const rows: Row[] = [];
  const empty: ReportResult['empty'] = [];
  const collect = (res: ReportResponse, portfolioId: number, date: string) => {
    const got = res.rows();
    if (got.length === 0) empty.push({ portfolioId, date });
    else if (multi) for (const row of got) rows.push({ portfolioId, ...row });
    else for (const row of got) rows.push(row);
  };
  let last: ReportResponse | undefined;
  let progress: Progress | undefined;
  const show = (text: string) => {
    if (progress) progress.update(text);
    else progress = io.progress(text);
  };
  let n = 0;
  try {
    for (const portfolioId of o.portfolioIds) {
      for (const date of o.dates) {
        if (deps.signal.aborted) throw new InterruptedError();
        n++;
        const prefix = total > 1 ? `${n}/${total}` : '';
        if (total > 1) show(`${prefix} · ${date} · portfolio ${portfolioId}`);
        last = await service.report(
          { portfolioId, reportType: o.type, date },
          { signal: deps.signal, onWait: (ms, reason) => show(waitText(prefix, ms, reason)) },
        );
        if (!direct) collect(last, portfolioId, date);
      }
    }
  } finally {
    progress?.stop();
  }

  let text: string | Uint8Array;
  let count: number;
  // Notes (columns a table left out) go after the output, where a reader of the rows sees them.
  let notes: string[] = [];
  if (o.raw) {
    text = last!.bytes;
    count = rows.length;
  } else {
    const { render, renderDirect } = await import('../render/index.js');
    const fast = direct
      ? renderDirect(last!.bytes, { type: o.type, fields: o.fields, format: format as DirectFormat })
      : undefined;
    if (fast) {
      text = fast.bytes;
      count = fast.rows;
    } else {
      // Outside the direct path's shape (or no rows): parse, with the malformed-response check.
      if (direct) collect(last!, o.portfolioIds[0]!, o.dates[0]!);
      const out = render({
        type: o.type,
        format,
        rows,
        fields: o.fields,
        multi,
        // Colour follows stdout (not stderr): a terminal, or FORCE_COLOR; never NO_COLOR/--no-color or a file.
        color: o.output === undefined && io.colorStdout,
        terminal: toTerminal,
        width: io.columns,
      });
      text = out.text;
      count = rows.length;
      notes = out.notes;
    }
  }

  const noData = count === 0;
  // An empty table has no file form; every other format has one ([] / nothing / a header).
  if (o.output !== undefined && !(noData && format === 'table' && !o.raw)) {
    const { writeFileAtomic } = await import('../fs/atomic.js');
    await writeFileAtomic(o.output, text, { force: o.force });
    if (!noData) io.note(`wrote ${count} row${count === 1 ? '' : 's'} to ${o.output}`);
  } else if (o.output === undefined && text.length > 0) io.out(text);
  for (const note of notes) io.note(note);

  if (noData) {
    throw new NoDataError(`no data for ${describeEmpty(empty)}`, {
      hint: `check the date (a weekend or holiday?) and the report type ${o.type}`,
    });
  }
  if (empty.length > 0) io.note(`no data for ${describeEmpty(empty)}`);
  return { count, empty };
}
