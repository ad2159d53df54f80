/**
 * docs/reliability.md stays true: its `R-` rows and the tests tagged `[R-..]` are the same set, each
 * row names the file its test is in, an exit code claimed by a row is the one in the test's title,
 * and every `E-` row quotes a title that is still in the file it names.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const DOC = readFileSync(join(ROOT, 'docs/reliability.md'), 'utf8');

/** The suite's files: where `[R-..]` tags may live. */
const SUITE = [
  ...readdirSync(join(ROOT, 'test/e2e'))
    .filter((f) => /^(reliability-.*|fuzz-.*)\.test\.ts$/.test(f))
    .map((f) => `test/e2e/${f}`),
  ...readdirSync(join(ROOT, 'test/unit/reliability'))
    .filter((f) => f.endsWith('.test.ts') && f !== 'doc.test.ts')
    .map((f) => `test/unit/reliability/${f}`),
];

interface Row {
  id: string;
  outcome: string;
  file: string;
}
const rows: Row[] = [...DOC.matchAll(/^\| (R-[A-Z]\d\d) \|(.*)\|(.*)\| `([^`]+)` \|$/gm)].map((m) => ({
  id: m[1]!,
  outcome: m[3]!,
  file: m[4]!,
}));
const elsewhere = [...DOC.matchAll(/^\| (E-\d{2,3}) \|.*\| `([^`]+)` › "(.+)" \|$/gm)].map((m) => ({
  id: m[1]!,
  file: m[2]!,
  title: m[3]!,
}));

/**
 * Each tag in the suite with its file and the rest of its title (up to the closing quote). A tag in
 * an it.each table also gets the table's title template (`])('%s: exit 2 ...'`), which follows it.
 */
const tags = SUITE.flatMap((file) => {
  const text = readFileSync(join(ROOT, file), 'utf8');
  return [...text.matchAll(/\[(R-[A-Z]\d\d)\]([^'"`]*)/g)].map((m) => {
    const template = /\]\)\(\s*['"`]([^'"`]*)['"`]/.exec(text.slice(m.index));
    const inTable = template !== null && !/\bit\(/.test(text.slice(m.index, m.index + template.index));
    return { id: m[1]!, file, title: inTable ? `${m[2]} ${template[1]}` : m[2]! };
  });
});
const exits = (s: string) => [...s.matchAll(/exit (\d+)/g)].map((m) => m[1]).sort();

describe('docs/reliability.md', () => {
  it('has rows, and its ids are unique', () => {
    expect(rows.length).toBeGreaterThan(40);
    expect(new Set(rows.map((r) => r.id)).size).toBe(rows.length);
    expect(new Set(elsewhere.map((r) => r.id)).size).toBe(elsewhere.length);
    // Every table line that looks like a row was understood (a typo would silently drop one).
    const tableLines = DOC.split('\n').filter((l) => /^\| [RE]-/.test(l));
    expect(tableLines.length).toBe(rows.length + elsewhere.length);
  });

  it('every row has exactly one tagged test, in the file the row names', () => {
    for (const row of rows) {
      const found = tags.filter((t) => t.id === row.id);
      expect(
        found.map((t) => t.file),
        row.id,
      ).toEqual([row.file]);
    }
  });

  it('every tagged test has a row', () => {
    const documented = new Set(rows.map((r) => r.id));
    expect(tags.filter((t) => !documented.has(t.id)).map((t) => `${t.file}: ${t.id}`)).toEqual([]);
  });

  it('an exit code a row claims is the one its test title states', () => {
    for (const row of rows) {
      const claimed = exits(row.outcome);
      if (claimed.length === 0) continue;
      const tag = tags.find((t) => t.id === row.id)!;
      expect(exits(tag.title), `${row.id}: "${tag.title}"`).toEqual(claimed);
    }
  });

  it('every "proven elsewhere" row quotes a title still in its file', () => {
    expect(elsewhere.length).toBeGreaterThan(10);
    for (const e of elsewhere) {
      const text = readFileSync(join(ROOT, e.file), 'utf8');
      expect(text.includes(e.title), `${e.id}: "${e.title}" in ${e.file}`).toBe(true);
    }
  });
});
