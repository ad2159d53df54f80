/**
 * The entry point. The only try/catch that decides exit codes and the only process.exit: every error
 * becomes one `prs: <message>` line (plus at most one hint) and the exit code of CLI.md.
 */
import { CommanderError } from 'commander';
import { buildProgram, type CommandName, type Runner } from './cli.js';
import { createDeps, type Deps, type ProcessSwitches } from './deps.js';
import {
  AuthError,
  ExitCode,
  FileError,
  ForbiddenError,
  HttpError,
  InterruptedError,
  ItemsFailedError,
  NetworkError,
  NoDataError,
  NotFoundError,
  PrsError,
  RateLimitError,
  ServiceError,
  UsageError,
} from './errors.js';
import { temporaries } from './fs/temporaries.js';
import { isClose } from './input.js';
import { createIO, type IO } from './io.js';
import { redactText } from './redact.js';
import { type Env, isDebug } from './settings.js';

declare const __PRS_VERSION__: string;
export const VERSION = typeof __PRS_VERSION__ === 'string' ? __PRS_VERSION__ : '0.0.0-dev';

type CommandFn = (options: never, deps: Deps) => Promise<unknown>;

/** Each command's module, loaded only when that command runs. */
const COMMANDS: Record<CommandName, () => Promise<CommandFn>> = {
  login: () => import('./commands/login.js').then((m) => m.login as CommandFn),
  logout: () => import('./commands/logout.js').then((m) => m.logout as CommandFn),
  'auth.status': () => import('./commands/auth.js').then((m) => m.authStatus as CommandFn),
  'auth.token': () => import('./commands/auth.js').then((m) => m.authToken as CommandFn),
  config: () => import('./commands/config.js').then((m) => m.config as CommandFn),
  report: () => import('./commands/report.js').then((m) => m.report as CommandFn),
  export: () => import('./commands/export.js').then((m) => m.exportCommand as CommandFn),
  completion: () => import('./commands/completion.js').then((m) => m.completion as CommandFn),
  sandbox: () => import('./commands/sandbox.js').then((m) => m.sandbox as CommandFn),
  cache: () => import('./commands/cache.js').then((m) => m.cache as CommandFn),
  quota: () => import('./commands/quota.js').then((m) => m.quota as CommandFn),
  'help.exit-codes': () => import('./commands/help.js').then((m) => m.exitCodes as CommandFn),
};

/** The contract's exit code for any thrown value. The single place where this is decided. */
export function exitCodeFor(err: unknown): number {
  switch (true) {
    case err instanceof ItemsFailedError:
      return exitCodeFor(err.first);
    case err instanceof CommanderError:
      return err.exitCode === 0 || err.code === 'commander.help' ? ExitCode.ok : ExitCode.usage;
    case err instanceof UsageError:
      return ExitCode.usage;
    case err instanceof NoDataError:
      return ExitCode.noData;
    case err instanceof AuthError:
      return ExitCode.auth;
    case err instanceof ForbiddenError:
      return ExitCode.forbidden;
    case err instanceof NotFoundError:
      return ExitCode.notFound;
    case err instanceof RateLimitError:
      return ExitCode.rateLimited;
    case err instanceof HttpError:
      // Any other status that reached here: 400 is the caller's input, the rest the service's fault.
      return err.status === 400 ? ExitCode.usage : err.status === 401 ? ExitCode.auth : ExitCode.service;
    case err instanceof ServiceError:
      return ExitCode.service;
    case err instanceof NetworkError:
      return ExitCode.network;
    case err instanceof FileError:
      return ExitCode.file;
    case err instanceof InterruptedError:
      return ExitCode.interrupted;
    default:
      return ExitCode.internal;
  }
}

const CONTROL_ESCAPES: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/**
 * Control and bidi characters (from argv or a server: a newline, a terminal escape sequence) shown
 * escaped, never obeyed: an error stays one line and cannot rewrite the user's terminal.
 */
export function printable(s: string): string {
  return s.replace(
    /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g,
    (c) => CONTROL_ESCAPES[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/**
 * `-q` / `--quiet` in an argv that commander may have refused: also inside a group of short flags
 * (`-qv`, `-vq`), where every letter before the q is a flag without a value (`-oq` is `-o q`).
 */
export function quietInArgv(argv: readonly string[]): boolean {
  for (const arg of argv) {
    if (arg === '--') return false;
    if (arg === '--quiet' || /^-[vhV]*q/.test(arg)) return true;
  }
  return false;
}

/** The one or two stderr lines for an error. */
export function errorLines(err: unknown, debug: boolean): string[] {
  if (err instanceof CommanderError) {
    // Commander puts its suggestion on a line of its own; any other newline came from the user.
    const text = err.message.replace(/^error: /, '');
    const suggestion = /\n\(Did you mean (?:one of )?([^\n]*)\?\)$/.exec(text);
    let first = suggestion ? text.slice(0, suggestion.index) : text;
    // Commander suggests whatever is least far, however far (`bogus` → logout): keep only what is close.
    const word = /'([^']*)'/.exec(first)?.[1]?.replace(/^-+|=.*$/g, '') ?? '';
    const close = (suggestion?.[1] ?? '').split(', ').filter((c) => c && isClose(word, c.replace(/^-+/, '')));
    // `--password=hunter2` is not an option; say so without echoing the value into logs.
    if (err.code === 'commander.unknownOption') first = first.replace(/'(--?[^=']+)=[^']*'/, "'$1=…'");
    return [
      `prs: ${printable(first)}`,
      close.length ? printable(`did you mean ${close.join(' or ')}?`) : 'run `prs --help` for usage',
    ];
  }
  if (err instanceof PrsError) {
    const lines = [`prs: ${printable(redactText(err.message))}`];
    if (err.hint) lines.push(`hint: ${printable(err.hint)}`);
    if (debug && err.stack) lines.push(err.stack);
    return lines;
  }
  const e = err as Error;
  const lines = [`prs: internal error: ${printable(redactText(e?.message ?? String(err)))}`];
  lines.push(debug && e?.stack ? e.stack : 'run again with PRS_DEBUG=1 for details, and please report it');
  return lines;
}

