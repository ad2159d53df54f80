// CSV/TSV whose columns grew after it was begun: written again with the final header, lines padded.
import { createReadStream } from 'node:fs';
import { fileError } from '../errors.js';
import type { AtomicFile } from '../fs/atomic.js';
import { fileSink } from './sink.js';
import type { Widened } from './writer.js';

const LF = 0x0a;
const QUOTE = 0x22;

// A record ends at a LF outside quotes (TSV escapes LF in a cell).
export async function widen(
  source: AsyncIterable<Buffer>,
  w: Widened,
  write: (chunk: Buffer) => Promise<void>,
): Promise<void> {
  const csv = w.kind === 'csv';
  const sep = csv ? ',' : '\t';
  let piece = 0;
  let left = w.pieces[0]?.bytes ?? 0;
  let quoted = false;
  let header = true;
  await write(Buffer.from(`${w.header}\n`));
  for await (const chunk of source) {
    const parts: Buffer[] = [];
    let from = 0;
    for (let i = 0; i < chunk.length; i++) {
      while (left === 0 && piece < w.pieces.length - 1) left = w.pieces[++piece]!.bytes;
      left--;
      const c = chunk[i]!;
      if (c === QUOTE && csv) quoted = !quoted;
      else if (c === LF && !quoted) {
        if (header) {
          header = false;
          from = i + 1;
          continue;
        }
        // A line of no columns (a piece begun by rows `{}`) has no cell yet: it gets one per column.
        const have = w.pieces[piece]!.columns;
        const pad =
          have > 0 ? sep.repeat(w.columns - have) : csv && w.columns === 1 ? '""' : sep.repeat(w.columns - 1);
        if (pad !== '') {
          parts.push(chunk.subarray(from, i), Buffer.from(pad));
          from = i;
        }
      }
    }
    if (!header) parts.push(chunk.subarray(from));
    if (parts.length > 0) await write(Buffer.concat(parts));
  }
}

/** `file` rewritten into a new temporary for its path (`open`), then committed; `file` goes either way. */
export async function commitWidened(
  file: AtomicFile,
  open: () => Promise<AtomicFile>,
  w: Widened,
): Promise<void> {
  const wide = await open();
  try {
    await file.close().catch((err) => {
      throw fileError(err, file.path);
    });
    const out = fileSink(wide);
    await widen(createReadStream(file.tempPath), w, (chunk) => out.write(chunk));
    await wide.commit();
  } catch (err) {
    await wide.abort();
    throw err;
  } finally {
    await file.abort();
  }
}
