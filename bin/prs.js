#!/usr/bin/env node
// CommonJS (see bin/package.json), like the bundle in dist/ it loads: Node starts and loads CommonJS
// sooner than ES modules. This file only dispatches; the CLI itself is dist/main.js.
'use strict';

const { readFileSync, writeSync } = require('node:fs');
const { join } = require('node:path');

/**
 * settings.ts resolveDirs, for what bin decides before the CLI loads: the answer cache's gate and the
 * code cache (test/unit/bin.test.ts holds the two equal).
 */
function prsDirs(env) {
  const home = env.HOME || require('node:os').homedir();
  return {
    configDir: env.PRS_CONFIG_DIR || join(env.XDG_CONFIG_HOME || join(home, '.config'), 'prs'),
    cacheDir: env.PRS_CACHE_DIR || join(env.XDG_CACHE_HOME || join(home, '.cache'), 'prs'),
  };
}

/**
 * Could the answer cache be on for this run? Only then does `prs report` try its fast path (dist/hit.js,
 * src/cache/hit.ts) before the CLI: a report the cache does not answer would pay ~3 ms for the detour.
 * A quick over-estimate, never a decision (the settings resolver decides, in either path): a --cache
 * flag, PRS_CACHE, or a "cache" key anywhere in the config file.
 */
function cacheMayBeOn(args, env, configDir) {
  if (env.PRS_CACHE || args.some((a) => a === '--cache' || a.startsWith('--cache='))) return true;
  try {
    return readFileSync(join(configDir, 'config.json'), 'utf8').includes('"cache"');
  } catch {
    return false;
  }
}

if (require.main === module) run(process.argv.slice(2));
else module.exports = { cacheMayBeOn, prsDirs };

function run(args) {
  if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
    // `prs --version` on its own needs none of the CLI: answered before it loads (scripts and CI logs
    // ask it to check the tool). The same line commander prints; any other argv goes through commander.
    // Written directly, so that stdout's rules hold here too (CLI.md "Output that scripts can trust"):
    // a reader that left is no failure; any other write error is exit 10 in one line, never a stack.
    try {
      writeSync(1, `${require('../package.json').version}\n`);
    } catch (err) {
      if (err?.code !== 'EPIPE') {
        const reason = err?.code === 'ENOSPC' ? 'disk full' : String(err?.message).split('\n')[0];
        process.stderr.write(`prs: cannot write to stdout: ${reason}\n`);
        process.exitCode = 10;
      }
    }
  } else {
    // Compiled bytecode kept between runs (bin/code-cache.js); Node >= 22.1's own compile cache for
    // whatever that leaves (PRS_DEBUG, a build without an id).
    let dirs;
    try {
      dirs = prsDirs(process.env);
    } catch {
      // No home directory to be found: no code cache, no fast path; the CLI says what is missing.
    }
    require('./code-cache.js').useCodeCache(
      join(__dirname, '..', 'dist'),
      dirs?.cacheDir,
      process.env,
      module,
    );
    require('node:module').enableCompileCache?.();
    // `prs report` goes to the answer cache's fast path first (dist/hit.js, src/cache/hit.ts): a report
    // the cache holds is answered there, before the CLI loads; any other report runs the CLI.
    const answered =
      dirs && args.includes('report') && cacheMayBeOn(args, process.env, dirs.configDir)
        ? Promise.resolve()
            .then(() => require('../dist/hit.js').answerFromCache(process.argv, process.env))
            .catch(() => undefined)
        : Promise.resolve(undefined);
    answered.then((code) => {
      if (code !== undefined) process.exit(code);
      try {
        require('../dist/main.js');
      } catch (err) {
        // One line, no stack: Node's message for a missing module goes on with the require stack.
        const reason = String(err?.message).split('\n')[0];
        process.stderr.write(`prs: internal error: cannot load the CLI (${reason}); run \`npm run build\`\n`);
        process.exit(1);
      }
    });
  }
}
