// `report -f parquet -o <file>`: rows spooled beside the target from the row stream's tape while their
// columns are measured (a column's type is decided by all its values: CLI.md), then written in row groups.
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
import { stringifyLossless } from '../json/lossless.js';
import { entryValue, F, Flag, Kind, keys, type RowBatch } from '../rows/tape.js';
import { Bytes } from './bytes.js';
import { flatten, PORTFOLIO_COLUMN } from './columns.js';
import { ColumnChunk, epochDay, numberAt, type ParquetColumn } from './parquet-chunk.js';

const NODE_20 = process.versions.node.split('.')[0] === '20';

/** What the warehouses and DuckDB read as a decimal. */
const MAX_PRECISION = 38;

/** A column's kinds of values as bits: one kind is that type, several (or none: nulls) strings. */
const KINDS = { decimal: 1, date: 2, boolean: 4, string: 8 };
const KIND_OF: Record<number, ParquetColumn['kind']> = { 1: 'decimal', 2: 'date', 4: 'boolean' };

/** `widest`: the value that last widened a decimal column. */
interface ColumnStats {
  column: number;
  kinds: number;
  scale: number;
  integerDigits: number;
  widest?: string;
}

function widen(s: ColumnStats, scale: number, integerDigits: number): boolean {
  if (scale <= s.scale && integerDigits <= s.integerDigits) return false;
  s.scale = Math.max(s.scale, scale);
  s.integerDigits = Math.max(s.integerDigits, integerDigits);
  return true;
}

/** The columns, first seen first, and what their values need (DECIMAL: every digit seen). */
class ColumnPlan {
  private readonly byColumn: ColumnStats[] = [];
  private readonly order: ColumnStats[] = [];
  changed = false; // a column widened since cleared (only then may it pass 38 digits)

  constructor(private readonly names: readonly string[]) {}

  measure(b: Buffer, start: number, end: number): void {
    for (let p = start; p < end; ) {
      p = nextCell(b, p);
      const s = this.stats(cell.column);
      if (cell.kind === Kind.NUM) {
        s.kinds |= KINDS.decimal;
        const n = numberAt(b, cell.start, cell.end);
        if (widen(s, Math.max(0, -n.exp), n.digits === 0 ? 0 : Math.max(0, n.digits + n.exp))) {
          s.widest = b.toString('latin1', cell.start, cell.end);
          this.changed = true;
        }
      } else if (cell.kind < Kind.NUM)
        s.kinds |= epochDay(b, cell.start, cell.end) === undefined ? KINDS.string : KINDS.date;
      else if (cell.kind !== Kind.NULL) s.kinds |= KINDS.boolean;
    }
  }

  private stats(column: number): ColumnStats {
    let s = this.byColumn[column];
    if (!s) {
      s = { column, kinds: 0, scale: 0, integerDigits: 0 };
      this.byColumn[column] = s;
      this.order.push(s);
    }
    return s;
  }

  merge(other: ColumnPlan): this {
    for (const o of other.order) {
      const s = this.stats(o.column);
      s.kinds |= o.kinds;
      if (widen(s, o.scale, o.integerDigits)) s.widest = o.widest;
    }
    return this;
  }

  columns(): ParquetColumn[] {
    return this.order.map((s) => {
      const name = this.names[s.column]!;
      const kind = KIND_OF[s.kinds] ?? 'string';
      if (kind !== 'decimal') return { name, kind };
      const precision = Math.max(1, s.integerDigits + s.scale);
      if (precision > MAX_PRECISION) {
        throw new UsageError(
          `-f parquet: column ${name} needs DECIMAL(${precision},${s.scale}) for ${s.widest}, more than ${MAX_PRECISION} digits`,
          { hint: 'nothing is rounded: use -f csv or -f json, which keep every digit as text' },
        );
      }
      return { name, kind, precision, scale: s.scale };
    });
  }
}

/**
 * The spool: a row is its length (4 bytes) and its cells; a cell is its column × 8 + its tape Kind
 * (LEB128; a string's STR or STRU) and, for a number or a string, its text's length (LEB128) and bytes.
 */
function putCell(out: Bytes, column: number, kind: Kind, b?: Buffer, start = 0, end = 0): void {
  putUint(out, column * 8 + kind);
  if (kind > Kind.NUM) return;
  putUint(out, end - start);
  out.copy(b!, start, end);
}

function putUint(out: Bytes, n: number): void {
  for (; n > 127; n = Math.floor(n / 128)) out.byte((n & 127) | 128);
  out.byte(n);
}

const cell = { column: 0, kind: Kind.NULL, start: 0, end: 0 };
let uint = 0;

