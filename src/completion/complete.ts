/** What TAB offers, read off the commander program (as cobra's __complete). */
import type { Command, Option } from 'commander';
import { HELP_TOPICS } from '../help.js';
import { type Completion, SETTING_KEYS } from '../settings.js';

/** By the argument's name: config's <key>; any other argument completes to its choices, if any. */
const ARGUMENT_VALUES: Record<string, Completion> = { key: { values: SETTING_KEYS } };

const firstLine = (s: string) => s.split('\n')[0]!.trim();

const described = (entries: [string, string][]): Completion => ({
  values: entries.map(([word]) => word),
  descriptions: Object.fromEntries(entries),
});

/** What define.ts and cli.ts attach to an option from its table row, else its choices. */
const optionValue = (o: (Option & { complete?: Completion }) | undefined): Completion | undefined =>
  o?.complete ?? (o?.argChoices && { values: o.argChoices });

/** `prefix`: `--format=` when typed with its flag. */
export function complete(
  program: Command,
  words: readonly string[],
): { complete?: Completion; prefix?: string } {
  const help = program.createHelp();
  const globals = help.visibleOptions(program).filter((o) => o.long !== '--version');
  const optionsOf = (cmd: Command): Option[] => {
    if (cmd === program) return help.visibleOptions(program);
    const own = help.visibleOptions(cmd);
    return [...own, ...globals.filter((g) => !own.some((o) => o.long === g.long))];
  };

  let cmd = program;
  let parent = program;
  const args: string[] = [];
  // Bash passes "--opt=value" as three words ("=" is in COMP_WORDBREAKS).
  const cur = words.at(-1) === '=' ? '' : (words.at(-1) ?? '');
  const before = words.slice(0, -1);
  for (let i = 0; i < before.length; i++) {
    const word = before[i]!;
    if (word.startsWith('-')) {
      const o = optionsOf(cmd).find((x) => x.long === word || x.short === word);
      if (!o || !(o.required || o.optional)) continue;
      i += before[i + 1] === '=' ? 2 : 1;
      if (i >= before.length) return { complete: optionValue(o) };
      continue;
    }
    const sub = help.visibleCommands(cmd).find((c) => c.name() === word);
    if (sub) {
      [parent, cmd] = [cmd, sub];
      args.length = 0;
    } else args.push(word);
  }

  const inline = /^(--[^=]+)=/.exec(cur);
  if (inline) {
    const o = optionsOf(cmd).find((x) => x.long === inline[1]);
    return { complete: optionValue(o), prefix: inline[0] };
  }
  if (cur.startsWith('-'))
    return {
      complete: described(
        optionsOf(cmd).flatMap((o) =>
          [o.short, o.long].flatMap((f) => (f ? [[f, firstLine(o.description)] as [string, string]] : [])),
        ),
      ),
    };
  // `prs help <topic…>` and commander's `prs auth help [command]`: the command tree below the parent.
  if (cmd.name() === 'help') {
    let target: Command | undefined = parent;
    for (const word of args) target = target && help.visibleCommands(target).find((c) => c.name() === word);
    if (!target) return {};
    const topics = target === program ? Object.entries(HELP_TOPICS) : [];
    const names = commandsOf(help.visibleCommands(target)).filter(([name]) => name !== 'help');
    return { complete: described([...names, ...topics]) };
  }
  const subs = help.visibleCommands(cmd);
  if (subs.length) return { complete: described(commandsOf(subs)) };
  const registered = cmd.registeredArguments;
  const arg = registered[args.length] ?? (registered.at(-1)?.variadic ? registered.at(-1) : undefined);
  if (!arg) return {};
  const choices = arg.argChoices && { values: arg.argChoices };
  return { complete: ARGUMENT_VALUES[arg.name()] ?? choices };
}

const commandsOf = (cmds: readonly Command[]): [string, string][] =>
  cmds.map((c) => [c.name(), firstLine(c.description())]);
