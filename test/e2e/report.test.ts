/**
 * `prs report` end to end: the BUILT binary (run `npm run build` first) against the in-process sandbox
 * (spec-faithful, 100/1s so nothing waits), with its own config and cache dirs and a real login.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseCsv } from 'csv-parse/sync';
import { beforeAll, describe, expect, it } from 'vitest';
import { REPORT_TYPES } from '../../src/domain.js';
import { stringifyLossless } from '../../src/json/lossless.js';
import { flatten } from '../../src/render/columns.js';
import { parseJson } from '../helpers/json.js';
import { EMPTY_PORTFOLIO_ID, EXAMPLE_PORTFOLIO_ID, PRECISION_PORTFOLIO_ID } from '../helpers/portfolios.js';
import { render } from '../helpers/rows.js';
import { type RunOptions, type RunResult, runPrs, runPrsIntoClosedPipe } from '../helpers/run.js';
import { reportBody, useLoggedIn } from '../helpers/session.js';

const DATE = '2024-05-03'; // a Friday
const prs = (args: string[], o: RunOptions = {}) => runPrs(args, { ...o, env: { ...env, ...o.env } });
const reportRequests = () => sandbox.stats.count({ endpoint: 'report' });

// A run (or a body) several tests read is made once: the tests of every type and format, of the body's
// direct rendering and of number fidelity read the same `report <id> -t <type> -d DATE -f <format>`.
const once = <T>(made: Map<string, Promise<T>>, key: string, make: () => Promise<T>) => {
  if (!made.has(key)) made.set(key, make());
  return made.get(key)!;
};
const runs = new Map<string, Promise<RunResult>>();
const shared = (args: string[]) => once(runs, args.join(' '), () => prs(args));
const bodies = new Map<string, Promise<string>>();
const serviceBody = (id: number, type: string, date = DATE) =>
  once(bodies, `${id} ${type} ${date}`, () => reportBody(sandbox, env, id, type, date));
const rowsOf = (body: string) => (parseJson(body) as { report: Record<string, unknown>[] }).report;

const { sandbox, tmp, env } = useLoggedIn('prs-report-e2e-', { rateLimit: '100/1s' });

describe('every type × format', () => {
  describe.each(REPORT_TYPES)('%s', (type) => {
    let expected: Record<string, unknown>[];
    beforeAll(async () => {
      expected = rowsOf(await serviceBody(EXAMPLE_PORTFOLIO_ID, type));
      expect(expected.length).toBeGreaterThan(0);
    });
    const run = async (format: string) => {
      const r = await shared(['report', String(EXAMPLE_PORTFOLIO_ID), '-t', type, '-d', DATE, '-f', format]);
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      return r.stdout;
    };

    it('json: the rows as sent, every digit kept', async () => {
      expect(await run('json')).toBe(`${stringifyLossless(expected)}\n`);
    });

    it('ndjson: one row per line', async () => {
      expect(await run('ndjson')).toBe(expected.map((r) => `${stringifyLossless(r)}\n`).join(''));
    });

    it.each(['csv', 'tsv'])('%s: a header of flattened columns, then the rows', async (format) => {
      const out = await run(format);
      const records: string[][] =
        format === 'csv'
          ? parseCsv(out)
          : out
              .trimEnd()
              .split('\n')
              .map((l) => l.split('\t'));
      const flat = expected.map(flatten);
      const header = records[0];
      expect(header).toEqual(Object.keys(flat[0]));
      expect(records).toHaveLength(expected.length + 1);
      records.slice(1).forEach((rec, i) => {
        const want = header.map((h) => {
          const v = flat[i][h];
          return v === null || v === undefined ? '' : String(v);
        });
        expect(rec).toEqual(want);
      });
      if (type.includes('corporateactions')) expect(header).toContain('indexId.Net');
    });

    it('table: the spec columns first, one line per row', async () => {
      const out = await run('table');
      const lines = out.trimEnd().split('\n');
      expect(lines).toHaveLength(expected.length + 4);
      const first =
        type === 'index' ? 'effectiveDate' : type.includes('corporate') ? 'indexId.Net' : 'effectiveDate';
      expect(lines[1]).toMatch(new RegExp(`^│ ${first.replace('.', '\\.')} +│`));
    });
  });
});

describe('number fidelity (portfolio 13)', () => {
  const literals = [
    '1234567.123456789012',
    '12345678901234567890',
    '98765432109876543210',
    '0.000000000000000001',
    '6.02214076E+23',
    '-0.0001234567890123456789',
  ];
  it.each(['json', 'ndjson', 'csv', 'tsv', 'table'])(
    '%s prints the digits the service sent',
    async (format) => {
      const r = await shared([
        'report',
        String(PRECISION_PORTFOLIO_ID),
        '-t',
        'index',
        '-d',
        DATE,
        '-f',
        format,
      ]);
      expect(r.code).toBe(0);
      for (const l of literals) expect(r.stdout).toContain(l);
    },
  );

  it('constituents: quoting traps and odd literals survive CSV', async () => {
    const r = await prs(['report', '13', '-t', 'constituent.close', '-d', DATE, '-f', 'csv']);
    expect(r.code).toBe(0);
    const [header, ...rows] = parseCsv(r.stdout) as string[][];
    const col = (name: string) => rows.map((row) => row[header.indexOf(name)]);
    expect(col('securityName')).toEqual([
      'Société Générale, "A" Shares',
      'トヨタ自動車 (Toyota Motor)',
      'Zero & Tiny; "Quoted" Co',
    ]);
    expect(col('closingPrice')).toEqual(['1234567.123456789012', '9007199254740993', '0.00000001']);
    expect(col('closingFx')).toEqual(['1.0', '0.006212345678901234567', '1.163412000000000000001']);
    expect(col('indexShares')).toEqual(['12345678901234567890', '0.1', '1E-7']);
    expect(col('comment')).toEqual(['line one\nline two', '', '']);
    expect(col('flags.esg')).toEqual(['true', '', '']);
  });

  it('json equals the service body re-serialised, also for corporate actions', async () => {
    for (const type of ['constituent.close', 'constituent.corporateactions'] as const) {
      const body = await serviceBody(PRECISION_PORTFOLIO_ID, type);
      const r = await prs(['report', '13', '-t', type, '-d', DATE, '--json']);
      expect(r.stdout).toBe(`${stringifyLossless(rowsOf(body))}\n`);
    }
  });
});

describe('csv, tsv, ndjson and piped json straight from the body (one request) equal the general renderer', () => {
  // One request in these formats is rendered from the body's bytes (src/render/direct.ts); the
  // general path (parse, then render) is the reference, over every sandbox data set and report type.
  const cases = [EXAMPLE_PORTFOLIO_ID, PRECISION_PORTFOLIO_ID, 1, 7].flatMap((id) =>
    (id === 7 ? (['constituent.close'] as const) : REPORT_TYPES).map((type) => [id, type] as const),
  );
  it.each(cases)('portfolio %i, %s', async (id, type) => {
    const rows = rowsOf(await serviceBody(id, type));
    for (const format of ['csv', 'tsv', 'ndjson', 'json'] as const) {
      const r = await shared(['report', String(id), '-t', type, '-d', DATE, '-f', format]);
      expect(r.code).toBe(0);
      const want = render({ type, format, rows, multi: false, color: false, terminal: false, width: 80 });
      expect(r.stdout).toBe(want.text);
    }
  });
});

describe('a reader that has gone (`prs report … | head`)', () => {
  it('ends quietly with 0 for every format, the state left sound for the next run', async () => {
    for (const format of ['csv', 'json', 'ndjson', 'table']) {
      const args = ['report', '7', '-t', 'constituent.close', '-d', DATE, '-f', format];
      const r = await runPrsIntoClosedPipe(args, { env });
      expect({ format, code: r.code, stderr: r.stderr }).toEqual({ format, code: 0, stderr: '' });
    }
    const next = await prs(['report', String(EXAMPLE_PORTFOLIO_ID), '-t', 'index', '-d', DATE, '-f', 'csv']);
    expect(next.code, next.stderr).toBe(0);
  });
});

describe('ranges and several portfolios', () => {
  it('a range: the weekdays in date order, one request each', async () => {
    const before = reportRequests();
    const r = await prs([
      'report',
      '42',
      '-t',
      'index',
      '--from',
      '2024-05-02',
      '--to',
      '2024-05-07',
      '-f',
      'csv',
      '--fields',
      'effectiveDate,currency',
    ]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(
      'effectiveDate,currency\n' +
        ['2024-05-02', '2024-05-03', '2024-05-06', '2024-05-07'].map((d) => `${d},EUR\n${d},JPY\n`).join(''),
    );
    expect(reportRequests() - before).toBe(4);
  });

  it('with --weekends the empty days are noted and the run succeeds', async () => {
    const r = await prs([
      'report',
      '42',
      '-t',
      'index',
      '--from',
      '2024-05-03',
      '--to',
      '2024-05-06',
      '--weekends',
      '--fields',
      'effectiveDate',
      '-f',
      'ndjson',
    ]);
    expect(r.code).toBe(0);
    expect(r.stdout.trimEnd().split('\n')).toHaveLength(4);
    expect(r.stderr).toBe('no data for portfolio 42 on 2024-05-04, 2024-05-05\n');
  });

  it('several portfolios: each row starts with portfolioId', async () => {
    const r = await prs(['report', '42', '13', '-t', 'index', '-d', DATE, '-f', 'csv']);
    expect(r.code).toBe(0);
    const [header, ...rows] = parseCsv(r.stdout) as string[][];
    expect(header[0]).toBe('portfolioId');
    expect(rows.map((row) => row[0])).toEqual(['42', '42', '13']);
    const json = JSON.parse((await prs(['report', '42', '13', '-t', 'index', '-d', DATE])).stdout);
    expect(Object.keys(json[0])[0]).toBe('portfolioId');
  });
});

describe('no data', () => {
  it.each([
    ['json', '[]\n'],
    ['ndjson', ''],
    [
      'csv',
      'effectiveDate,indexId,indexName,indexValue,currency,closeMarketValue,openMarketValue,closeDivisor,openDivisor\n',
    ],
    ['table', ''],
  ])('%s → exit 3', async (format, stdout) => {
    const r = await prs(['report', String(EMPTY_PORTFOLIO_ID), '-t', 'index', '-d', DATE, '-f', format]);
    expect(r.code).toBe(3);
    expect(r.stdout).toBe(stdout);
    expect(r.stderr).toMatch(/^prs: no data for portfolio 101 on 2024-05-03\n/);
  });

  it('piped without a format: [] so the pipe stays valid JSON', async () => {
    const r = await prs(['report', '42', '-t', 'index', '-d', '2024-05-04']);
    expect(r.code).toBe(3);
    expect(r.stdout).toBe('[]\n');
  });
});

describe('bad input: exit 2, one line, no request', () => {
  it.each([
    [['report', '42', '-t', 'indx', '-d', DATE], /^prs: unknown report type "indx" — did you mean "index"\?/],
    [['report', '42', '-t', 'index', '-d', '2024-02-30'], /^prs: invalid date "2024-02-30"/],
    [['report', '0', '-t', 'index', '-d', DATE], /^prs: invalid portfolio id "0"/],
    [['report', '4294967296', '-t', 'index', '-d', DATE], /^prs: invalid portfolio id/],
    [
      ['report', '42', '13', '-t', 'index', '-d', DATE, '--raw'],
      /^prs: --raw takes one portfolio and one date/,
    ],
    [['report', '42', '-t', 'index', '-d', DATE, '-f', 'xml'], /^prs: unknown format "xml"/],
    [['report', '42', '-t', 'index', '--from', DATE], /^prs: --from and --to go together/],
    [['report', '42', '-d', DATE], /^prs: missing --type/],
    [['report', '42', '-t', 'index', '-d', DATE, '--fields', 'a,,b'], /^prs: invalid --fields/],
  ])('%j', async (args, message) => {
    const before = reportRequests();
    const r = await prs(args);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(message);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(reportRequests()).toBe(before);
  });

  it('an unknown --fields name fails once the data shows it is unknown, listing what there is', async () => {
    const r = await prs([
      'report',
      '42',
      '-t',
      'index',
      '-d',
      DATE,
      '-f',
      'csv',
      '--fields',
      'indexValue,nope',
    ]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^prs: unknown field "nope" for index\nhint: available: effectiveDate, indexId/);
  });

  it('a portfolio the service does not know: exit 6', async () => {
    const r = await prs(['report', '999', '-t', 'index', '-d', DATE]);
    expect(r.code).toBe(6);
    expect(r.stdout).toBe('');
  });
});

describe('--raw and -o', () => {
  it('--raw prints the body byte for byte', async () => {
    const body = await serviceBody(PRECISION_PORTFOLIO_ID, 'index');
    const r = await prs(['report', '13', '-t', 'index', '-d', DATE, '--raw']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(body);
  });

  it('-o writes atomically, refuses to overwrite before any request, --force replaces', async () => {
    const dir = join(tmp.path, 'out');
    const { mkdirSync } = await import('node:fs');
    mkdirSync(dir, { recursive: true });
    const file = join(dir, 'report.csv');
    const first = await prs(['report', '13', '-t', 'index', '-d', DATE, '-o', file]);
    expect(first.code).toBe(0);
    expect(first.stdout).toBe('');
    expect(readFileSync(file, 'utf8')).toMatch(
      /^effectiveDate,indexId,.*\n2024-05-03,.*,1234567\.123456789012,/s,
    );

    writeFileSync(file, 'precious');
    const before = reportRequests();
    const again = await prs(['report', '13', '-t', 'index', '-d', DATE, '-o', file]);
    expect(again.code).toBe(10);
    expect(again.stderr).toMatch(/^prs: .*report\.csv already exists\nhint: use --force/);
    expect(reportRequests()).toBe(before);
    expect(readFileSync(file, 'utf8')).toBe('precious');

    const forced = await prs([
      'report',
      '13',
      '-t',
      'index',
      '-d',
      DATE,
      '-o',
      file,
      '--force',
      '-f',
      'json',
    ]);
    expect(forced.code).toBe(0);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toHaveLength(1);
    expect(readdirSync(dir)).toEqual(['report.csv']); // no temporary file left behind
  });

  it('-o into a missing directory: exit 10, nothing written', async () => {
    const file = join(tmp.path, 'missing', 'r.json');
    const r = await prs(['report', '13', '-t', 'index', '-d', DATE, '-o', file]);
    expect(r.code).toBe(10);
    expect(existsSync(file)).toBe(false);
  });
});
