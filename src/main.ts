/** The bundle's entry (dist/main.js); the only try/catch that decides exit codes and the only process.exit. */
import type { Command, CommanderError } from 'commander';
import { readArgv } from './argv.js';
import type { CodeCache } from './boot.js';
import type { Runner } from './commands/define.js';
import { reportOptions } from './commands/report.flags.js';
import { createDeps, type Deps } from './deps.js';
import { type Env, isDebug } from './dirs.js';
import { isRunCommand } from './domain.js';
import { ExitCode, exitCodeFor, InterruptedError, PrsError, SIGNAL_EXITS } from './errors.js';
import { temporaries } from './fs/temporaries.js';
import { isClose } from './input.js';
import { createIO, guardStdout, type IO } from './io.js';
import { type ErrorReport, errorEntry, formatLogLine } from './log.js';
import type { RunObserver } from './observe/index.js';
import { redactText } from './redact.js';
import { jsonLogWanted, switchInArgv } from './settings.js';
import { VERSION } from './version.js';

/** By its code: commander loads only for what the direct report path leaves to it. */
const isCommanderError = (err: unknown): err is CommanderError =>
  /^commander\./.test(String((err as CommanderError | undefined)?.code));

/** Commander's errors here (help and version are 0, the rest usage), prs's errors their class's. */
export function processExitCode(err: unknown): number {
  if (isCommanderError(err))
    return err.exitCode === 0 || err.code === 'commander.help' ? ExitCode.ok : ExitCode.usage;
  return exitCodeFor(err);
}

const CONTROL_ESCAPES: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/** Control and bidi characters shown escaped: an error stays one line and cannot rewrite the terminal. */
export function printable(s: string): string {
  return s.replace(
    /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g,
    (c) => CONTROL_ESCAPES[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/** As stderr shows it: `prs: <message>`, `hint: <hint>`, the rest. */
export const errorLines = ({ message, hint, detail }: ErrorReport): string[] =>
  [`prs: ${message}`, hint && `hint: ${hint}`, detail].filter((line): line is string => !!line);

export function errorReport(err: unknown, debug: boolean): ErrorReport {
  if (isCommanderError(err)) {
    // Commander puts its suggestion on a line of its own; any other newline came from the user.
    const text = err.message.replace(/^error: /, '');
    const suggestion = /\n\(Did you mean (?:one of )?([^\n]*)\?\)$/.exec(text);
    let first = suggestion ? text.slice(0, suggestion.index) : text;
    // Commander suggests whatever is least far, however far (`bogus` → logout): keep only what is close.
    const word = /'([^']*)'/.exec(first)?.[1]?.replace(/^-+|=.*$/g, '') ?? '';
    const close = (suggestion?.[1] ?? '').split(', ').filter((c) => c && isClose(word, c.replace(/^-+/, '')));
    // `--password=hunter2` is not an option; say so without echoing the value into logs.
    if (err.code === 'commander.unknownOption') first = first.replace(/'(--?[^=']+)=[^']*'/, "'$1=…'");
    return {
      message: printable(first),
      detail: close.length
        ? printable(`did you mean ${close.join(' or ')}?`)
        : `run \`${(err as { command?: string }).command ?? 'prs'} --help\` for usage`,
    };
  }
  if (err instanceof PrsError) {
    const hint = err.hint ? printable(err.hint) : undefined;
    return { message: printable(redactText(err.message)), hint, detail: debug ? err.stack : undefined };
  }
  const e = err as Error;
  return {
    message: `internal error: ${printable(redactText(e?.message ?? String(err)))}`,
    detail: debug && e?.stack ? e.stack : 'run again with PRS_DEBUG=1 for details, and please report it',
  };
}

const REPORT = { name: 'report', load: async () => (await import('./commands/report.js')).report };

export type OwnedSignal = keyof typeof SIGNAL_EXITS;

/** `handler` owns SIGINT and SIGTERM: another listener (a library re-raising it) is dropped when added. */
export function ownSignals(handler: (signal: OwnedSignal) => void): () => void {
  const listener = (signal: OwnedSignal) => handler(signal);
  const foreign = (event: string | symbol, added: (...args: unknown[]) => void) => {
    if (Object.hasOwn(SIGNAL_EXITS, event) && added !== listener)
      process.nextTick(() => process.off(event, added));
  };
  process.on('newListener', foreign);
  for (const signal of Object.keys(SIGNAL_EXITS)) process.on(signal, listener);
  return () => {
    process.off('newListener', foreign);
    for (const signal of Object.keys(SIGNAL_EXITS)) process.off(signal, listener);
  };
}

/** Started by the loader (src/boot.ts): the run, then the code it compiled kept for the next. */
export function start(cache?: CodeCache): void {
  void main(process.argv, process.env).then(async (code) => {
    // Best effort: a cache that cannot be written (or a missing chunk) must not change the run's code.
    if (cache?.unsaved)
      try {
        const { replaceFile } = await import('./fs/atomic.js');
        cache.save((path, data) => replaceFile(path, data, { mode: 0o600, durable: false }));
      } catch {}
    process.exit(code);
  });
}

