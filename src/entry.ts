// The bundle's entry (dist/main.js): run the CLI, then exit with the contract's code.
import { isDebug } from './settings.js';

// PRS_DEBUG=1 prints stack traces: Node maps them to src/*.ts lines through the maps the build writes
// beside each chunk, for the modules it compiles after this call; so the CLI is loaded only after it.
if (isDebug(process.env)) process.setSourceMapsEnabled(true);

// No top-level await: the build turns this bundle into CommonJS (see scripts/build.mjs).
import('./main.js').then(
  ({ main }) => main(process.argv, process.env).then((code) => process.exit(code)),
  (err: Error) => {
    // A chunk missing from dist/ (a partial copy): one line, as bin/prs.js says it for dist/main.js.
    const reason = String(err?.message).split('\n')[0];
    process.stderr.write(`prs: internal error: cannot load the CLI (${reason}); run \`npm run build\`\n`);
    process.exit(1);
  },
);
