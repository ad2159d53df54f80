import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { strToU8, zipSync } from 'fflate';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ExportOptions } from '../../../src/commands/export.flags.js';
import { exportCommand } from '../../../src/commands/export.js';
import {
  exitCodeFor,
  FileError,
  fileError,
  HttpError,
  InterruptedError,
  ItemsFailedError,
  NoDataError,
  ServiceError,
  UsageError,
} from '../../../src/errors.js';
import { MANIFEST_NAME } from '../../../src/export/manifest.js';
import { createAtomicFile } from '../../../src/fs/atomic.js';
import type { ExportResponse, ReportQuery } from '../../../src/service/types.js';
import { fakeDeps } from '../../helpers/deps.js';
import { createTestIO } from '../../helpers/io.js';
import { tempDir } from '../../helpers/run.js';

type Query = ReportQuery & { format: string };
type Reply = Partial<Omit<ExportResponse, 'body'>> & { body?: Buffer | string | Readable; error?: Error };

const rows = [
  { effectiveDate: '2024-05-01', indexName: 'Example 600 OG EUR', indexValue: 1302.917413 },
  { effectiveDate: '2024-05-01', indexName: 'Example 600 OG JPY', indexValue: 1.5 },
];
const rowsJson = JSON.stringify(rows);
const csv = 'Effective Date,ISIN\n2024-05-01,CH0102878927\n';
const zipOf = (files: Record<string, string>) =>
  Buffer.from(zipSync(Object.fromEntries(Object.entries(files).map(([k, v]) => [k, strToU8(v)]))));
const goodZip = zipOf({ '2024-05-01_Example_index.csv': csv });
const cd = (name: string) => `attachment; filename="${name}"`;