/** The spooled cell at b[p] read into `cell`; returns where the next one starts. */
function nextCell(b: Buffer, p: number): number {
  p = getUint(b, p);
  cell.column = Math.floor(uint / 8);
  cell.kind = uint & 7;
  if (cell.kind <= Kind.NUM) p = getUint(b, p);
  cell.start = p;
  cell.end = cell.kind <= Kind.NUM ? p + uint : p;
  return cell.end;
}

function getUint(b: Buffer, p: number): number {
  uint = 0;
  for (let scale = 1; ; scale *= 128) {
    const x = b[p++]!;
    uint += (x & 127) * scale;
    if (x < 128) return p;
  }
}

const PAR1 = 0x31524150;

/** FileMetaData: version 2, the schema, the row groups, created_by, TYPE_DEFINED_ORDER for each column. */
function footer(file: ByteWriter, elements: Record<string, unknown>[], rows: number, groups: object[]) {
  const start = file.offset;
  serializeTCompactProtocol(file, {
    field_1: 2,
    field_2: [{ field_4: 'root', field_5: elements.length }, ...elements],
    field_3: BigInt(rows),
    field_4: groups,
    field_6: 'prs',
    field_7: elements.map(() => ({ field_1: {} })),
  });
  file.appendUint32(file.offset - start);
  file.appendUint32(PAR1);
}

// Read once: across the bundle's chunks `keys.names` in the loop would be a getter call.
const keyNames = keys.names;

export class ParquetSpool {
  /** Columns by id; ids by name (-1: not in --fields) and by the tape's key path. */
  private readonly names: string[] = [];
  private readonly ids = new Map<string, number>();
  private readonly byKey: number[] = [];
  private readonly prefix: string[] = ['']; // a key path's members' (`indexId.`)
  private readonly stamps: number[] = []; // the row each column last had a cell in
  private serial = 0;
  private readonly plan = new ColumnPlan(this.names);
  private readonly fd: number;
  private pos = 0; // the end of the answers kept so far
  rows = 0;
  private closed = false;
  private readonly out = new Bytes();

  constructor(
    private readonly spoolPath: string,
    private readonly o: { fields?: readonly string[]; batch?: number } = {},
  ) {
    this.fd = openSync(spoolPath, 'wx', 0o600);
    temporaries.add(spoolPath);
  }

  /** An answer's rows, spooled as they come, its measures kept once `done` (a dropped one's rows overwritten). */
  answer(lead?: Row) {
    const pending = new ColumnPlan(this.names);
    const leads = Object.entries(lead ?? {}).map(([k, v]) => [this.column(k), v] as const);
    let at = this.pos;
    let count = 0;
    return {
      rows: (rows: RowBatch) => {
        // Memory before speed (docs/performance.md), from the first rows: code compiled before keeps its cache.
        if (this.rows + count === 0) {
          setFlagsFromString('--heap-growing-percent=50');
          if (!NODE_20) setFlagsFromString('--optimize-for-size');
        }
        const out = this.out;
        for (let i = 0; i < rows.length; i++) {
          const start = out.n;
          out.room(4);
          out.n += 4;
          this.serial++;
          for (const [c, v] of leads) this.value(c, v);
          const e = rows.at[i]!;
          // A row JS would order or merge differently, or two values for one column: its object decides.
          if (rows.tape[e + F.FLAGS]! & Flag.ODD || !this.members(rows.b, rows.tape, e, 0)) {
            out.n = start + 4;
            for (const [k, v] of Object.entries(flatten(rows.object(i, lead)))) this.value(this.column(k), v);
          }
          out.buf.writeUInt32LE(out.n - start - 4, start);
          pending.measure(out.buf, start + 4, out.n);
          if (out.n >= 60_000) at += writeSync(this.fd, out.take(), 0, undefined, at);
        }
        if (out.n > 0) at += writeSync(this.fd, out.take(), 0, undefined, at);
        count += rows.length;
        if (pending.changed) new ColumnPlan(this.names).merge(this.plan).merge(pending).columns();
        pending.changed = false;
      },
      done: async (): Promise<undefined> => {
        this.plan.merge(pending);
        this.pos = at;
        this.rows += count;
      },
      drop: () => {},
    };
  }

