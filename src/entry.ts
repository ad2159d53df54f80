// The bundle's entry (dist/main.js): run the CLI, then exit with the contract's code.
import { main } from './main.js';

// No top-level await: the build turns this bundle into CommonJS (see scripts/build.mjs).
main(process.argv, process.env).then((code) => process.exit(code));
