/**
 * `prs report` over many items (CLI.md "Runs of many items"), the BUILT binary against the sandbox:
 * keep going past an item's failure, --fail-fast, run-level failures, -o whole or nothing, holidays
 * not repeated, rows streamed to a reading pipe while the run goes on; and a malformed answer nested
 * 100,000 levels deep (a fault server) in every format.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { useFaultServer } from '../helpers/fault-server.js';
import { baseEnv, collect, PRS_BIN, runPrs } from '../helpers/run.js';
import { tokenEnv, useLoggedIn } from '../helpers/session.js';

const DATE = '2024-05-03';
const server = useFaultServer();
let out: string;
let n = 0;

const { sandbox, tmp, env: session } = useLoggedIn('prs-report-runs-', { rateLimit: '100/1s' });
/** prs against the fault server with a ready token (no sign-in), its own config and cache dirs. */
const faultyEnv = () => ({ ...tokenEnv(server.url, join(tmp.path, 'faulty')), PRS_RATE_LIMIT: '100/1s' });
beforeEach(() => {
  sandbox.stats.reset();
  out = join(tmp.path, `out${n++}`);
  mkdirSync(out);
});

const prs = (args: string[], env: Record<string, string> = {}) =>
  runPrs(args, { env: { ...session, ...env } });
const reportRequests = () => sandbox.stats.count({ endpoint: 'report' });
const lines = (s: string) => s.split('\n').filter((l) => l !== '');
const idsOf = (ndjson: string) =>
  lines(ndjson).map((l) => (JSON.parse(l) as { portfolioId: number }).portfolioId);

describe('keep going', () => {
  it('an unknown portfolio among others: reported as it happens, the others printed, exit 6', async () => {
    const r = await prs(['report', '42', '999', '1', '-t', 'index', '-d', DATE, '-f', 'ndjson']);
    expect(r.code).toBe(6);
    expect(new Set(idsOf(r.stdout))).toEqual(new Set([42, 1]));
    expect(r.stderr).toMatch(/^prs: portfolio 999 on 2024-05-03: .*not found/m);
    expect(lines(r.stderr).at(-1)).toBe('prs: 2 written, 1 failed: portfolio 999 on 2024-05-03 (not found)');
    expect(reportRequests()).toBe(3);
  });

  it('--fail-fast stops at the first failure: no request after it', async () => {
    const r = await prs([
      'report',
      '42',
      '999',
      '1',
      '-t',
      'index',
      '-d',
      DATE,
      '-f',
      'ndjson',
      '--fail-fast',
    ]);
    expect(r.code).toBe(6);
    expect(idsOf(r.stdout)).toEqual([42, 42]);
    expect(reportRequests()).toBe(2);
  });

  it('a 5xx after retries is an item failure too (exit 8); -o keeps the other items rows', async () => {
    const file = join(out, 'rows.csv');
    const r = await prs([
      'report',
      '42',
      '500',
      '1',
      '-t',
      'index',
      '-d',
      DATE,
      '-o',
      file,
      '--retries',
      '0',
    ]);
    expect(r.code).toBe(8);
    const csv = readFileSync(file, 'utf8');
    expect(lines(csv)[0]).toMatch(/^portfolioId,/);
    expect(
      lines(csv)
        .slice(1)
        .map((l) => l.split(',')[0]),
    ).toEqual(['42', '42', '1', '1']);
    expect(r.stderr).toMatch(/^prs: portfolio 500 on 2024-05-03: /m);
    expect(readdirSync(out)).toEqual(['rows.csv']);
  });

  it('a run-level failure (403) stops at once and -o writes nothing, no temporary left', async () => {
    const file = join(out, 'rows.ndjson');
    // The first answer is real (a fault without a status); the second is a 403: nothing after it.
    sandbox.injectFault({ endpoint: 'report', delayMs: 1 });
    sandbox.injectFault({ endpoint: 'report', status: 403 });
    const r = await prs(['report', '42', '1', '13', '-t', 'index', '-d', DATE, '-o', file]);
    expect(r.code).toBe(5);
    expect(reportRequests()).toBe(2);
    expect(readdirSync(out)).toEqual([]);
  });

  it('an unknown --fields name stops the run after the first answer (exit 2, one request)', async () => {
    const r = await prs([
      'report',
      '42',
      '-t',
      'index',
      '--from',
      '2024-05-01',
      '--to',
      '2024-05-14',
      '-f',
      'csv',
      '--fields',
      'indexValue,nope',
    ]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^prs: unknown field "nope" for index\n/);
    expect(reportRequests()).toBe(1);
  });
});

