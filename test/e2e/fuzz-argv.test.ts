/**
 * An argv fuzz of the BUILT binary (`npm run build` first): a seeded random mix of commands, flags
 * and values, valid and not, run two at a time, each lane against its own sandbox so every request
 * is attributed to the run that sent it. For every run: an exit code of the contract (never 1, never
 * a signal), no stack trace, the error as the last `prs:` line plus at most one hint, and for exit 2
 * (bad input) not a single request. PRS_FUZZ_SEED=<n> replays a run; PRS_FUZZ_RUNS=<n> changes the count.
 * Row ids in [brackets] are listed in docs/reliability.md (checked by test/unit/reliability/doc.test.ts).
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { REPORT_TYPES } from '../../src/domain.js';
import type { Sandbox } from '../../src/sandbox/index.js';
import { runPrs } from '../helpers/run.js';
import { dirsEnv, sandboxTokens, useSandbox, useTempDir } from '../helpers/session.js';
import { CONTRACT_CODES, STACK } from './reliability-helpers.js';

const SEED = Number(process.env.PRS_FUZZ_SEED ?? 20240503);
const RUNS = Number(process.env.PRS_FUZZ_RUNS ?? 200);

/** mulberry32: small, seedable, good enough to pick test inputs. */
function prng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)]!;
  const chance = (p: number) => next() < p;
  return { next, pick, chance };
}
type Rng = ReturnType<typeof prng>;

const IDS_OK = ['42', '13', '1', '101', '500', '999999', '900'];
const IDS_BAD = ['0', '-1', 'abc', '1.5', '2147483648', '', ' 42', '４２', '1e3', '0x2a', '42;rm -rf /'];
const TYPES_OK = [...REPORT_TYPES];
const TYPES_BAD = ['idx', 'INDEX', 'constituent', '', 'index\n', 'constituent.closed', '--date'];
const DATES_OK = ['2024-05-03', '2024-05-01', '2024-05-02', '2024-05-06', '2024-05-04', 'today', 'yesterday'];
const DATES_BAD = [
  '2024-02-30',
  '24-05-03',
  '2024/05/03',
  '',
  '1899-12-31',
  'tomorrow',
  '2024-5-3',
  '2024-05-03T00:00',
];
const JUNK = [
  '--',
  '-',
  '-x',
  '--unknown',
  '--password=hunter2',
  '--type=',
  '-ttt',
  'x'.repeat(5000),
  '\u001b[31mred\u001b[0m',
  'line\nbreak',
  '\u202eevil',
  '東京',
  '😀',
  '%s%n',
  '$(id)',
  '../../etc/passwd',
  '\u0007\u0008\u007f', // (NUL cannot be in argv at all)
];

