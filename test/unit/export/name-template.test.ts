import { describe, expect, it } from 'vitest';
import { ruleFileName } from '../../../src/export/naming.js';
import { checkNameTemplate } from '../../../src/fs/file-name.js';

const item = {
  date: '2024-05-03',
  name: 'Example 600 OG',
  type: 'constituent.close',
  portfolioId: 42,
};

describe('ruleFileName with a template', () => {
  it.each([
    ['{date}_{name}_{type}', 'json', '2024-05-03_Example_600_OG_constituent.close.json'],
    ['{portfolio}/{date}', 'zip', '2024-05-03.zip'], // a path is reduced to its last segment
    ['{type}', 'csv', 'constituent.close.csv'],
    ['daily {portfolio}', 'json', 'daily 42.json'],
    ['.{date}', 'json', '2024-05-03.json'], // never a hidden file
  ] as const)('%s (%s) → %s', (template, kind, want) => {
    expect(ruleFileName({ ...item, template, kind })).toBe(want);
  });
});

describe('checkNameTemplate', () => {
  it.each(['{date}_{name}_{type}', '{portfolio}', 'fixed'])('%s is fine', (t) => {
    expect(checkNameTemplate(t)).toBe(t);
  });
  it.each([
    ['{day}', /unknown placeholder \{day\}/],
    ['{date', /brace without its pair/],
    ['date}', /brace without its pair/],
    ['a/{date}', /not a path/],
    ['...', /no file name left/],
  ])('%s is refused', (t, message) => {
    expect(() => checkNameTemplate(t)).toThrow(message);
  });
});
