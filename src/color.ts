/** Colour's one rule and one red, without node:stream (the fast path loads it). */
import kleur from 'kleur';

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

/** kleur paints only when its own guess at import says so; here the IO has decided. */
export const redIf = (on: boolean) => (text: string) => {
  if (!on) return text;
  kleur.enabled = true;
  return kleur.red(text);
};
