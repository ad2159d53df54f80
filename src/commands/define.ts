/**
 * What a command's definition (`src/commands/<name>.cli.ts`) is made of, as GitHub CLI's
 * `NewCmdX(f, runF)` with its `XOptions`: the command's flags, the typed options its action builds
 * from them (rejecting bad input before any I/O), and its implementation, loaded only when it runs.
 * Definitions are on the start-up path (`prs --help` builds them all): they import commander, the
 * argv parsers and types, never a command's body (`load` is a dynamic import, a chunk of its own).
 */
import type { Command } from 'commander';
import type { Deps } from '../deps.js';
import type { GlobalOptions } from '../settings.js';

import { addFlags, ITEM_FLAGS } from './flags.js';

/** A command as main runs it: its name (for tests and logs) and its implementation, loaded lazily. */
export interface Runnable<O> {
  readonly name: string;
  load(): Promise<(options: O, deps: Deps) => Promise<unknown>>;
}

/** What an action hands over once its options are built: main loads the command and runs it. */
export type Runner = <O>(command: Runnable<O>, options: O, globals: GlobalOptions) => Promise<void>;

export interface DefineContext {
  run: Runner;
  /** "now" for `today` / `yesterday`; tests pin it. */
  now: () => Date;
}

/**
 * The global flags wherever they were given: before the command or after it. --cache <max-age> and
 * --no-cache share commander's attribute `cache` (the last one given wins): false is --no-cache.
 */
export const globalsOf = (cmd: Command): GlobalOptions => {
  let program = cmd;
  while (program.parent) program = program.parent;
  const cache = program.opts().cache as string | false | undefined;
  return {
    ...cmd.optsWithGlobals(),
    cache: cache === false ? undefined : cache,
    noCache: cache === false ? true : undefined,
  };
};

/**
 * A commander action: commander's arguments (the command's own positional values and flags, then the
 * Command itself) → the typed options → run. `A` is what this command's definition declares.
 */
export function action<A extends unknown[], O>(
  { run }: DefineContext,
  command: Runnable<O>,
  toOptions: (...args: A) => O,
): (...args: unknown[]) => Promise<void> {
  return async (...args) => {
    const cmd = args[args.length - 1] as Command;
    // The Command last, as commander passes it: a definition may read the global flags from it.
    await run(command, toOptions(...(args as A)), globalsOf(cmd));
  };
}

/** -t/--type and the date flags (flags.ts ITEM_FLAGS), report's and export's. */
export const addItemOptions = (cmd: Command): Command => addFlags(cmd, ITEM_FLAGS);
