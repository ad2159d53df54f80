/**
 * All terminal I/O in one object, in the manner of GitHub CLI's IOStreams: commands write through it
 * and never touch `process.*`. `createTestIO()` is the same IO over in-memory streams.
 */
import { writeSync } from 'node:fs';
import { Readable, Writable } from 'node:stream';
import { colorFor, redIf } from './color.js';
import { entryFromText, formatLogLine, type LineKind, type LogEntry } from './log.js';
import { stdoutFault } from './stdout.js';

export interface Progress {
  /** Replace the progress line (a spinner on a terminal; nothing otherwise). */
  update(text: string): void;
  /** Remove the progress line. */
  stop(): void;
}

export interface IO {
  /** Data for stdout (rows, paths, tokens). */
  out(text: string | Uint8Array): void;
  /** The stdout stream itself, for streaming raw bytes with backpressure (`export -o -`). */
  readonly stdout: Writable;
  /**
   * Aborted once stdout can take no more: its reader went away (reason: StdoutClosedError, exit 0)
   * or a write failed (reason: a FileError "cannot write to stdout: …", exit 10). Writes after that
   * are dropped; a run stops on it (src/run/engine.ts) and main ends with its reason.
   */
  readonly stdoutGone: AbortSignal;
  /** A line on stderr, always (errors, confirmations that scripts may want to see). */
  err(line: string): void;
  /** A note or hint on stderr; silenced by -q. */
  note(line: string): void;
  /** One line per HTTP exchange on stderr; only with -v. Callers redact secrets first. */
  debug(line: string): void;
  readonly isStdoutTTY: boolean;
  readonly isStderrTTY: boolean;
  readonly isStdinTTY: boolean;
  /** Prompting is allowed: stdin and stderr are terminals. */
  readonly canPrompt: boolean;
  /** Colour on stderr (errors, the spinner); decided once, by colorFor. */
  readonly color: boolean;
  /** Colour on stdout (table headers): the same rule, for stdout's own terminal. */
  readonly colorStdout: boolean;
  /** Text for stderr in the error colour (red), or as it is when colour is off. */
  red(text: string): string;
  /** Terminal width for tables (80 when unknown). */
  readonly columns: number;
  readonly quiet: boolean;
  readonly verbose: boolean;
  /** Ask on stderr, read a line from the terminal; `hidden` echoes nothing (passwords, secrets). */
  prompt(question: string, opts?: { hidden?: boolean }): Promise<string>;
  /** All of stdin as text (for --password-stdin). */
  readStdin(): Promise<string>;
  /** A progress line on stderr, shown only when stderr is a terminal and not quiet. */
  progress(text: string): Progress;
  /** Resolves when everything written to stdout/stderr has been flushed. */
  flush(): Promise<void>;
  /** `json`: every stderr line goes out as one JSON object (log.ts); no progress, no colour. */
  readonly logFormat: 'text' | 'json';
  /** The profile's `log-format`, known once the settings are resolved (flag and env are known at once). */
  useLogFormat(format: 'text' | 'json'): void;
  /** A structured entry (a run's item, wait, summary): one JSON line in json format; nothing in text. */
  log(entry: LogEntry): void;
  /**
   * Text for a person on stdout (a table): through a pager when stdout is a terminal and the text is
   * taller than it, as GitHub CLI does — PRS_PAGER, else PAGER, else `less -FRX`; PRS_PAGER set empty,
   * or `pager: false` (--no-pager), writes it straight. Quitting the pager early is no failure.
   */
  page(text: string, o?: { pager?: boolean }): Promise<void>;
}

