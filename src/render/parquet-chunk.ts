/**
 * One column of a Parquet row group, encoded value by value into bytes as the spool is read: no JS
 * value outlives its row (docs/performance.md, Parquet). hyparquet-writer's ByteWriter, RLE/bit-packed
 * hybrid and Thrift compact writer do the format's parts; the pages are zlib's GZIP.
 */
import { gzipSync } from 'node:zlib';
import { ByteWriter } from 'hyparquet-writer';
import { writeRleBitPackedHybrid } from 'hyparquet-writer/src/encoding.js';
import { serializeTCompactProtocol } from 'hyparquet-writer/src/thrift.js';
import { decimalParts } from '../json/decimal.js';
import { Bytes } from './bytes.js';

/** Parquet's numbers for its physical types, encodings, page types and GZIP (parquet.thrift). */
export const TYPE = { BOOLEAN: 0, INT32: 1, INT64: 2, BYTE_ARRAY: 6, FIXED_LEN_BYTE_ARRAY: 7 } as const;
const PLAIN = 0;
const RLE = 3;
const RLE_DICTIONARY = 8;
const DATA_PAGE_V2 = 3;
const DICTIONARY_PAGE = 2;
export const GZIP = 2;

export type Physical = keyof typeof TYPE;

/** How a spooled value becomes the column's physical value (parquet.ts decides, per column). */
export type Decode = (text: string | boolean) => number | bigint | string | boolean;

/** A DECIMAL's unscaled integer: a number while it is exact in a double (15 digits), else a bigint. */
export function unscaled(text: string, scale: number): number | bigint {
  const p = decimalParts(text)!;
  const shift = p.exp + scale;
  if (shift < 0) throw new Error(`${text} has more than ${scale} fraction digits`);
  if (p.digits.length + shift <= 15) {
    const n = Number(p.digits) * 10 ** shift;
    return p.negative ? -n : n;
  }
  const n = BigInt(p.digits + '0'.repeat(shift));
  return p.negative ? -n : n;
}

export class ColumnChunk {
  private readonly values = new Bytes();
  private defs = new Uint8Array(1024);
  private rows = 0;
  private nulls = 0;
  /** Each distinct value's index, while a dictionary may still pay (at most half the values distinct). */
  private dict: Map<string | boolean, number> | undefined = new Map();
  private readonly dictValues = new Bytes();
  private indexes = new Int32Array(1024);
  private min: number | bigint | string | boolean | undefined;
  private max: number | bigint | string | boolean | undefined;

  constructor(
    readonly path: readonly string[],
    readonly type: Physical,
    private readonly decode: Decode,
    private readonly typeLength = 0,
  ) {}

  /** A spooled value (null: none) of the next row. */
  add(v: string | boolean | null | undefined): void {
    if (this.rows === this.defs.length) {
      this.defs = grow(this.defs);
      this.indexes = grow(this.indexes);
    }
    if (v === null || v === undefined) {
      this.defs[this.rows++] = 0;
      this.nulls++;
      return;
    }
    this.defs[this.rows] = 1;
    const x = this.decode(v);
    const start = this.values.n;
    this.plain(this.values, x);
    if (this.min === undefined || less(x, this.min)) this.min = x;
    if (this.max === undefined || less(this.max, x)) this.max = x;
    if (this.dict) {
      let i = this.dict.get(v);
      if (i === undefined) {
        i = this.dict.size;
        this.dict.set(v, i);
        this.dictValues.copy(this.values.buf, start, this.values.n);
        if (this.dict.size * 2 > this.rows + 16) this.dict = undefined;
      }
      this.indexes[this.rows - this.nulls] = i;
    }
    this.rows++;
  }

  /** The chunk's pages appended to `file` at its offset; its ColumnChunk for the footer. Then empty. */
  flush(file: ByteWriter): Record<string, unknown> {
    const start = file.offset;
    const values = this.rows - this.nulls;
    let uncompressed = 0;
    let dictionaryOffset: bigint | undefined;
    let body: Uint8Array;
    let encoding: number = this.type === 'BOOLEAN' ? RLE : PLAIN;
    const useDict =
      this.dict !== undefined && this.dictValues.n * 2 <= this.values.n && this.type !== 'BOOLEAN';
    if (useDict) {
      dictionaryOffset = BigInt(file.offset);
      const dictionary = this.dictValues.buf.subarray(0, this.dictValues.n);
      const header = {
        field_1: DICTIONARY_PAGE,
        field_2: 0,
        field_3: 0,
        field_7: { field_1: this.dict!.size, field_2: PLAIN },
      };
      uncompressed += page(file, dictionary, header);
      const w = new ByteWriter(values + 16);
      const bitWidth = Math.max(1, Math.ceil(Math.log2(this.dict!.size)));
      w.appendUint8(bitWidth);
      writeRleBitPackedHybrid(w, this.indexes.subarray(0, values), bitWidth);
      body = w.getBytes();
      encoding = RLE_DICTIONARY;
    } else if (this.type === 'BOOLEAN') {
      // RLE for BOOLEAN: the hybrid's length, then the hybrid (values: a byte each, from plain()).
      const w = new ByteWriter(values / 8 + 16);
      w.appendUint32(0);
      writeRleBitPackedHybrid(w, this.values.buf.subarray(0, values), 1);
      w.view.setUint32(0, w.index - 4, true);
      body = w.getBytes();
    } else body = this.values.buf.subarray(0, this.values.n);
    const levels = new ByteWriter(this.rows / 8 + 16);
    writeRleBitPackedHybrid(levels, this.defs.subarray(0, this.rows), 1);
    const dataOffset = BigInt(file.offset);
    const v2 = { field_1: this.rows, field_2: this.nulls, field_3: this.rows, field_4: encoding };
    const header = {
      field_1: DATA_PAGE_V2,
      field_2: 0,
      field_3: 0,
      field_8: { ...v2, field_5: levels.index, field_6: 0 },
    };
    uncompressed += page(file, body, header, levels.getBytes());
    const chunk = {
      field_2: BigInt(start),
      field_3: {
        field_1: TYPE[this.type],
        field_2: useDict ? [PLAIN, RLE_DICTIONARY] : [encoding],
        field_3: this.path,
        field_4: GZIP,
        field_5: BigInt(this.rows),
        field_6: BigInt(uncompressed),
        field_7: BigInt(file.offset - start),
        field_9: dataOffset,
        field_11: dictionaryOffset,
        field_12: { field_3: BigInt(this.nulls), ...this.bounds() },
      },
    };
    this.values.n = 0;
    this.dictValues.n = 0;
    this.dict = new Map();
    this.rows = 0;
    this.nulls = 0;
    this.min = undefined;
    this.max = undefined;
    return chunk;
  }

