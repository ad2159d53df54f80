/**
 * `report -f parquet -o <file>`: rows spooled beside the target while their columns are measured
 * (a column's type is decided by all its values: CLI.md), then written from the spool in row groups.
 */
import { once } from 'node:events';
import { closeSync, createReadStream, ftruncateSync, openSync, writeSync } from 'node:fs';
import { unlink } from 'node:fs/promises';
import type { Writable } from 'node:stream';
import { setFlagsFromString } from 'node:v8';
import { ByteWriter } from 'hyparquet-writer';
import { serializeTCompactProtocol } from 'hyparquet-writer/src/thrift.js';
import { isJsonNumeric, numberText, type Row } from '../domain.js';
import { UsageError } from '../errors.js';
import { temporaries } from '../fs/temporaries.js';
import { decimalParts } from '../json/decimal.js';
import { stringifyLossless } from '../json/lossless.js';
import type { RowBatch } from '../rows/tape.js';
import { Bytes } from './bytes.js';
import { flatten, PORTFOLIO_COLUMN } from './columns.js';
import { ColumnChunk, TYPE, unscaled } from './parquet-chunk.js';

const NODE_20 = process.versions.node.split('.')[0] === '20';

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

/** Bytes of a FIXED_LEN_BYTE_ARRAY that hold every unscaled value of `precision` digits. */
function decimalBytes(precision: number): number {
  let bytes = 1;
  while (2n ** BigInt(8 * bytes - 1) <= 10n ** BigInt(precision)) bytes++;
  return bytes;
}

/**
 * A value in the spool: a number as its text, an array as its JSON, anything else as it is. The
 * column's kind, learnt from the values themselves, tells a number's text from a string's.
 */
type SpoolCell = string | boolean | null;

/** Parquet's numbers for a column's annotations (parquet.thrift: ConvertedType, LogicalType). */
const UTF8 = 0;
const DECIMAL = 5;
const DATE_TYPE = 6;
const OPTIONAL = 1;

/** A column's encoder and its SchemaElement (Thrift fields), by its kind. */
function columnOf(c: ParquetColumn): { chunk: ColumnChunk; element: Record<string, unknown> } {
  const path = [c.name];
  const element = { field_3: OPTIONAL, field_4: c.name };
  switch (c.kind) {
    case 'date':
      return {
        chunk: new ColumnChunk(path, 'INT32', (v) => epochDay(v as string)!),
        element: { field_1: TYPE.INT32, ...element, field_6: DATE_TYPE, field_10: { field_6: {} } },
      };
    case 'boolean':
      return {
        chunk: new ColumnChunk(path, 'BOOLEAN', (v) => v),
        element: { field_1: TYPE.BOOLEAN, ...element },
      };
    case 'string':
      return {
        chunk: new ColumnChunk(path, 'BYTE_ARRAY', (v) => String(v)),
        element: { field_1: TYPE.BYTE_ARRAY, ...element, field_6: UTF8, field_10: { field_1: {} } },
      };
    case 'decimal': {
      const { precision = 1, scale = 0 } = c;
      const type = precision <= 9 ? 'INT32' : precision <= 18 ? 'INT64' : 'FIXED_LEN_BYTE_ARRAY';
      const length = type === 'FIXED_LEN_BYTE_ARRAY' ? decimalBytes(precision) : 0;
      return {
        chunk: new ColumnChunk(path, type, (v) => unscaled(v as string, scale), length),
        element: {
          field_1: TYPE[type],
          field_2: length || undefined,
          ...element,
          field_6: DECIMAL,
          field_7: scale,
          field_8: precision,
          field_10: { field_5: { field_1: scale, field_2: precision } },
        },
      };
    }
  }
}

/**
 * The file's footer (FileMetaData, Thrift compact) after `file`'s last row group: the row groups
 * went into bytes as each was written (`groups`), so that none of their objects outlive it.
 */
