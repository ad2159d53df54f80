#!/usr/bin/env node
// Dispatch only: the fast entry (dist/fast.js: `--version`, a report the answer cache holds) answers
// what it can before the CLI loads; anything else runs the CLI through its loader (src/boot.ts, in
// dist/fast.js, which keeps V8's compiled code between runs). CommonJS (see bin/package.json), like the bundle: Node loads
// it sooner than ES modules.
'use strict';

const fast = () => require('../dist/fast.js');

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
