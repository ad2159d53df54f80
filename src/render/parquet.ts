/**
 * `report -f parquet -o <file>`: rows → one Parquet file (hyparquet-writer, pure JS, bundled).
 *
 * A column's type is decided by all of its values, so rows are spooled first (one compact JSON line
 * each, in a temporary file beside the target: memory holds one answer, not the run) while the
 * columns are measured; the file is then written from the spool in row groups of `batch` rows.
 * - numbers only → DECIMAL(p, s), exact: s the most fraction digits any value has, p the most integer
 *   digits plus s; each value is its unscaled integer (BigInt), never a double. Past 38 digits (what
 *   DuckDB, Snowflake and BigQuery's NUMERIC read as a decimal) the run stops: nothing is rounded.
 * - `YYYY-MM-DD` strings only (effectiveDate, exDate…) → DATE; booleans only → BOOLEAN;
 * - anything else → UTF-8 strings (a number as the digits it came with, an array as JSON).
 * Nested objects are dotted columns, as in CSV (columns.ts flatten); null is a null; every column is
 * OPTIONAL (a later answer may lack it).
 */
import { once } from 'node:events';
import { closeSync, createReadStream, ftruncateSync, openSync, writeSync } from 'node:fs';
import { unlink } from 'node:fs/promises';
import type { Writable } from 'node:stream';
import { isJsonNumeric, numberText, type Row } from '../domain.js';
import { UsageError } from '../errors.js';
import { temporaries } from '../fs/temporaries.js';
import { stringifyLossless } from '../json/lossless.js';
import { RowTokenizer } from '../rows/tokenizer.js';
import { flatten } from './columns.js';

/** The most digits a DECIMAL column may have: what the warehouses and DuckDB read as a decimal. */
export const MAX_PRECISION = 38;

/** A number's digits and exponent: value = digits × 10^exponent (digits without leading zeros). */
export function decimalParts(text: string): { negative: boolean; digits: string; exponent: number } {
  const m = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(text);
  if (!m) throw new Error(`not a JSON number: ${text}`);
  const [, sign, int, frac = '', exp = '0'] = m;
  const digits = `${int}${frac}`.replace(/^0+(?=\d)/, '');
  return { negative: sign === '-' && /[1-9]/.test(digits), digits, exponent: Number(exp) - frac.length };
}

type Kind = 'decimal' | 'date' | 'boolean' | 'string';

/** What pass one learns of a column. */
interface ColumnStats {
  name: string;
  numbers: number;
  dates: number;
  booleans: number;
  others: number;
  /** Decimal: the most fraction digits and the most integer digits among the values. */
  scale: number;
  integerDigits: number;
  /** The value that set the precision, for the message when it does not fit. */
  widest?: string;
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** Days since 1970-01-01 of a real calendar date `YYYY-MM-DD`, else undefined. */
export function epochDay(s: string): number | undefined {
  const m = DATE.exec(s);
  if (!m) return undefined;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const ms = Date.UTC(y, mo - 1, d);
  const back = new Date(ms);
  if (back.getUTCFullYear() !== y || back.getUTCMonth() !== mo - 1 || back.getUTCDate() !== d)
    return undefined;
  return ms / 86_400_000;
}

/** A column of the file: its name, kind and, for a decimal, precision and scale. */
export interface ParquetColumn {
  name: string;
  kind: Kind;
  precision?: number;
  scale?: number;
}

/** Pass one: the columns (first seen first) and what their values need. */
export class ColumnPlan {
  private readonly byName = new Map<string, ColumnStats>();

  add(flat: Record<string, unknown>): void {
    for (const name in flat) {
      const s = this.stats(name);
      const v = flat[name];
      if (v === null || v === undefined) continue;
      if (isJsonNumeric(v)) {
        s.numbers++;
        const text = numberText(v);
        const p = decimalParts(text);
        const scale = Math.max(0, -p.exponent);
        const integerDigits = p.digits === '0' ? 0 : Math.max(0, p.digits.length + p.exponent);
        if (scale > s.scale || integerDigits > s.integerDigits) s.widest = text;
        s.scale = Math.max(s.scale, scale);
        s.integerDigits = Math.max(s.integerDigits, integerDigits);
      } else if (typeof v === 'string' && epochDay(v) !== undefined) s.dates++;
      else if (typeof v === 'boolean') s.booleans++;
      else s.others++;
    }
  }

  /** A column's record (made when first seen, so a column of nulls is a column too). */
  private stats(name: string): ColumnStats {
    let s = this.byName.get(name);
    if (!s) {
      s = { name, numbers: 0, dates: 0, booleans: 0, others: 0, scale: 0, integerDigits: 0 };
      this.byName.set(name, s);
    }
    return s;
  }

