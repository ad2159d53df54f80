import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { describeEmpty } from '../../../src/commands/output.js';
import type { ReportOptions } from '../../../src/commands/report.flags.js';
import { defaultFormat } from '../../../src/commands/report.flags.js';
import { report } from '../../../src/commands/report.js';
import { FileError, HttpError, ItemsFailedError, NoDataError, UsageError } from '../../../src/errors.js';
import type { RunEvent } from '../../../src/events.js';
import type { CallHooks, ReportQuery, ReportResponse } from '../../../src/service/types.js';
import { answerOf } from '../../helpers/answers.js';
import { fakeDeps } from '../../helpers/deps.js';
import { createTestIO } from '../../helpers/io.js';
import { tempDir } from '../../helpers/run.js';

/** A body the service might send, read through the row stream in small pieces. */
const answer = (body: string): ReportResponse => answerOf(body, 7);

const IDX = (date: string, value = '1234567.123456789012') =>
  `{"report":[{"effectiveDate":"${date}","indexId":"u-1","indexName":"Example 600","indexValue":${value},"currency":"EUR"}]}`;

type Stub = string | Error | ((hooks: CallHooks) => string);

/** A fake service answering `${portfolioId} ${date}` from `stubs`; records the queries. */
function fakeService(stubs: Record<string, Stub>) {
  const calls: ReportQuery[] = [];
  return {
    calls,
    report: async <T>(q: ReportQuery, hooks: CallHooks, use: (res: ReportResponse) => Promise<T>) => {
      calls.push(q);
      const s = stubs[`${q.portfolioId} ${q.date}`];
      if (s === undefined) throw new Error(`unexpected request ${q.portfolioId} ${q.date}`);
      if (s instanceof Error) throw s;
      return use(answer(typeof s === 'function' ? s(hooks) : s));
    },
  };
}

const opts = (o: Partial<ReportOptions> = {}): ReportOptions => ({
  portfolioIds: [42],
  type: 'index',
  dates: ['2024-05-03'],
  format: undefined,
  fields: undefined,
  output: undefined,
  force: false,
  raw: false,
  failFast: false,
  dryRun: false,
  cache: 'use',
  ...o,
});

interface Case {
  name: string;
  tty?: boolean;
  stderrTTY?: boolean;
  quiet?: boolean;
  options?: Partial<ReportOptions>;
  stubs: Record<string, Stub>;
  wantStdout: string | RegExp;
  wantStderr?: string | RegExp;
  wantError?: { type: new (...a: never[]) => Error; message?: string | RegExp };
  wantCalls?: number;
}