  /** Object entry `e`'s members (at key path `path`) as cells; false at a column's second value. */
  private members(b: Buffer, t: Int32Array, e: number, path: number): boolean {
    for (let m = e + F.W; m < t[e + F.NEXT]!; m = t[m + F.NEXT]!) {
      const key = t[m + F.KEY]!;
      const kind = t[m]!;
      if (kind === Kind.OBJ && t[m + F.NEXT]! > m + F.W) {
        this.prefix[key] ??= `${this.prefix[path]}${keyNames[key]}.`;
        if (!this.members(b, t, m, key)) return false;
        continue;
      }
      this.byKey[key] ??= this.column(this.prefix[path] + keyNames[key]);
      const c = this.byKey[key];
      if (c < 0) continue;
      if (this.stamps[c] === this.serial) return false;
      this.stamps[c] = this.serial;
      // A string with escapes, an array, an empty object: as JSON.parse and JSON.stringify make them.
      if (kind === Kind.STRX || kind >= Kind.OBJ) this.value(c, entryValue(b, t, m));
      else putCell(this.out, c, kind, b, t[m + F.START]!, t[m + F.END]!);
    }
    return true;
  }

  private value(c: number, v: unknown) {
    if (c < 0) return;
    this.stamps[c] = this.serial;
    if (v === null || typeof v === 'boolean')
      return putCell(this.out, c, v === null ? Kind.NULL : v ? Kind.TRUE : Kind.FALSE);
    const number = isJsonNumeric(v);
    const bytes = Buffer.from(number ? numberText(v) : typeof v === 'string' ? v : stringifyLossless(v));
    putCell(this.out, c, number ? Kind.NUM : Kind.STRU, bytes, 0, bytes.length);
  }

  private column(name: string): number {
    let c = this.ids.get(name);
    if (c === undefined) {
      const f = this.o.fields;
      c = !f || name === PORTFOLIO_COLUMN || f.includes(name) ? this.names.push(name) - 1 : -1;
      this.ids.set(name, c);
    }
    return c;
  }

  columns(): ParquetColumn[] {
    const columns = this.plan.columns();
    const fields = this.o.fields;
    if (!fields) return columns;
    const byName = new Map(columns.map((c) => [c.name, c]));
    const lead = columns.filter((c) => c.name === PORTFOLIO_COLUMN && !fields.includes(c.name));
    return [...lead, ...fields.map((f) => byName.get(f) ?? { name: f, kind: 'string' as const })];
  }

  async write(out: Writable): Promise<void> {
    ftruncateSync(this.fd, this.pos); // a dropped answer's rows past the end
    closeSync(this.fd);
    this.closed = true;
    const batch = this.o.batch ?? 5000;
    const byId: ColumnChunk[] = [];
    const columns = this.columns().map((c) => {
      const chunk = new ColumnChunk(c, batch);
      const id = this.ids.get(c.name);
      if (id !== undefined) byId[id] = chunk;
      return chunk;
    });
    const file = new ByteWriter();
    file.appendUint32(PAR1);
    const groups: object[] = [];
    let count = 0;
    let rows = 0;
    // Each row group goes out as soon as it is encoded: memory holds one, never the file.
    const flush = async () => {
      const chunk = file.getBytes().slice();
      file.index = 0;
      if (!out.write(chunk)) await once(out, 'drain');
    };
    const emit = async () => {
      if (count === 0) return;
      const start = file.offset;
      const chunks = columns.map((c) => c.flush(file, count));
      const size = chunks.reduce((n, c) => n + c.field_3.field_6, 0n);
      groups.push({
        field_1: chunks,
        field_2: size,
        field_3: BigInt(count),
        field_6: BigInt(file.offset - start),
      });
      rows += count;
      count = 0;
      await flush();
    };
    let rest: Buffer | undefined;
    for await (const chunk of createReadStream(this.spoolPath) as AsyncIterable<Buffer>) {
      const b = rest ? Buffer.concat([rest, chunk]) : chunk;
      let p = 0;
      while (p + 4 <= b.length && p + 4 + b.readUInt32LE(p) <= b.length) {
        const end = p + 4 + b.readUInt32LE(p);
        for (p += 4; p < end; ) {
          p = nextCell(b, p);
          if (cell.kind !== Kind.NULL) byId[cell.column]!.add(count, cell.kind, b, cell.start, cell.end);
        }
        if (++count >= batch) await emit();
      }
      rest = p < b.length ? b.subarray(p) : undefined;
    }
    await emit();
    const elements = columns.map((c) => c.element);
    footer(file, elements, rows, groups);
    await flush();
    await this.discard();
  }

  async discard(): Promise<void> {
    // V8 takes a code cache only under the flags it was made with (src/boot.ts writes them at exit).
    setFlagsFromString('--heap-growing-percent=0');
    if (!NODE_20) setFlagsFromString('--no-optimize-for-size');
    if (!this.closed) {
      closeSync(this.fd);
      this.closed = true;
    }
    await unlink(this.spoolPath).catch(() => {});
    temporaries.delete(this.spoolPath);
  }
}
