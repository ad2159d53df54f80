/**
 * Waits are never silent: every pause of the service (the shared limiter's, whoever holds its slots,
 * a Retry-After, a backoff) reaches onWait with its reason and duration and is a -v line; a
 * Retry-After longer than prs waits fails at once (exit 7 for a 429) naming the time. Fake clock:
 * nothing sleeps.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MockAgent } from 'undici';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Session } from '../../../src/auth/session.js';
import { exitCodeFor, HttpError } from '../../../src/errors.js';
import { createHttp } from '../../../src/http/client.js';
import { limiterFile } from '../../../src/service/limiter.js';
import { createService } from '../../../src/service/service.js';
import type { CallHooks } from '../../../src/service/types.js';
import { resolveSettings, type SettingValues } from '../../../src/settings.js';
import { FakeClock } from '../../helpers/clock.js';
import { createTestIO, type TestIO } from '../../helpers/io.js';

const ORIGIN = 'https://api.example.test';
const PATH = '/api/v1/report-service/report/generate/portfolio/42';
const Q = { portfolioId: 42, reportType: 'index' as const, date: '2024-05-01' };
const ROWS = '{"report":[]}';

let agent: MockAgent;
let cacheDir: string;
let clock: FakeClock;
let io: TestIO;
let waits: [number, string][];
const hooks: CallHooks = { onWait: (ms, reason) => waits.push([ms, reason]) };

beforeEach(() => {
  agent = new MockAgent();
  agent.disableNetConnect();
  cacheDir = mkdtempSync(join(tmpdir(), 'prs-waits-'));
  clock = new FakeClock();
  io = createTestIO({ verbose: true });
  waits = [];
});

afterEach(async () => {
  agent.assertNoPendingInterceptors();
  await agent.close();
  rmSync(cacheDir, { recursive: true, force: true });
});

function service(values: SettingValues = {}) {
  const settings = resolveSettings(
    { 'base-url': ORIGIN, tenant: 'acme', username: 'alice', ...values },
    { PRS_CACHE_DIR: cacheDir },
  );
  const session: Session = { token: async () => 'tok', renew: async () => 'tok' };
  const http = createHttp({ timeoutMs: 5000, proxy: {}, io, dispatcher: agent });
  return createService({
    settings,
    session,
    http,
    clock,
    io,
    signal: new AbortController().signal,
    random: () => 0.5,
  });
}

function answer(status: number, headers: Record<string, string> = {}, times = 1) {
  agent
    .get(ORIGIN)
    .intercept({ path: PATH, method: 'GET', query: { reportType: 'index', date: '2024-05-01' } })
    .reply(status, status === 200 ? ROWS : '{"message":"slow down"}', { headers })
    .times(times);
}

const waitLines = () =>
  io
    .stderrText()
    .split('\n')
    .filter((l) => l.startsWith('~ waiting'));

describe('a Retry-After longer than prs waits', () => {
  it.each([
    ['3600', 3_600_000, '2024-05-01T07:00:00Z'],
    ['121', 121_000, '2024-05-01T06:02:01Z'],
    [new Date(Date.UTC(2024, 4, 1, 9, 30)).toUTCString(), 12_600_000, '2024-05-01T09:30:00Z'],
  ])('429 with Retry-After %s: HttpError (exit 7) at once, naming the time', async (value, _ms, at) => {
    answer(429, { 'retry-after': value });
    const started = clock.now();
    const err = await service()
      .report(Q, hooks, (res) => res.read({}))
      .catch((e: Error) => e);
    expect(err).toBeInstanceOf(HttpError);
    expect(exitCodeFor(err)).toBe(7);
    expect((err as Error).message).toContain(`until ${at}; prs waits at most 120 s`);
    expect((err as HttpError).hint).toBe(`run it again after ${at}`);
    expect(clock.now()).toBe(started); // not one millisecond waited
    expect(waits).toEqual([]);
  });

  it('a 503 asking for an hour fails at once too, as the service error it is (exit 8)', async () => {
    answer(503, { 'retry-after': '3600' });
    const err = await service()
      .report(Q, hooks, (res) => res.read({}))
      .catch((e: Error) => e);
    expect(err).toBeInstanceOf(HttpError);
    expect(exitCodeFor(err)).toBe(8);
    expect((err as Error).message).toMatch(
      /^service error: 503 .* the service asks to wait 1 h 00 min, until 2024-05-01T07:00:00Z/,
    );
  });

  it('exactly 120 s is still waited for, and shown', async () => {
    answer(429, { 'retry-after': '120' });
    answer(200);
    await service().report(Q, hooks, (res) => res.read({}));
    expect(waits).toEqual([[120_000, 'retry-after']]);
    expect(waitLines()).toEqual(['~ waiting 120.0 s (retry-after)']);
  });
});

describe('every wait reaches onWait and is a -v line', () => {
  it('retry waits: backoff and Retry-After', async () => {
    answer(500);
    answer(429, { 'retry-after': '2' });
    answer(200);
    await service().report(Q, hooks, (res) => res.read({}));
    expect(waits).toEqual([
      [750, 'backoff'],
      [2000, 'retry-after'],
    ]);
    expect(waitLines()).toEqual(['~ waiting 0.8 s (backoff)', '~ waiting 2.0 s (retry-after)']);
  });

  it("the shared limiter held by another process (its 429 blocked everyone): this process's wait is shown", async () => {
    // Another prs process for the same account met a 429 with Retry-After: 30 and wrote `until`.
    const file = limiterFile(cacheDir, ORIGIN, 'acme', 'alice');
    writeFileSync(file, JSON.stringify({ v: 1, stamps: [], until: clock.now() + 30_000 }));
    answer(200);
    await service().report(Q, hooks, (res) => res.read({}));
    expect(waits).toEqual([[30_000, 'rate-limit']]);
    expect(waitLines()).toEqual(['~ waiting 30.0 s (rate-limit)']);
  });

  it('the window full of requests from other processes: each wait until a slot frees is shown', async () => {
    const file = limiterFile(cacheDir, ORIGIN, 'acme', 'alice');
    const now = clock.now();
    writeFileSync(file, JSON.stringify({ v: 1, stamps: [now - 1000, now - 500, now - 200, now - 100] }));
    answer(200);
    await service({ 'rate-limit': '4/2s' }).report(Q, hooks, (res) => res.read({}));
    expect(waits).toEqual([[1000, 'rate-limit']]);
    expect(waitLines()).toEqual(['~ waiting 1.0 s (rate-limit)']);
  });

  it('without -v no line, but onWait still hears every wait', async () => {
    io = createTestIO();
    answer(503, { 'retry-after': '1' });
    answer(200);
    await service().report(Q, hooks, (res) => res.read({}));
    expect(waits).toEqual([[1000, 'retry-after']]);
    expect(io.stderrText()).toBe('');
  });
});
