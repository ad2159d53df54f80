/** `prs help exit-codes`: the exit codes of CLI.md, which scripts and cron jobs may rely on. */
import type { Deps } from '../deps.js';
import { exitCodesText } from '../help.js';

export async function exitCodes(_o: object, deps: Deps): Promise<void> {
  deps.io.out(exitCodesText());
}