export interface IOOptions {
  quiet?: boolean;
  verbose?: boolean;
  /** The --no-color flag (false); undefined leaves it to the environment and the terminal. */
  color?: boolean;
  /** NO_COLOR, FORCE_COLOR and TERM are read from it. */
  env?: Readonly<Record<string, string | undefined>>;
  /** --log-format (else PRS_LOG_FORMAT): `json` from the start; a profile's value comes via useLogFormat. */
  logFormat?: 'text' | 'json';
  /** The process's stdout guard (main makes it first, before any output); else one is made here. */
  stdout?: StdoutGuard;
  /** The streams, as gh's IOStreams: the process's by default; createTestIO hands in memory ones. */
  streams?: IOStreams;
  /** Asks at a prompt (default: the terminal, through npm's `read`). */
  prompter?: (question: string, hidden: boolean) => Promise<string>;
  /** Shows progress once the IO has decided to (default: ora, loaded when first shown). */
  spinner?: (text: string, color: boolean) => Progress;
  /** The time put on JSON lines. */
  now?: () => number;
}

/** A stream as the IO reads it: its terminal, if any, and size. */
type Terminal = { isTTY?: boolean; columns?: number; rows?: number };

export interface IOStreams {
  stdout: NodeJS.WritableStream & Terminal;
  stderr: NodeJS.WritableStream & Terminal;
  /** Made on first use: process.stdin costs its creation (only prompts and --password-stdin read it). */
  stdin(): NodeJS.ReadableStream & { isTTY?: boolean };
}

const processStreams: IOStreams = {
  stdout: process.stdout,
  stderr: process.stderr,
  stdin: () => process.stdin,
};

/** stdout behind a writer that owns its write errors (see IO.stdoutGone). */
export interface StdoutGuard {
  stream: Writable;
  gone: AbortSignal;
  /** Resolves when every chunk written so far was handed to stdout (or dropped). */
  idle(): Promise<void>;
}

/**
 * Wraps `out` (process.stdout) so that no write error escapes as an exception or an 'error' event
 * (unhandled, Node prints the bundle's source and a stack): EPIPE/ECONNRESET (the reader left) and
 * any other failure (ENOSPC on /dev/full, EFBIG past `ulimit -f`, EIO) abort `gone` with their
 * meaning, and what comes after is dropped. A write failure can come three ways: thrown by write
 * (a file's synchronous stream), to write's callback, or as an 'error' event; all three land here.
 * Backpressure is kept: a chunk is done when `out` has taken it.
 */
export function guardStdout(out: NodeJS.WritableStream): StdoutGuard {
  const ac = new AbortController();
  const fault = (err: unknown) => {
    if (!ac.signal.aborted) ac.abort(stdoutFault(err));
  };
  out.on('error', fault);
  // stdout to a file (or /dev/full) is Node's SyncWriteStream, which ignores a short write: past
  // `ulimit -f` or the end of a small disk, the rest of the chunk is lost and the write "succeeds".
  // Written here instead, in a loop: the write after a short one fails with EFBIG/ENOSPC.
  const fd = out.constructor?.name === 'SyncWriteStream' ? (out as { fd?: number }).fd : undefined;
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      if (ac.signal.aborted || chunk.length === 0) return done();
      if (typeof fd === 'number') {
        try {
          for (let at = 0; at < chunk.length; ) at += writeSync(fd, chunk, at, chunk.length - at);
        } catch (err) {
          fault(err);
        }
        return done();
      }
      try {
        out.write(chunk, (err) => {
          if (err) fault(err);
          done();
        });
      } catch (err) {
        fault(err);
        done();
      }
    },
  });
  stream.on('error', () => {}); // a write after the end is a bug of ours, never a crash on the way out
  // An empty chunk passes through write() in order: its callback comes after every earlier chunk's.
  const idle = () => new Promise<void>((resolve) => stream.write(Buffer.alloc(0), () => resolve()));
  return { stream, gone: ac.signal, idle };
}

const noProgress: Progress = { update() {}, stop() {} };

