/** All terminal I/O in one object (GitHub CLI's IOStreams); the tests' IO is the same over memory. */
import { PassThrough, Writable } from 'node:stream';
import { colorFor, redIf } from './color.js';
import { InterruptedError } from './errors.js';
import { entryFromText, formatLogLine, type LineKind, type LogEntry, type LogFields } from './log.js';
import { stdoutFault, writeAll } from './stdout.js';

export interface Progress {
  update(text: string): void;
  stop(): void;
}

export type IO = ReturnType<typeof createIO>;

export interface IOOptions {
  quiet?: boolean;
  verbose?: boolean;
  color?: boolean;
  env?: Readonly<Record<string, string | undefined>>;
  logFormat?: 'text' | 'json';
  stdout?: ReturnType<typeof guardStdout>;
  streams?: IOStreams;
  prompter?: (question: string, hidden: boolean) => Promise<string>;
  spinner?: (text: string, color: boolean) => Progress;
  now?: () => number;
}

type Terminal = { isTTY?: boolean; columns?: number; rows?: number };

interface IOStreams {
  stdout: NodeJS.WritableStream & Terminal;
  stderr: NodeJS.WritableStream & Terminal;
  /** Made on first use: process.stdin costs its creation. */
  stdin(): NodeJS.ReadableStream & { isTTY?: boolean };
}

/** A write error, thrown, passed to the callback or emitted, aborts `gone`; later writes drop. */
export function guardStdout(out: NodeJS.WritableStream) {
  const ac = new AbortController();
  const fault = (err: unknown) => {
    if (!ac.signal.aborted) ac.abort(stdoutFault(err));
  };
  out.on('error', fault);
  // Node's SyncWriteStream (stdout to a file) ignores a short write; written here in a loop, the
  // write after a short one fails with EFBIG/ENOSPC.
  const fd = out.constructor?.name === 'SyncWriteStream' ? (out as { fd?: number }).fd : undefined;
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      if (ac.signal.aborted || chunk.length === 0) return done();
      try {
        if (fd === undefined) {
          out.write(chunk, (err) => {
            if (err) fault(err);
            done();
          });
          return;
        }
        writeAll(fd, chunk);
      } catch (err) {
        fault(err);
      }
      done();
    },
  });
  stream.on('error', () => {}); // a write after the end is a bug of ours, never a crash on the way out
  // An empty chunk's callback comes after every earlier chunk's.
  const idle = () => new Promise<void>((resolve) => stream.write(Buffer.alloc(0), () => resolve()));
  return { stream, gone: ac.signal, idle };
}

const noProgress: Progress = { update() {}, stop() {} };

