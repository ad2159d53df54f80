/**
 * `prs export` against a misbehaving server: the BUILT binary (run `npm run build` first) talking to
 * test/helpers/fault-server.ts. Every fault ends with the contract's exit code and a directory exactly
 * as it was: no partial file, no temporary file.
 */
import { chmodSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { strToU8, zipSync } from 'fflate';
import { beforeEach, describe, expect, it } from 'vitest';
import { type FaultReply, useFaultServer } from '../helpers/fault-server.js';
import { runPrs } from '../helpers/run.js';
import { useTempDir } from '../helpers/session.js';

const server = useFaultServer();
const home = useTempDir('prs-export-faults-');
let out: string;

beforeEach(() => {
  out = home.fresh();
});

const env = () => ({
  PRS_BASE_URL: server.url,
  PRS_TENANT: 'fault-tenant',
  PRS_TOKEN: 'ready-token',
  PRS_CONFIG_DIR: join(home.path, 'config'),
  PRS_CACHE_DIR: join(home.path, 'cache'),
  PRS_RETRIES: '0',
  PRS_TIMEOUT: '5',
});
const prs = (args: string[]) =>
  runPrs(['export', '42', '-t', 'index', '-d', '2024-05-01', '--dir', out, ...args], { env: env() });
const listing = () => readdirSync(out).sort();

const csv = 'Effective Date,ISIN\n2024-05-01,CH0102878927\n';
const zip = (files: Record<string, string>) =>
  Buffer.from(zipSync(Object.fromEntries(Object.entries(files).map(([k, v]) => [k, strToU8(v)]))));
const rows = JSON.stringify([
  { effectiveDate: '2024-05-01', indexName: 'Example 600 OG JPY', indexValue: 1.5 },
]);
const goodZip = zip({ '2024-05-01_Example_600_OG_index.csv': csv.repeat(50) });
const json = { 'content-type': 'application/json' };
const zipType = { 'content-type': 'application/zip' };

describe('prs export against a faulty server', () => {
  it.each<[string, string[], FaultReply, number, RegExp]>([
    [
      'a truncated zip',
      ['-f', 'csv'],
      { headers: zipType, body: goodZip.subarray(0, goodZip.length >> 1) },
      8,
      /corrupt: not a whole zip/,
    ],
    ['invalid JSON', [], { headers: json, body: '[{"a":1},{"b":' }, 8, /corrupt: JSON ends early/],
    ['JSON that is not an array', [], { headers: json, body: '{"report":[]}' }, 8, /not a JSON array/],
    [
      'a JSON body cut mid-stream',
      [],
      { headers: json, body: rows.repeat(1) + ' '.repeat(4000), cutAfter: 2000 },
      8,
      /broke off after \d+ bytes/,
    ],
    [
      'a zip body cut mid-stream',
      ['-f', 'csv'],
      { headers: zipType, body: goodZip, cutAfter: goodZip.length >> 1 },
      8,
      /broke off|corrupt/,
    ],
    [
      'a zip member named ../escape.csv (--extract)',
      ['-f', 'csv', '--extract'],
      { headers: zipType, body: zip({ '../escape.csv': csv }) },
      8,
      /"..\/escape.csv" points outside the target directory/,
    ],
    // Issue 18, defect 5: this was saved as a .json file, exit 0.
    [
      '-f csv answered with a JSON body named and typed as JSON',
      ['-f', 'csv'],
      { headers: { ...json, 'content-disposition': 'attachment; filename="x.json"' }, body: rows },
      8,
      /corrupt: not a whole zip/,
    ],
    ['-f json answered with a zip', [], { headers: zipType, body: goodZip }, 8, /corrupt/],
    ['an empty body', [], { headers: json, body: '' }, 3, /no data for portfolio 42 on 2024-05-01/],
    ['a 404', [], { status: 404, headers: json, body: '{"status":404}' }, 6, /./],
    ['a 500', [], { status: 500, headers: json, body: '{"status":500}' }, 8, /./],
  ])('%s: exit %s, directory unchanged', async (_what, args, reply, code, stderr) => {
    server.respond(reply);
    const r = await prs(args);
    expect(r.stderr).toMatch(stderr);
    expect(r.code).toBe(code);
    expect(r.stdout).toBe('');
    expect(r.stderr).not.toMatch(/at .*\.js:\d+/); // no stack trace
    expect(listing()).toEqual([]);
    expect(readdirSync(home.path).filter((f) => f.includes('escape'))).toEqual([]);
  });

  // undici ends such a body with an error of its own, so this is the broken-off path (the in-process
  // check of a clean short body is in test/unit/commands/export.test.ts); either way exit 8, not no data.
  it('no bytes where Content-Length promised 1000: exit 8 whatever the target, nothing written', async () => {
    for (const args of [
      [],
      ['-o', join(out, 'x.zip')],
      ['-o', '-'],
      ['--extract'],
      ['--extract', '-o', '-'],
    ]) {
      server.respond({ headers: { ...zipType, connection: 'close' }, body: '', contentLength: 1000 });
      const r = await prs(['-f', 'csv', ...args]);
      expect([r.code, r.stdout, r.stderr.split('\n')[0]]).toEqual([
        8,
        '',
        'prs: the download of portfolio 42 on 2024-05-01 broke off after 0 bytes',
      ]);
      expect(listing()).toEqual([]);
    }
  });

  it('a hostile Content-Disposition (../../x.json) stays inside --dir', async () => {
    server.respond({
      headers: { ...json, 'content-disposition': 'attachment; filename="../../x.json"' },
      body: rows,
    });
    const r = await prs([]);
    expect(r.code).toBe(0);
    expect(listing()).toEqual(['x.json']);
    expect(r.stdout).toBe(`${join(out, 'x.json')}\n`);
    expect(readdirSync(home.path)).not.toContain('x.json');
  });

  it('without Content-Disposition the name comes from the rows', async () => {
    server.respond({ headers: json, body: rows });
    const r = await prs([]);
    expect(r.code).toBe(0);
    expect(listing()).toEqual(['2024-05-01_Example_600_OG_index.json']);
    expect(readFileSync(join(out, '2024-05-01_Example_600_OG_index.json'), 'utf8')).toBe(rows);
  });

  it('--name names the file when the server does not', async () => {
    server.respond({ headers: zipType, body: goodZip });
    const r = await prs(['-f', 'csv', '--name', 'My Index', '--extract']);
    expect(r.code).toBe(0);
    expect(listing()).toEqual(['2024-05-01_Example_600_OG_index.csv', '2024-05-01_My_Index_index.zip']);
    expect(r.stdout.trim().split('\n')).toEqual([
      join(out, '2024-05-01_My_Index_index.zip'),
      join(out, '2024-05-01_Example_600_OG_index.csv'),
    ]);
  });

  it('an existing file is never replaced without --force (-o: no request at all)', async () => {
    writeFileSync(join(out, 'keep.json'), 'old');
    server.requests.length = 0;
    const r = await prs(['-o', join(out, 'keep.json')]);
    expect(r.code).toBe(10);
    expect(r.stderr).toMatch(/keep.json already exists/);
    expect(server.requests).toHaveLength(0);
    expect(readFileSync(join(out, 'keep.json'), 'utf8')).toBe('old');
    server.respond({ headers: json, body: rows });
    const forced = await prs(['-o', join(out, 'keep.json'), '--force']);
    expect(forced.code).toBe(0);
    expect(readFileSync(join(out, 'keep.json'), 'utf8')).toBe(rows);
    expect(listing()).toEqual(['keep.json']);
  });

  it('a missing directory is created; a file in its way is exit 10 naming it, before any request', async () => {
    server.respond({ headers: json, body: rows });
    const made = await runPrs(
      ['export', '42', '-t', 'index', '-d', '2024-05-01', '--dir', join(out, 'a', 'b')],
      {
        env: env(),
      },
    );
    expect([made.code, made.stderr]).toEqual([0, '']);
    expect(readdirSync(join(out, 'a', 'b'))).toHaveLength(1);
    server.requests.length = 0;
    writeFileSync(join(out, 'file'), 'x');
    const r = await runPrs(
      ['export', '42', '-t', 'index', '-d', '2024-05-01', '--dir', join(out, 'file', 'nope')],
      {
        env: env(),
      },
    );
    expect(r.code).toBe(10);
    expect(r.stderr).toContain(join(out, 'file', 'nope'));
    expect(server.requests).toHaveLength(0);
  });

  // Root writes anywhere, so this one needs an ordinary user.
  it.skipIf(process.getuid?.() === 0)(
    'an unwritable directory is exit 10 naming it, before any request',
    async () => {
      chmodSync(out, 0o555);
      server.requests.length = 0;
      const r = await prs([]);
      chmodSync(out, 0o755);
      expect(r.code).toBe(10);
      expect(r.stderr).toContain(`${out}: permission denied`);
      expect(server.requests).toHaveLength(0);
    },
  );

  it('Ctrl-C during a stalled download: exit 130 and no temporary file', async () => {
    server.respond({ headers: json, body: rows + ' '.repeat(100_000), stallAfter: 50_000 });
    const { spawn } = await import('node:child_process');
    const { PRS_BIN, baseEnv } = await import('../helpers/run.js');
    const child = spawn(
      process.execPath,
      [PRS_BIN, 'export', '42', '-t', 'index', '-d', '2024-05-01', '--dir', out, '--name', 'X'],
      {
        env: baseEnv(env()),
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stderr = '';
    child.stderr.on('data', (c) => {
      stderr += c;
    });
    // Wait until the temporary file exists (the download has started), then interrupt.
    for (let i = 0; i < 200 && !listing().some((f) => f.endsWith('.tmp')); i++)
      await new Promise((r) => setTimeout(r, 25));
    expect(listing().some((f) => f.endsWith('.tmp'))).toBe(true);
    child.kill('SIGINT');
    const [code] = await new Promise<[number | null]>((resolve) => child.on('close', (c) => resolve([c])));
    expect({ code, stderr }).toEqual({ code: 130, stderr: expect.stringMatching(/interrupted/) });
    expect(listing()).toEqual([]);
  });
});