function footer(file: ByteWriter, elements: Record<string, unknown>[], rows: number, groups: Uint8Array[]) {
  const start = file.offset;
  const schema = [{ field_4: 'root', field_5: elements.length }, ...elements];
  serializeTCompactProtocol(file, { field_1: 2, field_2: schema, field_3: BigInt(rows) });
  // Back over its STOP: field 4 (row_groups, a list of structs) and the rest follow by hand.
  file.index--;
  file.offset--;
  const list = (n: number) => {
    if (n > 14) {
      file.appendUint8(0xfc);
      file.appendVarInt(n);
    } else file.appendUint8((n << 4) | 12);
  };
  file.appendUint8(0x19);
  list(groups.length);
  for (const g of groups) file.appendBytes(g);
  const createdBy = Buffer.from('prs');
  file.appendUint8(0x28); // field 6, created_by
  file.appendVarInt(createdBy.length);
  file.appendBytes(createdBy);
  // Field 7, column_orders: TYPE_DEFINED_ORDER for each column, so readers use the statistics.
  file.appendUint8(0x19);
  list(elements.length);
  for (let i = 0; i < elements.length; i++) file.appendBytes(TYPE_DEFINED_ORDER);
  file.appendUint8(0);
  file.appendUint32(file.offset - start);
  file.appendUint32(PAR1);
}

/** ColumnOrder { 1: TypeDefinedOrder {} }. */
const TYPE_DEFINED_ORDER = new Uint8Array([0x1c, 0, 0]);
const PAR1 = 0x31524150;

/** One answer on its way into the spool: rows as they come, kept only once `done`. */
export interface SpoolAnswer {
  /** A batch of the answer's rows (flattened, measured, written to the spool at once, a row at a time). */
  rows(rows: RowBatch): void;
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
  private readonly out = new Bytes();

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
  answer(lead?: Row): SpoolAnswer {
    const pending = new ColumnPlan();
    let at = this.pos;
    let count = 0;
    return {
      rows: (rows) => {
        // From the first rows on (the code that reads them loaded: a chunk compiled under other flags
        // misses its code cache), V8 lets the old generation grow to 1.5 times what is live, not ~4
        // (docs/performance.md, Parquet). Node 24 keeps more garbage resident: sized for memory there;
        // Node 20 stays under 100 MB without it, and it costs CPU there.
        if (this.rowCount + count === 0) {
          setFlagsFromString('--heap-growing-percent=50');
          if (!NODE_20) setFlagsFromString('--optimize-for-size');
        }
        const out = this.out;
        for (let i = 0; i < rows.length; i++) {
          out.text(`${JSON.stringify(pending.add(pick(flatten(rows.object(i, lead)), this.o.fields)))}\n`);
          if (out.n >= 60_000) at += writeSync(this.fd, out.take(), 0, undefined, at);
        }
        if (out.n > 0) at += writeSync(this.fd, out.take(), 0, undefined, at);
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
    const columns = this.fieldsOrder(this.plan.columns()).map(columnOf);
    const file = new ByteWriter();
    file.appendUint32(PAR1);
    // Each row group goes out as soon as it is encoded: memory holds one, never the file.
    const flush = async () => {
      const chunk = file.getBytes().slice();
      file.index = 0;
      if (!out.write(chunk)) await once(out, 'drain');
    };
    const groups: Uint8Array[] = [];
    const batch = this.o.batch ?? 5000;
    let count = 0;
    let rows = 0;
    const emit = async () => {
      if (count === 0) return;
      const start = file.offset;
      const chunks = columns.map((c) => c.chunk.flush(file));
      let size = 0n;
      for (const c of chunks) size += (c.field_3 as { field_6: bigint }).field_6;
      const group = new ByteWriter(256);
      const compressed = BigInt(file.offset - start);
      serializeTCompactProtocol(group, {
        field_1: chunks,
        field_2: size,
        field_3: BigInt(count),
        field_6: compressed,
      });
      groups.push(group.getBytes().slice());
      rows += count;
      count = 0;
      await flush();
    };
    // Lines split at '\n' only (readline also splits at U+2028 on Node 24, which JSON leaves raw).
    let rest = '';
    for await (const chunk of createReadStream(this.spoolPath, { encoding: 'utf8' })) {
      const lines = (rest + chunk).split('\n');
      rest = lines.pop()!;
      for (const line of lines) {
        const r = JSON.parse(line) as Record<string, SpoolCell>;
        for (const c of columns) c.chunk.add(r[c.chunk.path[0]!]);
        if (++count >= batch) await emit();
      }
    }
    await emit();
    footer(
      file,
      columns.map((c) => c.element),
      rows,
      groups,
    );
    await flush();
    await this.discard();
  }

  async discard(): Promise<void> {
    // V8 takes a code cache only under the flags it was made with, and src/boot.ts writes the run's
    // caches at its exit: set back, the next run of any command can use them.
    setFlagsFromString('--heap-growing-percent=0');
    if (!NODE_20) setFlagsFromString('--no-optimize-for-size');
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