export function createIO(opts: IOOptions) {
  const { stdout, stderr, stdin } = opts.streams ?? {
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: () => process.stdin,
  };
  const guard = opts.stdout ?? guardStdout(stdout);
  const quiet = !!opts.quiet;
  const isStderrTTY = !!stderr.isTTY;
  const env = opts.env ?? {};
  const now = opts.now ?? Date.now;
  let json = opts.logFormat === 'json';
  const colorWanted = colorFor(opts.color, env, isStderrTTY);
  let stdinTTY: boolean | undefined;
  const isStdinTTY = () => (stdinTTY ??= !!stdin().isTTY);
  const prompter = opts.prompter ?? createPrompter();
  const showProgress = opts.spinner ?? spinner;
  const line = (kind: LineKind, text: string, fields?: LogFields) => {
    if (json) stderr.write(formatLogLine(entryFromText(kind, text, fields), now()));
    else stderr.write(text.endsWith('\n') ? text : `${text}\n`);
  };
  return {
    out: (text: string | Uint8Array) => void guard.stream.write(text),
    /** For raw bytes with backpressure (`export -o -`). */
    stdout: guard.stream,
    stdoutGone: guard.gone,
    err: (l: string) => line('err', l),
    warn: (l: string) => line('warning', l),
    note: (l: string) => {
      if (!quiet) line('note', l);
    },
    hint: (text: string) => {
      if (!quiet) line('hint', `hint: ${text}`);
    },
    /** Callers redact secrets first. */
    debug: (l: string, fields?: LogFields) => {
      if (opts.verbose) line('debug', l, fields);
    },
    isStdoutTTY: !!stdout.isTTY,
    isStderrTTY,
    get isStdinTTY() {
      return isStdinTTY();
    },
    get canPrompt() {
      return isStdinTTY() && isStderrTTY;
    },
    colorStdout: colorFor(opts.color, env, !!stdout.isTTY),
    red: (text: string) => redIf(colorWanted && !json)(text),
    columns: stdout.columns || stderr.columns || 80,
    quiet,
    verbose: !!opts.verbose,
    prompt: (question: string, o?: { hidden?: boolean }) => prompter(question, !!o?.hidden),
    readStdin: async () => (await import('node:stream/consumers')).text(stdin()),
    // A terminal that says it has 0 columns (a pty nobody sized, e.g. under `script`) gets none: ora
    // divides by the width and would redraw forever.
    progress: (text: string): Progress =>
      isStderrTTY && stderr.columns !== 0 && !quiet && !json ? showProgress(text, colorWanted) : noProgress,
    flush: () => Promise.all([guard.idle(), drain(stdout), drain(stderr)]).then(() => undefined),
    get logFormat(): 'text' | 'json' {
      return json ? 'json' : 'text';
    },
    useLogFormat: (format: 'text' | 'json') => {
      json = format === 'json';
    },
    log: (entry: LogEntry) => {
      if (json) stderr.write(formatLogLine(entry, now()));
    },
    page: async (text: string, o?: { pager?: boolean }) => {
      const command = pagerCommand(env);
      const tall = (stdout.rows ?? 0) > 0 && (text.match(/\n/g)?.length ?? 0) >= stdout.rows!;
      if (!stdout.isTTY || o?.pager === false || command === undefined || !tall)
        return void guard.stream.write(text);
      await guard.idle();
      if (!(await runPager(command, text))) guard.stream.write(text);
    },
  };
}

export function pagerCommand(env: Readonly<Record<string, string | undefined>>): string | undefined {
  const command = env.PRS_PAGER ?? env.PAGER ?? 'less -FRX';
  return command.trim() === '' || command.trim() === 'cat' ? undefined : command;
}

/** Through the shell, as git and gh run $PAGER; false when the pager could not be started. */
async function runPager(command: string, text: string): Promise<boolean> {
  const { spawn } = await import('node:child_process');
  return new Promise((resolve) => {
    const child = spawn(command, { shell: true, stdio: ['pipe', 'inherit', 'inherit'] });
    // Not started: 'error' comes before 'close', and the first answer stands.
    child.on('error', () => resolve(false));
    child.stdin.on('error', () => {}); // EPIPE: the reader quit before the end
    child.stdin.end(text);
    // 127: the shell found no such command.
    child.on('close', (code) => resolve(code !== 127));
  });
}

function drain(stream: NodeJS.WritableStream & { writableNeedDrain?: boolean }): Promise<void> {
  if (!stream.writableNeedDrain) return Promise.resolve();
  return new Promise((resolve) => {
    stream.once('drain', resolve);
    stream.once('error', resolve);
  });
}

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

/** npm's `read`, fed a line per prompt: the rest of a paste waits, unechoed, for the next prompt. */
function createPrompter(): (question: string, hidden: boolean) => Promise<string> {
  let ahead = '';
  return async (question, hidden) => {
    const { read } = await import('read');
    const stdin = process.stdin;
    const input = new PassThrough();
    let delivered = false;
    const feed = (text: string) => {
      const m = delivered ? null : /\r\n|\r|\n/.exec(text);
      const end = delivered ? 0 : m ? m.index + m[0].length : text.length;
      if (end > 0) input.write(text.slice(0, end));
      ahead += text.slice(end);
      if (m) delivered = true;
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
      // A hidden answer's newline is not echoed.
      if (hidden) process.stderr.write('\n');
    }
  };
}
