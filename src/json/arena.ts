/**
 * One block of memory reused by every large answer of a run (its body; a CSV output), so a run's
 * memory is that of its largest answer. A new Buffer per answer is freed only at some later V8
 * collection, and V8 let ~50 MB of dead 6 MB bodies and outputs pile up in a 40-answer run before one.
 *
 * The block is a WebAssembly.Memory: it grows in place (a body sent without a Content-Length goes
 * straight into it as it arrives, no list of chunks joined at the end, which held the body twice),
 * its pages count only once written, and V8 reads bytes from it as fast as from any Buffer. (Tried:
 * a resizable ArrayBuffer, which V8 11 reads 2-4× slower in the renderers' loops and zeroes every page
 * it gives back; one large Buffer reserved up front, which V8 counts whole as external memory and so
 * collects undici's spent chunks far later.) Growing detaches the views on the old size: the block
 * grows only while nobody else holds it.
 *
 * Only buffers of at least REUSE_MIN bytes come from the block: a sink's write of that much resolves
 * only once the destination took every byte (it waits for 'drain': render/sink.ts), so the block is
 * free for the next answer when `release` is called after it. Smaller ones are ordinary buffers.
 */

/** From this size a buffer comes from the arena; below, it is an ordinary one (V8's to free). */
export const REUSE_MIN = 256 * 1024;

/** WebAssembly.Memory, as far as used here (the lib types in use leave WebAssembly out). */
interface WasmMemory {
  readonly buffer: ArrayBuffer;
  grow(pages: number): number;
}
const WasmMemory = (
  globalThis as unknown as {
    WebAssembly?: { Memory: new (d: { initial: number; maximum: number }) => WasmMemory };
  }
).WebAssembly?.Memory;

const PAGE = 64 * 1024;
const pages = (bytes: number) => Math.ceil(bytes / PAGE);

export class Arena {
  private memory: WasmMemory | undefined;
  private held = false;

  /** `max`: the most it will ever be asked for. */
  constructor(private readonly max: number) {}

  /**
   * `size` bytes, uninitialised: the arena's own block when nobody holds it (then held until
   * `release`), else a new buffer; an ordinary one below REUSE_MIN.
   */
  get(size: number): Buffer {
    if (size < REUSE_MIN || this.held || size > this.max) return Buffer.allocUnsafe(size);
    const view = this.grown(size);
    if (!view) return Buffer.allocUnsafe(size);
    this.held = true;
    return view;
  }

  /** `buf` is from this arena (and so may be extended). */
  owns(buf: Uint8Array): boolean {
    return this.memory !== undefined && buf.buffer === this.memory.buffer;
  }

  /** The held block as `size` bytes, its first bytes kept (the views on the old size are detached). */
  extend(size: number): Buffer | undefined {
    return size <= this.max ? this.grown(size) : undefined;
  }

  /** `buf` (from `get`) is no longer read: the next `get` may reuse it. Other buffers: nothing. */
  release(buf: Uint8Array | undefined): void {
    if (buf !== undefined && this.owns(buf)) this.held = false;
  }

  private grown(size: number): Buffer | undefined {
    try {
      if (!WasmMemory) return undefined; // no WebAssembly (--jitless): ordinary buffers
      if (!this.memory) this.memory = new WasmMemory({ initial: pages(size), maximum: pages(this.max) });
      const have = this.memory.buffer.byteLength;
      if (have < size) this.memory.grow(pages(size) - have / PAGE);
    } catch {
      return undefined; // no address space for it: ordinary buffers
    }
    return Buffer.from(this.memory.buffer, 0, size);
  }
}

/** How far a body of unknown length grows the arena's block at a time. */
const STEP = 1024 * 1024;

/**
 * A body gathered as its chunks arrive: in the arena's block (grown as they come), or, when a
 * Content-Length says it is small, in an ordinary buffer of that size (moved on if more arrives), so
 * a small report never touches the arena. `take()` gives the bytes received; small ones in an
 * ordinary buffer (copied out of the arena, which is then free again).
 */
export class Accumulator {
  private buf: Buffer;
  size = 0;

  /** `hint`: the expected size (a Content-Length); the bytes received decide. */
  constructor(
    private readonly arena: Arena,
    readonly max: number,
    hint = 0,
  ) {
    this.buf =
      hint > 0 && hint < REUSE_MIN ? Buffer.allocUnsafe(hint) : arena.get(Math.min(max, hint || STEP));
  }

  /** Appends `chunk`; false (nothing appended) when it would pass `max`. */
  push(chunk: Uint8Array): boolean {
    const need = this.size + chunk.length;
    if (need > this.max) return false;
    if (need > this.buf.length) this.grow(Math.min(this.max, need + STEP));
    this.buf.set(chunk, this.size);
    this.size = need;
    return true;
  }

  private grow(size: number): void {
    const extended = this.arena.owns(this.buf) ? this.arena.extend(size) : undefined;
    if (extended) {
      this.buf = extended;
      return;
    }
    const bigger = this.arena.get(size);
    this.buf.copy(bigger, 0, 0, this.size);
    this.buf = bigger;
  }

  take(): Buffer {
    if (this.size >= REUSE_MIN || this.buf.length === this.size) return this.buf.subarray(0, this.size);
    const small = Buffer.from(this.buf.subarray(0, this.size));
    this.drop();
    return small;
  }

  /** The body is abandoned (cut off, too large), or copied out: the arena is free again. */
  drop(): void {
    this.arena.release(this.buf);
    this.size = 0;
  }
}
