/**
 * One answer's output while the answer is still being checked (CLI.md "Output that scripts can
 * trust": nothing of an answer is written before all of it parsed). Held in memory up to a bound,
 * then in a temporary file (in the system's temporary directory, removed on every path out, and by
 * main's last-resort cleanup on a second signal), so memory never grows with the answer.
 */
import { closeSync, openSync, readSync, unlinkSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileError } from '../errors.js';
import { tempNameFor } from '../fs/temp-names.js';
import { temporaries } from '../fs/temporaries.js';
import type { Sink } from './sink.js';
import type { Chunk } from './writer.js';

/** Output held in memory before it goes to a file. */
export const SPOOL_MEMORY = 64 * 1024;
const READ_BACK = 1024 * 1024;

export class Spool {
  private held: Chunk[] = [];
  private heldBytes = 0;
  private path: string | undefined;
  private fd: number | undefined;
  private fileBytes = 0;

  constructor(private readonly limit = SPOOL_MEMORY) {}

  /** Bytes held so far. */
  get size(): number {
    return this.heldBytes + this.fileBytes;
  }

  write(chunk: Chunk): void {
    if (chunk.length === 0) return;
    const bytes = typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.length;
    if (this.fd === undefined && this.heldBytes + bytes <= this.limit) {
      this.held.push(chunk);
      this.heldBytes += bytes;
      return;
    }
    try {
      if (this.fd === undefined) {
        this.path = join(tmpdir(), tempNameFor('prs-answer'));
        this.fd = openSync(this.path, 'wx+', 0o600);
        temporaries.add(this.path);
        for (const c of this.held) this.append(c);
        this.held = [];
        this.heldBytes = 0;
      }
      this.append(chunk);
    } catch (err) {
      this.drop();
      throw fileError(err, this.path ?? tmpdir());
    }
  }

  private append(chunk: Chunk): void {
    if (typeof chunk === 'string') {
      // A string goes straight in (no Buffer of its own); a short write is finished from its bytes.
      const n = writeSync(this.fd!, chunk);
      this.fileBytes += n;
      if (n < Buffer.byteLength(chunk)) this.appendBytes(Buffer.from(chunk).subarray(n));
      return;
    }
    this.appendBytes(chunk);
  }

  private appendBytes(bytes: Uint8Array): void {
    for (let at = 0; at < bytes.length; ) at += writeSync(this.fd!, bytes, at, bytes.length - at);
    this.fileBytes += bytes.length;
  }

  /** Everything held, in order, to `sink`; then the spool is empty (and its file gone). */
  async copyTo(sink: Pick<Sink, 'write'>): Promise<void> {
    try {
      for (const c of this.held) await sink.write(c);
      this.held = [];
      this.heldBytes = 0;
      if (this.fd === undefined) return;
      // One buffer for the whole read-back: a sink's write resolves once it took the bytes.
      const buf = Buffer.allocUnsafe(Math.min(READ_BACK, this.fileBytes));
      for (let pos = 0; pos < this.fileBytes; ) {
        const n = readSync(this.fd, buf, 0, buf.length, pos);
        if (n === 0) break;
        pos += n;
        await sink.write(buf.subarray(0, n));
      }
    } finally {
      this.drop();
    }
  }

  /** Throws everything away. */
  drop(): void {
    this.held = [];
    this.heldBytes = 0;
    if (this.fd !== undefined) {
      try {
        closeSync(this.fd);
      } catch {}
      this.fd = undefined;
    }
    if (this.path !== undefined) {
      try {
        unlinkSync(this.path);
      } catch {}
      temporaries.delete(this.path);
      this.path = undefined;
    }
    this.fileBytes = 0;
  }
}
