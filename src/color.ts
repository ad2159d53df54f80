/** Colour's one rule and one red, without node:stream (the fast path loads it). */
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

/**
 * Red as kleur paints it (a return to the default colour inside the text opens red again), without
 * kleur: importing it reads process.stdout.isTTY, which creates stdout's stream, and `--version` or a
 * cache hit writes with writeSync.
 */
export const redIf = (on: boolean) => (text: string) =>
  on ? `${RED}${text.replaceAll(DEFAULT_COLOR, DEFAULT_COLOR + RED)}${DEFAULT_COLOR}` : text;
