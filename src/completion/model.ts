/**
 * The shape the completion scripts are generated from: a plain-data walk of the commander program,
 * so the three renderers never touch commander and can be tested on hand-built specs.
 */
import type { Command, Option } from 'commander';
import { HELP_TOPICS } from '../help.js';
import { type Completion, SETTING_KEYS } from '../settings.js';

/** What a value (of an option or an argument) completes to. */
export type ValueSpec =
  /** Fixed values; zsh and fish show each one's description, when given, beside it. */
  | { kind: 'choices'; values: string[]; descriptions?: Record<string, string> }
  | { kind: 'file' }
  | { kind: 'dir' }
  /** Profile names, read at completion time with `prs __complete profiles`. */
  | { kind: 'profiles' }
  /** Anything: the shell offers nothing (and no file names). */
  | { kind: 'none' };

export interface OptionSpec {
  /** "-t" */
  short?: string;
  /** "--type" */
  long?: string;
  description: string;
  /** Takes a value (`<x>` or `[x]`). */
  takesValue: boolean;
  /** Name of the value for the shells that show it ("type"). */
  valueName?: string;
  value?: ValueSpec;
  /** Excludes everything else (--help, --version). */
  exclusive?: boolean;
}

export interface ArgumentSpec {
  name: string;
  variadic: boolean;
  value: ValueSpec;
}

export interface CommandSpec {
  /** Names from the root, e.g. ["auth", "status"]; [] for the program itself. */
  path: string[];
  name: string;
  description: string;
  options: OptionSpec[];
  commands: CommandSpec[];
  args: ArgumentSpec[];
}

export interface CompletionSpec {
  /** The program's name, "prs". */
  name: string;
  /** Options of the program, accepted before or after any command (CLI.md "Invocation"). */
  globalOptions: OptionSpec[];
  root: CommandSpec;
}

/** The hidden command the scripts call for dynamic values. */
export const COMPLETE_COMMAND = '__complete';

const choices = (values: readonly string[], descriptions?: Readonly<Record<string, string>>): ValueSpec =>
  descriptions
    ? { kind: 'choices', values: [...values], descriptions: { ...descriptions } }
    : { kind: 'choices', values: [...values] };
const none: ValueSpec = { kind: 'none' };

const specOf = (c: Completion | undefined): ValueSpec | undefined =>
  c === undefined ? undefined : typeof c === 'string' ? { kind: c } : choices(c.values, c.descriptions);

/** What each positional argument completes to: "<command path> <argument name>". */
export const ARGUMENT_VALUES: Record<string, ValueSpec> = {
  'config get key': choices(SETTING_KEYS),
  'config set key': choices(SETTING_KEYS),
  'config unset key': choices(SETTING_KEYS),
};

/** What the help topics that are not commands are about (shown by zsh and fish beside the name). */
const TOPIC_DESCRIPTIONS: Record<(typeof HELP_TOPICS)[number], string> = {
  'exit-codes': 'every exit code and what it means',
};

/** Walks a commander program into a CompletionSpec. Deterministic: follows definition order. */
/**
 * Option values: by "<command path> <long flag>" first, then by the long flag alone (the flag tables'
 * `complete`, commands/completion-values.ts); the commander definition cannot say them, since some
 * options are checked in the action, for a better message than commander's choices().
 */
export type OptionValues = Readonly<Record<string, Completion>>;