export function createIO(opts: IOOptions): IO {
  const { stdout, stderr, stdin } = opts.streams ?? processStreams;
  const guard = opts.stdout ?? guardStdout(stdout);
  const quiet = !!opts.quiet;
  const isStderrTTY = !!stderr.isTTY;
  const env = opts.env ?? {};
  const now = opts.now ?? Date.now;
  let json = opts.logFormat === 'json';
  const colorWanted = colorFor(opts.color, env, isStderrTTY);
  let stdinTTY: boolean | undefined;
  const isStdinTTY = () => {
    stdinTTY ??= !!stdin().isTTY;
    return stdinTTY;
  };
  const prompter = opts.prompter ?? createPrompter();
  const showProgress = opts.spinner ?? spinner;
  // The stderr side: one writer, so every line takes the same path to text or to JSON.
  const line = (kind: LineKind, text: string) => {
    if (json) stderr.write(formatLogLine(entryFromText(kind, text), now()));
    else stderr.write(text.endsWith('\n') ? text : `${text}\n`);
  };
  return {
    out: (text) => {
      guard.stream.write(text);
    },
    stdout: guard.stream,
    stdoutGone: guard.gone,
    err: (l) => line('err', l),
    note: (l) => {
      if (!quiet) line('note', l);
    },
    debug: (l) => {
      if (opts.verbose) line('debug', l);
    },
    isStdoutTTY: !!stdout.isTTY,
    isStderrTTY,
    get isStdinTTY() {
      return isStdinTTY();
    },
    get canPrompt() {
      return isStdinTTY() && isStderrTTY;
    },
    get color() {
      return colorWanted && !json;
    },
    colorStdout: colorFor(opts.color, env, !!stdout.isTTY),
    red: (text) => redIf(colorWanted && !json)(text),
    columns: stdout.columns || stderr.columns || 80,
    quiet,
    verbose: !!opts.verbose,
    prompt: (question, o) => prompter(question, !!o?.hidden),
    readStdin: async () => {
      const chunks: Buffer[] = [];
      for await (const chunk of stdin()) chunks.push(Buffer.from(chunk));
      return Buffer.concat(chunks).toString('utf8');
    },
    progress: (text) => (isStderrTTY && !quiet && !json ? showProgress(text, colorWanted) : noProgress),
    flush: () => Promise.all([guard.idle(), drain(stdout), drain(stderr)]).then(() => undefined),
    get logFormat() {
      return json ? 'json' : 'text';
    },
    useLogFormat: (format) => {
      json = format === 'json';
    },
    log: (entry) => {
      if (json) stderr.write(formatLogLine(entry, now()));
    },
    page: async (text, o) => {
      const command = pagerCommand(env);
      const tall = (stdout.rows ?? 0) > 0 && lineCount(text) >= stdout.rows!;
      if (!stdout.isTTY || o?.pager === false || command === undefined || !tall) {
        guard.stream.write(text);
        return;
      }
      await guard.idle();
      if (!(await runPager(command, text))) guard.stream.write(text);
    },
  };
}

/** The pager to use: PRS_PAGER, else PAGER, else `less -FRX`; undefined when set empty (off). */
export function pagerCommand(env: Readonly<Record<string, string | undefined>>): string | undefined {
  const command = env.PRS_PAGER ?? env.PAGER ?? 'less -FRX';
  return command.trim() === '' || command.trim() === 'cat' ? undefined : command;
}

function lineCount(text: string): number {
  let n = 0;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) n++;
  return n;
}

/**
 * `command` (through the shell, as git and gh run $PAGER) with `text` on its stdin and the terminal
 * as its output; resolves when it exits. A reader that quits early (`q` in less) closes the pipe: that
 * EPIPE is expected. False when the pager could not be started (the text is then written straight).
 */
async function runPager(command: string, text: string): Promise<boolean> {
  const { spawn } = await import('node:child_process');
  return new Promise((resolve) => {
    let started = true;
    const child = spawn(command, { shell: true, stdio: ['pipe', 'inherit', 'inherit'] });
    child.on('error', () => {
      started = false;
      resolve(false);
    });
    child.stdin.on('error', () => {}); // EPIPE: the reader quit before the end
    child.stdin.end(text);
    // 127: the shell found no such command.
    child.on('close', (code) => resolve(started && code !== 127));
  });
}

