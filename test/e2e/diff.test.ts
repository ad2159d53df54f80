/**
 * `prs diff` end to end: the BUILT binary against the sandbox's portfolio 77 (a rebalance effective
 * 2024-03-18, a dual listing, a split on 2024-03-20, weights with 20 decimals, index literals a double
 * cannot hold), with its own config and cache dirs and a real login.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseCsv } from 'csv-parse/sync';
import { beforeEach, describe, expect, it } from 'vitest';
import { parseJson } from '../helpers/json.js';
import { BROKEN_PORTFOLIO_ID, REBALANCE_PORTFOLIO_ID } from '../helpers/portfolios.js';
import { type RunOptions, runPrs } from '../helpers/run.js';
import { reportBody, useLoggedIn } from '../helpers/session.js';

const P = String(REBALANCE_PORTFOLIO_ID);
const prs = (args: string[], o: RunOptions = {}) => runPrs(args, { ...o, env: { ...env, ...o.env } });
const requests = () => sandbox.stats.count({ endpoint: 'report' });

const { sandbox, tmp, env } = useLoggedIn('prs-diff-e2e-', { rateLimit: '1000/1s' });
beforeEach(() => sandbox.stats.reset());

const serviceBody = (type: string, date: string) =>
  reportBody(sandbox, env, REBALANCE_PORTFOLIO_ID, type, date);

/** A decimal text (plain or with an exponent) as an integer at 10^-60: the test's own reference. */
function scaled(text: string): bigint {
  const m = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(text);
  if (!m) throw new Error(`not a number: ${text}`);
  const frac = m[3] ?? '';
  const shift = 60 + Number(m[4] ?? 0) - frac.length;
  const v = BigInt(m[2] + frac) * 10n ** BigInt(shift);
  return m[1] ? -v : v;
}

/** Each JSON row's from/to/delta as the literal texts printed (numbers) or null. */
function literals(line: string): { from: string | null; to: string | null; delta: string | null } {
  const pick = (k: string) => {
    const m = new RegExp(`"${k}":(-?[0-9][0-9.eE+-]*|null|"(?:[^"\\\\]|\\\\.)*")`).exec(line);
    if (!m) throw new Error(`no ${k} in ${line}`);
    return m[1] === 'null' || m[1]!.startsWith('"') ? null : m[1]!;
  };
  return { from: pick('from'), to: pick('to'), delta: pick('delta') };
}

