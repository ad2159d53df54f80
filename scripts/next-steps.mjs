// The demo's last words: how to run `prs` from here. A clone does not put `prs` on PATH (`npm link`
// does), and a `prs` that is on PATH may be another program (the registry's `prs` package is).
import { realpathSync } from 'node:fs';
import { delimiter, join } from 'node:path';

/** The `prs` that a shell would run: the first on PATH, as its real path, or undefined. */
export function prsOnPath(path = process.env.PATH ?? '') {
  for (const dir of path.split(delimiter)) {
    if (!dir) continue;
    try {
      return realpathSync(join(dir, 'prs'));
    } catch {
      // not in this directory
    }
  }
  return undefined;
}

/** `bin`: this clone's bin/prs.js (its real path); `found`: prsOnPath()'s answer. */
export function nextSteps(bin, found) {
  if (found === bin)
    return 'Done. Try `prs --help`, `prs help exit-codes`, or `prs sandbox` to keep a sandbox running.';
  const first =
    found === undefined
      ? 'Done. `prs` is not on your PATH yet, and every README example calls it: run `npm link` (once, in this folder).'
      : `Done. The \`prs\` on your PATH is another program (${found}): run \`npm link\` (once, in this folder) to use this one.`;
  return `${first}\nOr run it in place: node bin/prs.js --help`;
}
