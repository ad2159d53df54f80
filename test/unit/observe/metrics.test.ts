import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RunEvent } from '../../../src/events.js';
import { updateFile } from '../../../src/fs/atomic.js';
import { count, emptyTally, summaryLine } from '../../../src/observe/index.js';
import {
  escapeLabel,
  lastSuccessFrom,
  metricsText,
  type RunMetrics,
  writeMetricsFile,
} from '../../../src/observe/metrics.js';
import { tempDir } from '../../helpers/run.js';

const base: RunMetrics = {
  command: 'export',
  profile: 'default',
  exitCode: 0,
  endedAt: Date.UTC(2024, 4, 3, 6, 0, 12, 500),
  durationMs: 12_345,
  lastSuccessAt: Date.UTC(2024, 4, 3, 6, 0, 12, 500),
  items: { written: 3, skipped: 1, empty: 0, failed: 0 },
  requests: [
    { endpoint: 'export', code: 200, count: 3 },
    { endpoint: 'token', code: 200, count: 1 },
    { endpoint: 'export', code: 0, count: 1 },
  ],
  rateLimitWaitMs: 41_000,
  bytesWritten: 123_456,
};

const L = '{command="export",profile="default"}';

describe('metricsText', () => {
  it('the whole file: HELP and TYPE per family, every series labelled with command and profile', () => {
    expect(metricsText(base)).toBe(
      [
        '# HELP prs_last_run_exit_code Exit code of the last run (0 success, see prs help exit-codes).',
        '# TYPE prs_last_run_exit_code gauge',
        `prs_last_run_exit_code${L} 0`,
        '# HELP prs_last_run_timestamp_seconds When the last run ended, in seconds since the epoch.',
        '# TYPE prs_last_run_timestamp_seconds gauge',
        `prs_last_run_timestamp_seconds${L} 1714716012.5`,
        '# HELP prs_last_success_timestamp_seconds When the last successful run ended, in seconds since the epoch (kept across failed runs).',
        '# TYPE prs_last_success_timestamp_seconds gauge',
        `prs_last_success_timestamp_seconds${L} 1714716012.5`,
        '# HELP prs_run_duration_seconds How long the last run took.',
        '# TYPE prs_run_duration_seconds gauge',
        `prs_run_duration_seconds${L} 12.345`,
        '# HELP prs_items Items (portfolio x date) of the last run by outcome.',
        '# TYPE prs_items gauge',
        'prs_items{command="export",profile="default",status="written"} 3',
        'prs_items{command="export",profile="default",status="skipped"} 1',
        'prs_items{command="export",profile="default",status="empty"} 0',
        'prs_items{command="export",profile="default",status="failed"} 0',
        '# HELP prs_requests_total HTTP requests of the last run by endpoint and status code (0: no answer).',
        '# TYPE prs_requests_total counter',
        'prs_requests_total{command="export",profile="default",endpoint="export",code="0"} 1',
        'prs_requests_total{command="export",profile="default",endpoint="export",code="200"} 3',
        'prs_requests_total{command="export",profile="default",endpoint="token",code="200"} 1',
        '# HELP prs_rate_limit_wait_seconds Time the last run waited for the rate limit.',
        '# TYPE prs_rate_limit_wait_seconds gauge',
        `prs_rate_limit_wait_seconds${L} 41`,
        '# HELP prs_bytes_written Bytes the last run wrote (files or stdout).',
        '# TYPE prs_bytes_written gauge',
        `prs_bytes_written${L} 123456`,
        '',
      ].join('\n'),
    );
  });

  it.each<[string, Partial<RunMetrics>, RegExp, RegExp?]>([
    [
      'no success yet: no last-success series',
      { exitCode: 8, lastSuccessAt: undefined },
      /exit_code\{[^}]*\} 8\n/,
      /prs_last_success/,
    ],
    ['no requests: the family is left out', { requests: [] }, /prs_rate_limit_wait/, /prs_requests_total/],
    [
      'a profile name is escaped in labels',
      { profile: 'a"b\\c' },
      /prs_items\{command="export",profile="a\\"b\\\\c",status="written"\} 3/,
    ],
    ['a report run', { command: 'report' }, /prs_last_run_exit_code\{command="report",profile="default"\} 0/],
    ['milliseconds never in exponent form', { durationMs: 1 }, /prs_run_duration_seconds\{[^}]*\} 0\.001\n/],
  ])('%s', (_name, over, has, hasNot) => {
    const text = metricsText({ ...base, ...over });
    expect(text).toMatch(has);
    if (hasNot) expect(text).not.toMatch(hasNot);
  });

  it.each([
    ['plain', 'plain'],
    ['a"b', 'a\\"b'],
    ['a\\b', 'a\\\\b'],
    ['a\nb', 'a\\nb'],
  ])('escapeLabel(%j) → %j', (v, want) => expect(escapeLabel(v)).toBe(want));
});

