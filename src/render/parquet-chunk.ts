// One column of a Parquet row group, encoded from the spool's bytes: no JS object per value. Parquet's
// parts are hyparquet-writer's (ByteWriter, the RLE/bit-packed hybrid, Thrift compact); pages are GZIP.
import { gzipSync } from 'node:zlib';
import { ByteWriter } from 'hyparquet-writer';
import { writeRleBitPackedHybrid } from 'hyparquet-writer/src/encoding.js';
import { serializeTCompactProtocol } from 'hyparquet-writer/src/thrift.js';
import { decimalParts } from '../json/decimal.js';
import { Kind } from '../rows/tape.js';
import { Bytes } from './bytes.js';

export interface ParquetColumn {
  name: string;
  kind: 'decimal' | 'date' | 'boolean' | 'string';
  precision?: number;
  scale?: number;
}

const TYPE = { BOOLEAN: 0, INT32: 1, INT64: 2, BYTE_ARRAY: 6, FIXED_LEN_BYTE_ARRAY: 7 } as const;
const PLAIN = 0;
const RLE = 3;
const RLE_DICTIONARY = 8;
const DATA_PAGE_V2 = 3;
const DICTIONARY_PAGE = 2;
const GZIP = 2;

const MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
const digit = (c = 0) => (c >= 48 && c <= 57 ? c - 48 : Number.NaN);

/** Days since 1970-01-01 of a real calendar date `YYYY-MM-DD` at b[start, end) (year 100 on). */
export function epochDay(b: Buffer, start = 0, end = b.length): number | undefined {
  if (end - start !== 10 || b[start + 4] !== 45 || b[start + 7] !== 45) return undefined;
  const y =
    1000 * digit(b[start]) + 100 * digit(b[start + 1]) + 10 * digit(b[start + 2]) + digit(b[start + 3]);
  const mo = 10 * digit(b[start + 5]) + digit(b[start + 6]);
  const day = 10 * digit(b[start + 8]) + digit(b[start + 9]);
  const leap = mo === 2 && y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);
  if (!(y >= 100 && day >= 1 && day <= (MONTH_DAYS[mo - 1] ?? 0) + (leap ? 1 : 0))) return undefined;
  return Date.UTC(y, mo - 1, day) / 86_400_000;
}

const NUMBER = { negative: false, digits: 0, value: 0, exp: 0 };

/** The JSON number at b[start, end): ±value × 10^exp, `digits` significant (`value` exact up to 15). */
export function numberAt(b: Buffer, start: number, end: number): typeof NUMBER {
  const n = NUMBER;
  n.negative = b[start] === 45;
  n.digits = n.value = n.exp = 0;
  let fraction = -1;
  for (let p = n.negative ? start + 1 : start; p < end; p++) {
    const c = b[p]!;
    if (c === 46) fraction = 0;
    else if (c === 101 || c === 69) {
      n.exp = Number(b.toString('latin1', p + 1, end));
      break;
    } else {
      if (fraction >= 0) fraction++;
      if (n.digits > 0 || c !== 48) {
        n.digits++;
        n.value = 10 * n.value + c - 48;
      }
    }
  }
  n.exp -= Math.max(0, fraction);
  return n;
}

/** A DECIMAL's unscaled integer: a number while it is exact in a double (15 digits), else a bigint. */
export function unscaled(b: Buffer, start: number, end: number, scale: number): number | bigint {
  const n = numberAt(b, start, end);
  const shift = n.exp + scale;
  const text = () => b.toString('latin1', start, end);
  if (shift < 0) throw new Error(`${text()} has more than ${scale} fraction digits`);
  if (n.digits + shift <= 15) return (n.negative ? -n.value : n.value) * 10 ** shift;
  const p = decimalParts(text())!;
  const big = BigInt(p.digits + '0'.repeat(shift));
  return p.negative ? -big : big;
}

const WORDS = Buffer.from('falsetrue');
const levelWriter = new ByteWriter();
const bodyWriter = new ByteWriter();

export class ColumnChunk {
  private readonly type: number;
  private readonly width: number; // of a PLAIN value, not a string
  readonly element: Record<string, unknown>;
  private readonly values = new Bytes();
  private readonly defs: Uint8Array;
  private rows = 0;
  private nulls = 0;
  /** Each distinct PLAIN value's index while a dictionary may pay (at most half the values distinct). */
  private dict: Map<string, number> | undefined;
  private readonly dictValues = new Bytes();
  private readonly indexes: Int32Array;
  private min = -1; // where in `values` the least value is
  private max = -1;

