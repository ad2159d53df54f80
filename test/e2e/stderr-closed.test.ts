/**
 * A reader of stderr that went away changes nothing (CLI.md "Output that scripts can trust"): the
 * BUILT binary (`npm run build` first) with its stderr a pipe whose reader has already closed, as in
 * `prs report 101 … 2>&1 >/dev/null | head -0`. Every write to stderr then fails with EPIPE, whatever
 * the timing; the exit code must still be the contract's (issue 22: an exit 3 became exit 1).
 * Listed in docs/reliability.md as E-75.
 */
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { EMPTY_PORTFOLIO_ID } from '../helpers/portfolios.js';
import { baseEnv, PRS_BIN, runPrs } from '../helpers/run.js';
import { useLoggedIn } from '../helpers/session.js';

const { env } = useLoggedIn('prs-stderr-closed-', { rateLimit: '100/1s' });

/** Runs prs with stderr a pipe closed by its reader before prs starts; resolves with the exit code. */
function exitWithClosedStderr(args: string[]): Promise<{ code: number | null; stdout: string }> {
  const child = spawn(process.execPath, [PRS_BIN, ...args], {
    env: baseEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stderr.destroy();
  let stdout = '';
  child.stdout.on('data', (c: Buffer) => {
    stdout += c;
  });
  const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout });
    });
  });
}

const DATE = '2024-05-03';
const noData = ['report', String(EMPTY_PORTFOLIO_ID), '-t', 'index', '-d', DATE];

describe('a closed stderr changes nothing: the exit code of the same run with stderr read', () => {
  it.each([
    ['no data (an error line and a hint)', 3, noData],
    ['no data with -v (a line per request as well)', 3, [...noData, '-v']],
    ['no data as a table to stdout', 3, [...noData, '-f', 'table']],
    ['an unknown command (commander refuses it)', 2, ['reprot']],
    ['a bad date (refused before any request)', 2, ['report', '42', '-t', 'index', '-d', '2024-02-30']],
    ['success', 0, ['report', '42', '-t', 'index', '-d', DATE, '--json']],
  ])('%s: exit %i, as with stderr read', async (_name, code, args) => {
    const read = await runPrs(args, { env });
    expect(read.code, read.stderr).toBe(code);
    const closed = await exitWithClosedStderr(args);
    expect(closed).toEqual({ code, stdout: read.stdout });
  });
});
