/** The commander program as plain data: the renderers never touch commander. */
import type { Command, Option } from 'commander';
import { HELP_TOPICS } from '../help.js';
import { type Completion, SETTING_KEYS } from '../settings.js';

export type ValueSpec =
  | { kind: 'choices'; values: string[]; descriptions?: Record<string, string> }
  | { kind: 'file' }
  | { kind: 'dir' }
  /** Read at completion time with `prs __complete profiles`. */
  | { kind: 'profiles' }
  | { kind: 'none' };

export interface OptionSpec {
  short?: string;
  long?: string;
  description: string;
  takesValue: boolean;
  valueName?: string;
  value?: ValueSpec;
  /** --help, --version */
  exclusive?: boolean;
}

interface ArgumentSpec {
  name: string;
  variadic: boolean;
  value: ValueSpec;
}

export interface CommandSpec {
  /** ["auth", "status"]; [] for the program itself. */
  path: string[];
  name: string;
  description: string;
  options: OptionSpec[];
  commands: CommandSpec[];
  args: ArgumentSpec[];
}

export interface CompletionSpec {
  name: string;
  globalOptions: OptionSpec[];
  root: CommandSpec;
}

export const COMPLETE_COMMAND = '__complete';

const choices = (values: readonly string[], descriptions?: Readonly<Record<string, string>>): ValueSpec => ({
  kind: 'choices',
  values: [...values],
  ...(descriptions && { descriptions: { ...descriptions } }),
});
const none: ValueSpec = { kind: 'none' };

const specOf = (c: Completion | undefined): ValueSpec | undefined =>
  c === undefined ? undefined : typeof c === 'string' ? { kind: c } : choices(c.values, c.descriptions);

export const ARGUMENT_VALUES: Record<string, ValueSpec> = {
  'config get key': choices(SETTING_KEYS),
  'config set key': choices(SETTING_KEYS),
  'config unset key': choices(SETTING_KEYS),
};

const TOPIC_DESCRIPTIONS: Record<(typeof HELP_TOPICS)[number], string> = {
  'exit-codes': 'every exit code and what it means',
};

/** By "<command path> <long flag>", else by the long flag (the flag tables' `complete`). */
export type OptionValues = Readonly<Record<string, Completion>>;

export function specFromProgram(program: Command, values: OptionValues): CompletionSpec {
  const help = program.createHelp();
  const globalOptions = program.options
    .filter((o) => !o.hidden && o.long !== '--version')
    .map((o) => optionSpec(o, [], values));
  const globalNames = new Set(globalOptions.map((o) => o.long));

  const walk = (cmd: Command, path: string[]): CommandSpec => {
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
  // `prs help <topic...>` completes the command tree itself, names only, plus the other topics.
  const topHelp = root.commands.find((c) => c.name === 'help');
  if (topHelp) {
    type Named = Pick<CommandSpec, 'name' | 'description' | 'commands'>;
    const mirror = (cmd: Named, path: string[]): CommandSpec => ({
      path,
      name: cmd.name,
      description: cmd.description,
      options: [],
      commands: cmd.commands.filter((c) => c.name !== 'help').map((c) => mirror(c, [...path, c.name])),
      args: [],
    });
    topHelp.commands = [
      ...root.commands.filter((c) => c !== topHelp).map((c) => mirror(c, ['help', c.name])),
      ...HELP_TOPICS.map((t) =>
        mirror({ name: t, description: TOPIC_DESCRIPTIONS[t], commands: [] }, ['help', t]),
      ),
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

export function allCommands(root: CommandSpec): CommandSpec[] {
  return [root, ...root.commands.flatMap(allCommands)];
}

export const flagsOf = (o: OptionSpec): string[] => [o.short, o.long].filter((f): f is string => !!f);

/** The options that take a value, by command path: every command's own, then the global ones ('*'). */
export function valueOptions(spec: CompletionSpec): { at: string; option: OptionSpec }[] {
  const own = allCommands(spec.root).flatMap((c) =>
    c.path.length === 0 ? [] : c.options.map((option) => ({ at: c.path.join(' '), option })),
  );
  return [...own, ...spec.globalOptions.map((option) => ({ at: '*', option }))].filter(
    (v) => v.option.takesValue,
  );
}

/** "<parent path> <name>" of every command below the root. */
export const subcommandKeys = (spec: CompletionSpec): string[] =>
  allCommands(spec.root)
    .filter((c) => c.path.length > 0)
    .map((c) => `${c.path.slice(0, -1).join(' ')} ${c.name}`);

export function optionsFor(spec: CompletionSpec, cmd: CommandSpec): OptionSpec[] {
  const own = new Set(cmd.options.map((o) => o.long ?? o.short));
  return [...cmd.options, ...spec.globalOptions.filter((g) => !own.has(g.long ?? g.short))];
}
