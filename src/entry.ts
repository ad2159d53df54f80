// The bundle's entry (dist/main.js): run the CLI, then exit with the contract's code.
import type { ProcessSwitches } from './deps.js';
import { isDebug } from './settings.js';

const switches: ProcessSwitches = {
  beforeHttp: async () => (await import('./v8.js')).wasmBaselineOnly(),
  // The row stream's garbage dies young: a young generation that does not grow keeps a range of
  // answers' peak memory down (docs/performance.md, "The row stream").
  beforeRows: async () => {
    (await import('node:v8')).setFlagsFromString('--semi-space-growth-factor=1');
  },
};

// Stack traces mapped to src/*.ts, for the modules compiled after this call.
if (isDebug(process.env)) process.setSourceMapsEnabled(true);

// No top-level await: the build turns this bundle into CommonJS (see scripts/build.mjs).
import('./main.js').then(
  ({ main }) => main(process.argv, process.env, switches).then((code) => process.exit(code)),
  (err: Error) => {
    const reason = String(err?.message).split('\n')[0];
    process.stderr.write(`prs: internal error: cannot load the CLI (${reason}); run \`npm run build\`\n`);
    process.exit(1);
  },
);
