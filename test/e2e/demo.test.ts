// `npm run demo` is the README's first command: it must finish on its own, exit 0 and show real output.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { baseEnv } from '../helpers/run.js';

const script = fileURLToPath(new URL('../../scripts/demo.mjs', import.meta.url));

it('npm run demo: sandbox, login, table, CSV export, a diff, cleanup, exit 0', async () => {
  const child = spawn(process.execPath, [script], {
    // A PATH without any prs (the demo runs node by its path): the last lines say how to get one.
    env: baseEnv({ CI: 'true', PATH: dirname(process.execPath) }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (c) => {
    out += c;
  });
  child.stderr.on('data', (c) => {
    out += c;
  });
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  expect(out).not.toMatch(/demo failed|prs: /);
  expect(code).toBe(0);
  expect(out).toMatch(/Logged in to 127\.0\.0\.1:\d+ as demo/);
  expect(out).toMatch(/│ 2023-06-29 +│ .* │ Example 600 OG EUR +│ +1302\.917413 │/);
  expect(out).toMatch(/exports\/2023-06-30_Example_600_OG_index\.zip\n/);
  expect(out).toMatch(/2023-06-30_Example_600_OG_index\.csv/);
  // The answer cache, the window and a plan: the second ask is a hit, and the plan counts it.
  expect(out).toMatch(/cache hit: portfolio 42 index 2023-06-29/);
  expect(out).toMatch(/rate limit: 4\/60s\n/);
  expect(out).toMatch(/dry run: 10 items, nothing sent\nanswered from the cache: 1\nrequests to send: 9\n/);
  // A diff across portfolio 77's rebalance, its summary on stderr and weights in basis points.
  expect(out).toMatch(/2024-03-15 → 2024-03-18: 1 added, 1 removed, 7 changed, 0 unchanged\n/);
  expect(out).toMatch(/│ added +│ \w{12} +│ \w+ \w\w +│ securityName +│/);
  expect(out).toMatch(/│ indexWeighting │ .* │ +-?\d+\.\d+ │\n/);
  const work = /Config and exports go to (\S+) /.exec(out)?.[1];
  expect(work).toBeTruthy();
  expect(existsSync(work!)).toBe(false);
  // `Try prs --help` was "command not found" after a clone: how to get prs on PATH (issue 34 item 11).
  expect(out).toMatch(
    /\nDone\. `prs` is not on your PATH yet, .*run `npm link` \(once, in this folder\)\.\nOr run it in place: node bin\/prs\.js --help\n$/,
  );
});
