#!/usr/bin/env node
// Dispatch only: the fast entry (dist/fast.js: `--version`, a report the answer cache holds) answers
// what it can before the CLI loads; anything else runs the CLI (dist/main.js). CommonJS (see
// bin/package.json), like the bundle: Node loads it sooner than ES modules.
'use strict';

// Node >= 22.1 keeps compiled code between runs (public API); absent on Node 20.
require('node:module').enableCompileCache?.();

const cli = () => {
  try {
    require('../dist/main.js');
  } catch (err) {
    // One line, no stack: Node's message for a missing module goes on with the require stack.
    const reason = String(err?.message).split('\n')[0];
    process.stderr.write(`prs: internal error: cannot load the CLI (${reason}); run \`npm run build\`\n`);
    process.exit(1);
  }
};

Promise.resolve()
  .then(() => require('../dist/fast.js').answer(process.argv, process.env))
  .catch(() => undefined)
  .then((code) => (code === undefined ? cli() : process.exit(code)));
