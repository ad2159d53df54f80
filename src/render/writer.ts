// One writer per output format: an answer's output counts once `done` is called; first rows fix the columns.
import type { ReportFormat, ReportType, Row } from '../domain.js';
import { plural } from '../errors.js';
import { stringifyLossless } from '../json/lossless.js';
import { keys, type RowBatch } from '../rows/tape.js';
import { Bytes } from './bytes.js';
import { type Column, columnsOf, seenColumns } from './columns.js';
import { delimitedHeader, writeDelimited } from './delimited.js';
import { jsonEnd, jsonRow, project, writeRow, writeRun, writeSpaced } from './json.js';
import { renderTable } from './table.js';

export type WriterFormat = Exclude<ReportFormat, 'parquet'>;

export type Chunk = string | Uint8Array;

export interface WriterOptions {
  format: WriterFormat;
  /** Spec order for the table and the empty CSV's header; without it the rows' own columns. */
  type?: ReportType;
  /** JSON/NDJSON rows reduced to these columns (an unknown name throws on the first rows). */
  fields?: readonly string[];
  /** Several portfolios: `portfolioId` leads. */
  multi?: boolean;
  color?: boolean;
  /** JSON is indented, the table fitted to `width`. */
  terminal?: boolean;
  width?: number;
  /** CSV/TSV into a file that appears at the end: later columns join instead of being left out. */
  union?: boolean;
  /** Fixed columns instead of the rows' (tests that hold all the rows). */
  columns?(rows: readonly Row[], order: 'seen' | 'spec'): Column[];
}

export interface AnswerWriter {
  /** Valid until the next call. */
  rows(rows: RowBatch): Chunk;
  /** The answer checked out. CSV/TSV to stdout whose first answer's columns grew: how to rewrite it. */
  done(): Widened | undefined;
}

export interface WriterEnd {
  /** What closes the output: `]\n`, the header of an empty CSV, the table. */
  text: Chunk;
  /** For stderr; silenced by -q. */
  notes: string[];
  warnings: string[];
}

/** A CSV/TSV output whose columns grew after its first answer (WriterOptions.union). */
export interface Widened {
  kind: 'csv' | 'tsv';
  header: string;
  /** One per answer with rows: its bytes and its lines' columns. */
  pieces: { bytes: number; columns: number }[];
  columns: number;
}

export interface RowWriter {
  /** `label` names the answer in a warning; `lead`'s fields go before each row's own. */
  answer(label?: string, lead?: Row): AnswerWriter;
  end(): WriterEnd;
  widened(): Widened | undefined;
  readonly rows: number;
}

export function createWriter(o: WriterOptions): RowWriter {
  const { format } = o;
  const delimited = format === 'csv' || format === 'tsv' ? format : undefined;
  const picked = o.fields !== undefined;
  const union = o.union && !picked;
  const needsColumns = delimited !== undefined || (picked && format !== 'table');
  const columnsFor =
    o.columns ??
    ((rows: readonly Row[], order: 'seen' | 'spec') =>
      columnsOf({ type: o.type, rows, fields: o.fields, multi: o.multi }, order));
  let count = 0;
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
  return {
    answer(label, leadRow) {
      let n = 0;
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
      return {
        rows(batch) {
          if (batch.length === 0) return '';
          if (format === 'table') {
            const rows = batch.objects(leadRow);
            // Checked on the first rows, as the streamed formats do; drawn at the end.
            if (table.length === 0 && n === 0) columnsFor(rows, 'spec');
            for (const row of rows) held.push(row);
            n += rows.length;
            return '';
          }
          const picking = needsColumns && !cols();
          // --fields are checked on all the first rows; else the first row's, and below the rows left over.
          if (picking)
            mine = columnsFor(picked ? batch.objects(leadRow) : [batch.object(0, leadRow)], 'seen');
          const first = count === 0 && n === 0;
          n += batch.length;
          if (delimited) {
            const mark = out.n;
            const header = () => picking && out.text(`${delimitedHeader(mine!, delimited)}\n`);
            header();
            const odd = writeDelimited(out, batch, cols()!, delimited, lead);
            // Only a row the fast writer left can have columns the others lack.
            if (odd.length > 0 && !picked) {
              const names = new Set(cols()!.map((c) => c.name));
              const more = seenColumns(odd).filter((c) => !names.has(c.name));
              if (more.length > 0) {
                if (union || !columns) {
                  mine = picking
                    ? columnsFor([batch.object(0, leadRow), ...odd], 'seen')
                    : [...cols()!, ...more];
                  out.n = mark;
                  header();
                  writeDelimited(out, batch, cols()!, delimited, lead);
                } else for (const c of more) own.add(c.name);
              }
            }
            const chunk = out.take();
            if (union || !columns) mypieces.push({ bytes: chunk.length, columns: cols()!.length });
            return chunk;
          }
          if (picked || o.terminal) {
            const rows = batch.objects(leadRow);
            const shown = picked ? project(rows, cols()!) : rows;
            for (let i = 0; i < shown.length; i++)
              out.text(jsonRow(shown[i]!, format, first && i === 0, o.terminal));
            return out.take();
          }
          for (let i = 0; i < batch.length; ) {
            if (format === 'json') out.byte(first && i === 0 ? 91 : 44);
            const sep = format === 'json' ? 44 : 10;
            let next = lead ? i : writeRun(out, batch, i, sep);
            if (next === i && !lead) next = writeSpaced(out, batch, i, sep);
            if (next === i) writeRow(out, batch, next++, lead);
            if (format === 'ndjson') out.byte(10);
            i = next;
          }
          return out.take();
        },
        done() {
          count += n;
          if (format === 'table') {
            for (const row of held) table.push(row);
            return;
          }
          if (mine) columns = mine;
          if (n > 0 && own.size > 0) {
            for (const c of own) extra.add(c);
            leftOutOf.push(label ?? `answer ${leftOutOf.length + 1}`);
          }
          if (mypieces.length === 0) return undefined;
          firstColumns ||= mypieces[0]!.columns;
          if (union) pieces.push(...mypieces);
          // To stdout the first answer's columns are all of its rows': its output is rewritten.
          else if (columns!.length > mypieces[0]!.columns) return widening(mypieces);
          return undefined;
        },
      };
    },
    widened() {
      if (!union || !delimited || !columns || columns.length === firstColumns) return undefined;
      return widening(pieces);
    },
    end() {
      const notes: string[] = [];
      const warnings: string[] = [];
      if (extra.size > 0) {
        const of =
          leftOutOf.length > 3
            ? `${leftOutOf.slice(0, 3).join(', ')} and ${leftOutOf.length - 3} more`
            : leftOutOf.join(', ');
        warnings.push(
          `warning: left out ${plural(extra.size, 'column')} ${[...extra].join(', ')} of ${of}: not in the first answer, which set the ${format.toUpperCase()} header; write to a file with -o to keep every column, or choose them with --fields`,
        );
      }
      let text = '';
      if (format === 'json') text = jsonEnd(count, o.terminal);
      else if (delimited && count === 0) text = `${delimitedHeader(columnsFor([], 'seen'), delimited)}\n`;
      else if (format === 'table' && table.length > 0) {
        const drawn = renderTable(table, columnsFor(table, 'spec'), {
          color: o.color === true,
          width: o.terminal ? o.width : undefined,
          type: o.type,
          picked,
        });
        text = drawn.text;
        notes.push(...drawn.notes);
      }
      return { text, notes, warnings };
    },
    get rows() {
      return count;
    },
  };
}
