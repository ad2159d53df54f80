// The bundle's entry (dist/main.js): run the CLI, then exit with the contract's code.
import { main } from './main.js';

process.exit(await main(process.argv, process.env));
