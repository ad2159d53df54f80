/**
 * export into pipelines and shared directories (issue 33, issue 34 items 3 and 7), the built binary
 * against the sandbox: `--extract -o -`, `--name-template`, `--extract --skip-existing` recovering a
 * file removed by hand, the hints of a name taken by another report type, an empty --dir removed.
 * Zip shapes the sandbox never sends (no CSV member, two members) come from the fault server.
 */
import { existsSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { strToU8, unzipSync, zipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { MANIFEST_NAME } from '../../src/export/manifest.js';
import { useFaultServer } from '../helpers/fault-server.js';
import { EMPTY_PORTFOLIO_ID, EXAMPLE_PORTFOLIO_ID } from '../helpers/portfolios.js';
import { type RunOptions, runPrs } from '../helpers/run.js';
import { useLoggedIn } from '../helpers/session.js';

const DATE = '2024-05-03';
const ID = String(EXAMPLE_PORTFOLIO_ID);
const { sandbox, tmp, env } = useLoggedIn('prs-export-pipeline-', { rateLimit: '100/1s' });
const prs = (args: string[], o: RunOptions = {}) => runPrs(args, { ...o, env: { ...env, ...o.env } });
const fresh = () => tmp.fresh('d');
const files = (dir: string) =>
  readdirSync(dir)
    .filter((f) => f !== MANIFEST_NAME)
    .sort();
const exports = () => sandbox.stats.count({ endpoint: 'export' });

/** The CSV member(s) of a zip, by name. */
const membersOf = (zip: Buffer) =>
  Object.fromEntries(Object.entries(unzipSync(zip)).map(([k, v]) => [k, Buffer.from(v)]));

describe('export -f csv --extract -o -', () => {
  it('writes the CSV member to stdout, nothing to disk', async () => {
    const cwd = fresh();
    const raw = await prs(['export', ID, '-t', 'constituent.close', '-d', DATE, '-f', 'csv', '-o', '-'], {
      cwd,
    });
    expect(raw.code, raw.stderr).toBe(0);
    expect(raw.stdoutBytes.subarray(0, 2).toString()).toBe('PK'); // without --extract: the zip's bytes
    const members = Object.values(membersOf(raw.stdoutBytes));
    expect(members).toHaveLength(1);
    const r = await prs(
      ['export', ID, '-t', 'constituent.close', '-d', DATE, '-f', 'csv', '--extract', '-o', '-'],
      { cwd },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdoutBytes.equals(members[0]!)).toBe(true);
    expect(r.stdout).toMatch(/^Effective Date,ISIN,/);
    expect(readdirSync(cwd)).toEqual([]);
  });

  it('no data: nothing on stdout, exit 3', async () => {
    const r = await prs([
      'export',
      String(EMPTY_PORTFOLIO_ID),
      '-t',
      'index',
      '-d',
      DATE,
      '-f',
      'csv',
      '--extract',
      '-o',
      '-',
    ]);
    expect(r.code).toBe(3);
    expect(r.stdout).toBe('');
  });

  it('still refuses --extract without -f csv (exit 2, no request)', async () => {
    const before = exports();
    const r = await prs(['export', ID, '-t', 'index', '-d', DATE, '--extract', '-o', '-']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--extract goes with --format csv/);
    expect(exports()).toBe(before);
  });
});

describe('--name-template', () => {
  it('two report types of one date collide by default; the hint names --name-template; the template keeps them apart', async () => {
    const dir = fresh();
    const a = await prs(['export', ID, '-t', 'index', '-d', DATE, '--dir', dir]);
    expect(a.code, a.stderr).toBe(0);
    const b = await prs(['export', ID, '-t', 'constituent.close', '-d', DATE, '--dir', dir]);
    expect(b.code).toBe(10);
    expect(b.stderr).toMatch(/already exists/);
    expect(b.stderr).toMatch(/--name-template '\{date\}_\{name\}_\{type\}'/);
    const t = ['--name-template', '{date}_{name}_{type}'];
    const apart = fresh();
    const c = await prs(['export', ID, '-t', 'index', '-d', DATE, '--dir', apart, ...t]);
    const d = await prs(['export', ID, '-t', 'constituent.close', '-d', DATE, '--dir', apart, ...t]);
    expect(c.code, c.stderr).toBe(0);
    expect(d.code, d.stderr).toBe(0);
    expect(c.stdout).toBe(`${join(apart, `${DATE}_Example_600_OG_index.json`)}\n`);
    expect(d.stdout).toBe(`${join(apart, `${DATE}_portfolio_42_constituent.close.json`)}\n`);
    expect(files(apart)).toEqual([
      `${DATE}_Example_600_OG_index.json`,
      `${DATE}_portfolio_42_constituent.close.json`,
    ]);
  });

  it('from PRS_NAME_TEMPLATE and the config key name-template; the flag wins; zips and extracted CSVs follow it', async () => {
    const dir = fresh();
    const viaEnv = await prs(
      ['export', ID, '-t', 'index', '-d', DATE, '-f', 'csv', '--extract', '--dir', dir],
      {
        env: { PRS_NAME_TEMPLATE: '{portfolio}-{type}-{date}' },
      },
    );
    expect(viaEnv.code, viaEnv.stderr).toBe(0);
    expect(files(dir)).toEqual([`${ID}-index-${DATE}.csv`, `${ID}-index-${DATE}.zip`]);
    const set = await prs(['config', 'set', 'name-template', 'p{portfolio}_{type}']);
    expect(set.code, set.stderr).toBe(0);
    try {
      const viaConfig = await prs(['export', ID, '-t', 'constituent.open', '-d', DATE, '--dir', dir]);
      expect(viaConfig.code, viaConfig.stderr).toBe(0);
      const viaFlag = await prs([
        'export',
        ID,
        '-t',
        'constituent.open',
        '-d',
        DATE,
        '--dir',
        dir,
        '--name-template',
        '{type}',
      ]);
      expect(viaFlag.code, viaFlag.stderr).toBe(0);
      expect(files(dir)).toContain(`p${ID}_constituent.open.json`);
      expect(files(dir)).toContain('constituent.open.json');
    } finally {
      await prs(['config', 'unset', 'name-template']);
    }
  });

  it('--skip-existing and the manifest follow the templated names', async () => {
    const dir = fresh();
    const args = ['export', ID, '-t', 'index', '--from', '2024-05-01', '--to', '2024-05-03', '--dir', dir];
    const t = ['--name-template', '{date}_{type}', '--skip-existing'];
    const first = await prs([...args, ...t]);
    expect(first.code, first.stderr).toBe(0);
    expect(files(dir)).toEqual(['2024-05-01_index.json', '2024-05-02_index.json', '2024-05-03_index.json']);
    const manifest = readFileSync(join(dir, MANIFEST_NAME), 'utf8');
    expect(manifest).toContain('"name":"2024-05-02_index.json"');
    const before = exports();
    const again = await prs([...args, ...t]);
    expect(again.code, again.stderr).toBe(0);
    expect(exports()).toBe(before);
    rmSync(join(dir, '2024-05-02_index.json'));
    const resumed = await prs([...args, ...t]);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(exports()).toBe(before + 1);
    expect(resumed.stdout).toBe(`${join(dir, '2024-05-02_index.json')}\n`);
    // Another template names other files: fetched again under them, then skipped under them.
    const t2 = ['--name-template', '{type}_{date}', '--skip-existing'];
    const renamed = await prs([...args, ...t2]);
    expect(renamed.code, renamed.stderr).toBe(0);
    expect(exports()).toBe(before + 4);
    expect(files(dir)).toContain('index_2024-05-02.json');
    expect(files(dir)).toHaveLength(6);
    const again2 = await prs([...args, ...t2]);
    expect(again2.code, again2.stderr).toBe(0);
    expect(exports()).toBe(before + 4);
  });

  it.each([
    ['{nope}', /unknown placeholder \{nope\}/],
    ['{date', /a brace without its pair/],
    ['sub/{date}', /a file name, not a path/],
  ])('%j is refused before any request (exit 2)', async (template, message) => {
    const before = exports();
    const r = await prs([
      'export',
      ID,
      '-t',
      'index',
      '-d',
      DATE,
      '--dir',
      fresh(),
      '--name-template',
      template,
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(exports()).toBe(before);
  });
});

describe('--extract --skip-existing recovers a file removed by hand (issue 34 item 3)', () => {
  const args = (dir: string) => [
    'export',
    ID,
    '-t',
    'constituent.close',
    '-d',
    DATE,
    '-f',
    'csv',
    '--extract',
    '--skip-existing',
    '--dir',
    dir,
  ];

  it('a removed CSV is fetched again; the zip there (other bytes, same CSV) is kept', async () => {
    const dir = fresh();
    expect((await prs(args(dir))).code).toBe(0);
    const [csv, zip] = files(dir);
    expect(csv).toMatch(/\.csv$/);
    const csvBytes = readFileSync(join(dir, csv!));
    const zipStat = statSync(join(dir, zip!));
    rmSync(join(dir, csv!));
    const r = await prs(args(dir));
    expect(r.stderr).not.toMatch(/already exists/);
    expect(r.code).toBe(0);
    expect(readFileSync(join(dir, csv!)).equals(csvBytes)).toBe(true);
    expect(statSync(join(dir, zip!)).mtimeMs).toBe(zipStat.mtimeMs); // kept, not replaced
    // And recorded: the next run asks for nothing.
    const before = exports();
    expect((await prs(args(dir))).code).toBe(0);
    expect(exports()).toBe(before);
  });

  it('a removed zip is fetched again; the CSV there (byte-identical) counts as done', async () => {
    const dir = fresh();
    expect((await prs(args(dir))).code).toBe(0);
    const [csv, zip] = files(dir);
    const csvStat = statSync(join(dir, csv!));
    rmSync(join(dir, zip!));
    const r = await prs(args(dir));
    expect(r.stderr).not.toMatch(/already exists/);
    expect(r.code).toBe(0);
    expect(files(dir)).toEqual([csv, zip]);
    expect(statSync(join(dir, csv!)).mtimeMs).toBe(csvStat.mtimeMs);
  });

  it('export, then export --extract: the hint recommends --skip-existing, which then works', async () => {
    const dir = fresh();
    const plain = ['export', ID, '-t', 'constituent.close', '-d', DATE, '-f', 'csv', '--dir', dir];
    expect((await prs(plain)).code).toBe(0);
    const clash = await prs([...plain, '--extract']);
    expect(clash.code).toBe(10);
    expect(clash.stderr).toMatch(/--skip-existing/);
    const ok = await prs([...plain, '--extract', '--skip-existing']);
    expect(ok.code, ok.stderr).toBe(0);
    expect(files(dir).filter((f) => f.endsWith('.csv'))).toHaveLength(1);
  });

  it('a CSV member that another report type wrote: the hint does not recommend --skip-existing', async () => {
    const dir = fresh();
    const index = ['export', ID, '-t', 'index', '-d', DATE, '-f', 'csv', '--extract', '--dir', dir];
    expect((await prs(index)).code).toBe(0);
    // Another type's zip under a name of its own (-o): its CSV member's name is the one the index's took.
    const other = await prs([
      'export',
      ID,
      '-t',
      'constituent.close',
      '-d',
      DATE,
      '-f',
      'csv',
      '--extract',
      '-o',
      join(dir, 'cc.zip'),
    ]);
    expect(other.code).toBe(10);
    expect(other.stderr).toMatch(/\.csv already exists/);
    expect(other.stderr).not.toMatch(/--skip-existing/);
    expect(other.stderr).toMatch(/--name-template/);
    const withSkip = await prs([
      ...index.slice(0, 3),
      'constituent.close',
      ...index.slice(4),
      '--skip-existing',
    ]);
    expect(withSkip.code).toBe(10);
    expect(withSkip.stderr).not.toMatch(/use --skip-existing/);
    // The same type again under another zip name: its member holds what was sent, so --skip-existing helps.
    const same = await prs([...index.slice(0, 9), '-o', join(dir, 'again.zip')]);
    expect(same.code).toBe(10);
    expect(same.stderr).toMatch(/use --skip-existing/);
  });
});

describe('an empty --dir prs created is removed (issue 34 item 7)', () => {
  it.each([
    ['no data', String(EMPTY_PORTFOLIO_ID), 3],
    ['a failure', '500', 8],
  ])('%s', async (_what, id, code) => {
    const dir = join(fresh(), 'new', 'sub');
    const r = await prs(['export', id, '-t', 'index', '-d', DATE, '--dir', dir, '--retries', '0']);
    expect(r.code).toBe(code);
    expect(existsSync(join(dir, '..'))).toBe(false);
  });

  it('a --dir that was there already stays', async () => {
    const dir = fresh();
    const r = await prs(['export', String(EMPTY_PORTFOLIO_ID), '-t', 'index', '-d', DATE, '--dir', dir]);
    expect(r.code).toBe(3);
    expect(existsSync(dir)).toBe(true);
  });
});

describe('zips without a CSV member (issue 34 item 7), from the fault server', () => {
  const server = useFaultServer();
  const faultEnv = () => ({
    PRS_BASE_URL: server.url,
    PRS_TENANT: 'fault-tenant',
    PRS_TOKEN: 'ready-token',
    PRS_RETRIES: '0',
  });
  const zip = (entries: Record<string, Uint8Array>) => Buffer.from(zipSync(entries));
  const zipType = { 'content-type': 'application/zip' };

  it.each([
    ['an empty zip', zip({})],
    ['nested zips only', zip({ 'inner.zip': zipSync({ 'a.csv': strToU8('x\n1\n') }) })],
    ['a text file only', zip({ 'readme.txt': strToU8('hello\n') })],
  ])('%s: --extract is exit 8, nothing written (files and -o -)', async (_what, body) => {
    const dir = fresh();
    server.respond({ headers: zipType, body });
    const r = await prs(['export', '42', '-t', 'index', '-d', DATE, '-f', 'csv', '--extract', '--dir', dir], {
      env: faultEnv(),
    });
    expect(r.code).toBe(8);
    expect(r.stderr).toMatch(/holds no CSV file/);
    expect(readdirSync(dir)).toEqual([]);
    server.respond({ headers: zipType, body });
    const s = await prs(['export', '42', '-t', 'index', '-d', DATE, '-f', 'csv', '--extract', '-o', '-'], {
      env: faultEnv(),
    });
    expect(s.code).toBe(8);
    expect(s.stdout).toBe('');
  });

  it('two CSV members to stdout: each whole, with its own header, in the zip’s order', async () => {
    const a = 'Effective Date,ISIN\n2024-05-03,A1\n';
    const b = 'Effective Date,ISIN\n2024-05-03,B1'; // no final newline: the next header must not join it
    server.respond({
      headers: zipType,
      body: zip({ 'a.csv': strToU8(a), 'skip.txt': strToU8('x'), 'b.csv': strToU8(b) }),
    });
    const r = await prs(['export', '42', '-t', 'index', '-d', DATE, '-f', 'csv', '--extract', '-o', '-'], {
      env: faultEnv(),
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(`${a}${b}`);
    server.respond({ headers: zipType, body: zip({ 'b.csv': strToU8(b), 'a.csv': strToU8(a) }) });
    const r2 = await prs(['export', '42', '-t', 'index', '-d', DATE, '-f', 'csv', '--extract', '-o', '-'], {
      env: faultEnv(),
    });
    expect(r2.stdout).toBe(`${b}\n${a}`);
  });
});