/**
 * A reader that went away (`prs --help | head -3`, `prs report … | head`) got what it wanted: the
 * rest of the output is dropped and the command ends as it would have, as `export -o -` does, instead
 * of Node's EPIPE crash. Any other write error on stdout still surfaces. Left on until the process
 * exits (unlike the signal handlers): the EPIPE can arrive while the last output drains.
 */
function ignoreBrokenPipe(err: NodeJS.ErrnoException): void {
  if (err.code !== 'EPIPE') throw err;
}

/** The signals prs owns, and the exit code each ends a run with (CLI.md). */
const SIGNAL_EXIT_CODES = { SIGINT: ExitCode.interrupted, SIGTERM: ExitCode.terminated } as const;
export type OwnedSignal = keyof typeof SIGNAL_EXIT_CODES;

/**
 * Makes `handler` the owner of SIGINT and SIGTERM until the returned function is called.
 * Libraries hook them too, and conf's atomic writer (atomically, through when-exit) re-raises the
 * signal after its own cleanup: that second signal read as a second Ctrl-C and left at once, without
 * removing the export's temporary file or saying why (issue 18). So any other listener is dropped as
 * soon as it is added; the libraries' 'exit' hooks, which do their cleanup, stay.
 */
export function ownSignals(handler: (signal: OwnedSignal) => void): () => void {
  const listener = (signal: OwnedSignal) => handler(signal);
  const foreign = (event: string | symbol, added: (...args: unknown[]) => void) => {
    // Called before the listener is added: remove it once it is there (before any signal can come).
    if (Object.hasOwn(SIGNAL_EXIT_CODES, event) && added !== listener)
      process.nextTick(() => process.off(event, added));
  };
  process.on('newListener', foreign);
  for (const signal of Object.keys(SIGNAL_EXIT_CODES)) process.on(signal, listener);
  return () => {
    process.off('newListener', foreign);
    for (const signal of Object.keys(SIGNAL_EXIT_CODES)) process.off(signal, listener);
  };
}

export async function main(argv: string[], env: Env, switches: ProcessSwitches = {}): Promise<number> {
  const controller = new AbortController();
  let received: OwnedSignal | undefined;
  const interruptedLine = 'prs: interrupted\n';
  let said = false; // the line is said once, also when a second signal comes while the run winds down
  const leaveNow = () => {
    temporaries.removeAllSync();
    if (!said) process.stderr.write(interruptedLine);
    process.exit(SIGNAL_EXIT_CODES[received ?? 'SIGINT']);
  };
  const releaseSignals = ownSignals((signal) => {
    if (received) return leaveNow(); // a second Ctrl-C: leave now
    received = signal;
    controller.abort(new InterruptedError());
    // Commands clean up through their finally blocks; never hang on a stuck one.
    setTimeout(leaveNow, 5000).unref();
  });
  process.stdout.on('error', ignoreBrokenPipe);

  let io: IO | undefined;
  let deps: Deps | undefined;
  const debug = isDebug(env);
  const run: Runner = async (name, options, globals) => {
    const command = COMMANDS[name]();
    io = createIO({ quiet: globals.quiet, verbose: globals.verbose, color: globals.color, env });
    deps = createDeps(io, env, globals, controller.signal, switches);
    await (await command)(options as never, deps);
  };

  const program = buildProgram({ version: VERSION, run });
  program.exitOverride();
  program.configureOutput({
    // Commander's own errors are re-printed below in the contract's format.
    outputError: () => {},
  });
  for (const sub of program.commands) applyRecursively(sub);

  try {
    await program.parseAsync(argv);
    return ExitCode.ok;
  } catch (err) {
    // Once a signal came, whatever the command threw on its way out (an aborted request, a stream
    // destroyed mid-write) is the interrupt.
    const code = received ? SIGNAL_EXIT_CODES[received] : exitCodeFor(err);
    if (code !== ExitCode.ok) {
      const lines = received ? [interruptedLine.trimEnd()] : errorLines(err, debug);
      said = received !== undefined;
      // The parsed flags once a command ran; before that (a parse or usage error) read them from argv.
      const errIo = io ?? createIO({ color: argv.includes('--no-color') ? false : undefined, env });
      const quiet = io ? io.quiet : quietInArgv(argv);
      process.stderr.write(`${errIo.red(lines[0])}\n`);
      for (const line of lines.slice(1))
        if (!quiet || line.startsWith('prs:')) process.stderr.write(`${line}\n`);
    }
    return code;
  } finally {
    releaseSignals();
    await deps?.close().catch(() => {});
    await io?.flush();
  }

  function applyRecursively(cmd: typeof program): void {
    cmd.exitOverride();
    cmd.configureOutput({ outputError: () => {} });
    for (const sub of cmd.commands) applyRecursively(sub);
  }
}
