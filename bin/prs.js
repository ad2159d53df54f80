#!/usr/bin/env node
// CommonJS (see bin/package.json): Node starts a CommonJS entry a few ms sooner than an ES module one,
// and this file only dispatches; the CLI itself is the ES module bundle in dist/.
'use strict';

const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
  // `prs --version` on its own needs none of the CLI: answered before it loads (scripts and CI logs
  // ask it to check the tool). The same line commander prints; any other argv goes through commander.
  process.stdout.write(`${require('../package.json').version}\n`);
} else {
  // Node >= 22.1 caches compiled bytecode between runs; on Node 20 this is a no-op.
  require('node:module').enableCompileCache?.();
  import('../dist/main.js').catch((err) => {
    process.stderr.write(
      `prs: internal error: cannot load the CLI (${err.message}); run \`npm run build\`\n`,
    );
    process.exit(1);
  });
}
