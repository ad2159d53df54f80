/**
 * Buffers whose memory goes back to the system the moment they are released, for the few large
 * buffers of a report run (an answer's body, a CSV output). An ordinary Buffer's memory waits for a
 * V8 collection, and V8 lets tens of MB of dead buffers pile up before one: a run of 40 answers of
 * 6 MB peaked 50 MB above a run of one, all of it dead bodies and outputs.
 *
 * They live in a resizable ArrayBuffer (Node ≥ 20): reserving its largest size costs no memory (pages
 * count once written), growing keeps the bytes where they are (no copy, no second buffer while a body
 * arrives), and `resize(0)` hands the pages back at once.
 *
 * Release only what nobody reads any more: a view on a released buffer has length 0, and a write
 * still queued from it would lose its bytes. Writes of at least RELEASE_MIN bytes are safe to release
 * once the sink's `write` resolved (it waits for the destination to drain: render/sink.ts); smaller
 * buffers are ordinary ones, which `release` leaves to V8.
 */

/** Below this a buffer is an ordinary one: its release is V8's, and a queued small write stays safe. */
export const RELEASE_MIN = 256 * 1024;

type Resizable = ArrayBuffer & { resizable: boolean; resize(size: number): void; maxByteLength: number };

/** A resizable ArrayBuffer of `size` bytes that may grow to `max` (Node 20's lib types lack the option). */
function resizable(size: number, max: number): Resizable {
  const Ctor = ArrayBuffer as unknown as new (size: number, o: { maxByteLength: number }) => Resizable;
  return new Ctor(size, { maxByteLength: max });
}

/** `size` bytes, uninitialised; releasable when at least RELEASE_MIN. */
export function releasable(size: number): Buffer {
  if (size < RELEASE_MIN) return Buffer.allocUnsafe(size);
  return Buffer.from(resizable(size, size), 0, size);
}

/**
 * Gives a buffer's memory back now when it is a releasable one (every view on it then has length 0);
 * an ordinary buffer is left to V8. Never release a buffer something may still read.
 */
export function release(buf: Uint8Array | undefined): void {
  const ab = buf?.buffer as Resizable | undefined;
  if (ab?.resizable) ab.resize(0);
}

/** How far an Accumulator grows at a time: the most a release may touch of pages never written. */
const STEP = 1024 * 1024;

/**
 * A buffer filled as bytes arrive (a body of unknown length): one reservation of `max` bytes that
 * grows in place. `take()` gives the bytes received, releasable when large, else copied into an
 * ordinary buffer (and the reservation released).
 *
 * V8 zeroes what a resize gives up before handing it back, pages never written included: so the
 * buffer grows by at most STEP past the bytes received (not by doubling), and is never shrunk to
 * fit, which would write the whole slack (measured: releasing a 128 MiB buffer holding 10 MiB
 * peaked 128 MiB above the start).
 */
export class Accumulator {
  private readonly ab: Resizable;
  private view: Buffer;
  size = 0;

  /** `hint`: the expected size (a Content-Length), committed at once; the bytes received decide. */
  constructor(
    readonly max: number,
    hint = 0,
  ) {
    this.ab = resizable(Math.min(hint || STEP, max), max);
    this.view = Buffer.from(this.ab, 0, this.ab.byteLength);
  }

  /** Appends `chunk`; false (nothing appended) when it would pass `max`. */
  push(chunk: Uint8Array): boolean {
    const need = this.size + chunk.length;
    if (need > this.max) return false;
    if (need > this.view.length) {
      this.ab.resize(Math.min(this.max, need + STEP));
      this.view = Buffer.from(this.ab, 0, this.ab.byteLength);
    }
    this.view.set(chunk, this.size);
    this.size = need;
    return true;
  }

  /** The bytes received: a releasable buffer when large, else an ordinary copy. */
  take(): Buffer {
    if (this.size < RELEASE_MIN) {
      const copy = Buffer.from(this.view.subarray(0, this.size));
      this.drop();
      return copy;
    }
    return Buffer.from(this.ab, 0, this.size);
  }

  /** Gives the memory back (a body abandoned half way). */
  drop(): void {
    this.ab.resize(0);
    this.size = 0;
  }
}
