/**
 * The writers (src/render/writer.ts): rows given in batches and answers give the bytes all the rows
 * give at once (stringifyLossless of the array, the table of all); a dropped answer leaves no trace; CSV/TSV columns are the first rows'.
 */
import { Readable } from 'node:stream';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ReportFormat, Row } from '../../../src/domain.js';
import { JsonNumber } from '../../../src/domain.js';
import { stringifyLossless } from '../../../src/json/lossless.js';
import { columnsOf } from '../../../src/render/columns.js';
import { project } from '../../../src/render/json.js';
import { Spool } from '../../../src/render/spool.js';
import { renderTable } from '../../../src/render/table.js';
import { widen } from '../../../src/render/union.js';
import { createWriter } from '../../../src/render/writer.js';
import { batchOf, renderDelimited } from '../../helpers/rows.js';

interface Run {
  format: ReportFormat;
  terminal: boolean;
  multi: boolean;
  fields?: readonly string[];
}

const base = { type: 'index' as const, color: false, width: 120 };

/** What all the rows give at once, built without the writer (stringifyLossless of the whole array, the table of all). */
function reference(run: Run, rows: Row[]): string {
  const r = { type: base.type, rows, fields: run.fields, multi: run.multi };
  switch (run.format) {
    case 'json':
    case 'ndjson': {
      const out = run.fields ? project(rows, columnsOf(r, 'seen')) : rows;
      if (run.format === 'ndjson') return out.map((row) => `${stringifyLossless(row)}\n`).join('');
      return out.length === 0 ? '[]\n' : `${stringifyLossless(out, run.terminal ? 2 : undefined)}\n`;
    }
    case 'csv':
    case 'tsv':
      return renderDelimited(rows, columnsOf(r, 'seen'), run.format);
    case 'table':
      return rows.length === 0
        ? ''
        : renderTable(rows, columnsOf(r, 'spec'), {
            color: false,
            width: run.terminal ? base.width : undefined,
            type: base.type,
            picked: run.fields !== undefined,
          }).text;
  }
}

/** Answers of batches of rows through the report's writer; `drop` answers are begun, then dropped. */
function written(run: Run, answers: { id: number; batches: Row[][]; drop?: boolean }[]) {
  const w = createWriter({ ...base, ...run });
  let text = '';
  for (const a of answers) {
    const aw = w.answer(`portfolio ${a.id}`);
    let out = '';
    for (const batch of a.batches) {
      out += aw.rows(
        batchOf(run.multi ? batch.map((row) => ({ portfolioId: a.id, ...row })) : batch),
      ) as string;
    }
    if (a.drop) continue;
    aw.done();
    text += out;
  }
  const end = w.end();
  return { text: text + (end.text as string), notes: end.notes, warnings: end.warnings, rows: w.rows };
}