describe('two dates across the rebalance (constituent.close, 2024-03-15 → 2024-03-18)', () => {
  const args = [P, '-t', 'constituent.close', '--from', '2024-03-15', '--to', '2024-03-18'];

  it('ndjson: one security leaves, one enters, the dual listing keyed by ticker; deltas exact; the summary on stderr', async () => {
    const r = await prs(['diff', ...args, '-f', 'ndjson']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('2024-03-15 → 2024-03-18: 1 added, 1 removed, 7 changed, 0 unchanged\n');
    const lines = r.stdout.trimEnd().split('\n');
    const rows = lines.map((l) => parseJson(l) as Record<string, unknown>);
    expect(new Set(rows.filter((x) => x.change === 'added').map((x) => x.isin)).size).toBe(1);
    expect(new Set(rows.filter((x) => x.change === 'removed').map((x) => x.isin)).size).toBe(1);
    const dual = rows.filter((x) => x.isin === 'GB00B7K3N9Q5');
    expect(new Set(dual.map((x) => x.securityTicker))).toEqual(new Set(['ORN LN', 'ORN NA']));
    expect(Object.keys(rows[0]!)).toEqual([
      'change',
      'isin',
      'securityTicker',
      'field',
      'from',
      'to',
      'delta',
    ]);
    // Every delta is to − from exactly, and every from/to is a literal the service sent.
    const [oldBody, newBody] = [
      await serviceBody('constituent.close', '2024-03-15'),
      await serviceBody('constituent.close', '2024-03-18'),
    ];
    let numeric = 0;
    let longDigits = 0;
    for (const [i, line] of lines.entries()) {
      const { from, to, delta } = literals(line);
      const field = rows[i]!.field as string;
      if (from !== null) expect(oldBody).toContain(`"${field}":${from}`);
      if (to !== null) expect(newBody).toContain(`"${field}":${to}`);
      if (from === null || to === null || rows[i]!.change !== 'changed') continue;
      if (!/^-?\d/.test(from)) continue;
      numeric++;
      if (from.replace(/\D/g, '').length > 17) longDigits++;
      expect(delta).toMatch(/^-?(0|[1-9]\d*)(\.\d*[1-9])?$/);
      expect(scaled(delta!)).toBe(scaled(to) - scaled(from));
    }
    expect(numeric).toBeGreaterThan(15);
    expect(longDigits).toBeGreaterThan(5);
  });

  it('--fields and --key: only the weights, by isin + ticker', async () => {
    const r = await prs([
      'diff',
      ...args,
      '-f',
      'csv',
      '--fields',
      'indexWeighting',
      '--key',
      'isin,securityTicker',
    ]);
    expect(r.code, r.stderr).toBe(0);
    const [header, ...rows] = parseCsv(r.stdout) as string[][];
    expect(header).toEqual(['change', 'isin', 'securityTicker', 'field', 'from', 'to', 'delta']);
    expect(new Set(rows.map((x) => x[3]))).toEqual(new Set(['indexWeighting']));
    expect(rows.length).toBe(9); // 7 changed, 1 added, 1 removed
  });

  it('a --key that repeats within an answer: exit 2 naming the value', async () => {
    const r = await prs(['diff', ...args, '--key', 'isin']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /prs: the key isin repeats within the answer of portfolio 77 on 2024-03-15: GB00B7K3N9Q5\n/,
    );
    expect(r.stdout).toBe('');
  });

  it('table on a terminal-less run with -f table: a row’s changes grouped, weights in basis points', async () => {
    const r = await prs(['diff', ...args, '-f', 'table']);
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.split('\n');
    expect(lines[1]).toMatch(/│ change +│ isin +│ securityTicker +│ field +│ from +│ to +│ +delta │ +bp │/);
    const weight = lines.find((l) => l.includes('indexWeighting'))!;
    expect(weight).toMatch(/^│ +│ +│ +│ indexWeighting │/);
    expect(weight).toMatch(/│ +-?\d+\.\d+ │$/);
  });
});

describe('exact to the digit in every format (index, 2024-03-14 → 2024-03-15)', () => {
  const args = ['diff', P, '-t', 'index', '--from', '2024-03-14', '--to', '2024-03-15'];
  it.each(['json', 'ndjson', 'csv', 'tsv', 'table'])('%s', async (format) => {
    const r = await prs([...args, '-f', format]);
    expect(r.code, r.stderr).toBe(0);
    for (const literal of [
      '12.3456789012345678',
      '12.3456789012345679',
      '0.0000000000000001',
      '0.049999999999',
      '5E-13',
      '-0.0499999999985',
    ])
      expect(r.stdout).toContain(literal);
  });
});

it('--against: close vs pro forma on 2024-03-15 shows what the rebalance changes', async () => {
  const r = await prs([
    'diff',
    P,
    '-t',
    'constituent.close',
    '-d',
    '2024-03-15',
    '--against',
    'constituent.proforma',
    '-f',
    'json',
  ]);
  expect(r.code, r.stderr).toBe(0);
  expect(r.stderr).toBe(
    '2024-03-15 constituent.close → constituent.proforma: 1 added, 1 removed, 7 changed, 0 unchanged\n',
  );
  const rows = parseJson(r.stdout) as Record<string, unknown>[];
  // Pro forma carries the day's prices: only composition, shares and weights move.
  expect(
    rows
      .filter((x) => x.change === 'changed')
      .every((x) => ['indexShares', 'indexWeighting'].includes(x.field as string)),
  ).toBe(true);
});

it('the split on 2024-03-20: shares double, price halves, and the corporate action explains it', async () => {
  const r = await prs([
    'diff',
    P,
    '-t',
    'constituent.close',
    '--from',
    '2024-03-19',
    '--to',
    '2024-03-20',
    '-f',
    'json',
    '--fields',
    'indexShares',
  ]);
  expect(r.code, r.stderr).toBe(0);
  const [row] = parseJson(r.stdout) as Record<string, unknown>[];
  expect(row).toMatchObject({ change: 'changed', field: 'indexShares' });
  const ca = await prs(['report', P, '-t', 'constituent.corporateactions', '-d', '2024-03-20', '-f', 'json']);
  const [event] = parseJson(ca.stdout) as Record<string, Record<string, unknown>>[];
  expect(event!.eventType).toBe('Stock Split');
  expect(event!.isin).toBe(row!.isin);
  expect(String(event!.oldShares!.Net)).toBe(String(row!.from));
  expect(String(event!.newShares!.Net)).toBe(String(row!.to));
});

it('corporate actions: keyed by eventId, nested objects compared by dotted path', async () => {
  const r = await prs([
    'diff',
    P,
    '-t',
    'constituent.proformacorporateactions',
    '-d',
    '2024-03-19',
    '--against',
    'constituent.corporateactions',
    '-f',
    'csv',
  ]);
  expect(r.code, r.stderr).toBe(0);
  const [header, ...rows] = parseCsv(r.stdout) as string[][];
  expect(header.slice(0, 2)).toEqual(['change', 'eventId']);
  // The split announced on the 19th (pro forma) took effect on the 20th; the 19th's own report has none.
  expect(
    rows.some((x) => x[0] === 'removed' && x[1] === 'CA-77-20240320-S1' && x[2] === 'oldShares.Net'),
  ).toBe(true);
});

it('--each: consecutive weekdays, a holiday answer left out, fromDate/toDate in the rows', async () => {
  const r = await prs([
    'diff',
    P,
    '42',
    '-t',
    'index',
    '--from',
    '2024-12-23',
    '--to',
    '2024-12-27',
    '--each',
    '-f',
    'csv',
    '--fields',
    'indexValue',
  ]);
  expect(r.code, r.stderr).toBe(0);
  const [header, ...rows] = parseCsv(r.stdout) as string[][];
  expect(header).toEqual([
    'portfolioId',
    'fromDate',
    'toDate',
    'change',
    'indexId',
    'field',
    'from',
    'to',
    'delta',
  ]);
  expect(new Set(rows.map((x) => `${x[0]} ${x[1]}→${x[2]}`))).toEqual(
    new Set([
      '77 2024-12-23→2024-12-24',
      '77 2024-12-24→2024-12-27',
      '42 2024-12-23→2024-12-24',
      '42 2024-12-24→2024-12-27',
    ]),
  );
  expect(r.stderr).toMatch(
    /^portfolio 77: 2024-12-23 → 2024-12-24: 0 added, 0 removed, 1 changed, 0 unchanged$/m,
  );
  expect(r.stderr).toMatch(/^portfolio 77: 2024-12-25, 2024-12-26 answered with the rows of 2024-12-24/m);
  expect(requests()).toBe(10);
});

describe('every report type', () => {
  // Corporate actions: a Friday's dividend against the split of 2024-03-20 (pro forma: a day ahead).
  it.each([
    ['index', 'indexId', 'indexValue', '2024-03-15', '2024-03-18'],
    ['constituent.close', 'isin', 'indexWeighting', '2024-03-15', '2024-03-18'],
    ['constituent.open', 'isin', 'closingPrice', '2024-03-15', '2024-03-18'],
    ['constituent.proforma', 'isin', 'closingPrice', '2024-03-15', '2024-03-18'],
    ['constituent.corporateactions', 'eventId', 'eventType', '2024-03-15', '2024-03-20'],
    ['constituent.proformacorporateactions', 'eventId', 'eventType', '2024-03-14', '2024-03-19'],
  ])('%s: keyed by %s', async (type, key, field, from, to) => {
    const r = await prs(['diff', P, '-t', type, '--from', from, '--to', to, '-f', 'json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(
      /^\d{4}-\d\d-\d\d → \d{4}-\d\d-\d\d: \d+ added, \d+ removed, \d+ changed, \d+ unchanged\n$/,
    );
    const rows = parseJson(r.stdout) as Record<string, unknown>[];
    expect(rows.length).toBeGreaterThan(0);
    expect(Object.keys(rows[0]!).slice(0, 2)).toEqual(['change', key]);
    expect(rows.some((x) => x.field === field)).toBe(true);
  });
});

describe('--jq', () => {
  const args = ['diff', P, '-t', 'index', '--from', '2024-03-14', '--to', '2024-03-15'];
  const FIELDS = [
    'indexValue',
    'closeMarketValue',
    'openMarketValue',
    'openDivisor',
    'totalReturnIndex',
    'trackingError',
  ];
  it('over the diff rows, every digit kept', async () => {
    const r = await prs([
      ...args,
      '--jq',
      '.[] | select(.field | test("total|tracking")) | [.from, .to, .delta]',
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(
      '[12.3456789012345678,12.3456789012345679,0.0000000000000001]\n[0.049999999999,5E-13,-0.0499999999985]\n',
    );
  });
  it.each([
    ['.[] | .field', `${FIELDS.join('\n')}\n`],
    ['map(.field)', `${JSON.stringify(FIELDS)}\n`],
    ['[.[] | .delta]', '[26.491545,264916,-204500,0.000557,0.0000000000000001,-0.0499999999985]\n'],
  ])('a filter of the fast subset report runs on its rows: %s', async (filter, want) => {
    const r = await prs([...args, '--jq', filter]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(want);
  });
  it.each([
    ['a filter that does not compile', ['--jq', '.[']],
    ['with --format', ['--jq', '.[]', '-f', 'csv']],
    ['an empty filter', ['--jq', ' ']],
  ])('%s: exit 2 before any request', async (_, extra) => {
    const r = await prs([...args, ...extra]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^prs: /);
    expect(sandbox.stats.requests.length).toBe(0);
  });
});

it('--from/--to over a holiday says that both dates were answered with the same rows', async () => {
  const r = await prs(['diff', P, '-t', 'index', '--from', '2024-12-24', '--to', '2024-12-25', '-f', 'json']);
  expect(r.code, r.stderr).toBe(0);
  expect(r.stdout).toBe('[]\n');
  expect(r.stderr).toMatch(
    /^portfolio 77: 2024-12-24 and 2024-12-25 were both answered with the rows of 2024-12-24 \(a holiday\?\)$/m,
  );
});

it.each([
  [['-t', 'index', '--key', 'indexId,indexName'], 'change,indexId,indexName,field,from,to,delta'],
  // The dual listing makes the default key isin,securityTicker.
  [['-t', 'constituent.close', '-f', 'tsv'], 'change\tisin\tsecurityTicker\tfield\tfrom\tto\tdelta'],
])('nothing changed: the header names the key the pair was joined by (%j)', async (extra, header) => {
  const r = await prs(['diff', P, '--from', '2024-12-24', '--to', '2024-12-25', '-f', 'csv', ...extra]);
  expect(r.code, r.stderr).toBe(0);
  expect(r.stdout).toBe(`${header}\n`);
});

describe('--exit-code', () => {
  it('something changed: exit 11, output and summary as usual, no error line', async () => {
    const r = await prs([
      'diff',
      P,
      '-t',
      'index',
      '--from',
      '2024-03-14',
      '--to',
      '2024-03-15',
      '-f',
      'ndjson',
      '--exit-code',
    ]);
    expect(r.code).toBe(11);
    expect(r.stdout).toContain('"delta":0.0000000000000001');
    expect(r.stderr).toBe('2024-03-14 → 2024-03-15: 0 added, 0 removed, 1 changed, 0 unchanged\n');
  });
  it('nothing changed: exit 0, [] (portfolio 13 has the same rows every day)', async () => {
    const r = await runPrs(
      ['diff', '13', '-t', 'constituent.close', '--from', '2024-03-14', '--to', '2024-03-15', '--exit-code'],
      { env },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('[]\n');
  });
  it('prs help exit-codes lists 11', async () => {
    const r = await prs(['help', 'exit-codes']);
    expect(r.stdout).toMatch(/^ +11 +diff --exit-code: something changed/m);
  });
});

describe('a run like report’s', () => {
  it('the answer cache: a second diff of past dates sends nothing', async () => {
    const args = [
      '--cache',
      '7d',
      'diff',
      P,
      '-t',
      'constituent.close',
      '--from',
      '2024-03-15',
      '--to',
      '2024-03-18',
      '-f',
      'ndjson',
    ];
    const first = await prs(args);
    expect(first.code, first.stderr).toBe(0);
    expect(requests()).toBe(2);
    const second = await prs(args);
    expect(second.code).toBe(0);
    expect(second.stdout).toBe(first.stdout);
    expect(requests()).toBe(2);
    const dry = await prs([...args.filter((a) => a !== 'ndjson' && a !== '-f'), '--dry-run']);
    expect(dry.stderr).toMatch(
      /dry run: 2 items, nothing sent\nanswered from the cache: 2\nrequests to send: 0\n/,
    );
    expect(requests()).toBe(2);
  });

  it('--refresh asks again despite the cache; --fail-fast stops at the first failure', async () => {
    const args = [
      '--cache',
      '7d',
      'diff',
      P,
      '-t',
      'index',
      '--from',
      '2024-03-14',
      '--to',
      '2024-03-15',
      '-f',
      'ndjson',
    ];
    expect((await prs(args)).code).toBe(0);
    sandbox.stats.reset();
    const again = await prs([...args, '--refresh']);
    expect(again.code, again.stderr).toBe(0);
    expect(requests()).toBe(2);
    sandbox.stats.reset();
    const failFast = await prs(
      [
        'diff',
        String(BROKEN_PORTFOLIO_ID),
        P,
        '-t',
        'index',
        '--from',
        '2024-03-14',
        '--to',
        '2024-03-15',
        '--fail-fast',
      ],
      { env: { PRS_RETRIES: '0' } },
    );
    expect(failFast.code).toBe(8);
    // Two requests go at once (the pair's second is in flight); nothing of portfolio 77 was asked.
    expect(requests()).toBeLessThanOrEqual(2);
    expect(sandbox.stats.requests.filter((x) => x.path.includes(`/portfolio/${P}?`))).toEqual([]);
    expect(failFast.stdout).toBe('');
  });

  it('--dry-run with --against plans both types', async () => {
    const r = await prs([
      'diff',
      P,
      '42',
      '-t',
      'constituent.close',
      '-d',
      '2024-03-15',
      '--against',
      'constituent.proforma',
      '--dry-run',
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/^dry run: 4 items, nothing sent\nanswered from the cache: 0\n/m);
    expect(requests()).toBe(0);
    const json = await prs([
      'diff',
      P,
      '-t',
      'index',
      '--from',
      '2024-03-14',
      '--to',
      '2024-03-15',
      '--dry-run',
      '-f',
      'json',
    ]);
    expect(JSON.parse(json.stdout)).toMatchObject({ command: 'diff', items: 2, requests: 2 });
  });

  it('keep-going: a portfolio that fails is reported, the others compared; the first failure’s exit code', async () => {
    const r = await prs(
      [
        'diff',
        P,
        String(BROKEN_PORTFOLIO_ID),
        '-t',
        'index',
        '--from',
        '2024-03-14',
        '--to',
        '2024-03-15',
        '-f',
        'ndjson',
      ],
      {
        env: { PRS_RETRIES: '0' },
      },
    );
    expect(r.code).toBe(8);
    expect(r.stdout).toContain('"portfolioId":77');
    expect(r.stderr).toMatch(/portfolio 500 on 2024-03-14: service error/);
    expect(r.stderr).toMatch(/prs: 1 pair compared, 2 failed: portfolio 500 on 2024-03-14/);
  });

  it('no data: exit 3', async () => {
    const r = await prs(['diff', '101', '-t', 'index', '--from', '2024-03-14', '--to', '2024-03-15']);
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/prs: nothing to compare: no data for portfolio 101 on 2024-03-14, 2024-03-15/);
    expect(r.stderr.match(/no data for/g), 'said once').toHaveLength(1);
  });

  it('-o: the file appears whole; an existing one is kept without --force (exit 10, nothing sent)', async () => {
    const out = join(tmp.path, 'changes.csv');
    const r = await prs([
      'diff',
      P,
      '-t',
      'constituent.close',
      '--from',
      '2024-03-15',
      '--to',
      '2024-03-18',
      '-o',
      out,
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('');
    expect(readFileSync(out, 'utf8')).toMatch(/^change,isin,securityTicker,field,from,to,delta\n/);
    writeFileSync(out, 'mine');
    sandbox.stats.reset();
    const again = await prs([
      'diff',
      P,
      '-t',
      'constituent.close',
      '--from',
      '2024-03-15',
      '--to',
      '2024-03-18',
      '-o',
      out,
    ]);
    expect(again.code).toBe(10);
    expect(readFileSync(out, 'utf8')).toBe('mine');
    expect(requests()).toBe(0);
    expect(existsSync(`${out}.tmp`)).toBe(false);
  });

  it.each([
    ['--from without --to', ['--from', '2024-03-15']],
    [
      '--against with --from',
      ['--from', '2024-03-15', '--to', '2024-03-18', '--against', 'constituent.proforma'],
    ],
    ['-d without --against', ['-d', '2024-03-15']],
    ['no --type', ['--from', '2024-03-15', '--to', '2024-03-18', '--type']],
  ])('%s: exit 2 before any request', async (_, extra) => {
    const typed = extra.includes('--type')
      ? extra.filter((a) => a !== '--type')
      : ['-t', 'constituent.close', ...extra];
    const r = await prs(['diff', P, ...typed]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^prs: /);
    expect(sandbox.stats.requests.length).toBe(0);
  });
});
