// Where a report's output goes. A write resolves once the destination took the chunk (reusable then).
import type { Writable } from 'node:stream';
import { fileError } from '../errors.js';
import type { AtomicFile } from '../fs/atomic.js';

export interface Sink {
  write(chunk: string | Uint8Array): Promise<void>;
  /** The output is complete: a file is moved into place. */
  commit(): Promise<void>;
  /** The run failed: a file's temporary is removed, nothing appears. */
  abort(): Promise<void>;
}

const taken = (stream: Writable, chunk: string | Uint8Array) =>
  new Promise<void>((resolve) => stream.write(chunk, () => resolve()));

/** Throws `gone`'s reason once stdout is gone (io.ts guardStdout): no request for output nobody takes. */
export function streamSink(stream: Writable, gone?: AbortSignal): Sink {
  return {
    async write(chunk) {
      gone?.throwIfAborted();
      if (chunk.length === 0 || stream.destroyed) return;
      await taken(stream, chunk);
      gone?.throwIfAborted();
    },
    async commit() {},
    async abort() {},
  };
}

export function fileSink(file: AtomicFile): Sink {
  const check = () => {
    if (file.stream.errored) throw fileError(file.stream.errored, file.path);
  };
  return {
    async write(chunk) {
      if (chunk.length === 0) return;
      check();
      await taken(file.stream, chunk);
      check();
    },
    commit: () => file.commit(),
    abort: () => file.abort(),
  };
}
