// One answer's output until the whole answer checked out: in memory up to a bound, then in a temporary
// file that has no name: removed as soon as it is open, it goes with the process however that ends.
import { closeSync, openSync, readSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileError } from '../errors.js';
import { tempNameFor } from '../fs/temp-names.js';
import { writeAll } from '../stdout.js';
import type { Sink } from './sink.js';
import { widen } from './union.js';
import type { Chunk, Widened } from './writer.js';

const SPOOL_MEMORY = 64 * 1024;
const READ_BACK = 1024 * 1024;

export class Spool {
  /** Once in a file: what is not written there yet. */
  private held: Buffer | undefined;
  private heldBytes = 0;
  private fd: number | undefined;
  private fileBytes = 0;

  constructor(private readonly limit = SPOOL_MEMORY) {}

  get size(): number {
    return this.heldBytes + this.fileBytes;
  }

  /** Takes a copy (a writer reuses its buffer). */
  write(chunk: Chunk): void {
    if (chunk.length === 0) return;
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    this.held ??= Buffer.allocUnsafe(this.limit);
    if (this.heldBytes + bytes.length <= this.limit) {
      this.held.set(bytes, this.heldBytes);
      this.heldBytes += bytes.length;
      return;
    }
    let path: string | undefined;
    try {
      if (this.fd === undefined) {
        path = join(tmpdir(), tempNameFor('prs-answer'));
        this.fd = openSync(path, 'wx+', 0o600);
        unlinkSync(path);
      }
      this.flush();
      // A writer's chunk of a batch (about the bound's size) goes to the file as it is, not copied first.
      if (bytes.length > this.limit / 2) this.append(bytes);
      else {
        this.held.set(bytes, 0);
        this.heldBytes = bytes.length;
      }
    } catch (err) {
      this.drop();
      throw fileError(err, path ?? tmpdir());
    }
  }

  private flush(): void {
    if (this.held && this.heldBytes > 0) this.append(this.held.subarray(0, this.heldBytes));
    this.heldBytes = 0;
  }

  private append(bytes: Uint8Array): void {
    writeAll(this.fd!, bytes);
    this.fileBytes += bytes.length;
  }

  /**
   * Everything held, in order, to `sink` (rewritten as `widened` says, when given); then the spool is
   * empty (and its file gone).
   */
  async copyTo(sink: Pick<Sink, 'write'>, widened?: Widened): Promise<void> {
    // A turn of the event loop before each chunk: reading here and writing to a pipe are synchronous,
    // and a signal is only handled in a turn (else a SIGTERM that came meanwhile went unseen, exit 0).
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
    if (this.fd === undefined) {
      if (this.heldBytes > 0) yield this.held!.subarray(0, this.heldBytes);
      return;
    }
    this.flush();
    // One buffer for the whole read-back: a sink's write resolves once it took the bytes.
    const buf = Buffer.allocUnsafe(Math.min(READ_BACK, this.fileBytes));
    for (let pos = 0; pos < this.fileBytes; ) {
      const n = readSync(this.fd, buf, 0, buf.length, pos);
      if (n === 0) break;
      pos += n;
      yield buf.subarray(0, n);
    }
  }

  drop(): void {
    this.held = undefined;
    this.heldBytes = 0;
    if (this.fd !== undefined) {
      try {
        closeSync(this.fd);
      } catch {}
      this.fd = undefined;
    }
    this.fileBytes = 0;
  }
}
