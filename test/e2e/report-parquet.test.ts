/**
 * `prs report -f parquet -o FILE` end to end (the built binary against the sandbox); every file is read
 * back with DuckDB (an independent reader) and every value compared exactly with what `-f json` prints.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { describe, expect, it } from 'vitest';
import { isJsonNumeric, numberText, REPORT_TYPES } from '../../src/domain.js';
import { flatten } from '../../src/render/columns.js';
import { useFaultServer } from '../helpers/fault-server.js';
import { parseJson } from '../helpers/json.js';
import { EXAMPLE_PORTFOLIO_ID, LARGE_PORTFOLIO_ID, PRECISION_PORTFOLIO_ID } from '../helpers/portfolios.js';
import { type RunOptions, runPrs } from '../helpers/run.js';
import { dirsEnv, useLoggedIn } from '../helpers/session.js';

const DATE = '2024-05-03';
const { sandbox, tmp, env } = useLoggedIn('prs-parquet-e2e-', { rateLimit: '100/1s' });
let n = 0;
const prs = (args: string[], o: RunOptions = {}) => runPrs(args, { ...o, env: { ...env, ...o.env } });
const requests = () => sandbox.stats.count({ endpoint: 'report' });
const file = () => join(tmp.path, `r${n++}.parquet`);

/** The file as DuckDB reads it: its columns' types, and its rows with every value as text. */
async function readBack(path: string) {
  const db = await DuckDBInstance.create(':memory:');
  const con = await db.connect();
  try {
    const types = (
      await con.runAndReadAll(`DESCRIBE SELECT * FROM read_parquet('${path}')`)
    ).getRowObjectsJson();
    const rows = (await con.runAndReadAll(`SELECT * FROM read_parquet('${path}')`)).getRowObjectsJson();
    const groups = (
      await con.runAndReadAll(`SELECT count(DISTINCT row_group_id) AS n FROM parquet_metadata('${path}')`)
    ).getRowObjectsJson();
    return {
      types: Object.fromEntries(types.map((t) => [String(t.column_name), String(t.column_type)])),
      rows: rows as Record<string, unknown>[],
      rowGroups: Number(groups[0]!.n),
    };
  } finally {
    con.closeSync();
    db.closeSync();
  }
}

/** A decimal's value as a reduced fraction: digits without trailing zeros, and the power of ten. */
function decimalValue(text: string): string {
  const m = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(text);
  if (!m) return `not a number: ${text}`;
  let digits = `${m[2]}${m[3] ?? ''}`.replace(/^0+/, '');
  let exp = Number(m[4] ?? 0) - (m[3] ?? '').length;
  while (digits.endsWith('0')) {
    digits = digits.slice(0, -1);
    exp++;
  }
  return digits === '' ? '0' : `${m[1]}${digits}e${exp}`;
}

/**
 * Every value of `got` (DuckDB's) against the flattened JSON rows, exactly. The mismatches are collected
 * and compared once: an expect per value of 20,000 rows cost more CPU than the run it checks.
 */
function expectSame(got: Record<string, unknown>[], want: Record<string, unknown>[]) {
  expect(got).toHaveLength(want.length);
  let numbers = 0;
  const wrong: string[] = [];
  const check = (i: number, k: string, g: unknown, expected: unknown) => {
    if (!Object.is(g, expected)) wrong.push(`row ${i} ${k}: ${String(g)}, not ${String(expected)}`);
  };
  for (const [i, row] of want.entries()) {
    const flat = flatten(row);
    // The file has every answer's columns: one this row lacks is null.
    for (const k of Object.keys(flat)) if (!Object.hasOwn(got[i]!, k)) wrong.push(`row ${i}: no column ${k}`);
    for (const k of Object.keys(got[i]!)) if (!(k in flat)) check(i, k, got[i]![k], null);
    for (const [k, v] of Object.entries(flat)) {
      const g = got[i]![k];
      if (v === null) check(i, k, g, null);
      else if (isJsonNumeric(v)) {
        numbers++;
        check(i, `${k} (${numberText(v)})`, decimalValue(String(g)), decimalValue(numberText(v)));
      } else if (typeof v === 'object') check(i, k, g, JSON.stringify(v));
      else check(i, k, g, v);
    }
  }
  expect({ wrong: wrong.length, first: wrong.slice(0, 10) }).toEqual({ wrong: 0, first: [] });
  return numbers;
}

async function jsonRows(args: string[]): Promise<Record<string, unknown>[]> {
  const r = await prs(['report', ...args, '-f', 'json']);
  expect(r.code, r.stderr).toBe(0);
  return parseJson(r.stdout) as Record<string, unknown>[];
}