function drain(stream: NodeJS.WritableStream & { writableNeedDrain?: boolean }): Promise<void> {
  if (!stream.writableNeedDrain) return Promise.resolve();
  return new Promise((resolve) => {
    stream.once('drain', resolve);
    stream.once('error', resolve);
  });
}

/** A spinner that loads ora only when first shown, so the start-up path never pays for it. */
function spinner(text: string, color: boolean): Progress {
  let stopped = false;
  let current = text;
  let instance: { text: string; stop(): void } | undefined;
  void import('ora').then(({ default: ora }) => {
    if (stopped) return;
    instance = ora({
      text: current,
      stream: process.stderr,
      color: color ? 'cyan' : false,
      discardStdin: false,
    }).start();
  });
  return {
    update(t) {
      current = t;
      if (instance) instance.text = t;
    },
    stop() {
      stopped = true;
      instance?.stop();
    },
  };
}

/**
 * Terminal prompts through npm's `read` (hidden input: `silent`). stdin is read here and handed to
 * `read` one line per prompt: what arrives after a prompt's line (a paste of several answers comes
 * in one read) is kept for the next prompt of this IO instead of being lost, and is never echoed
 * before its own prompt, as it may be that prompt's secret. Ctrl-C at a prompt is an interrupt (130).
 */
function createPrompter(): (question: string, hidden: boolean) => Promise<string> {
  let ahead = '';
  return async (question, hidden) => {
    const [{ read }, { PassThrough }, { InterruptedError }] = await Promise.all([
      import('read'),
      import('node:stream'),
      import('./errors.js'),
    ]);
    const stdin = process.stdin;
    const input = new PassThrough();
    let delivered = false;
    const feed = (text: string) => {
      if (delivered) {
        ahead += text;
        return;
      }
      const m = /\r\n|\r|\n/.exec(text);
      if (!m) {
        input.write(text);
        return;
      }
      delivered = true;
      const end = m.index + m[0].length;
      input.write(text.slice(0, end));
      ahead += text.slice(end);
    };
    const onData = (chunk: Buffer) => feed(chunk.toString('utf8'));
    const wasRaw = stdin.isRaw;
    stdin.setRawMode?.(true);
    const pending = ahead;
    ahead = '';
    try {
      const answer = read({
        prompt: question,
        silent: hidden,
        input,
        output: process.stderr,
        terminal: true,
      });
      if (pending) feed(pending);
      if (!delivered) stdin.on('data', onData).resume();
      return await answer;
    } catch (err) {
      if ((err as Error).message === 'canceled') throw new InterruptedError();
      throw err;
    } finally {
      stdin.off('data', onData);
      stdin.pause();
      stdin.setRawMode?.(wasRaw);
      // A hidden answer ends the prompt's line too.
      if (hidden) process.stderr.write('\n');
    }
  };
}

export interface TestIO extends IO {
  stdoutText(): string;
  stdoutBytes(): Buffer;
  stderrText(): string;
}

export interface TestIOOptions extends Pick<IOOptions, 'quiet' | 'verbose' | 'color' | 'env' | 'logFormat'> {
  isStdoutTTY?: boolean;
  isStderrTTY?: boolean;
  isStdinTTY?: boolean;
  /** The terminal's width (default 120). */
  columns?: number;
  /** Fed to prompts in order; a prompt with none left fails the test. */
  answers?: string[];
  /** What readStdin reads. */
  stdin?: string;
  /** The time put on JSON lines (default: a fixed instant, so a test's expected lines are exact). */
  now?: () => number;
  /** Abort it to play a stdout that went away or failed. */
  stdoutGone?: AbortSignal;
}

/**
 * createIO over in-memory streams, as gh's iostreams.Test(): the same decisions (colour, progress,
 * JSON lines) over buffers. A prompt writes its question to stderr and takes the next answer; the
 * progress line is written as `[progress] <text>` lines.
 */
export function createTestIO(o: TestIOOptions = {}): TestIO {
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