/** A body that sends `data`, then fails as a socket closed by the server would. */
function cutBody(data: Buffer): Readable {
  let sent = false;
  return new Readable({
    read() {
      if (sent) return;
      sent = true;
      this.push(data);
      setImmediate(() =>
        this.destroy(Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' })),
      );
    },
  });
}

let dir: ReturnType<typeof tempDir>;
beforeEach(() => {
  dir = tempDir('prs-export-unit-');
});
afterEach(() => dir.cleanup());

function setup(replies: Reply[] | ((q: Query) => Reply), o: { signal?: AbortSignal } = {}) {
  const calls: Query[] = [];
  const deps = fakeDeps({
    signal: o.signal,
    service: {
      // The download (save) runs on the faked response; the service's own retry loop is tested on its own.
      exportReport: async (q: Query, _hooks, save) => {
        calls.push(q);
        const r = typeof replies === 'function' ? replies(q) : replies[calls.length - 1];
        if (!r) throw new Error(`unexpected request ${JSON.stringify(q)}`);
        if (r.error) throw r.error;
        const body =
          r.body instanceof Readable
            ? r.body
            : Readable.from(r.body === undefined || r.body === '' ? [] : [Buffer.from(r.body)]);
        // Like undici's body: destroyed before its end, it emits an error.
        const destroy = body._destroy.bind(body);
        body._destroy = (err, cb) =>
          destroy(err ?? (body.readableEnded ? null : new Error('Request aborted')), cb);
        return save({ ...r, body });
      },
    },
  });
  return { deps, calls };
}

const options = (o: Partial<ExportOptions> = {}): ExportOptions => ({
  portfolioIds: [42],
  type: 'index',
  dates: ['2024-05-01'],
  format: 'json',
  dir: dir.path,
  output: undefined,
  name: undefined,
  force: false,
  extract: false,
  skipExisting: false,
  parallel: 1,
  failFast: false,
  json: false,
  dryRun: false,
  ...o,
});

// The run's record (.prs-manifest.jsonl, see src/export/manifest.ts) is not one of the exports.
const listing = () =>
  readdirSync(dir.path)
    .filter((f) => f !== MANIFEST_NAME)
    .sort();
const read = (name: string) => readFileSync(join(dir.path, name), 'utf8');

interface Case {
  name: string;
  opts?: Partial<ExportOptions>;
  replies: Reply[];
  files: Record<string, string | Buffer>;
  stderr?: RegExp;
}

const cases: Case[] = [
  {
    name: 'json named by the server',
    replies: [
      {
        body: rowsJson,
        contentDisposition: cd('2024-05-01_Server_index.json'),
        contentType: 'application/json',
      },
    ],
    files: { '2024-05-01_Server_index.json': rowsJson },
  },
  {
    name: 'json named from the rows (common leading words of indexName)',
    replies: [{ body: rowsJson, contentType: 'application/json' }],
    files: { '2024-05-01_Example_600_OG_index.json': rowsJson },
  },
  {
    name: 'json, single index name: the currency word is dropped',
    replies: [{ body: JSON.stringify([rows[1]]) }],
    files: { '2024-05-01_Example_600_OG_index.json': JSON.stringify([rows[1]]) },
  },
  {
    name: 'json without names: portfolio_<id>',
    replies: [{ body: '[{"a":1}]' }],
    files: { '2024-05-01_portfolio_42_index.json': '[{"a":1}]' },
  },
  {
    name: '--name when the server sends no name',
    opts: { name: 'My Index' },
    replies: [{ body: rowsJson }],
    files: { '2024-05-01_My_Index_index.json': rowsJson },
  },
  {
    name: "the server's name wins over --name",
    opts: { name: 'My Index' },
    replies: [{ body: rowsJson, contentDisposition: cd('server.json') }],
    files: { 'server.json': rowsJson },
  },
  {
    name: 'filename* with non-ASCII characters',
    replies: [
      { body: rowsJson, contentDisposition: "attachment; filename*=UTF-8''%C3%9Cbersicht_%E2%82%AC.json" },
    ],
    files: { 'Übersicht_€.json': rowsJson },
  },
  {
    name: 'a hostile server name stays inside --dir',
    replies: [{ body: rowsJson, contentDisposition: cd('../../x.json') }],
    files: { 'x.json': rowsJson },
  },
  {
    name: 'csv: the zip, named by the rule',
    opts: { format: 'csv' },
    replies: [{ body: goodZip, contentType: 'application/zip', contentLength: goodZip.length }],
    files: { '2024-05-01_portfolio_42_index.zip': goodZip },
  },
  {
    name: 'csv --extract: the zip and its CSV member',
    opts: { format: 'csv', extract: true, name: 'Example' },
    replies: [{ body: goodZip }],
    files: { '2024-05-01_Example_index.zip': goodZip, '2024-05-01_Example_index.csv': csv },
  },
  {
    name: '--extract flattens a member folder',
    opts: { format: 'csv', extract: true },
    replies: [{ body: zipOf({ 'out/a.csv': csv, 'readme.txt': 'x' }), contentDisposition: cd('z.zip') }],
    files: { 'z.zip': zipOf({ 'out/a.csv': csv, 'readme.txt': 'x' }), 'a.csv': csv },
  },
  {
    name: 'a range: one file per date, gaps noted',
    opts: { dates: ['2024-05-01', '2024-05-02', '2024-05-03'], name: 'X' },
    replies: [{ body: '[1]' }, { body: '' }, { body: '[3]' }],
    files: { '2024-05-01_X_index.json': '[1]', '2024-05-03_X_index.json': '[3]' },
    stderr: /^no data for portfolio 42 on 2024-05-02\n2 written, 1 empty\n$/,
  },
  {
    name: 'several portfolios with one --name: the later file is told apart',
    opts: { portfolioIds: [1, 2], name: 'X' },
    replies: [{ body: '[1]' }, { body: '[2]' }],
    files: { '2024-05-01_X_index.json': '[1]', '2024-05-01_X_index_2_2024-05-01.json': '[2]' },
    stderr: /^2 written\n$/,
  },
  {
    name: 'the server names two dates alike: the later file is told apart',
    opts: { dates: ['2024-05-01', '2024-05-02'] },
    replies: [
      { body: '[1]', contentDisposition: cd('same.json') },
      { body: '[2]', contentDisposition: cd('same.json') },
    ],
    files: { 'same.json': '[1]', 'same_42_2024-05-02.json': '[2]' },
    stderr: /^2 written\n$/,
  },
  {
    name: '-o picks the path',
    opts: { output: 'PLACEHOLDER/chosen.json' },
    replies: [{ body: rowsJson, contentDisposition: cd('server.json') }],
    files: { 'chosen.json': rowsJson },
  },
];

describe('prs export (unit)', () => {
  it.each(cases)('$name', async (c) => {
    const { deps, calls } = setup(c.replies);
    const opts = options(c.opts);
    if (opts.output) opts.output = opts.output.replace('PLACEHOLDER', dir.path);
    const paths = await exportCommand(opts, deps);
    expect(listing()).toEqual(Object.keys(c.files).sort());
    for (const [name, content] of Object.entries(c.files)) {
      expect(readFileSync(join(dir.path, name))).toEqual(Buffer.from(content));
    }
    expect(deps.io.stdoutText()).toBe(paths.map((p) => `${p}\n`).join(''));
    expect(paths.map((p) => p.slice(dir.path.length + 1)).sort()).toEqual(Object.keys(c.files).sort());
    expect(calls).toHaveLength(c.replies.length);
    expect(deps.io.stderrText()).toMatch(c.stderr ?? /^$/);
  });

  it('sends the query it was given', async () => {
    const { deps, calls } = setup([{ body: goodZip }]);
    await exportCommand(options({ format: 'csv', type: 'constituent.close' }), deps);
    expect(calls).toEqual([
      { portfolioId: 42, reportType: 'constituent.close', date: '2024-05-01', format: 'csv' },
    ]);
  });

  interface FailCase {
    name: string;
    opts?: Partial<ExportOptions>;
    replies: Reply[];
    error: new (...a: never[]) => Error;
    message: RegExp;
    before?: Record<string, string>;
    requests?: number;
  }
  const failures: FailCase[] = [
    {
      name: 'empty body',
      replies: [{ body: '' }],
      error: NoDataError,
      message: /^no data for portfolio 42 on 2024-05-01$/,
    },
    { name: 'an empty array', replies: [{ body: ' [ ] ' }], error: NoDataError, message: /no data/ },
    {
      name: 'nothing in a whole range',
      opts: { dates: ['2024-05-01', '2024-05-02'] },
      replies: [{ body: '' }, { body: '' }],
      error: NoDataError,
      message: /no data for any of the 2 exports/,
    },
    {
      name: 'invalid JSON',
      replies: [{ body: '[{"a":1},' }],
      error: ServiceError,
      message: /corrupt: JSON ends early/,
    },
    {
      name: 'not an array',
      replies: [{ body: '{"report":[]}' }],
      error: ServiceError,
      message: /not a JSON array/,
    },
    {
      name: 'a truncated zip',
      opts: { format: 'csv' },
      replies: [{ body: goodZip.subarray(0, goodZip.length - 10) }],
      error: ServiceError,
      message: /corrupt: not a whole zip/,
    },
    {
      // Issue 18, defect 5: -f csv answered with JSON was saved as a .json file, exit 0.
      name: 'csv asked, a JSON body sent (named and typed as JSON)',
      opts: { format: 'csv' },
      replies: [{ body: rowsJson, contentType: 'application/json', contentDisposition: cd('x.json') }],
      error: ServiceError,
      message: /corrupt: not a whole zip/,
    },
    {
      name: 'json asked, a zip sent (typed as a zip)',
      replies: [{ body: goodZip, contentType: 'application/zip', contentDisposition: cd('x.zip') }],
      error: ServiceError,
      message: /corrupt/,
    },
    {
      name: 'fewer bytes than Content-Length',
      replies: [{ body: '[1]', contentLength: 10 }],
      error: ServiceError,
      message: /received 3 of 10 bytes/,
    },
    {
      // Not no data: the service said what it would send.
      name: 'no bytes where Content-Length promised some',
      replies: [{ body: '', contentLength: 10 }],
      error: ServiceError,
      message: /corrupt: received 0 of 10 bytes/,
    },
    {
      name: 'a body cut mid-stream',
      opts: { name: 'X' },
      replies: [{ body: cutBody(Buffer.from('[1,2,3,')) }],
      error: ServiceError,
      message: /broke off after 7 bytes/,
    },
    {
      name: 'a zip member that points outside the directory',
      opts: { format: 'csv', extract: true },
      replies: [{ body: zipOf({ 'ok.csv': csv, '../escape.csv': csv }) }],
      error: ServiceError,
      message: /"..\/escape.csv" points outside the target directory/,
    },
    {
      name: 'an existing file without --force (name known from the headers)',
      replies: [{ body: rowsJson, contentDisposition: cd('exists.json') }],
      before: { 'exists.json': 'old' },
      error: FileError,
      message: /exists.json already exists/,
    },
    {
      name: 'an existing file without --force (name known from the rows)',
      replies: [{ body: rowsJson }],
      before: { '2024-05-01_Example_600_OG_index.json': 'old' },
      error: FileError,
      message: /already exists/,
    },
    {
      name: 'an existing extracted member without --force',
      opts: { format: 'csv', extract: true },
      replies: [{ body: goodZip }],
      before: { '2024-05-01_Example_index.csv': 'old' },
      error: FileError,
      message: /2024-05-01_Example_index.csv already exists/,
    },
    {
      name: '-o onto an existing file: refused before any request',
      opts: { output: 'PLACEHOLDER/exists.json' },
      replies: [],
      before: { 'exists.json': 'old' },
      error: FileError,
      message: /exists.json already exists/,
      requests: 0,
    },
    {
      // A missing directory is created (mkdir -p); one under a file cannot be.
      name: 'a directory under a file: refused before any request',
      opts: { dir: 'PLACEHOLDER/afile/nope' },
      replies: [],
      before: { afile: 'x' },
      error: FileError,
      message: /cannot write to .*afile\/nope: not a directory/,
      requests: 0,
    },
    {
      name: 'a file as the directory',
      opts: { dir: 'PLACEHOLDER/afile' },
      replies: [],
      before: { afile: 'x' },
      error: FileError,
      message: /afile: not a directory/,
      requests: 0,
    },
    {
      name: 'an HTTP error passes through',
      replies: [
        {
          error: new HttpError('portfolio 42 not found', { status: 404 }),
        },
      ],
      error: HttpError,
      message: /not found/,
    },
  ];

  it.each(failures)('fails on $name and leaves the directory as it was', async (c) => {
    for (const [name, content] of Object.entries(c.before ?? {}))
      writeFileSync(join(dir.path, name), content);
    const before = listing();
    const { deps, calls } = setup(c.replies);
    const opts = options(c.opts);
    if (opts.output) opts.output = opts.output.replace('PLACEHOLDER', dir.path);
    opts.dir = opts.dir.replace('PLACEHOLDER', dir.path);
    const err = await exportCommand(opts, deps).catch((e) => e);
    expect(err).toBeInstanceOf(c.error);
    expect(err.message).toMatch(c.message);
    expect(listing()).toEqual(before);
    for (const [name, content] of Object.entries(c.before ?? {})) expect(read(name)).toBe(content);
    expect(calls).toHaveLength(c.requests ?? c.replies.length);
    expect(deps.io.stdoutText()).toBe('');
  });

  it('--force replaces an existing file', async () => {
    writeFileSync(join(dir.path, 'exists.json'), 'old');
    const { deps } = setup([{ body: rowsJson, contentDisposition: cd('exists.json') }]);
    await exportCommand(options({ force: true }), deps);
    expect(listing()).toEqual(['exists.json']);
    expect(read('exists.json')).toBe(rowsJson);
  });

  it('a range goes on past a corrupt answer: the other files written, one summary, exit of the failure', async () => {
    const { deps } = setup([{ body: '[1]' }, { body: '[2' }, { body: '[3]' }]);
    const err = await exportCommand(
      options({ dates: ['2024-05-01', '2024-05-02', '2024-05-03'], name: 'X' }),
      deps,
    ).catch((e) => e);
    expect(err).toBeInstanceOf(ItemsFailedError);
    expect(err.first).toBeInstanceOf(ServiceError);
    expect(exitCodeFor(err)).toBe(8);
    expect(err.message).toBe('2 written, 1 failed: portfolio 42 on 2024-05-02 (service error)');
    expect(listing()).toEqual(['2024-05-01_X_index.json', '2024-05-03_X_index.json']);
    expect(deps.io.stdoutText()).toBe(
      `${join(dir.path, '2024-05-01_X_index.json')}\n${join(dir.path, '2024-05-03_X_index.json')}\n`,
    );
    expect(deps.io.stderrText()).toMatch(/^prs: portfolio 42 on 2024-05-02: the export of .* is corrupt/m);
  });

  it('--fail-fast stops at the first failure of a range, keeping the whole files written before it', async () => {
    const { deps, calls } = setup([{ body: '[1]' }, { body: '[2' }, { body: '[3]' }]);
    const err = await exportCommand(
      options({ dates: ['2024-05-01', '2024-05-02', '2024-05-03'], name: 'X', failFast: true }),
      deps,
    ).catch((e) => e);
    expect(err).toBeInstanceOf(ServiceError);
    expect(calls).toHaveLength(2);
    expect(listing()).toEqual(['2024-05-01_X_index.json']);
    expect(deps.io.stdoutText()).toBe(`${join(dir.path, '2024-05-01_X_index.json')}\n`);
  });

  it('a file that exists is an item failure in a range (exit 10, hint names --skip-existing); the rest runs', async () => {
    writeFileSync(join(dir.path, '2024-05-01_X_index.json'), 'mine');
    const { deps } = setup([{ body: '[1]' }, { body: '[2]' }]);
    const err = await exportCommand(options({ dates: ['2024-05-01', '2024-05-02'], name: 'X' }), deps).catch(
      (e) => e,
    );
    expect(exitCodeFor(err)).toBe(10);
    expect(err.first.hint).toMatch(/--skip-existing/);
    expect(read('2024-05-01_X_index.json')).toBe('mine');
    expect(read('2024-05-02_X_index.json')).toBe('[2]');
  });

  it('a run-level failure (403) stops the run at once', async () => {
    const forbidden = new HttpError('forbidden', { status: 403 });
    const { deps, calls } = setup([{ body: '[1]' }, { error: forbidden }, { body: '[3]' }]);
    const err = await exportCommand(
      options({ dates: ['2024-05-01', '2024-05-02', '2024-05-03'], name: 'X' }),
      deps,
    ).catch((e) => e);
    expect(err).toBe(forbidden);
    expect(calls).toHaveLength(2);
  });

  it('--json: one object per item, with status, path, bytes and the error exit code', async () => {
    const notFound = new HttpError('portfolio 7 not found — check the id', {
      status: 404,
    });
    const { deps } = setup((q) =>
      q.portfolioId === 7 ? { error: notFound } : q.date === '2024-05-02' ? { body: '' } : { body: '[1]' },
    );
    const err = await exportCommand(
      options({ portfolioIds: [42, 7], dates: ['2024-05-01', '2024-05-02'], name: 'X', json: true }),
      deps,
    ).catch((e) => e);
    expect(exitCodeFor(err)).toBe(6);
    const out = JSON.parse(deps.io.stdoutText());
    const base = { type: 'index', format: 'json' };
    expect(out).toEqual([
      {
        ...base,
        portfolioId: 42,
        date: '2024-05-01',
        status: 'written',
        path: join(dir.path, '2024-05-01_X_index.json'),
        bytes: 3,
      },
      { ...base, portfolioId: 42, date: '2024-05-02', status: 'empty' },
      {
        ...base,
        portfolioId: 7,
        date: '2024-05-01',
        status: 'failed',
        error: { exitCode: 6, message: notFound.message },
      },
      {
        ...base,
        portfolioId: 7,
        date: '2024-05-02',
        status: 'failed',
        error: { exitCode: 6, message: notFound.message },
      },
    ]);
  });

  it('holidays: an answer with the bytes of an earlier date writes no second file; a note names the dates', async () => {
    const { deps } = setup((q) => ({
      body: q.date === '2024-12-27' ? '[2]' : '[1]',
      contentDisposition: cd(q.date === '2024-12-27' ? '27.json' : '24.json'),
    }));
    await exportCommand(options({ dates: ['2024-12-24', '2024-12-25', '2024-12-26', '2024-12-27'] }), deps);
    expect(listing()).toEqual(['24.json', '27.json']);
    expect(deps.io.stderrText()).toMatch(
      /portfolio 42: 2024-12-25, 2024-12-26 answered with the rows of 2024-12-24 .*not repeated/,
    );
  });

  it('--parallel: a later item done first still waits: names, files and lines follow item order', async () => {
    const slowBody = new PassThrough();
    const { deps, calls } = setup((q) =>
      q.date === '2024-05-01'
        ? { body: slowBody, contentDisposition: cd('same.json') }
        : { body: '[2]', contentDisposition: cd('same.json') },
    );
    const run = exportCommand(options({ dates: ['2024-05-01', '2024-05-02'], parallel: 2 }), deps);
    // Both requests are in flight before the first body has ended (the test's timeout bounds the wait).
    while (calls.length < 2) await new Promise((r) => setTimeout(r, 5));
    await new Promise((r) => setTimeout(r, 20));
    expect(deps.io.stdoutText()).toBe('');
    slowBody.end('[1]');
    await run;
    expect(read('same.json')).toBe('[1]');
    expect(read('same_42_2024-05-02.json')).toBe('[2]');
    expect(deps.io.stdoutText()).toBe(
      `${join(dir.path, 'same.json')}\n${join(dir.path, 'same_42_2024-05-02.json')}\n`,
    );
  });

  // A wait the service asked for halving the exports in flight is the engine's: test/unit/run/engine.test.ts.

  it('--skip-existing: items recorded and unchanged are not requested; one altered by hand is, and is kept', async () => {
    const dates = ['2024-05-01', '2024-05-02', '2024-05-03'];
    const first = setup((q) => ({ body: `[${q.date.slice(-1)}]` }));
    await exportCommand(options({ dates, name: 'X' }), first.deps);
    writeFileSync(join(dir.path, '2024-05-02_X_index.json'), '[9]');
    const again = setup((q) => ({ body: `[${q.date.slice(-1)}]` }));
    const err = await exportCommand(options({ dates, name: 'X', skipExisting: true }), again.deps).catch(
      (e) => e,
    );
    expect(again.calls.map((c) => c.date)).toEqual(['2024-05-02']);
    expect(exitCodeFor(err)).toBe(10);
    expect(read('2024-05-02_X_index.json')).toBe('[9]');
  });

  it('--skip-existing --force: an identical file is left alone, one that differs is replaced', async () => {
    writeFileSync(join(dir.path, '2024-05-01_X_index.json'), '[1]');
    writeFileSync(join(dir.path, '2024-05-02_X_index.json'), '[9]');
    const { deps } = setup((q) => ({ body: `[${Number(q.date.slice(-1))}]` }));
    await exportCommand(
      options({ dates: ['2024-05-01', '2024-05-02'], name: 'X', skipExisting: true, force: true }),
      deps,
    );
    expect(read('2024-05-02_X_index.json')).toBe('[2]');
    expect(deps.io.stdoutText()).toBe(`${join(dir.path, '2024-05-02_X_index.json')}\n`);
  });

  it('--skip-existing: a file with the same bytes but no record counts as done, and is recorded', async () => {
    writeFileSync(join(dir.path, '2024-05-01_X_index.json'), '[1]');
    const first = setup([{ body: '[1]' }]);
    await exportCommand(options({ name: 'X', skipExisting: true }), first.deps);
    expect(first.deps.io.stdoutText()).toBe('');
    const again = setup([]);
    await exportCommand(options({ name: 'X', skipExisting: true }), again.deps);
    expect(again.calls).toEqual([]);
  });

  it('-o - streams the raw bytes to stdout and writes no file', async () => {
    const { deps } = setup([{ body: goodZip, contentDisposition: cd('x.zip') }]);
    await exportCommand(options({ format: 'csv', output: '-' }), deps);
    expect(deps.io.stdoutBytes()).toEqual(goodZip);
    expect(listing()).toEqual([]);
  });

  it('-o - with no data exits 3', async () => {
    const { deps } = setup([{ body: '' }]);
    await expect(exportCommand(options({ output: '-' }), deps)).rejects.toThrow(NoDataError);
  });

  it('-o - (and --extract -o -) with no bytes where Content-Length promised some: corrupt, not no data', async () => {
    for (const o of [{}, { format: 'csv' as const, extract: true }]) {
      const { deps } = setup([{ body: '', contentLength: 10 }]);
      await expect(exportCommand(options({ ...o, output: '-' }), deps)).rejects.toThrow(
        /corrupt: received 0 of 10 bytes/,
      );
      expect(deps.io.stdoutText()).toBe('');
    }
  });

  it('-o - with a body cut short fails after writing what came', async () => {
    const { deps } = setup([{ body: cutBody(Buffer.from('[1,')) }]);
    await expect(exportCommand(options({ output: '-' }), deps)).rejects.toThrow(/broke off after 3 bytes/);
    expect(deps.io.stdoutText()).toBe('[1,');
  });

  it('Ctrl-C mid-download removes the temporary file and ends as interrupted', async () => {
    const controller = new AbortController();
    const body = new PassThrough();
    const { deps } = setup([{ body }], { signal: controller.signal });
    const run = exportCommand(options({ name: 'X' }), deps).catch((e) => e);
    body.write('[1,2,');
    // However busy the machine: the download is under way once its temporary exists.
    await vi.waitFor(() => expect(listing().some((f) => f.endsWith('.tmp'))).toBe(true), {
      timeout: 20_000,
      interval: 5,
    });
    controller.abort();
    expect(await run).toBeInstanceOf(InterruptedError);
    expect(listing()).toEqual([]);
  });

  it('a directory that cannot be written is exit 10 naming the path', async () => {
    const { deps } = setup([{ body: '[1]' }]);
    const openFile: typeof createAtomicFile = async (path) => {
      throw fileError(Object.assign(new Error('EACCES: permission denied'), { code: 'EACCES' }), path);
    };
    const err = await exportCommand(options({ name: 'X' }), deps, { openFile }).catch((e) => e);
    expect(err).toBeInstanceOf(FileError);
    expect(err.message).toBe(`cannot write ${join(dir.path, '2024-05-01_X_index.json')}: permission denied`);
    expect(listing()).toEqual([]);
  });

  it('--extract is whole or nothing: a CSV whose name is taken at the commit takes back the zip and the CSVs before it', async () => {
    const zip = zipOf({ 'a.csv': csv, 'b.csv': csv });
    const { deps } = setup([{ body: zip, contentDisposition: cd('z.zip') }]);
    // A rival writes b.csv after prs checked the name, just before prs commits it.
    const openFile: typeof createAtomicFile = async (path, o) => {
      const file = await createAtomicFile(path, o);
      const commit = file.commit.bind(file);
      file.commit = async (p) => {
        if (p?.endsWith('b.csv')) writeFileSync(p, 'rival');
        await commit(p);
      };
      return file;
    };
    const opts = options({ format: 'csv', extract: true });
    const err = await exportCommand(opts, deps, { openFile }).catch((e) => e);
    expect(err).toBeInstanceOf(FileError);
    expect(err.message).toMatch(/b.csv already exists/);
    expect(listing()).toEqual(['b.csv']);
    expect(read('b.csv')).toBe('rival');
    expect(deps.io.stdoutText()).toBe('');
  });

  it('a full disk is exit 10 naming the path, with the temporary file removed', async () => {
    const { deps } = setup([{ body: '[1]' }]);
    const openFile: typeof createAtomicFile = async (path, o) => {
      const file = await createAtomicFile(path, o);
      const enospc = Object.assign(new Error('ENOSPC: no space left on device, write'), {
        code: 'ENOSPC',
        syscall: 'write',
      });
      file.stream._write = (_c, _e, cb) => cb(enospc);
      return file;
    };
    const err = await exportCommand(options({ name: 'X' }), deps, { openFile }).catch((e) => e);
    expect(err).toBeInstanceOf(FileError);
    expect(err.message).toBe(`cannot write ${join(dir.path, '2024-05-01_X_index.json')}: disk full`);
    expect(listing()).toEqual([]);
  });
});

describe('prs export -o - on a terminal', () => {
  it('refuses to send a zip to the terminal, before any request', async () => {
    const calls: unknown[] = [];
    const deps = fakeDeps({
      io: createTestIO({ isStdoutTTY: true }),
      service: {
        exportReport: async (q) => {
          calls.push(q);
          throw new Error('no request expected');
        },
      },
    });
    await expect(exportCommand(options({ format: 'csv', output: '-' }), deps)).rejects.toThrow(UsageError);
    expect(calls).toEqual([]);
  });
});