  /** Another plan's columns and measures added to this one's (first seen here first). */
  merge(other: ColumnPlan): this {
    for (const o of other.byName.values()) {
      const s = this.stats(o.name);
      s.numbers += o.numbers;
      s.dates += o.dates;
      s.booleans += o.booleans;
      s.others += o.others;
      if (o.scale > s.scale || o.integerDigits > s.integerDigits) s.widest = o.widest;
      s.scale = Math.max(s.scale, o.scale);
      s.integerDigits = Math.max(s.integerDigits, o.integerDigits);
    }
    return this;
  }

  /** The columns as they will be written; a decimal column past MAX_PRECISION is a UsageError. */
  columns(): ParquetColumn[] {
    return [...this.byName.values()].map((s) => {
      const kinds = [
        s.numbers && 'decimal',
        s.dates && 'date',
        s.booleans && 'boolean',
        s.others && 'string',
      ];
      const seen = kinds.filter(Boolean) as Kind[];
      const kind: Kind = seen.length === 1 ? seen[0]! : 'string';
      if (kind !== 'decimal') return { name: s.name, kind };
      const precision = Math.max(1, s.integerDigits + s.scale);
      if (precision > MAX_PRECISION) {
        throw new UsageError(
          `-f parquet: column ${s.name} needs DECIMAL(${precision},${s.scale}) for ${s.widest}, more than ${MAX_PRECISION} digits`,
          { hint: 'nothing is rounded: use -f csv or -f json, which keep every digit as text' },
        );
      }
      return { name: s.name, kind, precision, scale: s.scale };
    });
  }
}

/** The unscaled integer of `text` at `scale` (exact: scale is at least the value's own). */
export function unscaled(text: string, scale: number): bigint {
  const p = decimalParts(text);
  const shift = p.exponent + scale;
  if (shift < 0) throw new Error(`${text} has more than ${scale} fraction digits`);
  const n = BigInt(p.digits + '0'.repeat(shift));
  return p.negative ? -n : n;
}

/** Bytes of a FIXED_LEN_BYTE_ARRAY that hold every unscaled value of `precision` digits. */
function decimalBytes(precision: number): number {
  let bytes = 1;
  while (2n ** BigInt(8 * bytes - 1) <= 10n ** BigInt(precision)) bytes++;
  return bytes;
}

function schemaOf(columns: readonly ParquetColumn[]) {
  return [
    { name: 'root', num_children: columns.length },
    ...columns.map((c) => {
      const base = { name: c.name, repetition_type: 'OPTIONAL' as const };
      switch (c.kind) {
        case 'decimal': {
          const { precision = 1, scale = 0 } = c;
          const physical =
            precision <= 9
              ? { type: 'INT32' as const }
              : precision <= 18
                ? { type: 'INT64' as const }
                : { type: 'FIXED_LEN_BYTE_ARRAY' as const, type_length: decimalBytes(precision) };
          return {
            ...base,
            ...physical,
            converted_type: 'DECIMAL' as const,
            precision,
            scale,
            logical_type: { type: 'DECIMAL' as const, precision, scale },
          };
        }
        case 'date':
          return {
            ...base,
            type: 'INT32' as const,
            converted_type: 'DATE' as const,
            logical_type: { type: 'DATE' as const },
          };
        case 'boolean':
          return { ...base, type: 'BOOLEAN' as const };
        default:
          return {
            ...base,
            type: 'BYTE_ARRAY' as const,
            converted_type: 'UTF8' as const,
            logical_type: { type: 'STRING' as const },
          };
      }
    }),
  ];
}

/** One value as the column stores it (see the file header). */
function cell(c: ParquetColumn, v: unknown): unknown {
  if (v === null || v === undefined) return null;
  switch (c.kind) {
    case 'decimal':
      return unscaled(numberText(v as number), c.scale ?? 0);
    case 'date':
      return epochDay(v as string);
    case 'boolean':
      return v;
    case 'string':
      if (typeof v === 'string') return v;
      if (isJsonNumeric(v)) return numberText(v);
      return stringifyLossless(v);
  }
}

/**
 * The rows of a run on their way to a Parquet file: `add` spools each answer's rows (flattened) and
 * measures the columns; `write` makes the file on `out` from the spool, then removes the spool.
 */
/** One answer on its way into the spool: rows as they come, kept only once `done`. */
export interface SpoolAnswer {
  /** A batch of the answer's rows (flattened, measured, written to the spool at once). */
  rows(rows: readonly Row[]): void;
  /** The answer was whole: its rows and what they taught of the columns count. */
  done(): void;
  /** The answer failed or repeats an earlier date: its rows are taken back. */
  drop(): void;
}

export class ParquetSpool {
  private readonly plan = new ColumnPlan();
  private readonly fd: number;
  /** Where the next answer's rows go: the end of the answers kept so far. */
  private pos = 0;
  private rowCount = 0;
  private closed = false;

