/**
 * One writer per output format (json, ndjson, csv, tsv, table) over a report's answers or a diff's
 * rows. An answer's output counts only once `done` is called: one found malformed is dropped by not
 * calling it. Columns are decided on the first rows, then fixed (see `union` and AnswerWriter.done).
 */
import type { Row } from '../domain.js';
import { stringifyLossless } from '../json/lossless.js';
import { F, Flag, Kind, keys, MAX_KEYS, type RowBatch } from '../rows/tape.js';
import { batchOf } from '../rows/tokenizer.js';
import { Bytes } from './bytes.js';
import { type Column, columnOf, seenColumns } from './columns.js';
import { delimitedHeader, writeDelimited } from './delimited.js';
import { project, writeRow } from './json.js';

export type WriterFormat = 'json' | 'ndjson' | 'csv' | 'tsv' | 'table';

/** What one chunk of output is: text, or bytes (a binary format). */
export type Chunk = string | Uint8Array;

export interface WriterOptions {
  format: WriterFormat;
  /**
   * The columns for the first rows that came (`seen`: CSV/TSV, and JSON/NDJSON with `project`;
   * `spec`: the table). May throw (an unknown --fields name: the run stops before the next request).
   * Default: the rows' own columns in first-seen order (columns.ts seenColumns).
   */
  columns?(rows: readonly Row[], order: 'seen' | 'spec'): Column[];
  /** The columns when no row came at all: the header of an empty CSV/TSV. Default: none. */
  emptyColumns?(): Column[];
  /** JSON/NDJSON rows reduced to the columns, keyed by their dotted names (--fields). */
  project?: boolean;
  /** JSON indented by two spaces (a terminal), else compact. */
  indent?: boolean;
  /** CSV/TSV into a file that appears at the end: later columns join instead of being left out. */
  union?: boolean;
  /** The table drawn from every row (only for `table`); empty text when there is none. */
  table?(rows: Row[], columns: Column[]): { text: string; notes: string[] };
}

export interface AnswerWriter {
  /** The output for these rows of the answer (more may follow); valid until the next call. */
  rows(rows: RowBatch | readonly Row[]): Chunk;
  /**
   * The answer checked out: its rows and columns count from now on. CSV/TSV to stdout whose first
   * answer's columns grew while it was written: how to rewrite that answer's output (union.ts).
   */
  done(): Widened | undefined;
}

export interface WriterEnd {
  /** What closes the output: `]\n`, the header of an empty CSV, the table; '' when nothing. */
  text: Chunk;
  /** For stderr, silenced by -q. */
  notes: string[];
  /** For stderr, not silenced by -q (columns left out). */
  warnings: string[];
}

/** A CSV/TSV output whose columns grew after its first answer (WriterOptions.union). */
export interface Widened {
  kind: 'csv' | 'tsv';
  /** The final header line, without its newline. */
  header: string;
  /** The output's pieces in order (one per answer with rows): their length in bytes and how many columns their lines have. */
  pieces: { bytes: number; columns: number }[];
  /** Columns in the end. */
  columns: number;
}

export interface RowWriter {
  /**
   * Begins the next answer; `label` names it in a warning ("portfolio 42 on 2024-05-03"); `lead`'s
   * fields go before each row's own (as `{...lead, ...row}`).
   */
  answer(label?: string, lead?: Row): AnswerWriter;
  end(): WriterEnd;
  /** With `union`, once the columns grew: what the file's rewrite needs (else undefined). */
  widened(): Widened | undefined;
  /** Rows of the answers done so far. */
  readonly rows: number;
}