  constructor(
    readonly column: ParquetColumn,
    batch: number,
  ) {
    const { kind, precision = 1, scale = 0 } = column;
    const type = { boolean: TYPE.BOOLEAN, string: TYPE.BYTE_ARRAY, date: TYPE.INT32 }[kind as 'date'];
    this.type =
      type ?? (precision <= 9 ? TYPE.INT32 : precision <= 18 ? TYPE.INT64 : TYPE.FIXED_LEN_BYTE_ARRAY);
    let fixed = this.type === TYPE.FIXED_LEN_BYTE_ARRAY ? 1 : 0;
    while (fixed && 2n ** BigInt(8 * fixed - 1) <= 10n ** BigInt(precision)) fixed++;
    this.width = [1, 4, 8][this.type] ?? fixed;
    // ConvertedType (field 6) and LogicalType (field 10): UTF8/STRING, DECIMAL, DATE.
    const annotation = {
      boolean: {},
      string: { field_6: 0, field_10: { field_1: {} } },
      decimal: {
        field_6: 5,
        field_7: scale,
        field_8: precision,
        field_10: { field_5: { field_1: scale, field_2: precision } },
      },
      date: { field_6: 6, field_10: { field_6: {} } },
    }[kind];
    this.element = {
      field_1: this.type,
      field_2: fixed || undefined,
      field_3: 1,
      field_4: column.name,
      ...annotation,
    };
    this.defs = new Uint8Array(batch);
    this.indexes = new Int32Array(batch);
    this.reset();
  }

  /** Row `row`'s value (rows before it without one are null): its tape Kind, its text at b[start, end). */
  add(row: number, kind: Kind, b: Buffer, start: number, end: number): void {
    this.pad(row);
    if (kind === Kind.TRUE || kind === Kind.FALSE)
      [b, start, end] = kind === Kind.TRUE ? [WORDS, 5, 9] : [WORDS, 0, 5];
    const v = this.values;
    const at = v.n;
    v.room(this.width + 4 + end - start);
    switch (this.type) {
      case TYPE.BOOLEAN:
        v.buf[v.n++] = kind === Kind.TRUE ? 1 : 0;
        break;
      case TYPE.BYTE_ARRAY:
        v.n = v.buf.writeUInt32LE(end - start, v.n);
        v.copy(b, start, end);
        break;
      default: {
        // Two's complement: INT32 and INT64 little-endian, FIXED_LEN_BYTE_ARRAY big-endian.
        let x =
          this.column.kind === 'date'
            ? epochDay(b, start, end)!
            : unscaled(b, start, end, this.column.scale!);
        const last = this.type === TYPE.FIXED_LEN_BYTE_ARRAY ? this.width - 1 : 0;
        for (let i = 0; i < this.width; i++) {
          v.buf[v.n + Math.abs(last - i)] = typeof x === 'bigint' ? Number(x & 0xffn) : x & 0xff;
          x = typeof x === 'bigint' ? x >> 8n : Math.floor(x / 256);
        }
        v.n += this.width;
      }
    }
    this.defs[row] = 1;
    if (this.min < 0 || this.order(at, this.min) < 0) this.min = at;
    if (this.max < 0 || this.order(this.max, at) < 0) this.max = at;
    if (this.dict) {
      const key = v.buf.toString('latin1', at, v.n);
      let i = this.dict.get(key);
      if (i === undefined) {
        i = this.dict.size;
        this.dict.set(key, i);
        this.dictValues.copy(v.buf, at, v.n);
        if (this.dict.size * 2 > row + 16) this.dict = undefined;
      }
      this.indexes[row - this.nulls] = i;
    }
    this.rows = row + 1;
  }

