// A past date's fresh entry answers with no token, slot or request; the real service is built on a miss.
import { identityOf } from '../auth/identity.js';
import { type Clock, isoSeconds } from '../clock.js';
import { ServiceError } from '../errors.js';
import type { IO } from '../io.js';
import { readAnswer } from '../rows/answer.js';
import type { ReportQuery, ReportService, Service } from '../service/types.js';
import type { Settings } from '../settings.js';
import { type AnswerKey, type CacheStore, createCacheStore, entryChunks } from './store.js';

export type CacheUse = 'use' | 'refresh' | 'off';

export function answerKey(
  s: Pick<Settings, 'baseUrl' | 'realm' | 'clientId' | 'tenant' | 'token' | 'username' | 'profile'>,
  q: ReportQuery,
): AnswerKey | undefined {
  if (!s.baseUrl || !s.tenant) return undefined;
  const { baseUrl, tenant, realm = '', clientId = '' } = s;
  return { baseUrl, realm, clientId, identity: identityOf(s), tenant, ...q };
}

/** Strictly before today (UTC): today's answer can still change. */
export const cacheableDate = (date: string, now: number) => date < new Date(now).toISOString().slice(0, 10);

export function storeFor(s: Settings, clock: Pick<Clock, 'now'>): CacheStore | undefined {
  if (s.cacheMaxAgeMs === undefined) return undefined;
  return createCacheStore({ cacheDir: s.cacheDir, maxBytes: s.cacheMaxBytes, clock });
}

interface CachedServiceOptions {
  settings: Settings;
  use: Exclude<CacheUse, 'off'>;
  store: CacheStore;
  clock: Pick<Clock, 'now'>;
  io: Pick<IO, 'debug'>;
  real: () => Promise<Service>;
}

export function cachedService(o: CachedServiceOptions): ReportService {
  const maxAgeMs = o.settings.cacheMaxAgeMs ?? 0;
  const profile = o.settings.profile;
  const keyOf = (q: ReportQuery) =>
    cacheableDate(q.date, o.clock.now()) ? answerKey(o.settings, q) : undefined;
  return {
    asks(q) {
      const key = o.use === 'use' && keyOf(q);
      return !key || !o.store.likely(profile, key, maxAgeMs);
    },
    async report(q, hooks, use) {
      const key = keyOf(q);
      if (key && o.use === 'use') {
        const hit = o.store.get(profile, key, maxAgeMs);
        if (hit) {
          o.io.debug(
            `cache hit: portfolio ${q.portfolioId} ${q.reportType} ${q.date} (stored ${isoSeconds(hit.storedAt)})`,
          );
          const drop = (m: { why: string }) => {
            o.store.remove(profile, key);
            return new ServiceError(`a cached answer is not a report (${m.why}); it was removed`, {
              hint: 'run the command again to ask the service',
            });
          };
          return use({ read: (sink) => readAnswer(entryChunks(hit), sink, drop) });
        }
      }
      const real = await o.real();
      if (!key) return real.report(q, hooks, use);
      return real.report(q, hooks, (res) =>
        use({
          async read(sink) {
            const entry = o.store.writer(profile, key);
            const rows = await res
              .read({
                rows: sink.rows && ((r) => sink.rows!(r)),
                bytes(chunk) {
                  entry.write(chunk);
                  sink.bytes?.(chunk);
                },
              })
              .catch((err) => {
                entry.abort();
                throw err;
              });
            try {
              entry.commit();
            } catch (err) {
              // A cache that cannot be written costs a request next time, never this answer.
              o.io.debug(`cache: not stored (${(err as Error).message})`);
            }
            return rows;
          },
        }),
      );
    },
    limiterState: async () => (await o.real()).limiterState?.(),
    async close() {},
  };
}
