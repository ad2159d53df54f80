/**
 * The cache in front of the service (src/cache/answers.ts cachedService): a hit never builds or calls
 * the real service; a miss asks it and keeps what may be kept; --refresh asks and updates.
 */
import { writeFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { identityOf } from '../../../src/auth/identity.js';
import { cachedService } from '../../../src/cache/answers.js';
import { type CacheStore, createCacheStore } from '../../../src/cache/store.js';
import { ServiceError } from '../../../src/errors.js';
import { limiterFile } from '../../../src/service/limiter.js';
import type { ReportQuery, Service } from '../../../src/service/types.js';
import { resolveSettings } from '../../../src/settings.js';
import { answerOf, readWhole } from '../../helpers/answers.js';
import { putEntry } from '../../helpers/cache.js';
import { FakeClock } from '../../helpers/clock.js';
import { createTestIO } from '../../helpers/io.js';
import { tempDir } from '../../helpers/run.js';

let tmp: ReturnType<typeof tempDir>;
let clock: FakeClock;
let store: CacheStore;
let asked: ReportQuery[];
let built: number;
let body: string | Error;

beforeEach(() => {
  tmp = tempDir('prs-cache-answers-');
  clock = new FakeClock(Date.UTC(2024, 4, 10, 12)); // "today" is 2024-05-10
  store = createCacheStore({ cacheDir: tmp.path, maxBytes: 1024 ** 2, clock });
  asked = [];
  built = 0;
  body = '{"report":[{"effectiveDate":"2024-05-02","indexValue":1.10}]}';
});
afterEach(() => tmp.cleanup());

const settings = resolveSettings(
  {},
  {
    PRS_CACHE_DIR: '/unused',
    PRS_BASE_URL: 'https://reports.example.com',
    PRS_TENANT: 'T1',
    PRS_USERNAME: 'demo',
    PRS_CACHE: '7d',
  },
);

function service(use: 'use' | 'refresh' = 'use') {
  const io = createTestIO({ verbose: true });
  const real = async (): Promise<Service> => {
    built++;
    return {
      async report(q, _hooks, use) {
        asked.push(q);
        if (body instanceof Error) throw body;
        return use(answerOf(body));
      },
      exportReport: async () => {
        throw new Error('not here');
      },
      close: async () => {},
    };
  };
  return { io, svc: cachedService({ settings, use, store, clock, io, real }) };
}
const Q = { portfolioId: 42, reportType: 'index' as const, date: '2024-05-02' };

describe('cachedService', () => {
  it('a miss asks and keeps; the hit neither builds nor asks the real service, and says so with -v', async () => {
    const first = service();
    await readWhole(first.svc, Q);
    expect([built, asked.length]).toEqual([1, 1]);
    const second = service();
    const res = await readWhole(second.svc, Q);
    expect([built, asked.length]).toEqual([1, 1]);
    expect(res.bytes.toString()).toBe(body);
    expect(res.rows).toEqual([{ effectiveDate: '2024-05-02', indexValue: expect.anything() }]);
    expect(second.io.stderrText()).toMatch(
      /^cache hit: portfolio 42 index 2024-05-02 \(stored 2024-05-10T12:00:00Z\)$/m,
    );
  });

  it.each([
    ['today', { date: '2024-05-10' }],
    ['a future date', { date: '2024-05-13' }],
  ])('%s: asked every time, never kept', async (_n, q) => {
    await readWhole(service().svc, { ...Q, ...q });
    await readWhole(service().svc, { ...Q, ...q });
    expect(asked.length).toBe(2);
    expect(store.info().entries).toBe(0);
  });

  it.each([
    ['an error', new ServiceError('boom')],
    ['a body that is not a report', '<html>maintenance</html>'],
  ])('%s is not kept', async (_n, answer) => {
    body = answer;
    await expect(readWhole(service().svc, Q)).rejects.toThrow();
    expect(store.info().entries).toBe(0);
  });

  it('an empty answer is kept', async () => {
    body = '';
    await readWhole(service().svc, Q);
    const hit = await readWhole(service().svc, Q);
    expect(asked.length).toBe(1);
    expect(hit.rows).toEqual([]);
  });

  it('asks: false only for a fresh stored answer under --cache (what the ETA leaves out), building nothing', async () => {
    expect(service().svc.asks?.(Q)).toBe(true);
    await readWhole(service().svc, Q);
    built = 0;
    expect(service().svc.asks?.(Q)).toBe(false);
    expect(service('refresh').svc.asks?.(Q)).toBe(true);
    expect(service().svc.asks?.({ ...Q, portfolioId: 43 })).toBe(true);
    expect(service().svc.asks?.({ ...Q, date: '2024-05-10' })).toBe(true); // today
    clock.advance(7 * 86_400_000);
    expect(service().svc.asks?.(Q)).toBe(true);
    expect(built).toBe(0);
  });

  it('--refresh asks again and replaces the entry; older than max-age is asked again', async () => {
    await readWhole(service().svc, Q);
    body = '{"report":[]}';
    await readWhole(service('refresh').svc, Q);
    expect(asked.length).toBe(2);
    expect((await readWhole(service().svc, Q)).bytes.toString()).toBe('{"report":[]}');
    clock.advance(7 * 86_400_000);
    await readWhole(service().svc, Q);
    expect(asked.length).toBe(3);
  });
});

describe('deps.service({cache})', () => {
  it('a hit answers without a session or a service that answers (nothing is sent)', async () => {
    const { createDeps } = await import('../../../src/deps.js');
    const env = {
      PRS_CONFIG_DIR: `${tmp.path}/config`,
      PRS_CACHE_DIR: tmp.path,
      PRS_BASE_URL: 'http://127.0.0.1:9',
      PRS_TENANT: 'T1',
      PRS_USERNAME: 'demo',
    };
    const io = createTestIO({ verbose: true });
    const deps = createDeps(io, env, { cache: '7d' }, new AbortController().signal, { clock });
    const s = await deps.settings();
    const { answerKey } = await import('../../../src/cache/answers.js');
    putEntry(store, s.profile, answerKey(s, Q)!, Buffer.from('{"report":[]}'));
    const svc = await deps.service({ cache: 'use' });
    expect((await readWhole(svc, Q)).bytes.toString()).toBe('{"report":[]}');
    expect(io.stderrText()).not.toMatch(/^> /m);
    await deps.close();
  });

  it("the ETA counts the shared limiter's slots, as without the cache", async () => {
    const { createDeps } = await import('../../../src/deps.js');
    const env = {
      PRS_CONFIG_DIR: `${tmp.path}/config`,
      PRS_CACHE_DIR: tmp.path,
      PRS_BASE_URL: 'http://127.0.0.1:9',
      PRS_TENANT: 'T1',
      PRS_USERNAME: 'demo',
    };
    const deps = createDeps(createTestIO(), env, { cache: '7d' }, new AbortController().signal, { clock });
    const s = await deps.settings();
    const file = limiterFile(s.cacheDir, s.baseUrl!, s.tenant!, identityOf(s));
    writeFileSync(file, JSON.stringify({ v: 1, stamps: [clock.now() - 1000] }));
    const svc = await deps.service({ cache: 'use' });
    expect((await svc.limiterState?.())?.state.stamps).toEqual([clock.now() - 1000]);
    await deps.close();
  });
});
