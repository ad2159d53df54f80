/**
 * Colour: the one rule and the one red. A module of its own, without node:stream, so that the answer
 * cache's fast path (hit.ts) paints an error line as the CLI does without loading io.ts.
 */
import kleur from 'kleur';

/**
 * Colour, the one rule: --no-color and NO_COLOR turn it off; FORCE_COLOR (not "0"/"false") turns it
 * on; else the stream's terminal decides (not TERM=dumb).
 */
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

/** kleur paints only when its own guess at import (stdout's terminal) says so; here the IO has decided. */
export const redIf = (on: boolean) => (text: string) => {
  if (!on) return text;
  kleur.enabled = true;
  return kleur.red(text);
};
