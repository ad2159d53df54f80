import { describe, expect, it } from 'vitest';
import { type DiffFlags, diffOptions } from '../../../src/commands/diff.flags.js';
import { UsageError } from '../../../src/errors.js';

const NOW = new Date('2024-03-20T10:00:00Z'); // a Wednesday

describe('diff flags → options', () => {
  it.each<{ name: string; ids?: string[]; flags: DiffFlags; noCache?: boolean; want: object }>([
    {
      name: '--from/--to: two steps, old first',
      flags: { type: 'constituent.close', from: '2024-03-15', to: '2024-03-18' },
      want: {
        steps: [
          { date: '2024-03-15', type: 'constituent.close' },
          { date: '2024-03-18', type: 'constituent.close' },
        ],
        each: false,
        cache: 'use',
        exitCode: false,
      },
    },
    {
      name: '--each: every weekday of the range',
      flags: { type: 'index', from: '2024-03-15', to: '2024-03-19', each: true },
      want: {
        steps: ['2024-03-15', '2024-03-18', '2024-03-19'].map((date) => ({ date, type: 'index' })),
        each: true,
      },
    },
    {
      name: '--each --weekends',
      flags: { type: 'index', from: '2024-03-15', to: '2024-03-17', each: true, weekends: true },
      want: { steps: ['2024-03-15', '2024-03-16', '2024-03-17'].map((date) => ({ date, type: 'index' })) },
    },
    {
      name: '-d --against: two types on one date',
      flags: { type: 'constituent.close', date: 'yesterday', against: 'constituent.proforma' },
      want: {
        steps: [
          { date: '2024-03-19', type: 'constituent.close' },
          { date: '2024-03-19', type: 'constituent.proforma' },
        ],
        against: 'constituent.proforma',
      },
    },
    {
      name: '--key, --fields, -o -, --no-cache, --exit-code, several portfolios',
      ids: ['42', '77', '42'],
      flags: {
        type: 'constituent.close',
        from: '2024-03-15',
        to: '2024-03-18',
        key: 'isin, securityTicker',
        fields: 'indexWeighting',
        output: '-',
        exitCode: true,
        format: 'csv',
      },
      noCache: true,
      want: {
        portfolioIds: [42, 77],
        key: ['isin', 'securityTicker'],
        fields: ['indexWeighting'],
        output: undefined,
        cache: 'off',
        exitCode: true,
        format: 'csv',
      },
    },
  ])('$name', ({ ids = ['42'], flags, noCache, want }) => {
    expect(diffOptions(ids, flags, NOW, { noCache })).toMatchObject(want);
  });

  it.each<{ name: string; flags: DiffFlags; noCache?: boolean; message: RegExp }>([
    { name: 'no --type', flags: { from: '2024-03-15', to: '2024-03-18' }, message: /missing --type/ },
    {
      name: '--from without --to',
      flags: { type: 'index', from: '2024-03-15' },
      message: /--from and --to go together/,
    },
    {
      name: '--against with --from',
      flags: { type: 'index', from: '2024-03-15', to: '2024-03-18', against: 'constituent.close' },
      message: /--against compares two types on one date/,
    },
    { name: '-d without --against', flags: { type: 'index', date: '2024-03-15' }, message: /add --against/ },
    {
      name: '--against without -d',
      flags: { type: 'constituent.close', against: 'constituent.proforma' },
      message: /--against needs -d/,
    },
    { name: 'neither', flags: { type: 'index' }, message: /missing --from\/--to/ },
    {
      name: '--against the same type',
      flags: { type: 'index', date: '2024-03-15', against: 'index' },
      message: /is the --type itself/,
    },
    {
      name: '--against another family of rows',
      flags: { type: 'index', date: '2024-03-15', against: 'constituent.close' },
      message: /have different rows/,
    },
    {
      name: '--from after --to',
      flags: { type: 'index', from: '2024-03-18', to: '2024-03-15' },
      message: /is after --to/,
    },
    {
      name: 'the same date',
      flags: { type: 'index', from: '2024-03-18', to: '2024-03-18' },
      message: /same date/,
    },
    {
      name: '--each over one weekday',
      flags: { type: 'index', from: '2024-03-15', to: '2024-03-17', each: true },
      message: /only one date/,
    },
    {
      name: '--each with --against',
      flags: { type: 'index', date: '2024-03-15', against: 'index', each: true },
      message: /each/,
    },
    {
      name: 'a bad type',
      flags: { type: 'close', from: '2024-03-15', to: '2024-03-18' },
      message: /unknown report type/,
    },
    {
      name: 'a bad format',
      flags: { type: 'index', from: '2024-03-15', to: '2024-03-18', format: 'xml' },
      message: /unknown format/,
    },
    {
      name: '-o json',
      flags: { type: 'index', from: '2024-03-15', to: '2024-03-18', output: 'json' },
      message: /did you mean -f json/,
    },
    {
      name: 'an empty --key name',
      flags: { type: 'index', from: '2024-03-15', to: '2024-03-18', key: 'isin,' },
      message: /invalid --key/,
    },
    {
      name: '--refresh with --no-cache',
      flags: { type: 'index', from: '2024-03-15', to: '2024-03-18', refresh: true },
      noCache: true,
      message: /--refresh conflicts with --no-cache/,
    },
  ])('$name: exit 2', ({ flags, noCache, message }) => {
    const call = () => diffOptions(['42'], flags, NOW, { noCache });
    expect(call).toThrow(UsageError);
    expect(call).toThrow(message);
  });
});
