export function colorFor(
  flag: boolean | undefined,
  env: Readonly<Record<string, string | undefined>>,
  isTTY: boolean,
): boolean {
  if (flag === false) return false;
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.FORCE_COLOR !== undefined) return env.FORCE_COLOR !== '0' && env.FORCE_COLOR !== 'false';
  return isTTY && env.TERM !== 'dumb';
}

const RED = '\x1b[31m';
const DEFAULT_COLOR = '\x1b[39m';

/** As kleur paints it, without kleur: it creates stdout's stream, which `--version` and a cache hit avoid. */
export const redIf = (on: boolean) => (text: string) =>
  on ? `${RED}${text.replaceAll(DEFAULT_COLOR, DEFAULT_COLOR + RED)}${DEFAULT_COLOR}` : text;
