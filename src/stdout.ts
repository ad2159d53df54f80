// For io.ts and the fast entry, so no node:stream here.
import { fstatSync, statSync, writeSync } from 'node:fs';
import { colorFor, redIf } from './color.js';
import { type FileError, fileError, StdoutClosedError } from './errors.js';

export function stdoutFault(err: unknown): StdoutClosedError | FileError {
  const code = (err as NodeJS.ErrnoException)?.code;
  return code === 'EPIPE' || code === 'ECONNRESET' || code === 'ERR_STREAM_DESTROYED'
    ? new StdoutClosedError()
    : fileError(err, 'stdout', 'cannot write to');
}

/** Without loading node:tty unless stdout is a character device other than /dev/null. */
export function stdoutIsTerminal(): boolean {
  if (process.platform === 'win32') return process.getBuiltinModule('node:tty').isatty(1);
  const st = fstatSync(1);
  if (!st.isCharacterDevice() || st.rdev === statSync('/dev/null').rdev) return false;
  return process.getBuiltinModule('node:tty').isatty(1);
}

/** One writeSync may take only part. A failure (EAGAIN too) throws with `written`: the bytes that went. */
export function writeAll(fd: number, bytes: Uint8Array, position?: number): void {
  let at = 0;
  try {
    while (at < bytes.length)
      at += writeSync(fd, bytes, at, bytes.length - at, position === undefined ? null : position + at);
  } catch (err) {
    throw Object.assign(err as NodeJS.ErrnoException, { written: at });
  }
}

/** Before the CLI's IO exists: undefined to go on, else the exit code; EAGAIN hands over to Node's stream. */
export function stdoutWriter(color: { flag?: boolean; env: Readonly<Record<string, string | undefined>> }) {
  let stream = false;
  return async (data: string | Uint8Array): Promise<number | undefined> => {
    const bytes = typeof data === 'string' ? Buffer.from(data) : data;
    let at = 0;
    let failure: unknown;
    if (!stream) {
      try {
        writeAll(1, bytes);
      } catch (err) {
        stream = (err as NodeJS.ErrnoException).code === 'EAGAIN';
        if (stream) at = (err as { written: number }).written;
        else failure = err;
      }
    }
    if (stream) failure = await streamWrite(bytes.subarray(at));
    if (!failure) return undefined;
    const fault = stdoutFault(failure);
    if (fault instanceof StdoutClosedError) return fault.exitCode;
    process.stderr.on('error', () => {});
    const isTTY = process.getBuiltinModule('node:tty').isatty(2);
    process.stderr.write(`${redIf(colorFor(color.flag, color.env, isTTY))(`prs: ${fault.message}`)}\n`);
    return fault.exitCode;
  };
}

function streamWrite(bytes: Uint8Array): Promise<unknown> {
  return new Promise((resolve) => {
    process.stdout.once('error', resolve);
    process.stdout.write(bytes, (err) => {
      process.stdout.off('error', resolve);
      resolve(err ?? undefined);
    });
  });
}