describe('a shared file: a run replaces only its own series', () => {
  const exportFile = metricsText(base);
  const nightly = metricsText(
    { ...base, profile: 'nigh"tly', exitCode: 8, lastSuccessAt: undefined },
    exportFile,
  );
  const both = metricsText({ ...base, command: 'report', requests: [] }, nightly);
  const sampleLines = (text: string) => text.split('\n').filter((l) => l && !l.startsWith('#'));

  it('keeps every series of the other commands and profiles, once each, under one HELP/TYPE per family', () => {
    for (const line of sampleLines(nightly)) expect(sampleLines(both)).toContain(line);
    expect(both.match(/^# TYPE prs_items /gm)).toHaveLength(1);
    expect(both).toMatch(/prs_last_run_exit_code\{command="report",profile="default"\} 0\n/);
    // A family with only others' series (report made no request) is still there.
    expect(both).toMatch(/prs_requests_total\{command="export",profile="default",endpoint="token"/);
    // export default 13, export nigh"tly 12 (no success yet), report default 10 (no requests).
    expect(sampleLines(both)).toHaveLength(13 + 12 + 10);
  });

  it("replaces its own: the earlier run's series of this command and profile are gone", () => {
    const again = metricsText({ ...base, exitCode: 3, requests: [] }, both);
    expect(again.match(/prs_last_run_exit_code\{command="export",profile="default"\}/g)).toHaveLength(1);
    expect(again).toMatch(/prs_last_run_exit_code\{command="export",profile="default"\} 3\n/);
    expect(again).not.toMatch(/prs_requests_total\{command="export",profile="default"/);
    expect(again).toMatch(/prs_last_run_exit_code\{command="export",profile="nigh\\"tly"\} 8\n/);
    expect(again).toMatch(/prs_last_run_exit_code\{command="report",profile="default"\} 0\n/);
  });

  it('a line that does not parse is not carried over', () => {
    const text = metricsText(base, 'garbage\nprs_items{command="report" 1\n');
    expect(text).toBe(exportFile);
  });
});

describe('two runs ending together', () => {
  it('each keeps the other’s series: a writer that starts while another holds the old text waits for it', async () => {
    const tmp = tempDir('prs-metrics-');
    try {
      const file = join(tmp.path, 'prs.prom');
      const report = { ...base, command: 'report' as const };
      // The export run's read-modify-write, with the report run's write started between its read and
      // its write: without the file's lock the report's series would be overwritten.
      let second: Promise<void> | undefined;
      await updateFile(file, (text) => {
        second = writeMetricsFile(file, report);
        return { text: metricsText(base, text), result: undefined };
      });
      await second;
      const text = readFileSync(file, 'utf8');
      expect(text).toContain('prs_last_run_exit_code{command="export",profile="default"} 0');
      expect(text).toContain('prs_last_run_exit_code{command="report",profile="default"} 0');
    } finally {
      tmp.cleanup();
    }
  });
});

describe('lastSuccessFrom: the previous file read back', () => {
  const file = metricsText(base);
  it.each<[string, string, string, string, number | undefined]>([
    ['its own file', file, 'export', 'default', base.lastSuccessAt],
    ['another command', file, 'report', 'default', undefined],
    ['another profile', file, 'export', 'nightly', undefined],
    ['no file', '', 'export', 'default', undefined],
    [
      'garbage',
      'prs_last_success_timestamp_seconds{command="export",profile="default"} NaN\n',
      'export',
      'default',
      undefined,
    ],
    ['an escaped profile', metricsText({ ...base, profile: 'a"b' }), 'export', 'a"b', base.lastSuccessAt],
  ])('%s', (_name, text, command, profile, want) =>
    expect(lastSuccessFrom(text, command, profile)).toBe(want),
  );
});

describe('the tally of a run’s events', () => {
  it('items, bytes, requests by endpoint and code, rate-limit waits (backoff is not one)', () => {
    const t = emptyTally();
    const events: RunEvent[] = [
      { event: 'response', endpoint: 'token', status: 200, durationMs: 5 },
      { event: 'wait', waitMs: 1000, reason: 'rate-limit' },
      { event: 'wait', waitMs: 2000, reason: 'retry-after' },
      { event: 'wait', waitMs: 700, reason: 'backoff' },
      { event: 'response', endpoint: 'report', status: 429, durationMs: 5 },
      { event: 'response', endpoint: 'report', status: 200, durationMs: 5 },
      { event: 'response', endpoint: 'report', status: 200, durationMs: 5 },
      { event: 'item', item: { portfolioId: 42, date: '2024-05-03' }, status: 'written', bytes: 100 },
      {
        event: 'item',
        item: { portfolioId: 500, date: '2024-05-03' },
        status: 'failed',
        exitCode: 8,
        message: 'service error',
      },
    ];
    for (const e of events) count(t, e);
    expect(t.items).toEqual({ written: 1, skipped: 0, empty: 0, failed: 1 });
    expect(t.bytesWritten).toBe(100);
    expect(t.rateLimitWaitMs).toBe(3000);
    expect([...t.requests.values()]).toEqual([
      { endpoint: 'token', code: 200, count: 1 },
      { endpoint: 'report', code: 429, count: 1 },
      { endpoint: 'report', code: 200, count: 2 },
    ]);
    expect(t.failures).toEqual(['portfolio 500 on 2024-05-03: service error']);
    expect(summaryLine('report', t, 8, 1234)).toBe(
      'prs report: exit 8 after 1.2 s; 1 written, 1 failed; 4 requests',
    );
  });
});
