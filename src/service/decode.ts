/**
 * A 200's body with its Content-Encoding undone (CLI.md "Answers on the wire": prs asks for gzip and
 * deflate, and reads gzip, deflate and br, as a stream), for reports and exports alike. The --timeout
 * rule is undici's, on the bytes as they come off the wire (http.ts).
 */
import type { Readable } from 'node:stream';
import { ServiceError } from '../errors.js';

/** What prs asks for: gzip and deflate (br is read when sent, never asked for: its decoder is slower). */
export const ACCEPT_ENCODING = 'gzip, deflate';

/**
 * `body` decoded by `contentEncoding` (a list is undone last first); unchanged without one (or
 * `identity`). An encoding prs cannot read is a malformed answer (exit 8); a body that does not
 * decode fails its read with one (`malformedEncoding`).
 */
export function decodedBody(body: Readable, contentEncoding: string | undefined): Readable {
  const codings = (contentEncoding ?? '')
    .split(',')
    .map((c) => c.trim().toLowerCase())
    .filter((c) => c !== '' && c !== 'identity');
  if (codings.length === 0) return body;
  const zlib = process.getBuiltinModule('node:zlib');
  const { pipeline } = process.getBuiltinModule('node:stream');
  const stages: NodeJS.ReadWriteStream[] = [];
  for (const c of codings.reverse()) {
    if (c === 'gzip' || c === 'x-gzip') stages.push(zlib.createGunzip());
    // "deflate" is zlib-wrapped by the RFC, raw in some servers: zlib's unzip takes both? No: it takes
    // gzip and zlib; a raw stream is told by its first byte (a zlib header's low nibble is 8).
    else if (c === 'deflate') stages.push(inflateAny(zlib));
    else if (c === 'br') stages.push(zlib.createBrotliDecompress());
    else {
      body.destroy();
      throw new ServiceError(
        `malformed response from the service: a body in an encoding prs cannot read (${c})`,
        {
          hint: 'the service (or a gateway before it) compressed the answer in a way prs does not know',
        },
      );
    }
  }
  const out = (pipeline as (...s: unknown[]) => Readable)(body, ...stages, () => {});
  return out;
}

/** Whether an error is a decoder's (the body is not what its Content-Encoding says). */
export function isDecodeError(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  return (
    typeof code === 'string' &&
    (code.startsWith('Z_') || code.startsWith('ERR_BROTLI') || code === 'ERR__ZLIB_INITIALIZATION_FAILED')
  );
}

/** The malformed-answer error for a body its Content-Encoding does not decode. */
export function malformedEncoding(err: unknown): ServiceError {
  return new ServiceError(
    `malformed response from the service: the body does not decode as its Content-Encoding says (${(err as Error).message})`,
    {
      cause: err,
      hint: 'the service sent a broken answer; try again later, and tell its operators if it persists',
    },
  );
}

/** Inflates a zlib-wrapped or a raw deflate stream, told apart by the first byte. */
function inflateAny(zlib: typeof import('node:zlib')): NodeJS.ReadWriteStream {
  const { Transform } = process.getBuiltinModule('node:stream');
  let inner: import('node:zlib').Inflate | import('node:zlib').InflateRaw | undefined;
  return new Transform({
    transform(chunk: Buffer, _enc, done) {
      if (!inner) {
        inner = (chunk[0]! & 0x0f) === 8 ? zlib.createInflate() : zlib.createInflateRaw();
        inner.on('data', (d: Buffer) => this.push(d));
        inner.on('error', (e) => this.destroy(e));
      }
      if (inner.write(chunk)) done();
      else inner.once('drain', () => done());
    },
    flush(done) {
      if (!inner) return done();
      inner.once('end', () => done());
      inner.end();
    },
  });
}