export function createWriter(o: WriterOptions): RowWriter {
  const { format } = o;
  const delimited = format === 'csv' || format === 'tsv' ? format : undefined;
  const needsColumns = delimited !== undefined || (o.project === true && format !== 'table');
  const columnsFor = o.columns ?? ((rows: readonly Row[]) => seenColumns(rows));
  let count = 0;
  /** Fixed by the first rows (see above); grows with `union`. */
  let columns: Column[] | undefined;
  let firstColumns = 0;
  const pieces: Widened['pieces'] = [];
  const extra = new Set<string>();
  const leftOutOf: string[] = [];
  const table: Row[] = [];

  const out = new Bytes();
  const widening = (of: Widened['pieces']): Widened => ({
    kind: delimited!,
    header: delimitedHeader(columns!, delimited!),
    pieces: of,
    columns: columns!.length,
  });
  /** Key ids of the columns' leaves, stamped with `known`'s generation (a batch's new columns). */
  const marks = new Int32Array(MAX_KEYS);
  let known = 0;

  return {
    answer(label, leadRow) {
      let n = 0;
      // Tentative until done(): this answer's rows for the table, the columns it fixed or added, the
      // extra ones it had, its pieces of a union file.
      const held: Row[] = [];
      let mine: Column[] | undefined;
      const own = new Set<string>();
      const mypieces: Widened['pieces'] = [];
      const cols = () => mine ?? columns;
      const lead = leadRow && {
        row: leadRow,
        ids: Object.keys(leadRow).map((k) => keys.id(0, k)),
        text: stringifyLossless(leadRow).slice(1, -1),
      };
      /** Whether a row of the batch has a column outside the current ones (then found by name). */
      const newColumns = (batch: RowBatch) => {
        known++;
        for (const c of cols()!) marks[keys.path(c.path)] = known;
        const { tape: t, at } = batch;
        for (const e of at) {
          if (t[e + F.FLAGS]! & Flag.ODD) return true;
          for (let m = e + F.W; m < t[e + F.NEXT]!; m = t[m] === Kind.ARR ? t[m + F.NEXT]! : m + F.W)
            if ((t[m] !== Kind.OBJ || t[m + F.NEXT] === m + F.W) && marks[t[m + F.KEY]!] !== known)
              return true;
        }
        return false;
      };
      return {
        rows(input) {
          if (input.length === 0) return '';
          if (format === 'table') {
            const rows = Array.isArray(input) ? input : (input as RowBatch).objects(leadRow);
            // Checked on the first rows, as the streamed formats do (an unknown --fields name stops
            // here); drawn at the end with every row's columns.
            if (table.length === 0 && n === 0) columnsFor(rows, 'spec');
            for (const row of rows) held.push(row);
            n += rows.length;
            return '';
          }
          const batch = Array.isArray(input) ? batchOf(input) : (input as RowBatch);
          if (needsColumns && !cols()) {
            mine = columnsFor(batch.objects(leadRow), 'seen');
            if (delimited) out.text(`${delimitedHeader(mine, delimited)}\n`);
          } else if (delimited && !o.project && newColumns(batch)) {
            const names = new Set(cols()!.map((c) => c.name));
            const more = seenColumns(batch.objects(leadRow)).filter((c) => !names.has(c.name));
            if (more.length > 0) {
              if (o.union || !columns) mine = [...cols()!, ...more.map((c) => columnOf(c.name))];
              else for (const c of more) own.add(c.name);
            }
          }
          const first = count === 0 && n === 0;
          n += batch.length;
          if (delimited) {
            writeDelimited(out, batch, cols()!, delimited, lead);
            const chunk = out.take();
            if (o.union || !columns) mypieces.push({ bytes: chunk.length, columns: cols()!.length });
            return chunk;
          }
          if (o.project || o.indent) {
            const rows = batch.objects(leadRow);
            const shown = o.project ? project(rows, cols()!) : rows;
            if (format === 'ndjson') for (const row of shown) out.text(`${stringifyLossless(row)}\n`);
            else if (!o.indent)
              for (let i = 0; i < shown.length; i++)
                out.text((first && i === 0 ? '[' : ',') + stringifyLossless(shown[i]));
            // Indented as stringifyLossless(allRows, 2) would: each row's lines two spaces in (JSON text
            // holds no raw newline inside a string, so every newline is a line of the layout).
            else
              for (let i = 0; i < shown.length; i++)
                out.text(
                  `${first && i === 0 ? '[\n' : ',\n'}  ${stringifyLossless(shown[i], 2).replaceAll('\n', '\n  ')}`,
                );
            return out.take();
          }
          for (let i = 0; i < batch.length; i++) {
            if (format === 'json') out.byte(first && i === 0 ? 91 : 44);
            writeRow(out, batch, i, lead);
            if (format === 'ndjson') out.byte(10);
          }
          return out.take();
        },
        done() {
          if (format === 'table') {
            for (const row of held) table.push(row);
            count += n;
            return;
          }
          if (mine) columns = mine;
          if (n > 0 && own.size > 0) {
            for (const c of own) extra.add(c);
            leftOutOf.push(label ?? `answer ${leftOutOf.length + 1}`);
          }
          count += n;
          if (mypieces.length === 0) return undefined;
          firstColumns ||= mypieces[0]!.columns;
          if (o.union) pieces.push(...mypieces);
          // To stdout the first answer's columns are all of its rows': its own output is rewritten.
          else if (columns!.length > mypieces[0]!.columns) return widening(mypieces);
          return undefined;
        },
      };
    },
    widened() {
      if (!o.union || !delimited || !columns || columns.length === firstColumns) return undefined;
      return widening(pieces);
    },
    end() {
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
          return { text: count === 0 ? '[]\n' : o.indent ? '\n]\n' : ']\n', notes, warnings };
        case 'ndjson':
          return { text: '', notes, warnings };
        case 'csv':
        case 'tsv':
          return {
            text: count === 0 ? `${delimitedHeader(o.emptyColumns?.() ?? [], format)}\n` : '',
            notes,
            warnings,
          };
        case 'table': {
          if (table.length === 0 || !o.table) return { text: '', notes, warnings };
          const out = o.table(table, columnsFor(table, 'spec'));
          return { text: out.text, notes: [...notes, ...out.notes], warnings };
        }
      }
    },
    get rows() {
      return count;
    },
  };
}