  /** `x` in PLAIN encoding (a boolean: one byte, packed in flush). */
  private plain(out: Bytes, x: number | bigint | string | boolean): void {
    switch (this.type) {
      case 'INT32':
        out.room(4);
        out.n = out.buf.writeInt32LE(x as number, out.n);
        return;
      case 'INT64':
        out.room(8);
        if (typeof x === 'bigint') out.n = out.buf.writeBigInt64LE(x, out.n);
        else {
          const high = Math.floor((x as number) / 2 ** 32);
          out.buf.writeUInt32LE((x as number) - high * 2 ** 32, out.n);
          out.n = out.buf.writeInt32LE(high, out.n + 4);
        }
        return;
      case 'FIXED_LEN_BYTE_ARRAY': {
        // Big-endian two's complement of typeLength bytes.
        out.room(this.typeLength);
        let v = BigInt.asUintN(8 * this.typeLength, BigInt(x as number | bigint));
        for (let i = this.typeLength - 1; i >= 0; i--) {
          out.buf[out.n + i] = Number(v & 0xffn);
          v >>= 8n;
        }
        out.n += this.typeLength;
        return;
      }
      case 'BYTE_ARRAY': {
        const s = x as string;
        out.room(4 + 3 * s.length);
        const length = out.buf.write(s, out.n + 4);
        out.buf.writeUInt32LE(length, out.n);
        out.n += 4 + length;
        return;
      }
      case 'BOOLEAN':
        out.byte(x ? 1 : 0);
    }
  }

  /** Statistics' max_value and min_value (PLAIN, a string without its length); none past 64 bytes. */
  private bounds(): { field_5: Uint8Array; field_6: Uint8Array } | undefined {
    if (this.min === undefined || this.max === undefined) return undefined;
    const bytes = (x: number | bigint | string | boolean) => {
      if (this.type === 'BYTE_ARRAY') return Buffer.from(x as string);
      const out = new Bytes();
      this.plain(out, x);
      return Buffer.from(out.buf.subarray(0, out.n));
    };
    const [max, min] = [bytes(this.max), bytes(this.min)];
    return max.length <= 64 && min.length <= 64 ? { field_5: max, field_6: min } : undefined;
  }
}

/**
 * A page appended to `file`: its header (Thrift, with the sizes filled in), then `levels` as they
 * are and `body` compressed. The page's uncompressed size, header included.
 */
function page(
  file: ByteWriter,
  body: Uint8Array,
  header: { field_2: number; field_3: number },
  levels: Uint8Array = new Uint8Array(0),
): number {
  const compressed = gzipSync(body);
  header.field_2 = levels.length + body.length;
  header.field_3 = levels.length + compressed.length;
  const headerStart = file.offset;
  serializeTCompactProtocol(file, header);
  const headerSize = file.offset - headerStart;
  file.appendBytes(levels);
  file.appendBytes(compressed);
  return headerSize + levels.length + body.length;
}

/**
 * Parquet's order for statistics: numbers and bigints by value, booleans false first, strings by
 * their UTF-8 bytes (code points: JavaScript's `<` compares UTF-16 units).
 */
function less(a: number | bigint | string | boolean, b: number | bigint | string | boolean): boolean {
  if (typeof a !== 'string') return a < b;
  if (a === b) return false;
  const n = Math.min(a.length, (b as string).length);
  for (let i = 0; i < n; i++) {
    const x = a.codePointAt(i)!;
    const y = (b as string).codePointAt(i)!;
    if (x !== y) return x < y;
  }
  return a.length < (b as string).length;
}

function grow<T extends Uint8Array | Int32Array>(a: T): T {
  const b = new (a.constructor as new (n: number) => T)(a.length * 2);
  b.set(a);
  return b;
}