  constructor(
    private readonly spoolPath: string,
    private readonly o: { fields?: readonly string[]; batch?: number } = {},
  ) {
    this.fd = openSync(spoolPath, 'wx', 0o600);
    temporaries.add(spoolPath);
  }

  get rows(): number {
    return this.rowCount;
  }

  /**
   * An answer's rows as its body is read (rows/answer.ts hands them over in batches, synchronously):
   * each batch goes to the spool at once, so memory holds one batch, not the answer. Its column
   * measures wait in a plan of their own until `done`; `drop` takes the rows back (the next answer
   * overwrites them). A decimal column past 38 digits throws at the batch that shows it.
   */
  answer(): SpoolAnswer {
    const pending = new ColumnPlan();
    let at = this.pos;
    let count = 0;
    return {
      rows: (rows) => {
        let text = '';
        for (const row of rows) {
          const flat = pick(flatten(row), this.o.fields);
          pending.add(flat);
          text += `,${stringifyLossless(flat)}\n`;
        }
        at += writeSync(this.fd, text, at);
        count += rows.length;
        new ColumnPlan().merge(this.plan).merge(pending).columns();
      },
      done: () => {
        this.plan.merge(pending);
        this.pos = at;
        this.rowCount += count;
      },
      drop: () => {},
    };
  }

  /** Rows all at once (an answer already whole). */
  add(rows: readonly Row[]): void {
    const a = this.answer();
    a.rows(rows);
    a.done();
  }

  /** Writes the Parquet file to `out` (row groups of `batch` rows), then removes the spool. */
  async write(out: Writable): Promise<void> {
    ftruncateSync(this.fd, this.pos); // a dropped answer's rows past the end
    closeSync(this.fd);
    this.closed = true;
    const columns = this.fieldsOrder(this.plan.columns());
    const { ParquetWriter, ByteWriter } = await import('hyparquet-writer');
    const bytes = new ByteWriter();
    // Each row group goes out as soon as it is encoded: memory holds one, never the file.
    const flush = async () => {
      const chunk = new Uint8Array(bytes.buffer.slice(0, bytes.index));
      bytes.index = 0;
      if (!out.write(chunk)) await once(out, 'drain');
    };
    Object.assign(bytes, { flush });
    const writer = new ParquetWriter({
      writer: bytes,
      schema: schemaOf(columns) as never,
      createdBy: 'prs (hyparquet-writer)',
    });
    const batch = this.o.batch ?? 2000;
    let group: Record<string, unknown>[] = [];
    const emit = async () => {
      if (group.length === 0) return;
      const columnData = columns.map((c) => ({ name: c.name, data: group.map((r) => cell(c, r[c.name])) }));
      await writer.write({ columnData, rowGroupSize: group.length });
      group = [];
    };
    // The spool is `,{row}` lines: read back as one JSON array by one row tokenizer, a chunk at a time.
    const tokenizer = new RowTokenizer();
    const take = async (rows: Row[]) => {
      for (const row of rows) {
        group.push(row);
        if (group.length >= batch) await emit();
      }
    };
    let first = true;
    await take(tokenizer.push(Buffer.from('[')));
    for await (const chunk of createReadStream(this.spoolPath, { highWaterMark: 64 * 1024 })) {
      await take(tokenizer.push(first ? (chunk as Buffer).subarray(1) : (chunk as Buffer)));
      first = false;
    }
    await take(tokenizer.push(Buffer.from(']')));
    await take(tokenizer.end());
    await emit();
    writer.finish();
    await flush();
    await this.discard();
  }

  async discard(): Promise<void> {
    if (!this.closed) {
      closeSync(this.fd);
      this.closed = true;
    }
    await unlink(this.spoolPath).catch(() => {});
    temporaries.delete(this.spoolPath);
  }

  /** --fields: the columns in the order asked. */
  private fieldsOrder(columns: ParquetColumn[]): ParquetColumn[] {
    const fields = this.o.fields;
    if (!fields) return columns;
    const byName = new Map(columns.map((c) => [c.name, c]));
    const lead = columns.filter((c) => c.name === 'portfolioId' && !fields.includes(c.name));
    return [...lead, ...fields.map((f) => byName.get(f) ?? { name: f, kind: 'string' as const })];
  }
}

/** A flattened row reduced to --fields (portfolioId kept: several portfolios). */
function pick(flat: Record<string, unknown>, fields?: readonly string[]): Record<string, unknown> {
  if (!fields) return flat;
  const out: Record<string, unknown> = {};
  if ('portfolioId' in flat) out.portfolioId = flat.portfolioId;
  for (const f of fields) if (f in flat) out[f] = flat[f];
  return out;
}
