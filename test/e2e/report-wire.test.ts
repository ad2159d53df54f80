/**
 * Answers on the wire (CLI.md): the same rows sent compact, spaced as Python's json.dumps writes them,
 * or gzip-compressed (a gateway that compresses when asked) give prs's same bytes in every format;
 * --raw and exports hold the decoded body. The built binary against three sandboxes.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXAMPLE_PORTFOLIO_ID, LARGE_PORTFOLIO_ID, PRECISION_PORTFOLIO_ID } from '../helpers/portfolios.js';
import { type RunOptions, runPrs } from '../helpers/run.js';
import { type LoggedIn, useLoggedIn } from '../helpers/session.js';

const DATE = '2024-05-03';
const RATE = { rateLimit: '1000/1s' };
const compact = useLoggedIn('prs-wire-compact-', RATE);
const spaced = useLoggedIn('prs-wire-spaced-', { ...RATE, jsonStyle: 'spaced' });
const gzip = useLoggedIn('prs-wire-gzip-', { ...RATE, gzip: true, jsonStyle: 'spaced' });

const prs = (s: LoggedIn, args: string[], o: RunOptions = {}) =>
  runPrs(args, { ...o, env: { ...s.env, ...o.env } });

/** stdout of a run that must succeed. */
async function out(s: LoggedIn, args: string[]): Promise<string> {
  const r = await prs(s, args);
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  return r.stdout;
}

describe('the same rows in every byte shape give the same output', () => {
  const cases: [number, string][] = [
    [EXAMPLE_PORTFOLIO_ID, 'index'],
    [EXAMPLE_PORTFOLIO_ID, 'constituent.close'],
    [PRECISION_PORTFOLIO_ID, 'constituent.close'],
    [PRECISION_PORTFOLIO_ID, 'constituent.corporateactions'],
    [LARGE_PORTFOLIO_ID, 'constituent.close'],
  ];
  it.each(cases)('portfolio %i, %s: json, ndjson, csv, tsv alike', async (id, type) => {
    for (const format of ['json', 'ndjson', 'csv', 'tsv']) {
      const args = ['report', String(id), '-t', type, '-d', DATE, '-f', format];
      const want = await out(compact, args);
      expect(want.length).toBeGreaterThan(100);
      expect(await out(spaced, args)).toBe(want);
      expect(await out(gzip, args)).toBe(want);
    }
  });

  it('the bodies really differ on the wire: spaced is larger, gzip several times smaller', async () => {
    const args = ['report', String(LARGE_PORTFOLIO_ID), '-t', 'constituent.close', '-d', DATE, '--raw'];
    const sent = async (s: LoggedIn) => {
      s.sandbox.stats.reset();
      const body = await out(s, args);
      const [req] = s.sandbox.stats.requests.filter((r) => r.endpoint === 'report');
      return { body, bytes: req!.bytes };
    };
    const c = await sent(compact);
    const sp = await sent(spaced);
    const gz = await sent(gzip);
    expect(sp.bytes).toBeGreaterThan(c.bytes);
    expect(sp.body).toMatch(/^\{"report": \[\{"/);
    // --raw prints the decoded body: the spaced JSON, not the gzip bytes that came over the wire.
    expect(gz.body).toBe(sp.body);
    expect(gz.bytes * 4).toBeLessThan(Buffer.byteLength(gz.body));
  });

  it('a range of answers from a compressing gateway: every answer, no repeat', async () => {
    const args = [
      'report',
      String(EXAMPLE_PORTFOLIO_ID),
      '-t',
      'index',
      '--from',
      '2024-05-01',
      '--to',
      '2024-05-07',
      '-f',
      'ndjson',
    ];
    const want = await out(compact, args);
    expect(want.trim().split('\n').length).toBeGreaterThan(3);
    expect(await out(gzip, args)).toBe(want);
  });
});

describe('exports from a compressing gateway hold the decoded body', () => {
  it.each(['json', 'csv'])('export -f %s: the same file as uncompressed', async (format) => {
    const files = async (s: LoggedIn) => {
      const dir = join(s.tmp.path, `out-${format}`);
      const r = await prs(s, [
        'export',
        String(EXAMPLE_PORTFOLIO_ID),
        '-t',
        'constituent.close',
        '-d',
        DATE,
        '-f',
        format,
        '--dir',
        dir,
      ]);
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      return readdirSync(dir).map((f) => [f, readFileSync(join(dir, f))] as const);
    };
    const plain = await files(spaced);
    expect(plain).toHaveLength(1);
    expect(await files(gzip)).toEqual(plain);
  });
});