  /** Returns its ColumnChunk for the footer. */
  flush(file: ByteWriter, rows: number) {
    this.pad(rows);
    const start = file.offset;
    let uncompressed = 0;
    let dictionaryOffset: bigint | undefined;
    let body: Uint8Array = this.values.buf.subarray(0, this.values.n);
    let encoding = this.type === TYPE.BOOLEAN ? RLE : PLAIN;
    const useDict = this.dict !== undefined && this.dictValues.n * 2 <= this.values.n;
    const w = bodyWriter;
    w.index = w.offset = 0;
    if (useDict) {
      dictionaryOffset = BigInt(file.offset);
      const header = { field_7: { field_1: this.dict!.size, field_2: PLAIN } };
      uncompressed += page(file, this.dictValues.buf.subarray(0, this.dictValues.n), DICTIONARY_PAGE, header);
      const bitWidth = Math.max(1, Math.ceil(Math.log2(this.dict!.size)));
      w.appendUint8(bitWidth);
      writeRleBitPackedHybrid(w, this.indexes.subarray(0, this.rows - this.nulls), bitWidth);
      [body, encoding] = [w.getBytes(), RLE_DICTIONARY];
    } else if (this.type === TYPE.BOOLEAN) {
      // RLE for BOOLEAN: the hybrid's length, then the hybrid (values: a byte each).
      w.appendUint32(0);
      writeRleBitPackedHybrid(w, body, 1);
      w.view.setUint32(0, w.index - 4, true);
      body = w.getBytes();
    }
    const levels = levelWriter;
    levels.index = levels.offset = 0;
    writeRleBitPackedHybrid(levels, this.defs.subarray(0, this.rows), 1);
    const dataOffset = BigInt(file.offset);
    const v2 = { field_1: this.rows, field_2: this.nulls, field_3: this.rows, field_4: encoding };
    const header = { field_8: { ...v2, field_5: levels.index, field_6: 0 } };
    uncompressed += page(file, body, DATA_PAGE_V2, header, levels.getBytes());
    // Statistics: max_value and min_value, PLAIN (a string without its length); none past 64 bytes.
    const bounds = this.min < 0 ? [] : [this.bound(this.max), this.bound(this.min)];
    const [field_5, field_6] = bounds.every((x) => x.length <= 64) ? bounds : [];
    const chunk = {
      field_2: BigInt(start),
      field_3: {
        field_1: this.type,
        field_2: useDict ? [PLAIN, RLE_DICTIONARY] : [encoding],
        field_3: [this.column.name],
        field_4: GZIP,
        field_5: BigInt(this.rows),
        field_6: BigInt(uncompressed),
        field_7: BigInt(file.offset - start),
        field_9: dataOffset,
        field_11: dictionaryOffset,
        field_12: { field_3: BigInt(this.nulls), field_5, field_6 },
      },
    };
    this.reset();
    return chunk;
  }

  private reset(): void {
    this.values.n = this.dictValues.n = this.rows = this.nulls = 0;
    this.dict = this.type === TYPE.BOOLEAN ? undefined : new Map();
    this.min = this.max = -1;
  }

  private pad(row: number): void {
    for (; this.rows < row; this.rows++, this.nulls++) this.defs[this.rows] = 0;
  }

  /** Parquet's order of the PLAIN values at `a` and `x` (negative: `a` first); strings by their UTF-8. */
  private order(a: number, x: number): number {
    const b = this.values.buf;
    switch (this.type) {
      case TYPE.INT32:
        return b.readInt32LE(a) - b.readInt32LE(x);
      case TYPE.INT64:
        return b.readInt32LE(a + 4) - b.readInt32LE(x + 4) || b.readUInt32LE(a) - b.readUInt32LE(x);
      case TYPE.FIXED_LEN_BYTE_ARRAY:
        return (b[x]! & 0x80) - (b[a]! & 0x80) || b.compare(b, x, x + this.width, a, a + this.width);
      case TYPE.BYTE_ARRAY:
        return b.compare(b, x + 4, x + 4 + b.readUInt32LE(x), a + 4, a + 4 + b.readUInt32LE(a));
      default:
        return b[a]! - b[x]!;
    }
  }

  /** A copy: the footer is written after `values` has been reused. */
  private bound(at: number): Uint8Array {
    const b = this.values.buf;
    const string = this.type === TYPE.BYTE_ARRAY;
    return new Uint8Array(
      b.subarray(at + (string ? 4 : 0), at + (string ? 4 + b.readUInt32LE(at) : this.width)),
    );
  }
}

/** A page appended to `file`: header, `levels`, `body` gzipped; its uncompressed size, header included. */
function page(file: ByteWriter, body: Uint8Array, type: number, header: object, levels = new Uint8Array(0)) {
  const compressed = gzipSync(body);
  const headerStart = file.offset;
  const sizes = { field_2: levels.length + body.length, field_3: levels.length + compressed.length };
  serializeTCompactProtocol(file, { field_1: type, ...sizes, ...header });
  const headerSize = file.offset - headerStart;
  file.appendBytes(levels);
  file.appendBytes(compressed);
  return headerSize + levels.length + body.length;
}
