/**
 * `report -f parquet -o <file>`: rows spooled beside the target while their columns are measured
 * (a column's type is decided by all its values: CLI.md), then written from the spool in row groups.
 */
import { once } from 'node:events';
import { closeSync, createReadStream, ftruncateSync, openSync, writeSync } from 'node:fs';
import { unlink } from 'node:fs/promises';
import type { Writable } from 'node:stream';
import { setFlagsFromString } from 'node:v8';
import { gzipSync } from 'node:zlib';
import { isJsonNumeric, numberText, type Row } from '../domain.js';
import { UsageError } from '../errors.js';
import { temporaries } from '../fs/temporaries.js';
import { decimalParts } from '../json/decimal.js';
import { stringifyLossless } from '../json/lossless.js';
import { flatten, PORTFOLIO_COLUMN } from './columns.js';

/** The most digits a DECIMAL column may have: what the warehouses and DuckDB read as a decimal. */
const MAX_PRECISION = 38;

type Kind = 'decimal' | 'date' | 'boolean' | 'string';

/** What pass one learns of a column. */
interface ColumnStats {
  name: string;
  kinds: Set<Kind>;
  /** Decimal: the most fraction digits and the most integer digits among the values. */
  scale: number;
  integerDigits: number;
  /** The value that set the precision, for the message when it does not fit. */
  widest?: string;
}

/** `s` widened to hold a value of `scale` fraction and `integerDigits` integer digits: whether it grew. */
function widen(s: ColumnStats, scale: number, integerDigits: number, text?: string): boolean {
  if (scale <= s.scale && integerDigits <= s.integerDigits) return false;
  s.widest = text;
  s.scale = Math.max(s.scale, scale);
  s.integerDigits = Math.max(s.integerDigits, integerDigits);
  return true;
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** Days since 1970-01-01 of a real calendar date `YYYY-MM-DD` (year 100 on), else undefined. */
export function epochDay(s: string): number | undefined {
  const m = DATE.exec(s);
  if (!m) return undefined;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const leap = mo === 2 && y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);
  if (y < 100 || d < 1 || d > (MONTH_DAYS[mo - 1] ?? 0) + (leap ? 1 : 0)) return undefined;
  return Date.UTC(y, mo - 1, d) / 86_400_000;
}

/** A column of the file: its name, kind and, for a decimal, precision and scale. */
export interface ParquetColumn {
  name: string;
  kind: Kind;
  precision?: number;
  scale?: number;
}

/**
 * Pass one: the columns (first seen first) and what their values need. A column of one kind is that
 * type (numbers: DECIMAL with the most integer and fraction digits seen, never rounded); a column of
 * several kinds is strings (a number as its digits, an array as its JSON).
 */
export class ColumnPlan {
  private readonly byName = new Map<string, ColumnStats>();
  /** A column widened since this was last cleared (only then may it pass 38 digits). */
  changed = false;

  /** Measures a row's values; gives them back as the spool keeps them (SpoolCell). */
  add(flat: Record<string, unknown>): Record<string, SpoolCell> {
    const cells: Record<string, SpoolCell> = {};
    for (const name in flat) {
      const s = this.stats(name);
      const v = flat[name];
      if (v === null || v === undefined) cells[name] = null;
      else if (isJsonNumeric(v)) {
        const text = numberText(v);
        const p = decimalParts(text)!;
        s.kinds.add('decimal');
        const integerDigits = p.digits === '0' ? 0 : Math.max(0, p.digits.length + p.exp);
        if (widen(s, Math.max(0, -p.exp), integerDigits, text)) this.changed = true;
        cells[name] = text;
      } else {
        const date = typeof v === 'string' && epochDay(v) !== undefined;
        s.kinds.add(date ? 'date' : typeof v === 'boolean' ? 'boolean' : 'string');
        cells[name] = typeof v === 'string' || typeof v === 'boolean' ? v : stringifyLossless(v);
      }
    }
    return cells;
  }

  /** A column's record (made when first seen, so a column of nulls is a column too). */
  private stats(name: string): ColumnStats {
    let s = this.byName.get(name);
    if (!s) {
      s = { name, kinds: new Set(), scale: 0, integerDigits: 0 };
      this.byName.set(name, s);
    }
    return s;
  }

  /** Another plan's columns and measures added to this one's (first seen here first). */
  merge(other: ColumnPlan): this {
    for (const o of other.byName.values()) {
      const s = this.stats(o.name);
      for (const k of o.kinds) s.kinds.add(k);
      widen(s, o.scale, o.integerDigits, o.widest);
    }
    return this;
  }

