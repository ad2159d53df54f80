/**
 * `prs report --jq` end to end (the built binary against the sandbox): gh's output conventions, the
 * service's digits kept through jq, a filter that does not compile refused before any request.
 */
import { describe, expect, it } from 'vitest';
import { stringifyLossless } from '../../src/json/lossless.js';
import { parseJson } from '../helpers/json.js';
import { EXAMPLE_PORTFOLIO_ID, PRECISION_PORTFOLIO_ID } from '../helpers/portfolios.js';
import { type RunOptions, runPrs } from '../helpers/run.js';
import { useLoggedIn } from '../helpers/session.js';

const DATE = '2024-05-03';
const { sandbox, env } = useLoggedIn('prs-jq-e2e-', { rateLimit: '100/1s' });
const prs = (args: string[], o: RunOptions = {}) => runPrs(args, { ...o, env: { ...env, ...o.env } });
const requests = () => sandbox.stats.count({ endpoint: 'report' });

/** The rows `-f json` prints, parsed losslessly. */
async function rowsOf(id: number, type: string): Promise<Record<string, unknown>[]> {
  const r = await prs(['report', String(id), '-t', type, '-d', DATE, '-f', 'json']);
  expect(r.code, r.stderr).toBe(0);
  return parseJson(r.stdout) as Record<string, unknown>[];
}

describe('report --jq', () => {
  it('prints one result per line: strings raw, everything else compact JSON', async () => {
    const rows = await rowsOf(EXAMPLE_PORTFOLIO_ID, 'constituent.close');
    const r = await prs([
      'report',
      String(EXAMPLE_PORTFOLIO_ID),
      '-t',
      'constituent.close',
      '-d',
      DATE,
      '--jq',
      '.[0].isin, .[0].indexShares, {isin: .[0].isin}, length',
    ]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const first = rows[0]!;
    expect(r.stdout).toBe(
      `${first.isin}\n${stringifyLossless(first.indexShares)}\n{"isin":${JSON.stringify(first.isin)}}\n${rows.length}\n`,
    );
  });

  it('keeps every digit the service sent for the values the filter passes through', async () => {
    for (const type of ['index', 'constituent.close', 'constituent.corporateactions']) {
      const rows = await rowsOf(PRECISION_PORTFOLIO_ID, type);
      // `.[]` reads the rows array, `.[] | .` the rows one a line (render/jq.ts): the same output.
      for (const filter of ['.[]', '.[] | .']) {
        const r = await prs([
          'report',
          String(PRECISION_PORTFOLIO_ID),
          '-t',
          type,
          '-d',
          DATE,
          '--jq',
          filter,
        ]);
        expect(r.code, r.stderr).toBe(0);
        expect(r.stdout).toBe(rows.map((row) => `${stringifyLossless(row)}\n`).join(''));
      }
    }
  });

  it('selects by number as jq does (the README recipe)', async () => {
    const rows = await rowsOf(EXAMPLE_PORTFOLIO_ID, 'constituent.close');
    // A threshold between the weights, so that the filter keeps some rows and drops others.
    const weights = rows.map((x) => Number(String(x.indexWeighting))).sort((a, b) => a - b);
    const threshold = String(weights[Math.floor(weights.length / 2)]);
    const want = rows
      .filter((x) => Number(String(x.indexWeighting)) > Number(threshold))
      .map((x) => `${x.isin}\n`);
    expect(want.length).toBeGreaterThan(0);
    expect(want.length).toBeLessThan(rows.length);
    const r = await prs([
      'report',
      String(EXAMPLE_PORTFOLIO_ID),
      '-t',
      'constituent.close',
      '-d',
      DATE,
      '--jq',
      `.[] | select(.indexWeighting > ${threshold}) | .isin`,
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(want.join(''));
  });

  it('filters the rows of several portfolios, each led by portfolioId', async () => {
    const r = await prs([
      'report',
      String(EXAMPLE_PORTFOLIO_ID),
      String(PRECISION_PORTFOLIO_ID),
      '-t',
      'index',
      '-d',
      DATE,
      '--jq',
      '[.[].portfolioId] | unique',
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(`[${PRECISION_PORTFOLIO_ID},${EXAMPLE_PORTFOLIO_ID}]\n`);
  });

  it('a filter on each row (the fast path) over several portfolios and dates prints what -f ndjson does for `.`', async () => {
    const args = ['report', String(EXAMPLE_PORTFOLIO_ID), String(PRECISION_PORTFOLIO_ID), '-t', 'index'];
    const range = ['--from', '2024-05-01', '--to', '2024-05-06'];
    const ndjson = await prs([...args, ...range, '-f', 'ndjson']);
    const each = await prs([...args, ...range, '--jq', '.[] | .']);
    expect(each.code, each.stderr).toBe(0);
    expect(each.stdout.split('\n').length).toBeGreaterThan(4);
    expect(each.stdout).toBe(ndjson.stdout);
  });

  it('writes the results to an -o file', async () => {
    const { mkdtempSync, readFileSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const out = `${mkdtempSync(`${tmpdir()}/prs-jq-`)}/isins.txt`;
    const r = await prs([
      'report',
      String(EXAMPLE_PORTFOLIO_ID),
      '-t',
      'index',
      '-d',
      DATE,
      '--jq',
      '.[].indexId',
      '-o',
      out,
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('');
    const rows = await rowsOf(EXAMPLE_PORTFOLIO_ID, 'index');
    expect(readFileSync(out, 'utf8')).toBe(rows.map((x) => `${x.indexId}\n`).join(''));
  });

  it.each([
    [['--jq', '.['], /^prs: --jq: the filter does not compile: syntax error/],
    [['--jq', 'nosuchfunction'], /^prs: --jq: the filter does not compile: nosuchfunction\/0 is not defined/],
    [['--jq', '.[]', '-f', 'csv'], /^prs: --jq cannot be combined with --format/],
    [['--jq', '.[]', '--json'], /^prs: --jq cannot be combined with --json/],
    [['--jq', '.[]', '--fields', 'isin'], /^prs: --jq cannot be combined with --fields/],
    [['--jq', '  '], /^prs: --jq needs a filter/],
    // A conflict is named before an empty filter, as before the checks were one.
    [['--jq', '', '--raw'], /^prs: --jq cannot be combined with --raw/],
  ])('refuses %j before any request (exit 2)', async (args, message) => {
    const before = requests();
    const r = await prs(['report', String(EXAMPLE_PORTFOLIO_ID), '-t', 'index', '-d', DATE, ...args]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stderr.split('\n').filter(Boolean).length).toBeLessThanOrEqual(2);
    expect(requests()).toBe(before);
  });

  it('a filter that never ends is checked without running it', async () => {
    const before = requests();
    const r = await prs([
      'report',
      String(EXAMPLE_PORTFOLIO_ID),
      '-t',
      'index',
      '-d',
      DATE,
      '--jq',
      'repeat(1) | .[',
      '--dry-run',
    ]);
    expect(r.code).toBe(2);
    expect(requests()).toBe(before);
  });

  it('a run-time error of the filter is exit 2 with jq’s message', async () => {
    const r = await prs([
      'report',
      String(EXAMPLE_PORTFOLIO_ID),
      '-t',
      'index',
      '-d',
      DATE,
      '--jq',
      '.[] | .indexName.x',
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^prs: --jq: Cannot index string with string "x"/);
    expect(r.stdout).toBe('');
  });
});
