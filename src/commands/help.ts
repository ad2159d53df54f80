/** `prs help exit-codes`: the exit codes of CLI.md, which scripts and cron jobs may rely on. */
import type { Deps } from '../deps.js';
import { ExitCode } from '../errors.js';

export interface ExitCodeInfo {
  code: number;
  /** A word or two, for the root --help footer. */
  short: string;
  /** One line: what happened and what to do. */
  meaning: string;
}

export const EXIT_CODES: readonly ExitCodeInfo[] = [
  { code: ExitCode.ok, short: 'ok', meaning: 'success' },
  {
    code: ExitCode.internal,
    short: 'internal error',
    meaning: 'unexpected internal error — run again with PRS_DEBUG=1 and report it',
  },
  {
    code: ExitCode.usage,
    short: 'usage',
    meaning: 'usage or bad input, checked before any request; also a 400 from the service',
  },
  { code: ExitCode.noData, short: 'no data', meaning: 'no data for that portfolio, type and date' },
  {
    code: ExitCode.auth,
    short: 'auth',
    meaning: 'authentication needed or refused (no session, token endpoint refusal, 401 after re-login)',
  },
  { code: ExitCode.forbidden, short: 'forbidden', meaning: 'forbidden (403) — check the tenant' },
  { code: ExitCode.notFound, short: 'not found', meaning: 'not found (404) — check the portfolio id' },
  {
    code: ExitCode.rateLimited,
    short: 'rate limited',
    meaning: 'rate limited (429 persisted after retries)',
  },
  {
    code: ExitCode.service,
    short: 'service',
    meaning: 'service error: 5xx after retries, or a malformed or corrupt response',
  },
  { code: ExitCode.network, short: 'network', meaning: 'network: connection refused, DNS, TLS or timeout' },
  {
    code: ExitCode.file,
    short: 'local file',
    meaning: 'local file: exists (no --force), unwritable, missing directory or disk full',
  },
  {
    code: ExitCode.interrupted,
    short: 'interrupted',
    meaning: 'interrupted (Ctrl-C); temporary files removed',
  },
];

export function exitCodesText(): string {
  const width = Math.max(...EXIT_CODES.map((e) => String(e.code).length));
  return [
    'Exit codes of prs (stable: scripts and cron jobs may rely on them)',
    '',
    ...EXIT_CODES.map((e) => `  ${String(e.code).padStart(width)}  ${e.meaning}`),
    '',
    'Errors are one line "prs: <message>" on stderr, plus at most one hint line.',
    '',
  ].join('\n');
}

export async function exitCodes(_o: object, deps: Deps): Promise<void> {
  deps.io.out(exitCodesText());
}