const cases: Case[] = [
  {
    name: 'piped: JSON, numbers exact',
    stubs: { '42 2024-05-03': IDX('2024-05-03') },
    wantStdout:
      '[{"effectiveDate":"2024-05-03","indexId":"u-1","indexName":"Example 600","indexValue":1234567.123456789012,"currency":"EUR"}]\n',
    wantStderr: '',
  },
  {
    name: 'terminal: a table in spec order',
    tty: true,
    stubs: { '42 2024-05-03': IDX('2024-05-03', '12345678901234567890') },
    wantStdout: [
      '┌───────────────┬─────────┬─────────────┬──────────────────────┬──────────┐',
      '│ effectiveDate │ indexId │ indexName   │           indexValue │ currency │',
      '├───────────────┼─────────┼─────────────┼──────────────────────┼──────────┤',
      '│ 2024-05-03    │ u-1     │ Example 600 │ 12345678901234567890 │ EUR      │',
      '└───────────────┴─────────┴─────────────┴──────────────────────┴──────────┘',
      '',
    ].join('\n'),
  },
  {
    name: 'csv',
    options: { format: 'csv' },
    stubs: { '42 2024-05-03': IDX('2024-05-03') },
    wantStdout:
      'effectiveDate,indexId,indexName,indexValue,currency\n2024-05-03,u-1,Example 600,1234567.123456789012,EUR\n',
  },
  {
    name: 'a range: rows of all dates in date order; empty dates noted',
    options: {
      format: 'ndjson',
      fields: ['effectiveDate', 'indexValue'],
      dates: ['2024-05-02', '2024-05-03', '2024-05-06'],
    },
    stubs: {
      '42 2024-05-02': IDX('2024-05-02', '1.10'),
      '42 2024-05-03': '{"report":[]}',
      '42 2024-05-06': IDX('2024-05-06', '2'),
    },
    wantStdout:
      '{"effectiveDate":"2024-05-02","indexValue":1.10}\n{"effectiveDate":"2024-05-06","indexValue":2}\n',
    wantStderr: 'no data for portfolio 42 on 2024-05-03\n',
  },
  {
    name: 'several portfolios: portfolioId first, portfolio then date order',
    options: {
      format: 'csv',
      fields: ['portfolioId', 'effectiveDate'],
      portfolioIds: [7, 42],
      dates: ['2024-05-02', '2024-05-03'],
    },
    stubs: {
      '7 2024-05-02': IDX('2024-05-02'),
      '7 2024-05-03': IDX('2024-05-03'),
      '42 2024-05-02': IDX('2024-05-02'),
      '42 2024-05-03': '',
    },
    wantStdout: 'portfolioId,effectiveDate\n7,2024-05-02\n7,2024-05-03\n42,2024-05-02\n',
    wantStderr: 'no data for portfolio 42 on 2024-05-03\n',
  },
  {
    name: 'several portfolios, json: each row starts with portfolioId',
    options: { portfolioIds: [7, 8] },
    stubs: { '7 2024-05-03': '{"report":[{"a":1}]}', '8 2024-05-03': '[{"a":2.50}]' },
    wantStdout: '[{"portfolioId":7,"a":1},{"portfolioId":8,"a":2.50}]\n',
  },
  {
    name: 'progress on a terminal stderr: per request, and the item stays through a wait',
    stderrTTY: true,
    options: { format: 'json', dates: ['2024-05-02', '2024-05-03'] },
    stubs: {
      '42 2024-05-02': IDX('2024-05-02'),
      '42 2024-05-03': (h) => {
        h.onWait?.(40_200, 'rate-limit');
        h.onWait?.(2_000, 'backoff');
        return IDX('2024-05-03');
      },
    },
    wantStdout: /^\[\{"effectiveDate":"2024-05-02".*"2024-05-03".*\]\n$/,
    wantStderr:
      '[progress] 1/2 · 2024-05-02 · portfolio 42\n' +
      '[progress] 2/2 · 2024-05-03 · portfolio 42\n' +
      '[progress] 2/2 · 2024-05-03 · portfolio 42 · next request in 41 s\n' +
      '[progress] 2/2 · 2024-05-03 · portfolio 42 · retrying in 2 s\n',
  },
  {
    name: 'one request: no counter, but a wait is shown',
    stderrTTY: true,
    stubs: {
      '42 2024-05-03': (h) => {
        h.onWait?.(3_000, 'retry-after');
        return IDX('2024-05-03');
      },
    },
    wantStdout: /indexValue":1234567.123456789012/,
    wantStderr: '[progress] waiting 3 s: the service asked to retry later\n',
  },
  {
    name: '-q silences progress and notes',
    stderrTTY: true,
    quiet: true,
    options: { dates: ['2024-05-02', '2024-05-03'] },
    stubs: { '42 2024-05-02': IDX('2024-05-02'), '42 2024-05-03': '[]' },
    wantStdout: /2024-05-02/,
    wantStderr: '',
  },
  {
    name: 'no data at all, json: [] and NoDataError',
    stubs: { '42 2024-05-03': '{"report":[]}' },
    wantStdout: '[]\n',
    wantError: { type: NoDataError, message: 'no data for portfolio 42 on 2024-05-03' },
  },
  {
    name: 'no data at all, ndjson: nothing',
    options: { format: 'ndjson' },
    stubs: { '42 2024-05-03': '' },
    wantStdout: '',
    wantError: { type: NoDataError },
  },
  {
    name: 'no data at all, csv: the header of the spec columns',
    options: { format: 'csv', type: 'constituent.close' },
    stubs: { '42 2024-05-03': '[]' },
    wantStdout:
      'effectiveDate,isin,securityName,securityTicker,closingPrice,currency,closingFx,indexShares,indexWeighting\n',
    wantError: { type: NoDataError },
  },
  {
    name: 'no data at all, table: nothing on stdout',
    tty: true,
    stubs: { '42 2024-05-03': '[]' },
    wantStdout: '',
    wantError: { type: NoDataError },
  },
  {
    name: 'no data over a range names the dates',
    options: { dates: ['2024-05-02', '2024-05-03'] },
    stubs: { '42 2024-05-02': '[]', '42 2024-05-03': '[]' },
    wantStdout: '[]\n',
    wantError: { type: NoDataError, message: 'no data for portfolio 42 on 2024-05-02, 2024-05-03' },
  },
  {
    name: '--raw: the body exactly as received',
    options: { raw: true },
    stubs: { '42 2024-05-03': '{ "report" : [ {"v": 1.000} ] }\n' },
    wantStdout: '{ "report" : [ {"v": 1.000} ] }\n',
  },
  {
    name: '--raw with no data: the body, and NoDataError',
    options: { raw: true },
    stubs: { '42 2024-05-03': '{"report":[]}' },
    wantStdout: '{"report":[]}',
    wantError: { type: NoDataError },
  },
  {
    name: 'no terminal: one stderr line per wait over 5 s, naming the item; shorter waits say nothing',
    options: { format: 'ndjson', dates: ['2024-05-02', '2024-05-03'] },
    stubs: {
      '42 2024-05-02': IDX('2024-05-02'),
      '42 2024-05-03': (h) => {
        h.onWait?.(40_200, 'rate-limit');
        h.onWait?.(2_000, 'backoff');
        return IDX('2024-05-03');
      },
    },
    wantStdout: /^\{"effectiveDate":"2024-05-02".*\n\{"effectiveDate":"2024-05-03".*\n$/,
    wantStderr: 'portfolio 42 on 2024-05-03: waiting 41 s for the rate limit\n',
  },
  {
    name: 'no terminal and -q: no wait lines',
    quiet: true,
    options: { format: 'ndjson', dates: ['2024-05-02', '2024-05-03'] },
    stubs: {
      '42 2024-05-02': IDX('2024-05-02'),
      '42 2024-05-03': (h) => {
        h.onWait?.(40_200, 'rate-limit');
        return IDX('2024-05-03');
      },
    },
    wantStdout: /2024-05-03/,
    wantStderr: '',
  },
  {
    name: 'a range on a terminal: the progress line has an ETA from the rate limit (4/60 s)',
    stderrTTY: true,
    options: {
      format: 'ndjson',
      dates: ['2024-05-06', '2024-05-07', '2024-05-08', '2024-05-09', '2024-05-10', '2024-05-13'],
    },
    stubs: Object.fromEntries(
      ['2024-05-06', '2024-05-07', '2024-05-08', '2024-05-09', '2024-05-10', '2024-05-13'].map((d) => [
        `42 ${d}`,
        IDX(d),
      ]),
    ),
    wantStdout: /2024-05-13/,
    wantStderr:
      /^\[progress\] 1\/6 · 2024-05-06 · portfolio 42 · ETA 1 min\n[\s\S]*\[progress\] 6\/6 · 2024-05-13 · portfolio 42\n$/,
  },
  {
    name: 'an item that fails is reported, the run goes on, the first failure decides the exit',
    options: { dates: ['2024-05-02', '2024-05-03'], format: 'ndjson' },
    stubs: {
      '42 2024-05-02': new HttpError('portfolio 42 not found', {
        status: 404,
        hint: 'check the portfolio id',
      }),
      '42 2024-05-03': IDX('2024-05-03'),
    },
    wantStdout: /^\{"effectiveDate":"2024-05-03".*\}\n$/,
    wantStderr: 'prs: portfolio 42 on 2024-05-02: portfolio 42 not found\nhint: check the portfolio id\n',
    wantError: {
      type: ItemsFailedError,
      message: '1 written, 1 failed: portfolio 42 on 2024-05-02 (not found)',
    },
  },
  {
    name: '--fail-fast: the first failure ends the run, later requests not sent',
    options: { dates: ['2024-05-02', '2024-05-03'], failFast: true },
    stubs: {
      '42 2024-05-02': new HttpError('portfolio 42 not found — check the id', {
        status: 404,
      }),
    },
    wantStdout: '',
    wantError: { type: HttpError, message: /portfolio 42 not found/ },
    wantCalls: 1,
  },
  {
    name: 'a run-level failure (403) ends the run at once',
    options: { dates: ['2024-05-02', '2024-05-03'], format: 'ndjson' },
    stubs: { '42 2024-05-02': new HttpError('forbidden', { status: 403 }) },
    wantStdout: '',
    wantError: { type: HttpError },
    wantCalls: 1,
  },
  {
    name: 'a holiday answered with the day before is not repeated, and a note says so',
    options: {
      dates: ['2024-12-24', '2024-12-25', '2024-12-26', '2024-12-27'],
      format: 'csv',
      fields: ['effectiveDate'],
    },
    stubs: {
      '42 2024-12-24': IDX('2024-12-24'),
      '42 2024-12-25': IDX('2024-12-24'),
      '42 2024-12-26': IDX('2024-12-24'),
      '42 2024-12-27': IDX('2024-12-27'),
    },
    wantStdout: 'effectiveDate\n2024-12-24\n2024-12-27\n',
    wantStderr:
      'portfolio 42: 2024-12-25, 2024-12-26 answered with the rows of 2024-12-24 (no data of their own: holiday?); not repeated\n',
  },
  {
    name: 'CSV columns to stdout are fixed by the first answer; a later extra column is left out with a warning',
    options: { dates: ['2024-05-02', '2024-05-03'], format: 'csv' },
    stubs: {
      '42 2024-05-02': '{"report":[{"effectiveDate":"2024-05-02","indexValue":1.10}]}',
      '42 2024-05-03': '{"report":[{"indexValue":2.20,"effectiveDate":"2024-05-03","extra":"x"}]}',
    },
    wantStdout: 'effectiveDate,indexValue\n2024-05-02,1.10\n2024-05-03,2.20\n',
    wantStderr:
      'prs: warning: left out column extra of portfolio 42 on 2024-05-03: not in the first answer, which set the CSV header; write to a file with -o to keep every column, or choose them with --fields\n',
  },
  {
    name: 'an unknown --fields name stops the run before the second request',
    options: { dates: ['2024-05-02', '2024-05-03'], format: 'ndjson', fields: ['nope'] },
    stubs: { '42 2024-05-02': IDX('2024-05-02'), '42 2024-05-03': IDX('2024-05-03') },
    wantStdout: '',
    wantError: { type: UsageError, message: 'unknown field "nope" for index' },
    wantCalls: 1,
  },
  {
    name: 'a streamed JSON array over several answers is the array of all rows',
    options: { dates: ['2024-05-02', '2024-05-03'], format: 'json' },
    stubs: { '42 2024-05-02': IDX('2024-05-02'), '42 2024-05-03': IDX('2024-05-03') },
    wantStdout: `[${[IDX('2024-05-02'), IDX('2024-05-03')].map((b) => b.slice(11, -2)).join(',')}]\n`,
  },
  {
    name: 'an unknown --fields name is a UsageError after the data, nothing printed',
    options: { format: 'csv', fields: ['indexValue', 'nope'] },
    stubs: { '42 2024-05-03': IDX('2024-05-03') },
    wantStdout: '',
    wantError: { type: UsageError, message: 'unknown field "nope" for index' },
  },
];

describe('report', () => {
  it.each(cases)('$name', async (c) => {
    const io = createTestIO({
      isStdoutTTY: !!c.tty,
      isStderrTTY: !!c.stderrTTY,
      quiet: c.quiet,
      columns: 200,
      // Plain text to compare against; colour has its own cases below.
      env: { NO_COLOR: '1' },
    });
    const service = fakeService(c.stubs);
    const deps = fakeDeps({ io, service, env: { NO_COLOR: '1' } });
    const run = report(opts(c.options), deps);
    if (c.wantError) {
      await expect(run).rejects.toBeInstanceOf(c.wantError.type);
      if (c.wantError.message) await expect(run).rejects.toThrow(c.wantError.message);
    } else await run;
    if (typeof c.wantStdout === 'string') expect(io.stdoutText()).toBe(c.wantStdout);
    else expect(io.stdoutText()).toMatch(c.wantStdout);
    if (typeof c.wantStderr === 'string') expect(io.stderrText()).toBe(c.wantStderr);
    else if (c.wantStderr) expect(io.stderrText()).toMatch(c.wantStderr);
    expect(service.calls).toHaveLength(c.wantCalls ?? Object.keys(c.stubs).length);
  });

  it('asks for the right type and dates, and passes the run signal down', async () => {
    const controller = new AbortController();
    const seen: { q: ReportQuery; signal?: AbortSignal }[] = [];
    const deps = fakeDeps({
      signal: controller.signal,
      service: {
        report: async (q, hooks, use) => {
          seen.push({ q, signal: hooks?.signal });
          return use(answer('[{"a":1}]'));
        },
      },
    });
    await report(opts({ type: 'constituent.proforma', dates: ['2024-05-02'] }), deps);
    expect(seen.map((s) => s.q)).toEqual([
      { portfolioId: 42, reportType: 'constituent.proforma', date: '2024-05-02' },
    ]);
    // The run's signal: the interrupt's, joined with the run's own stop and a stdout gone.
    expect(seen[0]!.signal?.aborted).toBe(false);
    controller.abort();
    expect(seen[0]!.signal?.aborted).toBe(true);
  });

  it('stops between requests when interrupted', async () => {
    const controller = new AbortController();
    const service = fakeService({
      '42 2024-05-02': () => {
        controller.abort();
        return IDX('2024-05-02');
      },
      '42 2024-05-03': IDX('2024-05-03'),
    });
    const deps = fakeDeps({ signal: controller.signal, service });
    await expect(report(opts({ dates: ['2024-05-02', '2024-05-03'] }), deps)).rejects.toThrow('interrupted');
    expect(service.calls).toHaveLength(1);
    // Rows go out as each answer arrives: the first answer's are there, nothing after.
    expect(deps.io.stdoutText()).toMatch(/^\[\{"effectiveDate":"2024-05-02"[^\n]*\}$/);
  });

  it('tells its watchers: start, each wait with its item, each item in order (a holiday repeat is skipped)', async () => {
    const service = fakeService({
      '42 2024-12-24': IDX('2024-12-24'),
      '42 2024-12-25': (h) => {
        h.onWait?.(15_000, 'rate-limit');
        return IDX('2024-12-24');
      },
      '42 2024-12-27': new HttpError('gone', { status: 404 }),
    });
    const deps = fakeDeps({ service });
    const events: RunEvent[] = [];
    deps.events.on((e) => events.push(e));
    await report(opts({ dates: ['2024-12-24', '2024-12-25', '2024-12-27'], format: 'ndjson' }), deps).catch(
      () => {},
    );
    const item = (date: string) => ({ portfolioId: 42, date });
    expect(events).toEqual([
      { event: 'start', command: 'report', items: 3, requests: 3, etaMs: 0 },
      { event: 'item', item: item('2024-12-24'), status: 'written', bytes: expect.any(Number) },
      { event: 'wait', waitMs: 15_000, reason: 'rate-limit', item: item('2024-12-25') },
      { event: 'item', item: item('2024-12-25'), status: 'skipped' },
      { event: 'item', item: item('2024-12-27'), status: 'failed', exitCode: 6, message: 'gone' },
    ]);
  });
});

describe('report colour', () => {
  it.each<[string, boolean, Record<string, string>, boolean | undefined, boolean]>([
    ['terminal', true, {}, undefined, true],
    ['terminal, NO_COLOR', true, { NO_COLOR: '1' }, undefined, false],
    ['terminal, --no-color', true, {}, false, false],
    ['pipe', false, {}, undefined, false],
    ['pipe, FORCE_COLOR', false, { FORCE_COLOR: '1' }, undefined, true],
  ])('%s → bold header %s', async (_name, tty, env, colorFlag, bold) => {
    // The IO decides colour once (colorFor); the report uses its stdout decision.
    const io = createTestIO({ isStdoutTTY: tty, env, color: colorFlag });
    await report(
      opts({ format: 'table' }),
      fakeDeps({
        io,
        env,
        globals: { color: colorFlag },
        service: fakeService({ '42 2024-05-03': IDX('2024-05-03') }),
      }),
    );
    expect(io.stdoutText().includes('\x1b[1m')).toBe(bold);
  });
});

describe('report -o', () => {
  let dir: { path: string; cleanup: () => void } | undefined;
  afterEach(() => dir?.cleanup());

  it('writes the file atomically, picks the format from the extension, prints nothing on stdout', async () => {
    dir = tempDir();
    const file = join(dir.path, 'out.csv');
    const deps = fakeDeps({
      io: createTestIO({ isStdoutTTY: true }),
      service: fakeService({ '42 2024-05-03': IDX('2024-05-03') }),
    });
    await report(opts({ output: file }), deps);
    expect(readFileSync(file, 'utf8')).toBe(
      'effectiveDate,indexId,indexName,indexValue,currency\n2024-05-03,u-1,Example 600,1234567.123456789012,EUR\n',
    );
    expect(deps.io.stdoutText()).toBe('');
    expect(deps.io.stderrText()).toBe(`wrote 1 row to ${file}\n`);
  });

  it('refuses an existing file before any request (FileError), and overwrites it with --force', async () => {
    dir = tempDir();
    const file = join(dir.path, 'out.json');
    writeFileSync(file, 'old');
    const service = fakeService({ '42 2024-05-03': IDX('2024-05-03') });
    await expect(report(opts({ output: file }), fakeDeps({ service }))).rejects.toBeInstanceOf(FileError);
    expect(service.calls).toHaveLength(0);
    expect(readFileSync(file, 'utf8')).toBe('old');
    await report(opts({ output: file, force: true }), fakeDeps({ service }));
    expect(readFileSync(file, 'utf8')).toMatch(/^\[\{"effectiveDate":"2024-05-03".*1234567\.123456789012/);
  });

  it('no data: the empty form is written ([]), then NoDataError; a table writes no file', async () => {
    dir = tempDir();
    const json = join(dir.path, 'empty.json');
    const table = join(dir.path, 'empty.txt');
    const service = fakeService({ '42 2024-05-03': '[]' });
    await expect(report(opts({ output: json }), fakeDeps({ service }))).rejects.toBeInstanceOf(NoDataError);
    expect(readFileSync(json, 'utf8')).toBe('[]\n');
    await expect(
      report(opts({ output: table, format: 'table' }), fakeDeps({ service })),
    ).rejects.toBeInstanceOf(NoDataError);
    expect(existsSync(table)).toBe(false);
  });
});

describe('report helpers', () => {
  it.each([
    [undefined, true, 'table'],
    [undefined, false, 'json'],
    ['x.csv', true, 'csv'],
    ['X.TSV', false, 'tsv'],
    ['x.jsonl', false, 'ndjson'],
    ['x.ndjson', false, 'ndjson'],
    ['x.json', true, 'json'],
    ['report', true, 'json'],
  ] as const)('defaultFormat(%j, tty=%s) = %s', (output, tty, want) => {
    expect(defaultFormat(output, tty)).toBe(want);
  });

  it.each([
    [[{ portfolioId: 1, date: 'd1' }], 'portfolio 1 on d1'],
    [
      [
        { portfolioId: 1, date: 'd1' },
        { portfolioId: 2, date: 'd1' },
        { portfolioId: 1, date: 'd2' },
      ],
      'portfolio 1 on d1, d2; portfolio 2 on d1',
    ],
    [
      Array.from({ length: 10 }, (_, i) => ({ portfolioId: 1, date: `d${i}` })),
      'portfolio 1 on d0, d1, d2, d3, d4, d5, d6, d7 and 2 more',
    ],
  ])('describeEmpty %#', (empty, want) => {
    expect(describeEmpty(empty)).toBe(want);
  });
});
