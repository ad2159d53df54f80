/**
 * A run's answers → output, one answer at a time (CLI.md "Runs of many items"): `add` returns what to
 * write now, `end` what closes the output. NDJSON, CSV, TSV and JSON (a streamed array) come out as
 * each answer arrives, so memory does not grow with the number of answers; `table` needs every row
 * for its widths and keeps them until `end`.
 *
 * The output is byte for byte what render() gives for all the rows at once, with one exception
 * decided by streaming: CSV/TSV columns are fixed by the first answer with rows (or --fields), since
 * the header is out before the next answer exists. A later answer's column that the header lacks is
 * left out, with a warning naming the columns and the answers (`warnings`: -q does not silence it,
 * CLI.md "Output that scripts can trust"); a header column a row lacks is an empty cell.
 * With `union` (CSV/TSV to a file, which appears only at the end) nothing is left out: a later
 * answer's new columns join the end of the column list and its rows are written with them; rows
 * written before lack only trailing cells, so `widened()` tells the file's rewrite (render/union.ts)
 * the final header and how many cells each answer's rows lack. No rows are kept in memory.
 * --fields names are checked against that first answer, so an unknown one stops the run before the
 * next request.
 *
 * Each answer takes the direct path (render/direct.ts, the body's bytes) when it fits, else the
 * general one (the parsed rows); both give the same bytes. The general path is left for the table,
 * indented JSON, CSV/TSV of several portfolios and bodies outside the direct path's shape.
 * Memory: an answer's body and output are reused by the next answer once written (`release`).
 */

import type { ReportFormat, ReportType, Row } from '../domain.js';
import { Arena } from '../json/arena.js';
import { stringifyLossless } from '../json/lossless.js';
import { type Column, columnOf, seenColumns } from './columns.js';
import { csvCell, renderDelimited, tsvCell } from './delimited.js';
import { columnsOf, type DirectFormat, render, renderDirect } from './index.js';
import { project } from './json.js';

export interface StreamOptions {
  type: ReportType;
  format: ReportFormat;
  fields?: readonly string[];
  /** Several portfolios: each row starts with `portfolioId`. */
  multi: boolean;
  /** Output to a terminal: JSON indented, the table fitted to `width`. */
  terminal: boolean;
  color: boolean;
  width: number;
  /** CSV/TSV into a file: the header becomes the union of every answer's columns (see above). */
  union?: boolean;
}

/**
 * One answer: its body as received, and its rows (parsed on demand; throws on a malformed body).
 * The body is handed over: its memory may be reused for the output.
 */
export interface Answer {
  portfolioId: number;
  /** The requested date, for the warning that names an answer. */
  date?: string;
  bytes: Buffer;
  rows(): Row[];
  /** Its memory may be reused (ReportResponse.release). */
  release?(): void;
}

export interface RowStream {
  /**
   * The output for this answer (empty for an answer without rows, and for table). It is valid until
   * `release`, the next `add` or `end`, which let the next answer reuse this one's body and output
   * (a run's memory stays that of one answer): call them only once the sink's write of it resolved.
   */
  add(answer: Answer): string | Buffer;
  /**
   * The last answer's body and output may be reused now: call it once the sink's write of that
   * output resolved, so the next answer's body goes into the same memory (add and end call it too).
   */
  release(): void;
  /**
   * What closes the output; notes (silenced by -q) and warnings (not) for stderr. Gives back the last
   * answer's memory (see add).
   */
  end(): { text: string; notes: string[]; warnings: string[] };
  /** With `union`: when later answers added columns, what the file's rewrite needs (else undefined). */
  widened(): Widened | undefined;
  /** Rows delivered so far. */
  readonly rows: number;
}

/** The largest output the direct path's arena holds (more: an ordinary buffer). */
const OUTPUT_MAX = 512 * 1024 * 1024;

/** A CSV/TSV output whose columns grew after its first answer (StreamOptions.union). */
export interface Widened {
  kind: 'csv' | 'tsv';
  /** The final header line, without its newline. */
  header: string;
  /** The output's pieces in order: their length in bytes and how many columns their rows have. */
  pieces: { bytes: number; columns: number }[];
  /** Columns in the end. */
  columns: number;
}