  /** The columns as they will be written; a decimal column past MAX_PRECISION is a UsageError. */
  columns(): ParquetColumn[] {
    return [...this.byName.values()].map((s) => {
      const kind: Kind = s.kinds.size === 1 ? [...s.kinds][0]! : 'string';
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
  const p = decimalParts(text)!;
  const shift = p.exp + scale;
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

/** The Parquet types of a column of each kind but decimal (schemaOf). */
const TYPES = {
  date: { type: 'INT32', converted_type: 'DATE', logical_type: { type: 'DATE' } },
  boolean: { type: 'BOOLEAN' },
  string: { type: 'BYTE_ARRAY', converted_type: 'UTF8', logical_type: { type: 'STRING' } },
};

function schemaOf(columns: readonly ParquetColumn[]) {
  return [
    { name: 'root', num_children: columns.length },
    ...columns.map((c) => {
      const base = { name: c.name, repetition_type: 'OPTIONAL' };
      if (c.kind !== 'decimal') return { ...base, ...TYPES[c.kind] };
      const { precision = 1, scale = 0 } = c;
      const physical =
        precision <= 9
          ? { type: 'INT32' }
          : precision <= 18
            ? { type: 'INT64' }
            : { type: 'FIXED_LEN_BYTE_ARRAY', type_length: decimalBytes(precision) };
      const decimal = { converted_type: 'DECIMAL', precision, scale };
      return { ...base, ...physical, ...decimal, logical_type: { type: 'DECIMAL', precision, scale } };
    }),
  ];
}

/**
 * A value in the spool: a number as its text, an array as its JSON, anything else as it is. The
 * column's kind, learnt from the values themselves, tells a number's text from a string's.
 */
type SpoolCell = string | boolean | null;

/** One spooled value as the column stores it. */
function cell(c: ParquetColumn, v: SpoolCell | undefined): unknown {
  if (v === null || v === undefined) return null;
  switch (c.kind) {
    case 'decimal':
      return unscaled(v as string, c.scale ?? 0);
    case 'date':
      return epochDay(v as string);
    case 'boolean':
      return v;
    case 'string':
      return String(v);
  }
}

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
    // Node 24's V8 keeps more of the rows' and row groups' garbage resident (docs/performance.md,
    // Parquet): sized for memory from here on it stays under 100 MB. Node 20 stays under without it,
    // and it costs CPU there.
    if (process.versions.node.split('.')[0] !== '20') setFlagsFromString('--optimize-for-size');
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
        for (const row of rows) text += `${JSON.stringify(pending.add(pick(flatten(row), this.o.fields)))}\n`;
        at += writeSync(this.fd, text, at);
        count += rows.length;
        // Checked against the answers kept so far whenever a column changed.
        if (pending.changed) new ColumnPlan().merge(this.plan).merge(pending).columns();
        pending.changed = false;
      },
      done: () => {
        this.plan.merge(pending);
        this.pos = at;
        this.rowCount += count;
      },
      drop: () => {},
    };
  }

  /** Writes the Parquet file to `out` (row groups of `batch` rows), then removes the spool. */
  async write(out: Writable): Promise<void> {
    ftruncateSync(this.fd, this.pos); // a dropped answer's rows past the end
    closeSync(this.fd);
    this.closed = true;
    // What a row group leaves behind outlives the young generation; V8 would let the old one grow to
    // about four times what is live before collecting it (docs/performance.md): 1.5 times here.
    setFlagsFromString('--heap-growing-percent=50');
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
      // zlib's GZIP in native code: hyparquet-writer's own SNAPPY, in JS, allocated as much as the rest.
      codec: 'GZIP',
      compressors: { GZIP: (page) => gzipSync(page) },
      createdBy: 'prs (hyparquet-writer)',
    });
    const batch = this.o.batch ?? 1000;
    // Column by column as the spool's lines are read: no row is kept past its line.
    let data = columns.map((): unknown[] => []);
    let count = 0;
    const emit = async () => {
      if (count === 0) return;
      const columnData = columns.map((c, i) => ({ name: c.name, data: data[i]! }));
      await writer.write({ columnData, rowGroupSize: count });
      data = columns.map(() => []);
      count = 0;
    };
    // Lines split at '\n' only (readline also splits at U+2028 on Node 24, which JSON leaves raw).
    let rest = '';
    for await (const chunk of createReadStream(this.spoolPath, { encoding: 'utf8' })) {
      const lines = (rest + chunk).split('\n');
      rest = lines.pop()!;
      for (const line of lines) {
        const r = JSON.parse(line) as Record<string, SpoolCell>;
        for (let i = 0; i < columns.length; i++) data[i]!.push(cell(columns[i]!, r[columns[i]!.name]));
        if (++count >= batch) await emit();
      }
    }
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
    const lead = columns.filter((c) => c.name === PORTFOLIO_COLUMN && !fields.includes(c.name));
    return [...lead, ...fields.map((f) => byName.get(f) ?? { name: f, kind: 'string' as const })];
  }
}

/** A flattened row reduced to --fields (portfolioId kept: several portfolios). */
function pick(flat: Record<string, unknown>, fields?: readonly string[]): Record<string, unknown> {
  if (!fields) return flat;
  const out: Record<string, unknown> = {};
  if (PORTFOLIO_COLUMN in flat) out[PORTFOLIO_COLUMN] = flat[PORTFOLIO_COLUMN];
  for (const f of fields) if (f in flat) out[f] = flat[f];
  return out;
}
