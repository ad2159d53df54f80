// A 200's body with its Content-Encoding undone, and the errors of a 200 whose body is not a report.
import type { Readable } from 'node:stream';
import { ServiceError } from '../errors.js';

const BROKEN_ANSWER =
  'the service sent a broken answer; try again later, and tell its operators if it persists';

/** A 200 whose body is not a report. `broken`: the service's JSON is broken; else the URL is suspect. */
export function malformedResponse(
  why: string,
  contentType: string | undefined,
  baseUrl: string,
  broken = false,
) {
  return new ServiceError(
    `malformed response from the service: ${why}${contentType ? ` (${contentType})` : ''}`,
    {
      hint: broken ? BROKEN_ANSWER : `check the base URL (${baseUrl}); it should point at the report service`,
    },
  );
}

/** br is read when sent, never asked for: its decoder is slower. */
export const ACCEPT_ENCODING = 'gzip, deflate';

/** `body` decoded (a list undone last first). */
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
    // "deflate" is zlib-wrapped by the RFC, raw from some servers.
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
  return (pipeline as (...s: unknown[]) => Readable)(body, ...stages, () => {});
}

/** A decoder's error as a malformed response; any other error as it is. */
export function decodeFailure(err: unknown): unknown {
  const code = (err as NodeJS.ErrnoException | undefined)?.code ?? '';
  if (!/^(Z_|ERR_BROTLI|ERR__ZLIB_INITIALIZATION_FAILED)/.test(code)) return err;
  return new ServiceError(
    `malformed response from the service: the body does not decode as its Content-Encoding says (${(err as Error).message})`,
    { cause: err, hint: BROKEN_ANSWER },
  );
}

/** A zlib-wrapped or raw deflate stream, told apart by the first byte (a zlib header's low nibble is 8). */
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
