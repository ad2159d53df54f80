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
import { createReadStream, createWriteStream, type WriteStream } from 'node:fs';
import { unlink } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import type { Writable } from 'node:stream';
import { isJsonNumeric, numberText, type Row } from '../domain.js';
import { UsageError } from '../errors.js';
import { temporaries } from '../fs/temporaries.js';
import { stringifyLossless } from '../json/lossless.js';
import { rowsOf } from '../rows/tokenizer.js';
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
      let s = this.byName.get(name);
      if (!s) {
        s = { name, numbers: 0, dates: 0, booleans: 0, others: 0, scale: 0, integerDigits: 0 };
        this.byName.set(name, s);
      }
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
export class ParquetSpool {
  private readonly plan = new ColumnPlan();
  private readonly file: WriteStream;
  private rowCount = 0;

  constructor(
    private readonly spoolPath: string,
    private readonly o: { fields?: readonly string[]; batch?: number } = {},
  ) {
    this.file = createWriteStream(spoolPath, { mode: 0o600, flags: 'wx' });
    temporaries.add(spoolPath);
  }

  get rows(): number {
    return this.rowCount;
  }

  /** An answer's rows; checks at once that every decimal column still fits (stopping the run if not). */
  async add(rows: readonly Row[]): Promise<void> {
    // In pieces of a thousand rows, each waiting for the disk: the answer's text is never whole in memory.
    for (let i = 0; i < rows.length; i += 1000) {
      let text = '';
      for (const row of rows.slice(i, i + 1000)) {
        const flat = pick(flatten(row), this.o.fields);
        this.plan.add(flat);
        text += `${stringifyLossless(flat)}\n`;
      }
      if (!this.file.write(text)) await once(this.file, 'drain');
    }
    this.plan.columns();
    this.rowCount += rows.length;
  }

  /** Writes the Parquet file to `out` (row groups of `batch` rows), then removes the spool. */
  async write(out: Writable): Promise<void> {
    this.file.end();
    await once(this.file, 'close');
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
    const batch = this.o.batch ?? 5000;
    let group: Record<string, unknown>[] = [];
    const emit = async () => {
      if (group.length === 0) return;
      const columnData = columns.map((c) => ({ name: c.name, data: group.map((r) => cell(c, r[c.name])) }));
      await writer.write({ columnData, rowGroupSize: group.length });
      group = [];
    };
    const lines = createInterface({ input: createReadStream(this.spoolPath), crlfDelay: Infinity });
    for await (const line of lines) {
      if (line === '') continue;
      // A line is one row, written by add(): the row stream reads it back as a one-row array.
      const row = rowsOf(`[${line}]`);
      if (typeof row === 'string') throw new Error(`the rows' spool is damaged (${row})`);
      group.push(row[0]!);
      if (group.length >= batch) await emit();
    }
    await emit();
    writer.finish();
    await flush();
    await this.discard();
  }

  async discard(): Promise<void> {
    if (!this.file.closed) {
      this.file.destroy();
      await once(this.file, 'close').catch(() => {});
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
