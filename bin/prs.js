#!/usr/bin/env node
// Dispatch only: `--version` alone is written here; the fast entry (dist/fast.js: a report the answer
// cache holds, and `--version` when stdout refused it) answers what it can before the CLI loads;
// anything else runs the CLI through its loader (src/boot.ts, in dist/fast.js, which keeps V8's
// compiled code between runs). CommonJS (see bin/package.json), like the bundle: Node loads it sooner
// than ES modules.
'use strict';

const fast = () => require('../dist/fast.js');

/**
 * `prs --version` alone, the call scripts and CI logs make most, is written here before any other file
 * loads (dist/fast.js's load is most of its cost). A write that fails or would wait is left undone, for
 * the fast entry to write with stdout's rules (a reader that left is no failure, anything else exit 10).
 */
function versionWritten(args) {
  if (args.length !== 1 || (args[0] !== '--version' && args[0] !== '-V')) return false;
  const line = `${require('../package.json').version}\n`;
  try {
    // A pipe takes a line this short whole or not at all; a file's write cut short by a limit (ulimit -f,
    // a full disk) fails again in the fast entry, which says so.
    return require('node:fs').writeSync(1, line) === line.length;
  } catch {
    return false;
  }
}

if (!versionWritten(process.argv.slice(2)))
  Promise.resolve()
    .then(() => fast().answer(process.argv, process.env))
    .catch(() => undefined)
    .then((code) => (code === undefined ? fast().cli(process.env) : process.exit(code)))
    .catch((err) => {
      // One line, no stack: Node's message for a missing module goes on with the require stack.
      const reason = String(err?.message).split('\n')[0];
      process.stderr.write(`prs: internal error: cannot load the CLI (${reason}); run \`npm run build\`\n`);
      process.exit(1);
    });
