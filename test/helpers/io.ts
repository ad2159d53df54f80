/** createIO over in-memory streams (gh's iostreams.Test()): the one IO, not a second implementation. */
import { Readable, Writable } from 'node:stream';
import { createIO, type IOOptions } from '../../src/io.js';

export type TestIO = ReturnType<typeof createTestIO>;

interface TestIOOptions extends Pick<IOOptions, 'quiet' | 'verbose' | 'color' | 'env' | 'logFormat'> {
  isStdoutTTY?: boolean;
  isStderrTTY?: boolean;
  isStdinTTY?: boolean;
  /** Default 120. */
  columns?: number;
  /** Fed to prompts in order; a prompt with none left fails the test. */
  answers?: string[];
  stdin?: string;
  /** Default: a fixed instant. */
  now?: () => number;
  stdoutGone?: AbortSignal;
}

/** createIO over memory (gh's iostreams.Test()); progress is written as `[progress] <text>` lines. */
export function createTestIO(o: TestIOOptions = {}) {
  const memory = (into: Buffer[], tty: boolean) =>
    Object.assign(
      new Writable({
        write(chunk, _enc, cb) {
          into.push(Buffer.from(chunk));
          cb();
        },
      }),
      { isTTY: tty, columns: o.columns ?? 120 },
    );
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  const stdout = memory(out, !!o.isStdoutTTY);
  const stderr = memory(err, !!o.isStderrTTY);
  const answers = [...(o.answers ?? [])];
  const io = createIO({
    ...o,
    streams: {
      stdout,
      stderr,
      stdin: () => Object.assign(Readable.from([Buffer.from(o.stdin ?? '')]), { isTTY: !!o.isStdinTTY }),
    },
    stdout: { stream: stdout, gone: o.stdoutGone ?? new AbortController().signal, idle: async () => {} },
    now: o.now ?? (() => Date.UTC(2024, 4, 3, 6, 0, 0)),
    prompter: async (question) => {
      stderr.write(question);
      const answer = answers.shift();
      if (answer === undefined) throw new Error(`unexpected prompt: ${question}`);
      return answer;
    },
    spinner: (text) => {
      stderr.write(`[progress] ${text}\n`);
      return { update: (t) => stderr.write(`[progress] ${t}\n`), stop() {} };
    },
  });
  return Object.assign(io, {
    stdoutText: () => Buffer.concat(out).toString('utf8'),
    stdoutBytes: () => Buffer.concat(out),
    stderrText: () => Buffer.concat(err).toString('utf8'),
  });
}
