/**
 * `prs export` end to end: the BUILT binary (run `npm run build` first) against the in-process
 * sandbox, signing in from the environment (password grant) with a temporary config and cache.
 */
import { existsSync, lstatSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { unzipSync } from 'fflate';
import { beforeEach, describe, expect, it } from 'vitest';
import { runPrs } from '../helpers/run.js';
import { dirsEnv, signInEnv, useSandbox, useTempDir } from '../helpers/session.js';

const sandbox = useSandbox();
const home = useTempDir('prs-export-e2e-');
let out: string;

beforeEach(() => {
  out = home.fresh();
});

/** Unattended sign-in from the environment, as a cron job would have it. */
const sandboxEnv = () => ({ ...signInEnv(sandbox), ...dirsEnv(home.path) });
const prs = (args: string[]) => runPrs(['export', ...args], { cwd: out, env: sandboxEnv() });
// The run's record (.prs-manifest.jsonl) is not one of the exports.
const listing = () =>
  readdirSync(out)
    .filter((f) => f !== '.prs-manifest.jsonl')
    .sort();
const lines = (s: string) => s.split('\n').filter(Boolean);

describe('prs export against the sandbox', () => {
  it('json: the file named by the server, a JSON array, its path on stdout', async () => {
    const r = await prs(['42', '-t', 'index', '-d', '2024-05-01', '--dir', out]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(listing()).toEqual(['2024-05-01_Example_600_OG_index.json']);
    expect(lines(r.stdout)).toEqual([join(out, '2024-05-01_Example_600_OG_index.json')]);
    const rows = JSON.parse(readFileSync(join(out, listing()[0]), 'utf8'));
    expect(Array.isArray(rows) && rows.length).toBeGreaterThan(0);
    expect(rows[0].effectiveDate).toBe('2024-05-01');
  });

  it('--dir defaults to the current directory, printed relative', async () => {
    const r = await prs(['42', '-t', 'index', '-d', '2024-05-01']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('2024-05-01_Example_600_OG_index.json\n');
    expect(listing()).toEqual(['2024-05-01_Example_600_OG_index.json']);
  });

  it('csv --extract: the zip and its CSV member side by side', async () => {
    const r = await prs([
      '42',
      '-t',
      'constituent.close',
      '-d',
      '2024-05-01',
      '-f',
      'csv',
      '--extract',
      '--dir',
      out,
    ]);
    expect(r.code).toBe(0);
    expect(listing()).toEqual(['2024-05-01_Example_600_OG_index.csv', '2024-05-01_Example_600_OG_index.zip']);
    expect(lines(r.stdout)).toEqual([
      join(out, '2024-05-01_Example_600_OG_index.zip'),
      join(out, '2024-05-01_Example_600_OG_index.csv'),
    ]);
    const csv = readFileSync(join(out, '2024-05-01_Example_600_OG_index.csv'), 'utf8');
    expect(csv.split(/\r?\n/)[0]).toMatch(/^Effective Date,ISIN,Security Name/);
    const inZip = unzipSync(readFileSync(join(out, '2024-05-01_Example_600_OG_index.zip')));
    expect(Buffer.from(Object.values(inZip)[0]).toString('utf8')).toBe(csv);
  });

  it('filename* with non-ASCII characters', async () => {
    const r = await prs(['13', '-t', 'index', '-d', '2024-05-01', '--dir', out]);
    expect(r.code).toBe(0);
    expect(listing()).toEqual(['2024-05-01_Précision_Stress_index.json']);
  });

  it('never replaces a file without --force; --force does', async () => {
    const args = ['42', '-t', 'index', '-d', '2024-05-01', '--dir', out];
    const name = join(out, '2024-05-01_Example_600_OG_index.json');
    writeFileSync(name, 'keep me');
    const r = await prs(args);
    expect(r.code).toBe(10);
    expect(r.stderr).toContain(`${name} already exists`);
    expect(readFileSync(name, 'utf8')).toBe('keep me');
    expect(listing()).toEqual(['2024-05-01_Example_600_OG_index.json']);
    const forced = await prs([...args, '--force']);
    expect(forced.code).toBe(0);
    expect(JSON.parse(readFileSync(name, 'utf8')).length).toBeGreaterThan(0);
    expect(listing()).toEqual(['2024-05-01_Example_600_OG_index.json']);
  });

  it.each(['json', 'csv'])('-o - gives the same bytes as the file (%s)', async (format) => {
    const args = ['42', '-t', 'constituent.close', '-d', '2024-05-02', '-f', format];
    const file = await prs([...args, '--dir', out]);
    expect(file.code).toBe(0);
    const piped = await prs([...args, '-o', '-']);
    expect(piped.code).toBe(0);
    expect(piped.stdoutBytes.length).toBeGreaterThan(0);
    expect(piped.stdoutBytes.equals(readFileSync(lines(file.stdout)[0]))).toBe(true);
  });

  it('-o FILE picks the path', async () => {
    const r = await prs(['42', '-t', 'index', '-d', '2024-05-01', '-o', join(out, 'mine.json')]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`${join(out, 'mine.json')}\n`);
    expect(listing()).toEqual(['mine.json']);
  });

  it('a range: one file per date; dates without data noted and skipped', async () => {
    const r = await prs([
      '42',
      '-t',
      'index',
      '--from',
      '2024-05-03',
      '--to',
      '2024-05-06',
      '--weekends',
      '--dir',
      out,
    ]);
    expect(r.code).toBe(0);
    expect(listing()).toEqual([
      '2024-05-03_Example_600_OG_index.json',
      '2024-05-06_Example_600_OG_index.json',
    ]);
    expect(lines(r.stdout)).toHaveLength(2);
    expect(lines(r.stderr)).toEqual([
      'no data for portfolio 42 on 2024-05-04',
      'no data for portfolio 42 on 2024-05-05',
      '2 written, 2 empty',
    ]);
  });

  it('a range over a holiday: the repeated answers give no second file; a note names the dates', async () => {
    // 2024-12-25 and -26 are holidays: the sandbox answers with 2024-12-24's rows and name.
    const r = await prs(['42', '-t', 'index', '--from', '2024-12-24', '--to', '2024-12-27', '--dir', out]);
    expect(r.code).toBe(0);
    expect(listing()).toEqual([
      '2024-12-24_Example_600_OG_index.json',
      '2024-12-27_Example_600_OG_index.json',
    ]);
    expect(r.stderr).toContain(
      'portfolio 42: 2024-12-25, 2024-12-26 answered with the rows of 2024-12-24 (no data of their own: holiday?); not repeated',
    );
  });

  it('several portfolios: one file each', async () => {
    const r = await prs(['42', '13', '-t', 'index', '-d', '2024-05-01', '--dir', out]);
    expect(r.code).toBe(0);
    expect(listing()).toEqual([
      '2024-05-01_Example_600_OG_index.json',
      '2024-05-01_Précision_Stress_index.json',
    ]);
  });

  it.each([
    ['a weekend', ['42', '-d', '2024-05-04'], 'no data for portfolio 42 on 2024-05-04'],
    ['a portfolio without data', ['101', '-d', '2024-05-01'], 'no data for portfolio 101 on 2024-05-01'],
  ])('no data (%s): exit 3, no file', async (_what, args, message) => {
    const r = await prs([...args, '-t', 'index', '--dir', out]);
    expect(r.code).toBe(3);
    expect(r.stderr).toBe(`prs: ${message}\n`);
    expect(r.stdout).toBe('');
    expect(listing()).toEqual([]);
  });

  it("--skip-existing never writes through a planted manifest link, nor creates a dangling one's target", async () => {
    const outside = home.fresh('outside');
    const target = join(outside, 'passwd');
    writeFileSync(target, 'root:x:0:0:root:/root:/bin/bash\n');
    const manifest = join(out, '.prs-manifest.jsonl');
    symlinkSync(target, manifest);
    const args = ['42', '-t', 'index', '-d', '2024-05-01', '--dir', out, '--skip-existing'];
    const r = await prs(args);
    expect(r.code).toBe(0);
    expect(readFileSync(target, 'utf8')).toBe('root:x:0:0:root:/root:/bin/bash\n');
    expect(lstatSync(manifest).isFile()).toBe(true);
    // The manifest prs made in its place serves the rerun: skipped, not fetched again.
    sandbox.stats.reset();
    const again = await prs(args);
    expect(again.code).toBe(0);
    expect(sandbox.stats.requests.filter((q) => q.endpoint === 'export')).toEqual([]);

    const dangling = join(outside, 'created');
    const other = home.fresh();
    symlinkSync(dangling, join(other, '.prs-manifest.jsonl'));
    const d = await prs(['42', '-t', 'index', '-d', '2024-05-01', '--dir', other, '--skip-existing']);
    expect(d.code).toBe(0);
    expect(existsSync(dangling)).toBe(false);
    expect(lstatSync(join(other, '.prs-manifest.jsonl')).isFile()).toBe(true);
  });

  it('a 500 from the service: exit 8, no file', async () => {
    const r = await runPrsQuick(['500', '-t', 'index', '-d', '2024-05-01', '--dir', out]);
    expect(r.code).toBe(8);
    expect(listing()).toEqual([]);
  });

  it('a body truncated by the server: exit 8, no file', async () => {
    sandbox.injectFault({ endpoint: 'export', truncate: true, count: 10 });
    const r = await runPrsQuick([
      '42',
      '-t',
      'constituent.close',
      '-d',
      '2024-05-01',
      '-f',
      'csv',
      '--dir',
      out,
    ]);
    expect(r.code).toBe(8);
    expect(listing()).toEqual([]);
  });
});

/** Without retries, so server faults end at once. */
function runPrsQuick(args: string[]) {
  return runPrs(['--retries', '0', 'export', ...args], { cwd: out, env: sandboxEnv() });
}