describe('report -f parquet', () => {
  it.each(REPORT_TYPES)(
    '%s: every value of portfolios 13 and 42 exactly, DATE and DECIMAL columns',
    async (type) => {
      let checked = 0;
      for (const id of [PRECISION_PORTFOLIO_ID, EXAMPLE_PORTFOLIO_ID]) {
        const args = [String(id), '-t', type, '-d', DATE];
        const want = await jsonRows(args);
        if (want.length === 0) continue; // corporate actions on a day without events
        const out = file();
        const r = await prs(['report', ...args, '-f', 'parquet', '-o', out]);
        expect(r.code, r.stderr).toBe(0);
        expect(r.stdout).toBe('');
        checked++;
        const back = await readBack(out);
        expect(expectSame(back.rows, want)).toBeGreaterThan(0);
        expect(back.types.effectiveDate).toBe('DATE');
        for (const [name, t] of Object.entries(back.types)) {
          const sample = want.map((x) => flatten(x)[name]).find((v) => v !== null && v !== undefined);
          if (isJsonNumeric(sample)) expect(t, name).toMatch(/^DECIMAL\(\d+,\d+\)$/);
        }
      }
      expect(checked, 'a portfolio with rows of this type on DATE').toBeGreaterThan(0);
    },
  );

  it('the precision portfolio keeps 1234567.123456789012 and 0.000000000000000001 as DECIMAL', async () => {
    const out = file();
    const r = await prs(['report', String(PRECISION_PORTFOLIO_ID), '-t', 'index', '-d', DATE, '-o', out]);
    expect(r.code, r.stderr).toBe(0); // the .parquet extension picks the format
    const back = await readBack(out);
    expect(back.rows[0]!.indexValue).toBe('1234567.123456789012');
    expect(back.types.closeDivisor).toBe('DECIMAL(18,18)');
    expect(back.rows[0]!.closeDivisor).toBe('0.000000000000000001');
  });

  it('several portfolios and dates: portfolioId first, one file, row groups of bounded size', async () => {
    const args = [
      String(EXAMPLE_PORTFOLIO_ID),
      String(PRECISION_PORTFOLIO_ID),
      '-t',
      'index',
      '--from',
      '2024-05-01',
      '--to',
      DATE,
    ];
    const want = await jsonRows(args);
    const out = file();
    const r = await prs(['report', ...args, '-f', 'parquet', '-o', out]);
    expect(r.code, r.stderr).toBe(0);
    const back = await readBack(out);
    expect(Object.keys(back.types)[0]).toBe('portfolioId');
    expectSame(back.rows, want);
  });

  it('20,000 rows: several row groups, every value exact', async () => {
    const args = [String(LARGE_PORTFOLIO_ID), '-t', 'constituent.close', '-d', DATE];
    const want = await jsonRows(args);
    const out = file();
    const r = await prs(['report', ...args, '-f', 'parquet', '-o', out]);
    expect(r.code, r.stderr).toBe(0);
    const back = await readBack(out);
    expect(back.rowGroups).toBeGreaterThan(1);
    expectSame(back.rows, want);
    expect(readdirSync(tmp.path).filter((f) => f.startsWith('.'))).toEqual([]); // no spool or temporary left
  });

  it('--fields keeps those columns, in that order', async () => {
    const out = file();
    const r = await prs([
      'report',
      String(EXAMPLE_PORTFOLIO_ID),
      '-t',
      'constituent.close',
      '-d',
      DATE,
      '-f',
      'parquet',
      '-o',
      out,
      '--fields',
      'indexWeighting,isin',
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(Object.keys((await readBack(out)).types)).toEqual(['indexWeighting', 'isin']);
  });

  it.each([
    [['-f', 'parquet'], /-f parquet writes a file: give it with -o/],
    [['-f', 'parquet', '-o', '-'], /-f parquet writes a file/],
    [['-f', 'parquet', '-o', '/dev/stdout'], /is a terminal or a pipe/],
    [['-f', 'parquet', '-o', 'x.parquet', '--jq', '.'], /cannot be combined/],
  ])('%j is exit 2 before any request', async (args, message) => {
    const before = requests();
    const r = await prs(['report', String(EXAMPLE_PORTFOLIO_ID), '-t', 'index', '-d', DATE, ...args], {
      cwd: tmp.path,
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(requests()).toBe(before);
    expect(existsSync(join(tmp.path, 'x.parquet'))).toBe(false);
  });
});

describe('a value that does not fit DECIMAL(38) is never rounded (fault server)', () => {
  const server = useFaultServer();

  it('exit 2 naming the column and the value, no file', async () => {
    const wide = `1${'0'.repeat(30)}.${'1'.repeat(10)}`; // 41 digits
    server.respond({
      headers: { 'content-type': 'application/json' },
      body: `{"report":[{"effectiveDate":"2024-05-03","x":${wide}}]}`,
    });
    const out = file();
    const r = await runPrs(['report', '42', '-t', 'index', '-d', DATE, '-f', 'parquet', '-o', out], {
      env: {
        PRS_BASE_URL: server.url,
        PRS_TENANT: 't',
        PRS_TOKEN: 'ready',
        PRS_RETRIES: '0',
        ...dirsEnv(join(tmp.path, 'faulty')),
      },
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`column x needs DECIMAL(41,10) for ${wide}`);
    expect(existsSync(out)).toBe(false);
  });
});