export async function main(argv: string[], env: Env): Promise<number> {
  const controller = new AbortController();
  let received: OwnedSignal | undefined;
  const signalReport = () => ({ message: SIGNAL_EXITS[received ?? 'SIGINT'] });
  let said = false;
  const leaveNow = () => {
    temporaries.removeAllSync();
    const code = ExitCode[SIGNAL_EXITS[received ?? 'SIGINT']];
    observer?.finishNow(code);
    if (!said) say(signalReport(), code);
    process.exit(code);
  };
  const releaseSignals = ownSignals((signal) => {
    if (received) return leaveNow(); // a second Ctrl-C: leave now
    received = signal;
    controller.abort(new InterruptedError(SIGNAL_EXITS[signal]));
    // Commands clean up in their finally blocks; never hang on a stuck one.
    setTimeout(leaveNow, 5000).unref();
  });
  // A reader of stderr that went away changes no exit code: there is nowhere left to say anything.
  process.stderr.on('error', () => {});
  // Left on until the process exits: an error can arrive while the last output drains.
  const stdout = guardStdout(process.stdout);

  let io: IO | undefined;
  let deps: Deps | undefined;
  let observer: RunObserver | undefined;
  const json = () => (io ? io.logFormat === 'json' : jsonLogWanted(argv, env));
  const debug = isDebug(env);
  const say = (report: ErrorReport, code: number) => {
    if (json()) return process.stderr.write(formatLogLine(errorEntry(report, code), Date.now()));
    const lines = errorLines(report);
    // Before a command ran (a parse or usage error) the flags are read from argv.
    const errIo = io ?? createIO({ color: switchInArgv(argv, 'color') ? false : undefined, env });
    const quiet = io ? io.quiet : switchInArgv(argv, 'quiet');
    process.stderr.write(`${errIo.red(lines[0]!)}\n`);
    for (const line of lines.slice(1))
      if (!quiet || line.startsWith('prs:')) process.stderr.write(`${line}\n`);
  };
  const run: Runner = async (command, options, globals) => {
    const implementation = command.load(); // loads while the IO and deps are set up
    io = createIO({
      quiet: globals.quiet,
      verbose: globals.verbose,
      color: globals.color,
      env,
      stdout,
      logFormat: jsonLogWanted(argv, env) ? 'json' : 'text',
    });
    deps = createDeps(io, env, globals, controller.signal);
    // A dry run is not a run: no metrics file, no pings.
    const o = options as { dryRun?: boolean; type?: string };
    const watched = isRunCommand(command.name) && !o.dryRun ? command.name : undefined;
    const s = watched && (await deps.settings().catch(() => undefined));
    if (watched && (!s || s.metricsFile || s.pingUrl || s.logFormat === 'json'))
      observer = await (await import('./observe/index.js')).watchRun(deps, watched, o);
    await (await implementation)(options, deps);
  };

  // Every write handed to stdout, and its error if one came (an 'error' event comes a tick later).
  const written = () => stdout.idle().then(() => new Promise((resolve) => setImmediate(resolve)));
  try {
    // A plain report skips building the commander program; anything else (help, errors) gets it.
    const direct = readArgv(argv.slice(2));
    if (direct) {
      const { ids, flags, globals } = direct;
      await run(REPORT, reportOptions(ids, flags, new Date(), globals), globals);
    } else {
      const { buildProgram } = await import('./cli.js');
      await throwInsteadOfExit(buildProgram({ version: VERSION, run })).parseAsync(argv);
    }
    await written();
    if (stdout.gone.aborted) throw stdout.gone.reason;
    await observer?.finish(ExitCode.ok, []);
    return ExitCode.ok;
  } catch (caught) {
    await written();
    // A stdout that failed decides the end: what the command threw is its consequence.
    const err = stdout.gone.aborted ? stdout.gone.reason : caught;
    // Once a signal came, whatever the command threw on its way out is the interrupt.
    const code = received ? ExitCode[SIGNAL_EXITS[received]] : processExitCode(err);
    const silent = code === ExitCode.ok || (!received && err instanceof PrsError && err.silent);
    const report = silent ? undefined : received ? signalReport() : errorReport(err, debug);
    if (report) {
      said = received !== undefined;
      say(report, code);
    }
    await observer?.finish(code, report ? errorLines(report) : []);
    return code;
  } finally {
    releaseSignals();
    await deps?.close().catch(() => {});
    await io?.flush();
  }
}

/** Commander's errors (and --help, --version) thrown instead of exiting, with the command, printed by main. */
function throwInsteadOfExit(cmd: Command, path = cmd.name()): Command {
  cmd.exitOverride((err) => {
    throw Object.assign(err, { command: path });
  });
  cmd.configureOutput({ outputError: () => {} });
  for (const sub of cmd.commands) throwInsteadOfExit(sub, `${path} ${sub.name()}`);
  return cmd;
}