export function createRowStream(o: StreamOptions): RowStream {
  const { format } = o;
  const compact = format === 'json' && !o.terminal;
  // The direct path: JSON only where compact; CSV/TSV for one portfolio (no portfolioId column).
  const direct = format === 'ndjson' || compact || (!o.multi && (format === 'csv' || format === 'tsv'));
  let count = 0;
  /** CSV/TSV: the header's columns; JSON/NDJSON with --fields: the projection. Fixed by the first answer. */
  let columns: Column[] | undefined;
  const extra = new Set<string>();
  /** The answers that had columns left out: "portfolio 1 on 2024-05-02". */
  const leftOutOf: string[] = [];
  const union = !!o.union && !o.fields && (format === 'csv' || format === 'tsv');
  const pieces: Widened['pieces'] = [];
  let firstColumns = 0;
  const table: Row[] = [];

  /** Columns of a later answer that the header lacks: joined to the list (union), or left out. */
  const more = (a: Answer, names: readonly string[]): boolean => {
    if (names.length === 0 || o.fields) return false;
    if (union) {
      columns!.push(...names.map(columnOf));
      return true;
    }
    for (const name of names) extra.add(name);
    leftOutOf.push(`portfolio ${a.portfolioId}${a.date ? ` on ${a.date}` : ''}`);
    return false;
  };

  const rowsOf = (a: Answer): Row[] => {
    const rows = a.rows();
    return o.multi ? rows.map((row) => ({ portfolioId: a.portfolioId, ...row })) : rows;
  };

  const headerOf = (cols: readonly Column[]) => {
    const csv = format === 'csv';
    return cols.map((c) => (csv ? csvCell(c.name) : tsvCell(c.name))).join(csv ? ',' : '\t');
  };

  /** JSON text of rows, to follow what was written before. */
  const jsonText = (rows: readonly Row[]): string => {
    const out = columns ? project(rows, columns) : rows;
    const first = count === 0;
    if (compact) {
      const body = out.map((row) => stringifyLossless(row)).join(',');
      return first ? `[${body}` : `,${body}`;
    }
    // Indented as stringifyLossless(allRows, 2) would: each row's lines two spaces in (JSON text
    // holds no raw newline inside a string, so every newline is a line of the layout).
    const body = out.map((row) => `  ${stringifyLossless(row, 2).replaceAll('\n', '\n  ')}`).join(',\n');
    return first ? `[\n${body}` : `,\n${body}`;
  };

  const general = (a: Answer): string => {
    const rows = rowsOf(a);
    if (rows.length === 0) return '';
    if (format === 'table') {
      // --fields checked on the first answer, as the streamed formats do.
      if (o.fields && table.length === 0)
        columnsOf({ type: o.type, rows, fields: o.fields, multi: o.multi }, 'spec');
      for (const row of rows) table.push(row);
      return '';
    }
    if (columns === undefined && (format === 'csv' || format === 'tsv' || o.fields)) {
      columns = columnsOf({ type: o.type, rows, fields: o.fields, multi: o.multi }, 'seen');
      if (format === 'csv' || format === 'tsv') {
        count += rows.length;
        return renderDelimited(rows, columns, format);
      }
    }
    let text: string;
    switch (format) {
      case 'csv':
      case 'tsv': {
        const printed = new Set(columns!.map((c) => c.name));
        more(
          a,
          seenColumns(rows)
            .map((c) => c.name)
            .filter((name) => !printed.has(name)),
        );
        // renderDelimited's header line, then the rows: the header was printed with the first answer.
        const all = renderDelimited(rows, columns!, format);
        text = all.slice(headerOf(columns!).length + 1);
        break;
      }
      case 'ndjson':
        text = (columns ? project(rows, columns) : rows).map((row) => `${stringifyLossless(row)}\n`).join('');
        break;
      default:
        text = jsonText(rows);
    }
    count += rows.length;
    return text;
  };

  const fast = (a: Answer): Buffer | undefined => {
    let out = renderDirect(a.bytes, {
      type: o.type,
      fields: o.fields,
      format: format as DirectFormat,
      columns,
      // With union a later answer may need a second pass over its body.
      reuse: !(union && columns !== undefined),
      alloc,
      portfolioId: o.multi ? a.portfolioId : undefined,
    });
    if (!out) return undefined;
    if (format === 'csv' || format === 'tsv') {
      const first = columns === undefined;
      if (first) columns = out.columns;
      else if (more(a, out.extra ?? [])) {
        // Rendered again with the wider columns (the first pass kept the body intact: no reuse).
        out = renderDirect(a.bytes, {
          type: o.type,
          format: format as DirectFormat,
          columns,
          reuse: true,
          alloc,
        })!;
      }
      count += out.rows;
      return first ? out.bytes : out.bytes.subarray(Buffer.byteLength(out.header!) + 1);
    }
    // --fields: the first answer's columns are every later answer's (as on the general path).
    if (o.fields && columns === undefined) columns = out.columns;
    let bytes = out.bytes;
    if (format === 'json') {
      // `[rows]\n` (ours to change) → the rows, after `[` (the first answer) or `,` (later ones).
      bytes = bytes.subarray(0, bytes.length - 2);
      if (count > 0) bytes[0] = 44;
    }
    count += out.rows;
    return bytes;
  };

  /** The last answer and its output, given back at release, the next add or end. */
  let held: { answer?: Answer; out?: Buffer } = {};
  const releaseHeld = () => {
    held.answer?.release?.();
    outputs.release(held.out);
    held = {};
  };

  /** Outputs of the direct path, one answer after another (json/arena.ts). */
  const outputs = new Arena(OUTPUT_MAX);
  // Within one answer, a second attempt (the two passes after the one pass gave up) takes the
  // first's memory: the abandoned output is never read.
  const alloc = (size: number) => {
    outputs.release(held.out);
    const out = outputs.get(size);
    held.out = out;
    return out;
  };
  return {
    add(a) {
      releaseHeld();
      held.answer = a;
      const out = (direct && fast(a)) || general(a);
      if (union && out.length > 0) {
        firstColumns ||= columns!.length;
        pieces.push({ bytes: Buffer.byteLength(out), columns: columns!.length });
      }
      return out;
    },
    widened() {
      if (!union || !columns || columns.length === firstColumns) return undefined;
      return { kind: format as 'csv' | 'tsv', header: headerOf(columns), pieces, columns: columns.length };
    },
    release: releaseHeld,
    end() {
      releaseHeld();
      const notes: string[] = [];
      const warnings: string[] = [];
      if (extra.size > 0) {
        const s = extra.size > 1 ? 's' : '';
        const of =
          leftOutOf.length > 3
            ? `${leftOutOf.slice(0, 3).join(', ')} and ${leftOutOf.length - 3} more`
            : leftOutOf.join(', ');
        warnings.push(
          `warning: left out column${s} ${[...extra].join(', ')} of ${of}: not in the first answer, which set the ${format.toUpperCase()} header; write to a file with -o to keep every column, or choose them with --fields`,
        );
      }
      switch (format) {
        case 'json':
          return { text: count === 0 ? '[]\n' : compact ? ']\n' : '\n]\n', notes, warnings };
        case 'ndjson':
          return { text: '', notes, warnings };
        case 'csv':
        case 'tsv':
          return {
            text:
              count === 0
                ? renderDelimited(
                    [],
                    columnsOf({ type: o.type, rows: [], fields: o.fields, multi: o.multi }, 'seen'),
                    format,
                  )
                : '',
            notes,
            warnings,
          };
        case 'table': {
          if (table.length === 0) return { text: '', notes, warnings };
          const out = render({ ...o, rows: table, fields: o.fields });
          return { text: out.text, notes: [...notes, ...out.notes], warnings };
        }
      }
    },
    get rows() {
      return format === 'table' ? table.length : count;
    },
  };
}
