/** `prs report`'s argv read from the flag tables without commander: main.ts's direct path and hit.ts's. */
import { cacheFlags, spelling } from './commands/flags.js';
import { REPORT_FLAGS, type ReportFlags } from './commands/report.flags.js';
import { fieldOf, GLOBAL_FLAGS, type GlobalOptions, settingRow } from './settings.js';

export interface ReportArgv {
  ids: string[];
  flags: ReportFlags;
  globals: GlobalOptions;
}

type Reading = { into: 'globals' | 'flags'; field: string; takesValue: boolean; on: boolean };

/** --cache and --no-cache share commander's `cache` (false: --no-cache), so a run naming both is a repeat. */
const SPELLINGS: Map<string, Reading> = (() => {
  const map = new Map<string, Reading>();
  const add = (flag: string, into: Reading['into'], field: string) => {
    const s = spelling(flag);
    const reading = { into, field, takesValue: s.value, on: !s.negated };
    for (const name of [s.short, s.long]) if (name) map.set(name, reading);
  };
  for (const name of GLOBAL_FLAGS) add(settingRow(name).flag!, 'globals', fieldOf(name.replace(/^no-/, '')));
  for (const [field, row] of Object.entries(REPORT_FLAGS)) add(row.flag, 'flags', field);
  return map;
})();

/** argv as commander reads it (`--cache -q` is the max-age "-q"); undefined for anything uncertain. */
export function readArgv(args: readonly string[]): ReportArgv | undefined {
  const ids: string[] = [];
  const flags: Record<string, unknown> = {};
  const globals: Record<string, unknown> = {};
  const seen = new Set<string>();
  let command = false;
  // A repeat is left to commander.
  const set = (into: Record<string, unknown>, field: string, value: unknown) => {
    if (seen.has(field)) return false;
    seen.add(field);
    into[field] = value;
    return true;
  };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (!arg.startsWith('-') || arg === '-') {
      if (!command) {
        if (arg !== 'report') return undefined;
        command = true;
      } else ids.push(arg);
      continue;
    }
    const eq = arg.startsWith('--') ? arg.indexOf('=') : -1;
    const reading = SPELLINGS.get(eq > 0 ? arg.slice(0, eq) : arg);
    const nextValue = () => (eq > 0 ? arg.slice(eq + 1) : args[++i]);
    if (!reading || (reading.into === 'flags' && !command)) return undefined;
    const into = reading.into === 'globals' ? globals : flags;
    const value = reading.takesValue ? nextValue() : eq > 0 ? undefined : reading.on;
    if (value === undefined || !set(into, reading.field, value)) return undefined;
  }
  if (!command || ids.length === 0) return undefined;
  Object.assign(globals, cacheFlags(globals.cache));
  return { ids, flags: flags as ReportFlags, globals: globals as GlobalOptions };
}