describe('the report writer', () => {
  const num = fc.oneof(
    fc.integer().map((n) => n),
    fc.constantFrom(new JsonNumber('1.10'), new JsonNumber('5E-13'), new JsonNumber('1234567.123456789012')),
  );
  const str = fc.oneof(fc.string({ maxLength: 8 }), fc.constantFrom('a,b', 'say "hi"', 'x\ny', 'tab\there'));
  const value = fc.oneof(num, str, fc.constantFrom(null, true));
  const row = fc
    .tuple(value, value, value, value)
    .map(([a, b, c, d]): Row => ({ effectiveDate: a, indexValue: b, indexId: { Net: c, Price: d } }));
  const batches = fc.array(fc.array(row, { maxLength: 3 }), { maxLength: 3 });
  const run = fc.record({
    format: fc.constantFrom<ReportFormat>('json', 'ndjson', 'csv', 'tsv', 'table'),
    terminal: fc.boolean(),
    multi: fc.boolean(),
    fields: fc.option(fc.constantFrom(['indexValue', 'indexId.Net'], ['indexId']), { nil: undefined }),
  });

  it('answers in batches give what all their rows give at once; a dropped answer leaves nothing', () => {
    let nonEmpty = 0;
    fc.assert(
      fc.property(run, fc.array(fc.tuple(batches, fc.boolean()), { maxLength: 4 }), (r, answers) => {
        const kept = answers.filter(([, drop]) => !drop);
        const all = kept.flatMap(([b], i) =>
          b.flat().map((row) => (r.multi ? { portfolioId: answers.indexOf(kept[i]!) + 1, ...row } : row)),
        );
        const got = written(
          r,
          answers.map(([b, drop], i) => ({ id: i + 1, batches: b, drop })),
        );
        expect(got.text).toBe(reference(r, all));
        expect(got.rows).toBe(all.length);
        expect(got.warnings).toEqual([]);
        if (all.length > 0 && r.format !== 'table') nonEmpty++;
      }),
      { numRuns: 400 },
    );
    // Not vacuous: most runs wrote rows.
    expect(nonEmpty).toBeGreaterThan(100);
  });

  it('no rows at all: [] for JSON, a header for CSV, nothing for NDJSON and table', () => {
    const none = [{ id: 42, batches: [[]] }];
    const b = { terminal: false, multi: false };
    expect(written({ ...b, format: 'json' }, none).text).toBe('[]\n');
    expect(written({ ...b, format: 'ndjson' }, none).text).toBe('');
    expect(written({ ...b, format: 'table' }, none).text).toBe('');
    expect(written({ ...b, format: 'csv', fields: ['indexValue', 'currency'] }, none).text).toBe(
      'indexValue,currency\n',
    );
  });

  it('CSV to stdout: a later answer’s extra column is left out, with a warning (not a note) naming it and the answer', () => {
    const got = written({ format: 'csv', terminal: false, multi: false }, [
      { id: 42, batches: [[{ a: 1, b: 'x' }]] },
      { id: 43, batches: [[{ b: 'y', c: new JsonNumber('2.50'), a: 3 }]] },
      { id: 44, batches: [[{ a: 4 }]] },
    ]);
    expect(got.text).toBe('a,b\n1,x\n3,y\n4,\n');
    expect(got.notes).toEqual([]);
    expect(got.warnings).toEqual([
      'warning: left out column c of portfolio 43: not in the first answer, which set the CSV header; write to a file with -o to keep every column, or choose them with --fields',
    ]);
  });

  it('CSV/TSV to stdout: the columns are all of the first answer’s rows’, not its first batch’s', async () => {
    for (const format of ['csv', 'tsv'] as const) {
      const w = createWriter({ format });
      let text = '';
      const sink = {
        async write(c: string | Uint8Array) {
          text += Buffer.from(c).toString();
        },
      };
      const answers = [[[{ a: 1 }, { a: 'x\ny' }], [{ a: 2, b: 'z' }], [{ c: 3 }]], [[{ a: 4, d: 5 }]]];
      for (const batches of answers) {
        // A spool that goes to its file past 4 bytes: the rewrite reads it back.
        const spool = new Spool(4);
        const a = w.answer('one');
        for (const batch of batches) spool.write(a.rows(batchOf(batch)));
        await spool.copyTo(sink, a.done());
      }
      const end = w.end();
      text += String(end.text);
      const sep = format === 'csv' ? ',' : '\t';
      const multiline = format === 'csv' ? '"x\ny"' : 'x\\ny';
      expect(text).toBe(
        ['a,b,c', '1,,', `${multiline},,`, '2,z,', ',,3', '4,,', ''].join('\n').replaceAll(',', sep),
      );
      expect(end.warnings).toEqual([expect.stringContaining('left out column d of one')]);
    }
  });

  it.each([
    ['csv', [{ a: 1, b: 2 }], 'a,b\n,\n1,2\n'],
    ['tsv', [{ a: 1, b: 2 }], 'a\tb\n\t\n1\t2\n'],
    ['csv', [{ a: 1 }], 'a\n""\n1\n'],
  ] as const)(
    'widen: %s rows `{}` written before any column get one cell per column',
    async (format, later, want) => {
      const w = createWriter({ format, union: true });
      const a = w.answer();
      const text = String(a.rows(batchOf([{}]))) + String(a.rows(batchOf(later)));
      a.done();
      const out: Buffer[] = [];
      await widen(Readable.from([Buffer.from(text)]), w.widened()!, async (c) => {
        out.push(c);
      });
      expect(Buffer.concat(out).toString()).toBe(want);
    },
  );

  it('union: later columns join; widened() gives each piece’s width, batch by batch', () => {
    const w = createWriter({ format: 'csv', union: true });
    const a = w.answer();
    // A chunk is valid until the next call (the writer reuses its buffer): taken as text at once.
    const p1 = String(a.rows(batchOf([{ a: 1 }])));
    const p2 = String(a.rows(batchOf([{ a: 2, b: 'x' }])));
    a.done();
    expect(p1 + p2).toBe('a\n1\n2,x\n');
    expect(w.widened()).toEqual({
      kind: 'csv',
      header: 'a,b',
      columns: 2,
      pieces: [
        { bytes: 4, columns: 1 },
        { bytes: 4, columns: 2 },
      ],
    });
    const same = createWriter({ format: 'tsv', union: true });
    const b = same.answer();
    b.rows(batchOf([{ a: 1 }]));
    b.done();
    expect(same.widened()).toBeUndefined();
  });
});

describe('Spool', () => {
  // Spools in turn share their in-memory pieces: each answer's bytes come back whole, whichever
  // answers before it were delivered or dropped, from memory alone or through the temporary file.
  it.each([
    ['small answers', [1_000, 20, 5_000]],
    ['answers past one piece (file and read-back)', [600_000, 300_000, 262_144, 700_001]],
    ['mixed, with dropped answers between', [400_000, -300_000, 10, -5, 900_000]],
  ])('%s: each answer delivered as written', async (_name, sizes) => {
    for (const [k, size] of sizes.entries()) {
      const bytes = Buffer.alloc(Math.abs(size), `answer ${k}|`);
      const spool = new Spool();
      // Written in uneven writes, as the writer hands them over.
      for (let at = 0; at < bytes.length; at += 70_001) spool.write(bytes.subarray(at, at + 70_001));
      expect(spool.size).toBe(bytes.length);
      if (size < 0) {
        spool.drop();
        continue;
      }
      const got: Buffer[] = [];
      await spool.copyTo({
        async write(c) {
          got.push(Buffer.from(c));
        },
      });
      expect(Buffer.concat(got).equals(bytes)).toBe(true);
      expect(spool.size).toBe(0);
    }
  });
});
