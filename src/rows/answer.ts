import type { Readable } from 'node:stream';
import type { Row } from '../domain.js';
import { entryValue, F, keys, type RowBatch } from './tape.js';
import { MalformedBody, NOT_OBJECTS, RowTokenizer } from './tokenizer.js';

const SLICE = 64 * 1024;

export interface RowSink {
  /** Never an empty batch; valid during the call. */
  rows?(rows: RowBatch): void;
  /** The body's bytes as they arrive, decoded (--raw, the answer cache). */
  bytes?(chunk: Buffer): void;
}

/** The number of rows, once the whole body is a report; else rejects (`malformed`'s error, or the read's). */
export async function readAnswer(
  chunks: Iterable<Uint8Array> | AsyncIterable<Uint8Array> | Readable,
  sink: RowSink,
  malformed: (m: MalformedBody) => Error,
): Promise<number> {
  const t = new RowTokenizer();
  let count = 0;
  const emit = (rows: RowBatch) => {
    if (rows.length === 0) return;
    count += rows.length;
    sink.rows?.(rows);
  };
  const take = (chunk: Uint8Array): boolean => {
    const c = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.length);
    sink.bytes?.(c);
    for (let at = 0; at < c.length; at += SLICE) {
      emit(t.push(at === 0 && c.length <= SLICE ? c : c.subarray(at, at + SLICE)));
      if (t.failed) return false;
    }
    return true;
  };
  try {
    // A stream, told by its shape: the cache's fast path does not load node:stream.
    if (typeof (chunks as Readable).on === 'function') await eachChunk(chunks as Readable, take);
    else for await (const chunk of chunks as Iterable<Uint8Array>) if (!take(chunk)) break;
    emit(t.end());
  } catch (err) {
    throw err instanceof MalformedBody ? malformed(err) : err;
  }
  return count;
}

/** 'data' events, each taken at once (async iteration joins chunks that piled up); `take` false stops. */
function eachChunk(body: Readable, take: (chunk: Uint8Array) => boolean): Promise<void> {
  return new Promise((resolve, reject) => {
    let stopped = false;
    process.getBuiltinModule('node:stream').finished(body, (err) => {
      if (!err || stopped) resolve();
      // Closed without an end (undici errors first; this is for a stream that does not).
      else reject(err.code === 'ERR_STREAM_PREMATURE_CLOSE' ? new Error('the body ended early') : err);
    });
    body.on('data', (chunk: Uint8Array) => {
      let go: boolean;
      try {
        go = take(chunk);
      } catch (err) {
        return void body.destroy(err as Error);
      }
      stopped = !go;
      if (stopped) body.destroy();
    });
  });
}

export async function collectRows(res: { read(sink: RowSink): Promise<number> }): Promise<Row[]> {
  const all: Row[] = [];
  await res.read({
    rows(rows) {
      all.push(...rows.objects());
    },
  });
  return all;
}

/** An export's JSON checked as it downloads: one array, whole; each row's `indexName` texts to `name`. */
export class ExportCheck {
  private readonly t = new RowTokenizer();
  private readonly id = keys.id(0, 'indexName');
  constructor(private readonly name: (text: string) => void) {}

  push(chunk: Uint8Array): void {
    this.take(this.t.push(chunk));
    if (this.t.failed) this.end();
  }

  end(): number {
    try {
      this.take(this.t.end());
    } catch (err) {
      if (!(err instanceof MalformedBody)) throw err;
      const why = this.t.cut ? 'JSON ends early' : this.t.first !== 91 ? 'not a JSON array' : err.why;
      // An array of values that are not objects is whole too: its elements are counted.
      if (why !== NOT_OBJECTS) throw new MalformedBody(why, true);
    }
    // Nothing but whitespace has no rows (as an empty body); anything else must be the array.
    if (this.t.first !== 91 && this.t.first !== -1) throw new MalformedBody('not a JSON array', true);
    return this.t.elements;
  }

  private take(batch: RowBatch): void {
    const { b, tape: t } = batch;
    for (const e of batch.at)
      for (let m = e + F.W; m < t[e + F.NEXT]!; m = t[m + F.NEXT]!) {
        if (t[m + F.KEY] !== this.id) continue;
        const v = entryValue(b, t, m);
        const texts = typeof v === 'object' && v !== null ? Object.values(v) : [v];
        for (const x of texts) if (typeof x === 'string' && x.trim() !== '') this.name(x);
      }
  }
}