/** One random command line. Mostly well-formed, with a fair share of bad values and junk. */
function argv(r: Rng, lane: string): string[] {
  const id = () => (r.chance(0.8) ? r.pick(IDS_OK) : r.pick(IDS_BAD));
  const type = () => (r.chance(0.85) ? r.pick(TYPES_OK) : r.pick(TYPES_BAD));
  const date = () => (r.chance(0.8) ? r.pick(DATES_OK) : r.pick(DATES_BAD));
  const out: string[] = [];
  const globals = () => {
    if (r.chance(0.1)) out.push('-q');
    if (r.chance(0.1)) out.push('-v');
    if (r.chance(0.1)) out.push('--no-color');
    if (r.chance(0.08)) out.push('--timeout', r.pick(['5', '0', 'abc', '-1', '1e3', '0.5']));
    if (r.chance(0.08)) out.push('--retries', r.pick(['0', '1', 'abc', '101', '-1']));
    if (r.chance(0.08)) out.push('--rate-limit', r.pick(['1000/1s', 'abc', '0/1s', '4/0s', '4/60s']));
    if (r.chance(0.05)) out.push('--profile', r.pick(['default', 'nope', 'bad name!', '']));
    if (r.chance(0.05)) out.push('--base-url', r.pick(['ftp://x', 'not a url', 'http://user:pw@host']));
    if (r.chance(0.05)) out.push('--tenant', r.pick(['demo-tenant', 'other-tenant']));
  };
  const dates = () => {
    const mode = r.next();
    if (mode < 0.65) out.push(r.pick(['-d', '--date']), date());
    else if (mode < 0.85) {
      out.push('--from', date(), '--to', date());
      if (r.chance(0.3)) out.push('--weekends');
    } else if (mode < 0.9) out.push('--from', '2020-01-01', '--to', '2024-01-01');
    else if (mode < 0.95) out.push('-d', date(), '--from', date());
    // else: no date at all
  };
  globals();
  const command = r.pick([
    'report',
    'report',
    'report',
    'export',
    'export',
    'config',
    'auth',
    'misc',
    'junk',
  ]);
  switch (command) {
    case 'report': {
      out.push('report');
      const n = r.chance(0.8) ? 1 : r.chance(0.5) ? 2 : 0;
      for (let i = 0; i < n; i++) out.push(id());
      if (r.chance(0.92)) out.push(r.pick(['-t', '--type']), type());
      dates();
      if (r.chance(0.5)) out.push('-f', r.pick(['table', 'json', 'ndjson', 'csv', 'tsv', 'xml', 'JSON']));
      if (r.chance(0.1)) out.push('--json');
      if (r.chance(0.15))
        out.push(
          '--fields',
          r.pick(['effectiveDate,indexValue', 'isin', ',', 'a,,b', 'nope', 'indexId.Net']),
        );
      if (r.chance(0.1)) out.push('--raw');
      if (r.chance(0.15))
        out.push('-o', join(lane, r.pick(['r.json', 'r.csv', 'missing/r.json', 'r.ndjson'])));
      if (r.chance(0.15)) out.push('--force');
      break;
    }
    case 'export': {
      out.push('export');
      const n = r.chance(0.85) ? 1 : r.chance(0.5) ? 2 : 0;
      for (let i = 0; i < n; i++) out.push(id());
      if (r.chance(0.92)) out.push('-t', type());
      dates();
      if (r.chance(0.5)) out.push('-f', r.pick(['json', 'csv', 'zip', '']));
      if (r.chance(0.3)) out.push('--dir', r.pick([lane, join(lane, 'nope'), join(lane, 'sub')]));
      if (r.chance(0.15)) out.push('-o', r.pick(['-', join(lane, 'e.json'), join(lane, 'e.zip')]));
      if (r.chance(0.15)) out.push('--name', r.pick(['My Index', '!!!', '', '../x']));
      if (r.chance(0.2)) out.push('--force');
      if (r.chance(0.2)) out.push('--extract');
      break;
    }
    case 'config': {
      out.push('config');
      const action = r.pick(['list', 'get', 'set', 'unset', 'path', 'bogus', '']);
      if (action) out.push(action);
      const key = r.pick(['timeout', 'retries', 'rate-limit', 'realm', 'base-url', 'nope', 'tenant']);
      if (action === 'get' || action === 'unset') out.push(key);
      if (action === 'set') out.push(key, r.pick(['30', 'abc', '4/60s', 'https://example.com', 'x y', '']));
      if (action === 'list' && r.chance(0.5)) out.push('--json');
      break;
    }
    case 'auth':
      out.push('auth', r.pick(['status', 'token', 'bogus', '']));
      if (r.chance(0.3)) out.push('--json');
      break;
    case 'misc':
      out.push(
        ...r.pick([
          ['logout'],
          ['logout', '--all'],
          ['completion', r.pick(['bash', 'zsh', 'fish', 'powershell', ''])],
          ['help', r.pick(['report', 'exit-codes', 'auth status', 'nope'])],
          ['login'],
          ['login', '--username', 'demo'],
          ['sandbox', '--help'],
          ['--version'],
          ['--help'],
          [],
        ]),
      );
      break;
    default:
      for (let i = 0, k = 1 + Math.floor(r.next() * 4); i < k; i++)
        out.push(r.chance(0.5) ? r.pick(JUNK) : r.pick(['report', 'export', '-t', '-d', 'index', '42']));
  }
  // A junk token somewhere, sometimes.
  if (r.chance(0.08)) out.splice(Math.floor(r.next() * (out.length + 1)), 0, r.pick(JUNK));
  return out.filter((a) => a !== undefined);
}

