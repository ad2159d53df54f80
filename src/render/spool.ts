// One answer's output until the whole answer checked out, then in a temporary file unlinked once open.
import { closeSync, openSync, readSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileError } from '../errors.js';
import { tempNameFor } from '../fs/temp-names.js';
import { writeAll } from '../stdout.js';
import type { Sink } from './sink.js';
import { widen } from './union.js';
import type { Chunk, Widened } from './writer.js';

/** Held in memory: a small answer whole, a larger one's last piece. */
const PIECE = 256 * 1024;

// Pieces of spools done with them, for the next answer's: a range's answers share two instead of
// each leaving its own to the collector (Node 24 let a range's pile up before freeing them).
const spare: Buffer[] = [];
const pieceOf = (size: number) => (size === PIECE && spare.pop()) || Buffer.allocUnsafe(size);
const giveBack = (buf: Buffer) => {
  if (buf.length === PIECE && spare.length < 2) spare.push(buf);
};

export class Spool {
  private buf: Buffer | undefined;
  private n = 0;
  private fd: number | undefined;
  private fileBytes = 0;

  constructor(private readonly limit = PIECE) {}

  get size(): number {
    return this.fileBytes + this.n;
  }

  /** Takes a copy (a writer reuses its buffer). */
  write(chunk: Chunk): void {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    for (let at = 0; at < bytes.length; ) {
      if (this.n === this.limit) this.flush();
      this.buf ??= pieceOf(this.limit);
      const k = Math.min(bytes.length - at, this.limit - this.n);
      this.buf.set(k === bytes.length ? bytes : bytes.subarray(at, at + k), this.n);
      this.n += k;
      at += k;
    }
  }

  private flush(): void {
    let path: string | undefined;
    try {
      if (this.fd === undefined) {
        path = join(tmpdir(), tempNameFor('prs-answer'));
        this.fd = openSync(path, 'wx+', 0o600);
        unlinkSync(path);
      }
      writeAll(this.fd, this.buf!.subarray(0, this.n));
    } catch (err) {
      this.drop();
      throw fileError(err, path ?? tmpdir());
    }
    this.fileBytes += this.n;
    this.n = 0;
  }

  /** Everything held to `sink` (rewritten as `widened` says); then the spool is empty. */
  async copyTo(sink: Pick<Sink, 'write'>, widened?: Widened): Promise<void> {
    // A turn of the event loop before each chunk: a signal is only handled in a turn.
    const write = async (chunk: Buffer) => {
      await new Promise(setImmediate);
      await sink.write(chunk);
    };
    try {
      if (widened) await widen(this.chunks(), widened, write);
      else for await (const chunk of this.chunks()) await write(chunk);
    } finally {
      this.drop();
    }
  }

  private async *chunks(): AsyncGenerator<Buffer> {
    if (this.fd !== undefined) {
      const buf = pieceOf(Math.min(PIECE, this.fileBytes));
      try {
        for (let pos = 0; pos < this.fileBytes; ) {
          const n = readSync(this.fd, buf, 0, buf.length, pos);
          if (n === 0) break;
          pos += n;
          yield buf.subarray(0, n);
        }
      } finally {
        giveBack(buf);
      }
    }
    if (this.n > 0) yield this.buf!.subarray(0, this.n);
  }

  drop(): void {
    if (this.buf) giveBack(this.buf);
    this.buf = undefined;
    this.n = 0;
    if (this.fd !== undefined) {
      try {
        closeSync(this.fd);
      } catch {}
      this.fd = undefined;
    }
    this.fileBytes = 0;
  }
}