describe('holidays', () => {
  it('a range over Christmas: 24 December once, a note names the dates it stood for', async () => {
    const r = await prs([
      'report',
      '42',
      '-t',
      'index',
      '--from',
      '2024-12-23',
      '--to',
      '2024-12-27',
      '-f',
      'csv',
      '--fields',
      'effectiveDate,currency',
    ]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(
      'effectiveDate,currency\n' +
        ['2024-12-23', '2024-12-24', '2024-12-27'].map((d) => `${d},EUR\n${d},JPY\n`).join(''),
    );
    expect(r.stderr).toMatch(/portfolio 42: 2024-12-25, 2024-12-26 answered with the rows of 2024-12-24/);
    expect(reportRequests()).toBe(5);
  });
});

describe('streamed rows', () => {
  it('rows reach a reading pipe before the run ends; a long wait says so on stderr', async () => {
    // A slow client-side limit (1 request per 8 s) and its own limiter state: the second request
    // waits ~8 s, long after the first answer's rows could have been written.
    const env = baseEnv({ ...session, PRS_RATE_LIMIT: '1/8s', PRS_CACHE_DIR: join(out, 'cache') });
    const child = spawn(
      process.execPath,
      [PRS_BIN, 'report', '42', '-t', 'index', '--from', '2024-05-02', '--to', DATE, '-f', 'ndjson'],
      { env, stdio: ['pipe', 'pipe', 'pipe'] },
    );
    child.stdin.end();
    let firstLine: { running: boolean; requests: number } | undefined;
    const { done } = collect(child, 60_000, (soFar) => {
      if (!firstLine && Buffer.concat(soFar).includes(10))
        firstLine = { running: child.exitCode === null, requests: reportRequests() };
    });
    const r = await done;
    expect(r.code, r.stderr).toBe(0);
    expect(firstLine).toEqual({ running: true, requests: 1 });
    expect(lines(r.stdout)).toHaveLength(4);
    expect(r.stderr).toMatch(/^portfolio 42 on 2024-05-03: waiting \d+ s for the rate limit$/m);
  });
});

describe('a row nested 100,000 levels deep: a malformed answer, exit 8, in every format', () => {
  const deep = `{"report":[{"effectiveDate":"${DATE}","v":${'{"a":'.repeat(100_000)}1${'}'.repeat(100_000)}}]}`;
  it.each([['-f', 'json'], ['-f', 'ndjson'], ['-f', 'csv'], ['-f', 'tsv'], ['-f', 'table'], ['--raw']])(
    'a deep row, %s %s: exit 8 malformed response',
    async (...format) => {
      server.respond({ body: deep, headers: { 'content-type': 'application/json' } });
      const r = await runPrs(['report', '42', '-t', 'index', '-d', DATE, ...format], {
        env: faultyEnv(),
      });
      expect(r.code, r.stderr).toBe(8);
      expect(r.stderr).toMatch(
        /^prs: malformed response from the service: a row nests values more than 64 levels deep/,
      );
      // The service's fault, not the base URL's (issue 24).
      expect(r.stderr).toMatch(/\nhint: the service sent a broken answer/);
      expect(r.stdout).toBe('');
      expect(server.requests).toHaveLength(1);
    },
  );

  it("a body of arrays nested 100,000 deep (no row at all): exit 8, the service's fault, not the base URL", async () => {
    server.respond({
      body: `${'['.repeat(100_000)}${']'.repeat(100_000)}`,
      headers: { 'content-type': 'application/json' },
    });
    const r = await runPrs(['report', '42', '-t', 'index', '-d', DATE, '-f', 'csv'], {
      env: faultyEnv(),
    });
    expect(r.code, r.stderr).toBe(8);
    expect(r.stderr).toMatch(
      /^prs: malformed response from the service: the body nests values more than 64 levels deep/,
    );
    expect(r.stderr).toMatch(/\nhint: the service sent a broken answer/);
    expect(r.stdout).toBe('');
  });
});

describe('-o on interrupt', () => {
  it('Ctrl-C during a range: no file, no temporary, exit 130', async () => {
    const file = join(out, 'rows.ndjson');
    const env = baseEnv({ ...session, PRS_RATE_LIMIT: '1/30s', PRS_CACHE_DIR: join(out, 'cache') });
    const child = spawn(
      process.execPath,
      [PRS_BIN, 'report', '42', '-t', 'index', '--from', '2024-05-02', '--to', DATE, '-o', file],
      { env, stdio: ['pipe', 'pipe', 'pipe'] },
    );
    child.stdin.end();
    const { done, stderr } = collect(child, 60_000);
    // Interrupt once the first answer was written into the temporary and the run waits for the limit.
    while (!readdirSync(out).some((f) => f.endsWith('.tmp')) || reportRequests() < 1)
      await new Promise((r) => setTimeout(r, 50));
    child.kill('SIGINT');
    const r = await done;
    expect(r.code, stderr()).toBe(130);
    expect(readdirSync(out).filter((f) => f !== 'cache')).toEqual([]);
    expect(existsSync(file)).toBe(false);
  });
});
