/**
 * Where a report's output goes: stdout, or a file that appears whole at the end (src/fs/atomic.ts).
 * Writes wait for the destination to take them, so a slow reader holds the run back.
 */
import { once } from 'node:events';
import type { Writable } from 'node:stream';
import { fileError } from '../errors.js';
import type { AtomicFile } from '../fs/atomic.js';

export interface Sink {
  /** Resolves once the destination took the chunk: its memory may be reused then. */
  write(chunk: string | Uint8Array): Promise<void>;
  /** The output is complete: a file is moved into place. */
  commit(): Promise<void>;
  /** The run failed: a file's temporary is removed, nothing appears. */
  abort(): Promise<void>;
}

/** Waits until `stream` wants more (or is gone: a reader that left is main's business, EPIPE). */
async function drained(stream: Writable): Promise<void> {
  if (!stream.writableNeedDrain || stream.destroyed) return;
  const ac = new AbortController();
  await Promise.race([
    once(stream, 'drain', { signal: ac.signal }),
    once(stream, 'close', { signal: ac.signal }),
    once(stream, 'error', { signal: ac.signal }),
  ]).catch(() => {});
  ac.abort();
}

/**
 * stdout (io.stdout, which owns its write errors: io.ts guardStdout). A write resolves once stdout
 * took the chunk, and throws the guard's reason once stdout is gone — the reader left (the run stops,
 * exit 0) or a write failed (exit 10) — so that no further request is sent for output nobody takes.
 */
export function streamSink(stream: Writable, gone?: AbortSignal): Sink {
  return {
    async write(chunk) {
      gone?.throwIfAborted();
      if (chunk.length === 0 || stream.destroyed) return;
      await new Promise<void>((resolve) => stream.write(chunk, () => resolve()));
      gone?.throwIfAborted();
    },
    async commit() {},
    async abort() {},
  };
}

export function fileSink(file: AtomicFile): Sink {
  return {
    async write(chunk) {
      if (chunk.length === 0) return;
      if (file.stream.errored) throw fileError(file.stream.errored, file.path);
      await new Promise<void>((resolve) => file.stream.write(chunk, () => resolve()));
      await drained(file.stream);
      if (file.stream.errored) throw fileError(file.stream.errored, file.path);
    },
    commit: () => file.commit(),
    abort: () => file.abort(),
  };
}
