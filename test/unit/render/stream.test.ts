/**
 * The streamed renderer (src/render/stream.ts): answers added one at a time give the bytes render()
 * gives for all their rows at once (when the answers share their columns), whether each answer takes
 * the direct path (its body's bytes) or the general one (its parsed rows).
 */
import { Writable } from 'node:stream';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ReportFormat, Row } from '../../../src/domain.js';
import { Accumulator, Arena, REUSE_MIN } from '../../../src/json/arena.js';
import { effectiveDateOf } from '../../../src/json/report-body.js';
import { render } from '../../../src/render/index.js';
import { type Answer, createRowStream } from '../../../src/render/stream.js';
import { widen } from '../../../src/render/union.js';
import { rowsOf } from '../../../src/service/service.js';
import { numberLiteral } from '../../helpers/json-arbitraries.js';

const parsed = (body: string): Row[] => {
  const rows = rowsOf(body);
  if (typeof rows === 'string') throw new Error(rows);
  return rows;
};

/** An answer whose body takes the direct path when it fits, or (`general`) one whose bytes never do. */
const answerOf = (portfolioId: number, body: string, general: boolean): Answer => ({
  portfolioId,
  bytes: general ? Buffer.alloc(0) : Buffer.from(body),
  rows: () => parsed(body),
});

interface Run {
  format: ReportFormat;
  terminal: boolean;
  multi: boolean;
  fields?: readonly string[];
}

const base = { type: 'index' as const, color: false, width: 120 };

function streamed(run: Run, answers: Answer[]): { text: string; notes: string[]; warnings: string[] } {
  const s = createRowStream({ type: 'index', ...run, color: false, width: 120 });
  const parts = answers.map((a) => Buffer.from(s.add(a)));
  const end = s.end();
  return {
    text: Buffer.concat([...parts, Buffer.from(end.text)]).toString('utf8'),
    notes: end.notes,
    warnings: end.warnings,
  };
}

function atOnce(run: Run, answers: Answer[]): string {
  const rows = answers.flatMap((a) =>
    a.rows().map((row) => (run.multi ? { portfolioId: a.portfolioId, ...row } : row)),
  );
  return render({ type: 'index', ...run, rows, color: false, width: 120 }).text;
}

