/**
 * The same rows in any body shape the service may send (compact, spaced as Python's json.dumps writes,
 * whitespace or CRLF between rows, \u escapes, any chunk boundaries) give the same output: the row
 * stream's batch flags (RowBatch.flags) and the Parquet spool from the tape must not see the shape.
 */
import { createWriteStream, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { stringifyLossless } from '../../../src/json/lossless.js';
import { ParquetSpool } from '../../../src/render/parquet.js';
import { RowTokenizer } from '../../../src/rows/tokenizer.js';
import { rowsOf, writtenAs } from '../../helpers/rows.js';

/** A number by its text, so that its digits are the body's. */
type Num = { num: string };
const text = fc.constantFrom(
  'a',
  'é😀',
  'x"y',
  'back\\slash',
  'nl\nx',
  '/',
  '\u007f',
  '2024-02-29',
  '2023-02-29',
  '',
);
const num = fc.constantFrom(
  '1',
  '-0',
  '0.50',
  '1.5e-3',
  '1E+2',
  '-7',
  '123456789012345678.9',
  '1e-20',
  '2.000',
);
const value = fc.oneof(
  text,
  num.map((t): Num => ({ num: t })),
  fc.integer({ min: -1000, max: 100_000 }),
  fc.constantFrom(null, true, false),
);
const rowOf = (keys: readonly string[]) =>
  fc
    .tuple(...keys.map((k) => (k === 'nested' ? fc.record({ x: value, y: value }) : value)))
    .map((vs) => Object.fromEntries(keys.map((k, i) => [k, vs[i]])));
const shape = fc.constantFrom(['isin', 'w', 'name'], ['a', 'b'], ['isin', 'nested', 'd']);
/** Rows of mixed shapes, or a run of one shape (which the tokenizer reads by its template). */
const rows = fc.oneof(
  fc.array(shape.chain(rowOf), { maxLength: 20 }),
  shape.chain((keys) => fc.array(rowOf(keys), { minLength: 10, maxLength: 30 })),
);

const isNum = (v: unknown): v is Num => typeof v === 'object' && v !== null && 'num' in v;
/** `v` as a body spells it: spaced (`, ` and `: `), strings' é, `/` and `a` as escapes when `escaped`. */
function spell(v: unknown, spaced: boolean, escaped: boolean): string {
  if (isNum(v)) return v.num;
  if (typeof v === 'object' && v !== null) {
    const members = Object.entries(v).map(
      ([k, x]) => `${JSON.stringify(k)}${spaced ? ': ' : ':'}${spell(x, spaced, escaped)}`,
    );
    return `{${members.join(spaced ? ', ' : ',')}}`;
  }
  const json = JSON.stringify(v);
  if (!escaped || typeof v !== 'string') return json;
  return json.replace(/é/g, '\\u00e9').replace(/\//g, '\\/').replace(/a/g, '\\u0061');
}

/** `gaps`: whitespace before each row and after the last (none for `[]` between them). */
function body(list: readonly unknown[], spaced: boolean, escaped: boolean, gaps: readonly string[]): string {
  const gap = (i: number) => gaps[i % gaps.length];
  const rows = list.map((r, i) => gap(i) + spell(r, spaced, escaped));
  return `[${rows.join(spaced ? ', ' : ',')}${gap(list.length)}]`;
}
const cut = (s: string, size: number) => {
  const b = Buffer.from(s);
  const parts: Buffer[] = [];
  for (let i = 0; i < b.length; i += size) parts.push(b.subarray(i, i + size));
  return parts;
};
const gaps = fc.array(fc.constantFrom('', '', ' ', '\n', '\r\n', '\t '), { minLength: 1, maxLength: 8 });

describe('NDJSON and JSON', () => {
  it('each row as JSON.stringify writes it, whatever the body’s shape and chunks', () => {
    fc.assert(
      fc.property(
        rows,
        fc.boolean(),
        fc.boolean(),
        gaps,
        fc.integer({ min: 1, max: 40 }),
        (list, sp, esc, g, size) => {
          const integers = list.map((r) => JSON.parse(JSON.stringify(r, (_, v) => (isNum(v) ? 1 : v))));
          const b = body(integers, sp, esc, g);
          expect(rowsOf(b)).toEqual(integers);
          const expected = integers.map((r) => `${stringifyLossless(r)}\n`).join('');
          expect(writtenAs('ndjson', cut(b, size), integers)).toBe(expected);
          expect(writtenAs('json', cut(b, size), integers)).toBe(
            integers.length ? `${stringifyLossless(integers)}\n` : '[]\n',
          );
        },
      ),
      { numRuns: 300 },
    );
  });
});

async function parquet(bodies: Buffer[][], fields?: readonly string[]): Promise<Buffer | string> {
  const dir = mkdtempSync(join(tmpdir(), 'prs-shapes-'));
  try {
    const spool = new ParquetSpool(join(dir, 'spool'), { batch: 3, fields });
    for (const [i, parts] of bodies.entries()) {
      const answer = spool.answer(bodies.length > 1 ? { portfolioId: i + 1 } : undefined);
      const t = new RowTokenizer();
      for (const part of parts) answer.rows(t.push(part));
      answer.rows(t.end());
      answer.done();
    }
    if (spool.rows === 0) return 'no rows';
    const path = join(dir, 'x.parquet');
    const out = createWriteStream(path);
    try {
      await spool.write(out);
    } catch (err) {
      return (err as Error).message;
    }
    await new Promise((resolve) => out.end(resolve));
    return readFileSync(path);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('Parquet from the tape', () => {
  it('a spaced, escaped body in any chunks gives the bytes the compact one gives (several answers, --fields)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(rows, { minLength: 1, maxLength: 3 }),
        gaps,
        fc.integer({ min: 1, max: 40 }),
        fc.option(fc.constantFrom(['d', 'nested.x'], ['b', 'a', 'zz'], ['nested']), { nil: undefined }),
        async (answers, g, size, fields) => {
          const compact = await parquet(
            answers.map((list) => [Buffer.from(body(list, false, false, ['']))]),
            fields,
          );
          const shaped = await parquet(
            answers.map((list) => cut(body(list, true, true, g), size)),
            fields,
          );
          expect(shaped).toEqual(compact);
        },
      ),
      { numRuns: 100 },
    );
  });
});
