// `prs __complete`'s walk of the commander program: the words typed → what TAB offers.
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../../src/cli.js';
import { DIFF_FLAGS } from '../../../src/commands/diff.flags.js';
import { EXPORT_FLAGS } from '../../../src/commands/export.flags.js';
import { spelling } from '../../../src/commands/flags.js';
import { REPORT_FLAGS } from '../../../src/commands/report.flags.js';
import { complete } from '../../../src/completion/complete.js';
import { EXPORT_FORMATS, REPORT_FORMATS, REPORT_TYPES } from '../../../src/domain.js';
import { SETTING_KEYS, SETTINGS } from '../../../src/settings.js';

const program = buildProgram({ version: '1.0.0', run: async () => {} });
const at = (line: string) => complete(program, line.split(' '));
/** The words offered (or "file", "dir", "profiles"), with the prefix each carries. */
const offered = (line: string) => {
  const { complete: c, prefix = '' } = at(line);
  return typeof c === 'string' ? c : (c?.values ?? []).map((v) => prefix + v);
};

const COMMANDS = ['login', 'logout', 'auth', 'config', 'report', 'export', 'diff', 'cache', 'quota'];
const TOP = [...COMMANDS, 'completion', 'sandbox', 'help'];
const GLOBALS = ['--profile', '--base-url', '--tenant', '--timeout', '--retries', '--rate-limit'];

describe('complete', () => {
  it.each([
    ['', TOP],
    ['-q ', TOP],
    ['--tenant auth ', TOP],
    ['auth ', ['status', 'token', 'help']],
    ['config ', ['list', 'get', 'set', 'unset', 'path', 'help']],
    ['config get ', [...SETTING_KEYS]],
    ['config unset r', [...SETTING_KEYS]],
    ['config set tenant ', []],
    ['completion ', ['bash', 'zsh', 'fish']],
    ['completion zsh ', []],
    ['help ', [...TOP.filter((c) => c !== 'help'), 'exit-codes']],
    ['help auth ', ['status', 'token']],
    ['help config ', ['list', 'get', 'set', 'unset', 'path']],
    ['help report ', []],
    ['help nope ', []],
    ['auth help ', ['status', 'token']],
    ['report 1 ', []],
    ['report 1 -t ', [...REPORT_TYPES]],
    ['report 1 --type = i', [...REPORT_TYPES]],
    ['report 1 --format =', [...REPORT_FORMATS, 'parquet']],
    ['report 1 --format=c', [...REPORT_FORMATS, 'parquet'].map((f) => `--format=${f}`)],
    ['export 1 -f ', [...EXPORT_FORMATS]],
    ['diff 1 -f ', [...REPORT_FORMATS]],
    ['diff 1 --against ', [...REPORT_TYPES]],
    ['report 1 -d ', ['today', 'yesterday', 'previous-weekday']],
    ['report 1 -o ', 'file'],
    ['export 1 --output=', 'file'],
    ['export 1 --dir ', 'dir'],
    ['--profile ', 'profiles'],
    ['report 1 --profile ', 'profiles'],
    ['login --realm ', []],
    ['report 1 -t index ', []],
  ])('%j offers %j', (line, want) => {
    expect(offered(line)).toEqual(want);
  });

  it('offers a command its own options, then the global ones it does not shadow', () => {
    const report = offered('report 1 -');
    expect(report).toEqual(expect.arrayContaining(['-t', '--type', '--jq', '-h', '--help', ...GLOBALS]));
    expect(report).not.toContain('--version');
    expect(offered('-')).toContain('--version');
    const sandbox = at('sandbox --r').complete;
    if (typeof sandbox !== 'object') throw new Error('no words');
    expect(sandbox.values.filter((v) => v === '--rate-limit')).toHaveLength(1);
    expect(sandbox.descriptions?.['--rate-limit']).toMatch(/sandbox/);
  });

  it.each([['report 1 -t '], ['report 1 --format '], ['export 1 --format '], ['export 1 --from '], ['']])(
    '%j: every word has a description of its own, one line',
    (line) => {
      const c = at(line).complete;
      if (typeof c !== 'object') throw new Error('no words');
      for (const v of c.values) expect(c.descriptions?.[v], v).toMatch(/^[^\n]{5,}$/);
    },
  );

  it("every table row's value hint reaches its option", () => {
    const tables = {
      '': SETTINGS,
      'report 1 ': REPORT_FLAGS,
      'diff 1 ': DIFF_FLAGS,
      'export 1 ': EXPORT_FLAGS,
    };
    let checked = 0;
    for (const [before, table] of Object.entries(tables))
      for (const row of Object.values(table as Record<string, { flag?: string; complete?: unknown }>)) {
        if (!row.flag || !row.complete) continue;
        const line = `${before}${spelling(row.flag).long} `;
        expect(at(line).complete, line).toBe(row.complete);
        checked++;
      }
    expect(checked).toBeGreaterThan(10);
  });
});
