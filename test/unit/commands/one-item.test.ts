/** oneItem (src/commands/report.flags.ts): report's --raw and export's -o write one answer as received. */
import { describe, expect, it } from 'vitest';
import { exportOptions } from '../../../src/commands/export.flags.js';
import { oneItem, reportOptions } from '../../../src/commands/report.flags.js';

const NOW = new Date(Date.UTC(2024, 4, 6, 12));

describe('oneItem', () => {
  it.each([
    [['1'], ['2024-05-02'], undefined],
    [['1', '2'], ['2024-05-02'], '--raw takes one portfolio and one date'],
    [['1'], ['2024-05-02', '2024-05-03'], '--raw takes one portfolio and one date'],
    [['1', '2'], ['2024-05-02', '2024-05-03'], '--raw takes one portfolio and one date'],
  ])('%j on %j → %s', (ids, dates, message) => {
    const check = () => oneItem('--raw', ids, dates);
    if (message === undefined) expect(check).not.toThrow();
    else expect(check).toThrow(message);
  });

  const range = { type: 'index', from: '2024-05-02', to: '2024-05-03' };
  const day = { type: 'index', date: '2024-05-02' };
  const exported = { output: 'a.json', format: 'json', dir: '.', parallel: '1' };
  it.each([
    ['report --raw, a range', () => reportOptions(['1'], { ...range, raw: true }, NOW), '--raw'],
    ['report --raw, two portfolios', () => reportOptions(['1', '2'], { ...day, raw: true }, NOW), '--raw'],
    ['export -o, a range', () => exportOptions(['1'], { ...range, ...exported }, NOW), '--output'],
    ['export -o, two portfolios', () => exportOptions(['1', '2'], { ...day, ...exported }, NOW), '--output'],
  ])('is the check of %s', (_name, options, flag) => {
    const more = flag === '--output' ? '; use --dir for several files' : '';
    expect(options).toThrow(new RegExp(`^${flag} takes one portfolio and one date${more}$`));
  });
});
