#!/usr/bin/env node
import module from 'node:module';

const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
  // `prs --version` on its own needs none of the CLI: answered before it loads (scripts and CI logs
  // ask it to check the tool). The same line commander prints; any other argv goes through commander.
  const { version } = module.createRequire(import.meta.url)('../package.json');
  process.stdout.write(`${version}\n`);
} else {
  // Node >= 22.1 caches compiled bytecode between runs; on Node 20 this is a no-op.
  module.enableCompileCache?.();
  await import('../dist/main.js');
}
