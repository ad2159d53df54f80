/**
 * stdout's rule (CLI.md "Output that scripts can trust"), written once for the CLI's IO (io.ts
 * guardStdout) and the fast entry (fast.ts, hit.ts): a reader that went away ends the run
 * silently with exit 0; any other write failure is exit 10, said in one line. No node:stream here:
 * the fast entry loads this before anything else.
 */
import { fstatSync, statSync, writeSync } from 'node:fs';
import { colorFor, redIf } from './color.js';
import { type FileError, fileError, StdoutClosedError } from './errors.js';

/** What a write error on stdout means: the reader left (exit 0, silent), or a failure (exit 10). */
export function stdoutFault(err: unknown): StdoutClosedError | FileError {
  const code = (err as NodeJS.ErrnoException)?.code;
  return code === 'EPIPE' || code === 'ECONNRESET' || code === 'ERR_STREAM_DESTROYED'
    ? new StdoutClosedError()
    : fileError(err, 'stdout', 'cannot write to');
}

/**
 * Whether stdout is a terminal, without loading node:tty unless it may be one: a pipe or a file is
 * not a character device, and /dev/null (the one a script most often gives) is told by its device
 * number; any other character device is asked of node:tty.
 */
export function stdoutIsTerminal(): boolean {
  if (process.platform === 'win32') return process.getBuiltinModule('node:tty').isatty(1);
  const st = fstatSync(1);
  if (!st.isCharacterDevice() || st.rdev === statSync('/dev/null').rdev) return false;
  return process.getBuiltinModule('node:tty').isatty(1);
}

/**
 * Writes to fd 1 whole, for code that runs before the CLI's IO exists: undefined to go on, else the
 * exit code the run ends with (the failure said on stderr, red when `color` says so). A non-blocking
 * stdout (inherited from a parent that made it so) is handed to Node's stream for the rest: only it
 * can wait for room.
 */
export function stdoutWriter(color: { flag?: boolean; env: Readonly<Record<string, string | undefined>> }) {
  let stream = false;
  return async (data: string | Buffer): Promise<number | undefined> => {
    const bytes = typeof data === 'string' ? Buffer.from(data) : data;
    let at = 0;
    let failure: unknown;
    try {
      if (!stream) while (at < bytes.length) at += writeSync(1, bytes, at, bytes.length - at);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EAGAIN') stream = true;
      else failure = err;
    }
    if (stream && at < bytes.length) failure = await streamWrite(bytes.subarray(at));
    if (!failure) return undefined;
    const fault = stdoutFault(failure);
    if (fault instanceof StdoutClosedError) return fault.exitCode;
    process.stderr.on('error', () => {}); // a closed stderr changes no exit code (as main.ts)
    const isTTY = process.getBuiltinModule('node:tty').isatty(2);
    process.stderr.write(`${redIf(colorFor(color.flag, color.env, isTTY))(`prs: ${fault.message}`)}\n`);
    return fault.exitCode;
  };
}

/** Through process.stdout: its write error, if any. */
function streamWrite(bytes: Buffer): Promise<unknown> {
  return new Promise((resolve) => {
    const failed = (err: unknown) => resolve(err);
    process.stdout.once('error', failed);
    process.stdout.write(bytes, (err) => {
      process.stdout.off('error', failed);
      resolve(err ?? undefined);
    });
  });
}