export function specFromProgram(program: Command, values: OptionValues): CompletionSpec {
  const help = program.createHelp();
  const globalNames = new Set<string>();
  const globalOptions = program.options
    .filter((o) => !o.hidden && o.long !== '--version')
    .map((o) => optionSpec(o, [], values));
  for (const o of globalOptions) if (o.long) globalNames.add(o.long);

  const walk = (cmd: Command, path: string[]): CommandSpec => {
    // The scripts put names in case patterns and quoted words unescaped.
    if (path.length > 0 && !/^[A-Za-z0-9][\w-]*$/.test(cmd.name()))
      throw new Error(`completion: command name "${cmd.name()}" is not a plain word`);
    const visible = help.visibleOptions(cmd);
    const options = (path.length === 0 ? visible : visible.filter((o) => o.long !== '--version')).map((o) =>
      optionSpec(o, path, values),
    );
    const commands = help.visibleCommands(cmd).map((sub) => walk(sub, [...path, sub.name()]));
    return {
      path,
      name: cmd.name(),
      description: firstLine(cmd.description()),
      // At the root the program's own options are the global ones; elsewhere they are listed apart.
      options: path.length === 0 ? options.filter((o) => !o.long || !globalNames.has(o.long)) : options,
      commands,
      args: cmd.registeredArguments.map((a) => ({
        name: a.name(),
        variadic: a.variadic,
        value:
          ARGUMENT_VALUES[[...path, a.name()].join(' ')] ?? (a.argChoices ? choices(a.argChoices) : none),
      })),
    };
  };
  const root = walk(program, []);
  // `prs help <topic...>` reads a path of commands (`prs help auth status`): its completions are the
  // command tree itself, names only, plus the topics that are not commands (exit-codes). Each level
  // offers what the previous word leads to, as `prs <TAB>` and `prs auth <TAB>` do.
  const topHelp = root.commands.find((c) => c.name === 'help');
  if (topHelp) {
    const mirror = (cmd: CommandSpec, path: string[]): CommandSpec => ({
      path,
      name: cmd.name,
      description: cmd.description,
      options: [],
      commands: cmd.commands.filter((c) => c.name !== 'help').map((c) => mirror(c, [...path, c.name])),
      args: [],
    });
    topHelp.commands = [
      ...root.commands.filter((c) => c !== topHelp).map((c) => mirror(c, ['help', c.name])),
      ...HELP_TOPICS.map((t) => ({
        path: ['help', t],
        name: t,
        description: TOPIC_DESCRIPTIONS[t],
        options: [],
        commands: [],
        args: [],
      })),
    ];
    topHelp.args = [];
  }
  // Commander's implicit `help [command]` under auth and config: the sibling commands.
  for (const cmd of allCommands(root)) {
    const helpCmd = cmd.commands.find((c) => c.name === 'help');
    if (!helpCmd || helpCmd.args.length === 0 || helpCmd.args[0].value.kind !== 'none') continue;
    const topics = cmd.commands.filter((c) => c !== helpCmd).map((c) => c.name);
    helpCmd.args[0] = { ...helpCmd.args[0], value: choices(topics) };
  }
  return { name: program.name(), globalOptions, root };
}

function optionSpec(o: Option, path: string[], values: OptionValues): OptionSpec {
  const takesValue = o.required || o.optional;
  const long = o.long ?? undefined;
  const value = takesValue
    ? ((long && specOf(values[[...path, long].join(' ')] ?? values[long])) ??
      (o.argChoices ? choices(o.argChoices) : none))
    : undefined;
  const spec: OptionSpec = {
    description: firstLine(o.description),
    takesValue,
  };
  if (o.short) spec.short = o.short;
  if (long) spec.long = long;
  if (takesValue) spec.valueName = /[<[]([^>\]]+)[>\]]/.exec(o.flags)?.[1] ?? 'value';
  if (value) spec.value = value;
  if (long === '--help' || long === '--version') spec.exclusive = true;
  return spec;
}

const firstLine = (s: string) => s.split('\n')[0].trim();

/** Every command in the tree, depth first, the root first. */
export function allCommands(root: CommandSpec): CommandSpec[] {
  return [root, ...root.commands.flatMap(allCommands)];
}

/** The options in force for a command: its own, then the global ones it does not shadow. */
export function optionsFor(spec: CompletionSpec, cmd: CommandSpec): OptionSpec[] {
  const own = new Set(cmd.options.map((o) => o.long ?? o.short));
  return [...cmd.options, ...spec.globalOptions.filter((g) => !own.has(g.long ?? g.short))];
}