interface Lane {
  sandbox: Sandbox;
  dir: string;
  env: Record<string, string>;
}
const lanes: Lane[] = [];
const sandboxes = [useSandbox({ rateLimit: '1000/1s' }), useSandbox({ rateLimit: '1000/1s' })];
const tmp = useTempDir('prs-fuzz-');
/** One run's bound: a run that hangs is killed and reported (exit null is outside the contract). */
const RUN_MS = 30_000;

beforeAll(async () => {
  for (const [i, sandbox] of sandboxes.entries()) {
    const dir = join(tmp.path, `lane${i}`);
    mkdirSync(join(dir, 'sub'), { recursive: true });
    lanes.push({
      sandbox,
      dir,
      env: {
        ...dirsEnv(dir),
        PRS_BASE_URL: sandbox.url,
        PRS_TENANT: sandbox.users[0]!.tenant,
        PRS_TOKEN: (await sandboxTokens(sandbox)).access_token,
        PRS_RATE_LIMIT: '1000/1s',
        PRS_RETRIES: '0',
        PRS_TIMEOUT: '10',
      },
    });
  }
});

/** The failure of one run, or undefined when it kept every promise. */
function check(args: string[], r: Awaited<ReturnType<typeof runPrs>>, requests: number): string | undefined {
  const problems: string[] = [];
  if (r.signal !== null || !(CONTRACT_CODES as readonly (number | null)[]).includes(r.code)) {
    problems.push(`exit ${r.code ?? r.signal} is not in the contract`);
  }
  if (r.code === 1) problems.push('exit 1 (internal error)');
  if (STACK.test(r.stderr)) problems.push('a stack trace or Node warning on stderr');
  // The one usage error decided on the data, by design: rows may carry fields beyond the spec's, so a
  // --fields name is unknown only once a response shows it is (CLI.md; test/e2e/report.test.ts).
  const onTheData = /^prs: unknown field "/m.test(r.stderr);
  if (r.code === 2 && requests > 0 && !onTheData) problems.push(`${requests} request(s) sent for bad input`);
  if (r.code !== 0 && r.code !== null) {
    // -v lines ("> GET", "< 200") and notes may come first; the error is the end of stderr.
    const lines = r.stderr
      .replace(/\n$/, '')
      .split('\n')
      .filter((l) => !/^[<>] /.test(l));
    const at = lines.findLastIndex((l) => l.startsWith('prs: ') && !l.startsWith('prs: note:'));
    if (at < 0) problems.push('no `prs:` error line');
    else if (lines.length - at > 2) problems.push('more than one line after the `prs:` line');
    if (r.code === 2 && !args.includes('-v') && lines.length > 2)
      problems.push('a usage error of more than two lines');
  }
  return problems.length
    ? `${JSON.stringify(args)} → exit ${r.code}: ${problems.join('; ')}\n${r.stderr}`
    : undefined;
}

describe('argv fuzz', () => {
  it(`[R-Z01] ${RUNS} random command lines (seed ${SEED}): contract exit codes, clean errors, no request for bad input`, {
    // No budget for the whole: each run has its own bound (RUN_MS), however busy the machine.
    timeout: Math.ceil(RUNS / 2) * RUN_MS,
  }, async () => {
    const r = prng(SEED);
    const cases = Array.from({ length: RUNS }, (_, i) => argv(r, lanes[i % 2]!.dir));
    const failures: string[] = [];
    const codes = new Map<number | null, number>();
    await Promise.all(
      lanes.map(async (lane, li) => {
        for (let i = li; i < cases.length; i += lanes.length) {
          const args = cases[i]!;
          lane.sandbox.stats.reset();
          const res = await runPrs(args, { env: lane.env, cwd: lane.dir, timeoutMs: RUN_MS });
          codes.set(res.code, (codes.get(res.code) ?? 0) + 1);
          const problem = check(args, res, lane.sandbox.stats.requests.length);
          if (problem) failures.push(problem);
        }
      }),
    );
    expect(failures, failures.join('\n\n')).toEqual([]);
    // The mix is worth something only if it reaches both the success path and the usage checks.
    expect(codes.get(0) ?? 0).toBeGreaterThan(RUNS * 0.15);
    expect(codes.get(2) ?? 0).toBeGreaterThan(RUNS * 0.15);
    expect(codes.size).toBeGreaterThanOrEqual(5);
  });
});