describe('createRowStream', () => {
  const literal = numberLiteral(['0.0000910979', '1.10']);
  const str = fc.oneof(fc.string({ maxLength: 8 }), fc.constantFrom('a,b', 'say "hi"', 'x\ny', 'tab\there'));
  const value = fc.oneof(
    literal,
    str.map((s) => JSON.stringify(s)),
    fc.constantFrom('null', 'true'),
  );
  /** Rows with the same keys in the same order (a nested object among them), as one report type has. */
  const row = fc
    .tuple(value, value, value, value)
    .map(([a, b, c, d]) => `{"effectiveDate":${a},"indexValue":${b},"indexId":{"Net":${c},"Price":${d}}}`);
  const body = fc.array(row, { minLength: 0, maxLength: 4 }).map((rows) => `{"report":[${rows.join(',')}]}`);
  const run = fc.record({
    format: fc.constantFrom<ReportFormat>('json', 'ndjson', 'csv', 'tsv', 'table'),
    terminal: fc.boolean(),
    multi: fc.boolean(),
    fields: fc.option(fc.constantFrom(['indexValue', 'indexId.Net'], ['indexId']), { nil: undefined }),
  });

  it('streamed answers are render() of all their rows, by the direct and the general path alike', () => {
    fc.assert(
      fc.property(run, fc.array(fc.tuple(body, fc.boolean()), { maxLength: 4 }), (r, bodies) => {
        const answers = bodies.map(([b, general], i) => answerOf(i + 1, b, general));
        const want = atOnce(r, answers);
        const got = streamed(r, answers);
        // An empty run prints the no-data form ([], a header), as render() does for no rows.
        expect(got.text).toBe(want);
        expect(got.notes.filter((n) => n.startsWith('left out'))).toEqual([]);
      }),
      { numRuns: 400 },
    );
  });

  it('no rows at all: [] for JSON, a header for CSV, nothing for NDJSON and table', () => {
    const empty = [answerOf(42, '{"report":[]}', false)];
    const base = { terminal: false, multi: false };
    expect(streamed({ ...base, format: 'json' }, empty).text).toBe('[]\n');
    expect(streamed({ ...base, format: 'ndjson' }, empty).text).toBe('');
    expect(streamed({ ...base, format: 'table' }, empty).text).toBe('');
    expect(streamed({ ...base, format: 'csv', fields: ['indexValue', 'currency'] }, empty).text).toBe(
      'indexValue,currency\n',
    );
  });

  it('CSV columns are the first answer’s; a later answer’s extra column is left out, with a warning naming it and the answer', () => {
    for (const general of [false, true]) {
      const got = streamed({ format: 'csv', terminal: false, multi: false }, [
        answerOf(42, '{"report":[{"a":1,"b":"x"}]}', general),
        { ...answerOf(42, '{"report":[{"b":"y","c":2.50,"a":3}]}', general), date: '2024-05-03' },
        answerOf(42, '{"report":[{"a":4}]}', general),
      ]);
      expect(got.text).toBe('a,b\n1,x\n3,y\n4,\n');
      expect(got.notes).toEqual([]);
      expect(got.warnings).toEqual([
        'warning: left out column c of portfolio 42 on 2024-05-03: not in the first answer, which set the CSV header; write to a file with -o to keep every column, or choose them with --fields',
      ]);
    }
  });

  it('large answers one after another in the same memory, each once its output was written', () => {
    const rows = Array.from({ length: 12_000 }, (_, i) => `{"a":${i},"b":"name ${i}, ok","c":null}`);
    const body = `{"report":[${rows.join(',')}]}`;
    const bodies = new Arena(4 * 1024 * 1024);
    // As the service reads one (readWhole), released as the service's answer releases it.
    const answer = (): Answer => {
      const into = new Accumulator(bodies, 4 * 1024 * 1024);
      into.push(Buffer.from(body));
      const bytes = into.take();
      return { portfolioId: 42, bytes, rows: () => parsed(body), release: () => bodies.release(bytes) };
    };
    for (const format of ['csv', 'ndjson', 'json'] as const) {
      const want = streamed({ format, terminal: false, multi: false }, [
        answerOf(42, body, false),
        answerOf(42, body, false),
      ]).text;
      const s = createRowStream({
        type: 'index',
        format,
        terminal: false,
        multi: false,
        color: false,
        width: 80,
      });
      const first = answer();
      expect(first.bytes.length).toBeGreaterThanOrEqual(REUSE_MIN);
      const out1 = s.add(first) as Buffer;
      const text1 = out1.toString('utf8');
      s.release();
      const second = answer();
      const out2 = s.add(second) as Buffer;
      expect(bodies.owns(second.bytes)).toBe(true);
      expect(out2.buffer === out1.buffer).toBe(true);
      const text2 = out2.toString('utf8');
      // Without a release the next body has memory of its own.
      expect(bodies.owns(answer().bytes)).toBe(false);
      const end = s.end();
      expect(text1 + text2 + end.text).toBe(want);
    }
  });

  it.each([
    ['csv', false],
    ['csv', true],
    ['tsv', false],
    ['tsv', true],
  ] as const)(
    'union (%s, general path %s): later columns join the header; earlier rows get empty cells',
    async (format, general) => {
      const stream = createRowStream({ ...base, format, terminal: false, multi: false, union: true });
      const sep = format === 'csv' ? ',' : '\t';
      const chunks = [
        answerOf(42, '{"report":[{"a":1,"b":"x\\ny"},{"a":2,"b":"z"}]}', general),
        answerOf(42, '{"report":[{"b":"y","c":2.50,"a":3}]}', general),
        answerOf(42, '{"report":[{"d":true,"a":4}]}', general),
        answerOf(42, '{"report":[{"a":5}]}', general),
      ].map((a) => Buffer.from(stream.add(a)));
      const w = stream.widened()!;
      expect(w.header).toBe(['a', 'b', 'c', 'd'].join(sep));
      const out: Buffer[] = [];
      const sink = new Writable({
        write(c, _e, done) {
          out.push(c);
          done();
        },
      });
      await widen(
        (async function* () {
          // in odd slices, so that records and pieces cross chunk boundaries
          const all = Buffer.concat(chunks);
          for (let i = 0; i < all.length; i += 3) yield all.subarray(i, i + 3);
        })(),
        w,
        sink,
      );
      const cell = format === 'csv' ? '"x\ny"' : 'x\\ny';
      expect(Buffer.concat(out).toString()).toBe(
        [
          ['a', 'b', 'c', 'd'],
          ['1', cell, '', ''],
          ['2', 'z', '', ''],
          ['3', 'y', '2.50', ''],
          ['4', '', '', 'true'],
          ['5', '', '', ''],
        ]
          .map((r) => `${r.join(sep)}\n`)
          .join(''),
      );
    },
  );

  it('union: columns that never grew need no rewrite', () => {
    const stream = createRowStream({ ...base, format: 'csv', terminal: false, multi: false, union: true });
    stream.add(answerOf(42, '{"report":[{"a":1,"b":"x"}]}', false));
    stream.add(answerOf(42, '{"report":[{"b":"y"}]}', false));
    expect(stream.widened()).toBeUndefined();
  });
});

describe('effectiveDateOf', () => {
  it.each([
    ['{"report":[{"effectiveDate":"2024-12-24","x":1}]}', '2024-12-24'],
    ['{"report":[{"x":1, "effectiveDate" : "2024-12-24"}]}', '2024-12-24'],
    ['{"report":[]}', undefined],
    ['{"report":[{"effectiveDate":null}]}', undefined],
  ])('%s → %s', (body, want) => {
    expect(effectiveDateOf(Buffer.from(body))).toBe(want);
  });
});
