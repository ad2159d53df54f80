import { describe, expect, it } from 'vitest';
import type { Row } from '../../../src/domain.js';
import { JsonNumber } from '../../../src/domain.js';
import { columnOf } from '../../../src/render/columns.js';
import { project } from '../../../src/render/json.js';
import { createWriter } from '../../../src/render/writer.js';
import { batchOf } from '../../helpers/rows.js';

/** All rows as one answer through the JSON/NDJSON writer. */
function written(format: 'json' | 'ndjson', rs: Row[], indent = false): string {
  const w = createWriter({ format, terminal: indent });
  const a = w.answer();
  const text = a.rows(batchOf(rs));
  a.done();
  return String(text) + String(w.end().text);
}
const renderJson = (rs: Row[], indent: boolean) => written('json', rs, indent);
const renderNdjson = (rs: Row[]) => written('ndjson', rs);

const rows = [
  { a: new JsonNumber('1234567.123456789012'), b: { Net: 'x' } },
  { a: 2, b: null },
];

describe('the JSON writer', () => {
  it.each([
    ['compact', rows, false, '[{"a":1234567.123456789012,"b":{"Net":"x"}},{"a":2,"b":null}]\n'],
    ['indented', [{ a: new JsonNumber('1.10') }], true, '[\n  {\n    "a": 1.10\n  }\n]\n'],
    ['no rows', [], false, '[]\n'],
    ['no rows, indented', [], true, '[]\n'],
  ])('%s', (_n, rs, pretty, want) => {
    expect(renderJson(rs, pretty)).toBe(want);
  });
});

describe('the NDJSON writer', () => {
  it.each([
    ['rows', rows, '{"a":1234567.123456789012,"b":{"Net":"x"}}\n{"a":2,"b":null}\n'],
    ['no rows: nothing', [], ''],
  ])('%s', (_n, rs, want) => {
    expect(renderNdjson(rs)).toBe(want);
  });
});

describe('project', () => {
  it('keeps the chosen columns in order, by dotted name, absent as null', () => {
    expect(project(rows, [columnOf('b.Net'), columnOf('a'), columnOf('zz')])).toEqual([
      { 'b.Net': 'x', a: new JsonNumber('1234567.123456789012'), zz: null },
      { 'b.Net': null, a: 2, zz: null },
    ]);
  });

  it('keeps a nested object named whole', () => {
    expect(renderJson(project(rows, [columnOf('b')]), false)).toBe('[{"b":{"Net":"x"}},{"b":null}]\n');
  });
});
