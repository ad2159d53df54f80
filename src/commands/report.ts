/**
 * `prs report`: one JSON-endpoint request per portfolio × date (in sequence: the shared limiter spaces
 * them), rows collected in portfolio then date order, rendered once in the chosen format.
 */
import type { Deps } from '../deps.js';
import { InterruptedError, NoDataError } from '../errors.js';
import type { ReportFormat, ReportType } from '../input.js';
import type { Progress } from '../io.js';
import type { CallHooks, Row } from '../service/types.js';
import { resolveColor } from '../settings.js';

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

/** What a run produced: rows in output order, and the requests that came back empty. */
export interface ReportResult {
  rows: Row[];
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
  const rows: Row[] = [];
  const empty: ReportResult['empty'] = [];
  let body = '';
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
        const res = await service.report(
          { portfolioId, reportType: o.type, date },
          { signal: deps.signal, onWait: (ms, reason) => show(waitText(prefix, ms, reason)) },
        );
        body = res.body;
        if (res.rows.length === 0) empty.push({ portfolioId, date });
        else if (multi) for (const row of res.rows) rows.push({ portfolioId, ...row });
        else for (const row of res.rows) rows.push(row);
      }
    }
  } finally {
    progress?.stop();
  }

  const noData = rows.length === 0;
  let text: string;
  if (o.raw) text = body;
  else {
    const { render } = await import('../render/index.js');
    const toTerminal = io.isStdoutTTY && o.output === undefined;
    const out = render({
      type: o.type,
      format,
      rows,
      fields: o.fields,
      multi,
      // Colour follows stdout (not stderr): a terminal, or FORCE_COLOR; never NO_COLOR/--no-color or a file.
      color: o.output === undefined && resolveColor(deps.globals.color, deps.env, io.isStdoutTTY),
      terminal: toTerminal,
      width: io.columns,
    });
    text = out.text;
    for (const note of out.notes) io.note(note);
  }

  // An empty table has no file form; every other format has one ([] / nothing / a header).
  if (o.output !== undefined && !(noData && format === 'table' && !o.raw)) {
    const { writeFileAtomic } = await import('../fs/atomic.js');
    await writeFileAtomic(o.output, text, { force: o.force });
    if (!noData) io.note(`wrote ${rows.length} row${rows.length === 1 ? '' : 's'} to ${o.output}`);
  } else if (o.output === undefined && text !== '') io.out(text);

  if (noData) {
    throw new NoDataError(`no data for ${describeEmpty(empty)}`, {
      hint: `check the date (a weekend or holiday?) and the report type ${o.type}`,
    });
  }
  if (empty.length > 0) io.note(`no data for ${describeEmpty(empty)}`);
  return { rows, empty };
}
