// The bundle's entry (dist/main.js): run the CLI, then exit with the contract's code.
import type { ProcessSwitches } from './deps.js';
import { isDebug } from './settings.js';

/** The process-wide switches, here and only here; the code that needs one calls it first. */
const switches: ProcessSwitches = {
  // undici parses HTTP with a WebAssembly build of llhttp, which V8's optimising tier would compile
  // in the background for memory and no gain in a short-lived CLI (docs/performance.md): Liftoff only.
  // Set before the first HTTP client, not at start: only runs that make requests load node:v8.
  beforeHttp: async () => {
    const { setFlagsFromString } = await import('node:v8');
    setFlagsFromString('--liftoff-only');
  },
  // The row stream allocates fast and briefly (a row, its strings, its output line): V8 would grow
  // its young generation with that rate, to most of a run's peak memory, for no gain
  // (docs/performance.md); kept at its start size, a run of many answers stays flat. A heap setting,
  // read as the heap works: no collection is ever asked for.
  beforeRows: async () => {
    (await import('node:v8')).setFlagsFromString('--semi-space-growth-factor=1');
  },
};

// PRS_DEBUG=1 prints stack traces: Node maps them to src/*.ts lines through the maps the build writes
// beside each chunk, for the modules it compiles after this call; so the CLI is loaded only after it.
if (isDebug(process.env)) process.setSourceMapsEnabled(true);

// No top-level await: the build turns this bundle into CommonJS (see scripts/build.mjs).
import('./main.js').then(
  ({ main }) => main(process.argv, process.env, switches).then((code) => process.exit(code)),
  (err: Error) => {
    // A chunk missing from dist/ (a partial copy): one line, as bin/prs.js says it for dist/main.js.
    const reason = String(err?.message).split('\n')[0];
    process.stderr.write(`prs: internal error: cannot load the CLI (${reason}); run \`npm run build\`\n`);
    process.exit(1);
  },
);
