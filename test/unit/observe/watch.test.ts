/**
 * The watchers wired together (observe/index.ts watchRun) over a hand-fed event stream, as the run
 * engine will emit it: the JSON log's entries, the metrics file's item counts and bytes, the failure
 * ping's body. The e2e tests (test/e2e/observe.test.ts) cover the same against the built binary.
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { watchRun } from '../../../src/observe/index.js';
import { FakeClock } from '../../helpers/clock.js';
import { fakeDeps } from '../../helpers/deps.js';
import { createTestIO } from '../../helpers/io.js';
import { tempDir } from '../../helpers/run.js';

let tmp: ReturnType<typeof tempDir>;
const seen: string[] = [];
let pingUrl: string;
let close: () => Promise<void>;

beforeAll(async () => {
  tmp = tempDir('prs-watch-');
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', () => {
      seen.push(`${req.method} ${req.url}\n${body}`);
      res.end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  pingUrl = `http://127.0.0.1:${(server.address() as { port: number }).port}/p/key`;
  close = () => new Promise((r) => server.close(() => r()));
});
afterAll(async () => {
  await close();
  tmp.cleanup();
});

describe('watchRun', () => {
  it.each([
    [1, 1, 'report: 1 item, 1 request'],
    [1, 0, 'report: 1 item, 0 requests'],
    [2, 1, 'report: 2 items, 1 request'],
  ])('the start entry words its counts: %i items, %i requests', async (items, requests, message) => {
    const io = createTestIO({ logFormat: 'json' });
    const deps = fakeDeps({
      io,
      env: { PRS_CONFIG_DIR: tmp.path, PRS_CACHE_DIR: tmp.path, PRS_LOG_FORMAT: 'json' },
    });
    const run = await watchRun(deps, 'report', { type: 'index' });
    deps.events.emit({ event: 'start', command: 'report', items, requests, etaMs: 0 });
    await run.finish(0, []);
    expect(JSON.parse(io.stderrText().split('\n')[0]!)).toMatchObject({ event: 'start', message });
  });

  it('an export of 4 items (2 written, 1 skipped, 1 failed): entries, metrics and the failure ping', async () => {
    const clock = new FakeClock(Date.UTC(2024, 4, 3, 6, 0, 0));
    const io = createTestIO({ logFormat: 'json', now: () => clock.now() });
    const metricsFile = join(tmp.path, 'prs.prom');
    const deps = fakeDeps({
      io,
      clock,
      env: {
        PRS_CONFIG_DIR: tmp.path,
        PRS_CACHE_DIR: tmp.path,
        PRS_METRICS_FILE: metricsFile,
        PRS_PING_URL: pingUrl,
        PRS_LOG_FORMAT: 'json',
      },
    });
    const run = await watchRun(deps, 'export', { type: 'index' });
    const item = (portfolioId: number) => ({ portfolioId, date: '2024-05-03' });
    deps.events.emit({ event: 'start', command: 'export', items: 4, requests: 3, etaMs: 1000 });
    deps.events.emit({ event: 'response', endpoint: 'token', status: 200, durationMs: 3 });
    deps.events.emit({ event: 'wait', waitMs: 15_000, reason: 'rate-limit', item: item(1) });
    deps.events.emit({ event: 'response', endpoint: 'export', status: 200, durationMs: 40 });
    deps.events.emit({ event: 'item', item: item(1), status: 'written', path: '/d/a.json', bytes: 1000 });
    deps.events.emit({ event: 'item', item: item(2), status: 'skipped', path: '/d/b.json' });
    deps.events.emit({ event: 'response', endpoint: 'export', status: 200, durationMs: 40 });
    deps.events.emit({ event: 'item', item: item(3), status: 'written', path: '/d/c.json', bytes: 500 });
    deps.events.emit({ event: 'response', endpoint: 'export', status: 500, durationMs: 40 });
    deps.events.emit({
      event: 'item',
      item: item(500),
      status: 'failed',
      exitCode: 8,
      message: 'service error: 500',
    });
    clock.advance(20_000);
    await run.finish(8, ['prs: 3 written, 1 failed', 'hint: see above']);

    const entries = io
      .stderrText()
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(entries.map((e) => e.event)).toEqual(['start', 'wait', 'item', 'item', 'item', 'item', 'summary']);
    expect(entries[0].message).toBe('export: 4 items, 3 requests');
    expect(entries[1]).toMatchObject({ level: 'info', waitMs: 15_000, portfolioId: 1, date: '2024-05-03' });
    expect(entries[2]).toMatchObject({
      status: 'written',
      path: '/d/a.json',
      bytes: 1000,
      portfolioId: 1,
      type: 'index',
    });
    expect(entries[5]).toMatchObject({ level: 'error', status: 'failed', exitCode: 8, portfolioId: 500 });
    expect(entries[6]).toEqual({
      time: '2024-05-03T06:00:20.000Z',
      level: 'error',
      event: 'summary',
      message: 'prs export: exit 8 after 20.0 s; 2 written, 1 skipped, 1 failed; 4 requests',
      written: 2,
      skipped: 1,
      empty: 0,
      failed: 1,
      requests: 4,
      exitCode: 8,
      durationMs: 20_000,
    });

    const metrics = readFileSync(metricsFile, 'utf8');
    const L = 'command="export",profile="default"';
    expect(metrics).toContain(`prs_items{${L},status="written"} 2\n`);
    expect(metrics).toContain(`prs_items{${L},status="skipped"} 1\n`);
    expect(metrics).toContain(`prs_items{${L},status="failed"} 1\n`);
    expect(metrics).toContain(`prs_bytes_written{${L}} 1500\n`);
    expect(metrics).toContain(`prs_rate_limit_wait_seconds{${L}} 15\n`);
    expect(metrics).toContain(`prs_requests_total{${L},endpoint="export",code="500"} 1\n`);
    expect(metrics).toContain(`prs_run_duration_seconds{${L}} 20\n`);
    expect(metrics).not.toContain('prs_last_success_timestamp_seconds{');

    expect(seen).toEqual([
      'GET /p/key/start\n',
      [
        'POST /p/key/8',
        'portfolio 500 on 2024-05-03: service error: 500',
        'prs: 3 written, 1 failed',
        'hint: see above',
        'prs export: exit 8 after 20.0 s; 2 written, 1 skipped, 1 failed; 4 requests',
      ].join('\n'),
    ]);
  });

  it('text format, no file, no monitor: nothing printed, nothing written; finish twice is once', async () => {
    const io = createTestIO();
    const deps = fakeDeps({ io });
    const run = await watchRun(deps, 'report');
    const ends: number[] = [];
    deps.events.on((e) => {
      if (e.event === 'end') ends.push(e.exitCode);
    });
    await run.finish(0, []);
    await run.finish(0, []);
    expect(ends).toEqual([0]);
    expect(io.stderrText()).toBe('');
  });
});
