/** Output built in one buffer, reused from batch to batch (a chunk taken is valid until the next). */
export class Bytes {
  buf = Buffer.allocUnsafe(64 * 1024);
  n = 0;

  room(k: number): void {
    if (this.n + k <= this.buf.length) return;
    const grown = Buffer.allocUnsafe(Math.max(2 * this.buf.length, this.n + k));
    this.buf.copy(grown, 0, 0, this.n);
    this.buf = grown;
  }

  /** Short ranges by hand: a native call costs more. */
  copy(src: Uint8Array, start: number, end: number): void {
    this.room(end - start);
    const buf = this.buf;
    if (end - start < 32) {
      let n = this.n;
      for (let i = start; i < end; i++) buf[n++] = src[i]!;
      this.n = n;
    } else {
      buf.set(src.subarray(start, end), this.n);
      this.n += end - start;
    }
  }

  byte(c: number): void {
    this.room(1);
    this.buf[this.n++] = c;
  }

  text(s: string): void {
    this.room(3 * s.length);
    this.n += this.buf.write(s, this.n);
  }

  take(): Buffer {
    const out = this.buf.subarray(0, this.n);
    this.n = 0;
    return out;
  }
}
