// In a file of its own: jq-web may refuse these filters, and a refusal can leave its instance unusable.
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../../src/errors.js';
import { compileJq } from '../../../src/render/jq.js';
import { RowTokenizer } from '../../../src/rows/tokenizer.js';

/** A filter's output for `body` through the writer the CLI uses, or the error it ends with. */
async function run(filter: string, body: string): Promise<string | Error> {
  try {
    const jq = await compileJq(filter);
    const collect = jq.collect();
    if (!jq.writer) {
      const rows = (JSON.parse(body) as unknown[]).map((r) => `${JSON.stringify(r)}\n`).join('');
      return jq.run(jq.format === 'json' ? body : rows);
    }
    const answer = jq.writer().answer('');
    const t = new RowTokenizer();
    collect.write(answer.rows(t.push(Buffer.from(body))));
    collect.write(answer.rows(t.end()));
    answer.done();
    return await collect.end();
  } catch (err) {
    return err as Error;
  }
}

describe('a filter whose generated code would recurse too deep on a row', () => {
  // `select(.x0 or .x1 or … or .name)`: each `or` a nested function in the generated code.
  it.each([1800, 2000, 2200])(
    '%i alternatives: the right rows or a --jq error, never a stack overflow',
    async (n) => {
      const tests = Array.from({ length: n }, (_, i) => `.x${i}`).join(' or ');
      const filter = `.[] | select(${tests} or .name) | .name`;
      const out = await run(filter, '[{"name":"a"},{"name":"b"}]');
      if (out instanceof Error) {
        expect(out).toBeInstanceOf(UsageError);
        expect(out.message).toMatch(/^--jq: /);
      } else expect(out).toBe('a\nb\n');
    },
  );

  it('2,000 alternatives give the rows, as jq 1.7 does', async () => {
    const tests = Array.from({ length: 2000 }, (_, i) => `.x${i}`).join(' or ');
    const filter = `.[] | select(${tests} or .name) | .name`;
    expect(await run(filter, '[{"name":"a"},{"name":"b"}]')).toBe('a\nb\n');
  });
});
