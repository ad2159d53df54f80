import { afterEach, describe, expect, it } from 'vitest';
import { REPORT_TYPES } from '../../src/domain.js';
import { useLoggedIn } from '../helpers/session.js';
import { HAS_TMUX, Terminal, type TerminalOptions } from '../helpers/tmux.js';

const USER = { username: 'tia', password: 'Pw-tables-3k', tenant: 'tia-tenant' };
const CLIENT_SECRET = 'Cs-tables-8m';

/** What a reader of each type looks for first (issue 18): these must be on screen at any width. */
const IDENTIFYING: Record<string, string[]> = {
  index: ['indexName', 'indexValue'],
  'constituent.close': ['isin', 'securityTicker', 'closingPrice', 'indexWeighting'],
  'constituent.open': ['isin', 'securityTicker', 'closingPrice', 'indexWeighting'],
  'constituent.proforma': ['isin', 'securityTicker', 'closingPrice', 'indexWeighting'],
  'constituent.corporateactions': ['isin', 'securityTicker', 'eventType', 'exDate', 'status'],
  'constituent.proformacorporateactions': ['isin', 'securityTicker', 'eventType', 'exDate', 'status'],
};

/** Lines of a drawn table (box characters at the start). */
const tableLines = (lines: string[]) => lines.filter((l) => /^[┌│├└]/.test(l));
/** The header cells of a drawn table, or [] when there is none. */
const headerCells = (lines: string[]) =>
  (tableLines(lines)[1] ?? '')
    .split('│')
    .slice(1, -1)
    .map((c) => c.trim());
/** The column names of a record layout (`name │ value` lines), in order of first appearance. */
const recordNames = (lines: string[]) => [...new Set(lines.flatMap((l) => /^(\S+) +│/.exec(l)?.[1] ?? []))];
const NOTE = /^\d+ of \d+ columns did not fit the terminal: .* — pick columns with --fields, or use -f csv$/;

describe.skipIf(!HAS_TMUX)('wide reports on a terminal (tmux)', () => {
  const { env } = useLoggedIn(
    'prs-table-terminal-',
    { rateLimit: '1000/1s', clientSecret: CLIENT_SECRET, users: [USER] },
    // Tables taller than the screen would go through the pager: report-pager.test.ts tests that.
    { PRS_PAGER: '' },
  );
  let term: Terminal | undefined;

  afterEach(() => {
    term?.close();
    term = undefined;
  });

  /** prs in a `width`-column terminal to its end: the exit code and every line it left. */
  const run = async (args: string[], width: number) => {
    const o: TerminalOptions = { args, env, width, height: 50 };
    term = await Terminal.open(o);
    const code = await term.exitCode({ timeoutMs: 20_000 });
    return { code, lines: (await term.screen()).split('\n') };
  };

  const cases = REPORT_TYPES.flatMap((type) => [80, 200].map((width) => [type, width] as const));

  it.each(cases)(
    '%s at %i columns: the identifying columns on screen, nothing wider, the note last',
    async (type, width) => {
      // Portfolio 1 (Sandbox Europe 50): 50 constituents with extra fields; corporate actions that day.
      const { code, lines } = await run(['report', '1', '-t', type, '-d', '2024-05-02'], width);
      expect(code, lines.join('\n')).toBe(0);
      // Lines wider than the pane come back joined (capture-pane -J), so this also catches wrapping
      // (the note, a message on stderr, may wrap).
      for (const l of lines) if (!NOTE.test(l)) expect([...l].length, l).toBeLessThanOrEqual(width);
      const table = tableLines(lines);
      const shown = table.length > 0 ? headerCells(lines) : recordNames(lines);
      for (const name of IDENTIFYING[type]) expect(shown, lines.join('\n')).toContain(name);
      const notes = lines.filter((l) => NOTE.test(l));
      expect(notes.length).toBeLessThanOrEqual(1);
      if (notes.length === 1) {
        // After the rows, where it does not scroll away; and it names only columns not on screen.
        expect(lines.indexOf(notes[0])).toBeGreaterThan(lines.lastIndexOf(table.at(-1)!));
        const hidden = notes[0]
          .replace(/^.*terminal: /, '')
          .replace(/ — .*$/, '')
          .split(', ');
        for (const h of hidden) if (h !== '…') expect(shown).not.toContain(h);
      }
    },
  );

  it('a 50-row constituent.close at 80 columns: price and weight shown, long names shortened, the note after the 50 rows', async () => {
    const { code, lines } = await run(['report', '1', '-t', 'constituent.close', '-d', '2024-05-02'], 80);
    expect(code).toBe(0);
    const table = tableLines(lines);
    expect(table).toHaveLength(50 + 4);
    expect(headerCells(lines)).toEqual(
      expect.arrayContaining(['isin', 'securityName', 'securityTicker', 'closingPrice', 'indexWeighting']),
    );
    expect(table.some((l) => l.includes('…'))).toBe(true);
    expect(lines.at(-1)).toMatch(NOTE);
  });

  it('portfolio 42 index at 80 columns: indexName shortened in the middle, its currency kept (EUR and JPY rows differ there too)', async () => {
    const { code, lines } = await run(['report', '42', '-t', 'index', '-d', '2023-06-29'], 80);
    expect(code, lines.join('\n')).toBe(0);
    const col = headerCells(lines).indexOf('indexName');
    expect(col, lines.join('\n')).toBeGreaterThanOrEqual(0);
    const names = tableLines(lines)
      .slice(3, -1)
      .map((l) => l.split('│').slice(1, -1)[col]!.trim());
    // Issue 24: both were "Example 600 O…", alike but for the currency column.
    expect(names).toHaveLength(2);
    expect(names[0]).toMatch(/^Example 6.*…EUR$|^Example 600 OG EUR$/);
    expect(names[1]).toMatch(/^Example 6.*…JPY$|^Example 600 OG JPY$/);
    expect(
      names.some((n) => n.includes('…')),
      lines.join('\n'),
    ).toBe(true);
  });

  it.each([80, 200])('--fields at %i columns: every field asked for, in the order asked', async (width) => {
    const fields = [
      'indexId.Net',
      'isin',
      'eventType',
      'exDate',
      'status',
      'indexName.Net',
      'oldShares.Net',
      'paf',
    ];
    const { code, lines } = await run(
      ['report', '1', '-t', 'constituent.corporateactions', '-d', '2024-05-02', '--fields', fields.join(',')],
      width,
    );
    expect(code, lines.join('\n')).toBe(0);
    for (const l of lines) expect([...l].length, l).toBeLessThanOrEqual(width);
    const table = tableLines(lines);
    // At 200 they fit as a table; at 80 not even shortened: one block per record, nothing left out.
    expect(table.length > 0 ? headerCells(lines) : recordNames(lines)).toEqual(fields);
    expect(table.length > 0).toBe(width === 200);
    expect(lines.some((l) => NOTE.test(l))).toBe(false);
  });
});
