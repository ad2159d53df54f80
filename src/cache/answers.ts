/**
 * The answer cache in front of the service (CLI.md "The answer cache"): `report()` for a past date is
 * answered from the store when a fresh entry is there — no token, no limiter slot, no request, and
 * none of the HTTP client loaded — else asked of the real service (built only then) and kept.
 *
 * What is kept: answers for dates before today (UTC) only (today's can still change); successes only
 * (an error throws before anything is stored) and only a body that is a report (a proxy's 200 HTML
 * page must not be served for a week); an empty answer is kept (no data is a fact: exit 3). The body
 * is stored as it streams through the row stream (decoded), and the entry committed once the row
 * stream found all of it a report; a hit streams from the entry's file.
 */

import { identityOf } from '../auth/identity.js';
import { type Clock, isoSeconds } from '../clock.js';
import { ServiceError } from '../errors.js';
import type { IO } from '../io.js';
import { readAnswer } from '../rows/answer.js';
import type { ReportQuery, ReportResponse, Service } from '../service/types.js';
import type { Settings } from '../settings.js';
import {
  type AnswerKey,
  type CachedAnswer,
  type CacheStore,
  createCacheStore,
  entryChunks,
} from './store.js';

/** What a run does with the cache: use it, ask again and update it (--refresh), or leave it (--no-cache). */
export type CacheUse = 'use' | 'refresh' | 'off';

/** The key of one answer, from the settings alone (no token call); undefined when not cacheable. */
export function answerKey(
  s: Pick<Settings, 'baseUrl' | 'realm' | 'clientId' | 'tenant' | 'token' | 'username' | 'profile'>,
  q: ReportQuery,
): AnswerKey | undefined {
  // Without a base URL or tenant the service refuses the run (a usage error): nothing to key.
  if (!s.baseUrl || !s.tenant) return undefined;
  return {
    baseUrl: s.baseUrl,
    realm: s.realm ?? '',
    clientId: s.clientId ?? '',
    identity: identityOf(s),
    tenant: s.tenant,
    portfolioId: q.portfolioId,
    reportType: q.reportType,
    date: q.date,
  };
}

/** Today's date in UTC, YYYY-MM-DD: dates before it may be cached. */
export const todayUtc = (now: number) => new Date(now).toISOString().slice(0, 10);

/** A date whose answer may be kept: strictly before today (UTC). */
export const cacheableDate = (date: string, now: number) => date < todayUtc(now);

/** The store for these settings; undefined when the cache is off. */
export function storeFor(s: Settings, clock: Pick<Clock, 'now'>): CacheStore | undefined {
  if (s.cacheMaxAgeMs === undefined) return undefined;
  return createCacheStore({ cacheDir: s.cacheDir, maxBytes: s.cacheMaxBytes, clock });
}

export interface CachedServiceOptions {
  settings: Settings;
  use: Exclude<CacheUse, 'off'>;
  store: CacheStore;
  clock: Pick<Clock, 'now'>;
  io: Pick<IO, 'debug'>;
  /** The real service, built on the first miss only. */
  real: () => Promise<Service>;
}

export function cachedService(o: CachedServiceOptions): Service {
  const maxAgeMs = o.settings.cacheMaxAgeMs ?? 0;
  const profile = o.settings.profile;
  const label = (q: ReportQuery) => `portfolio ${q.portfolioId} ${q.reportType} ${q.date}`;
  return {
    async report(q, hooks, use) {
      const key = cacheableDate(q.date, o.clock.now()) ? answerKey(o.settings, q) : undefined;
      if (key && o.use === 'use') {
        const hit = o.store.get(profile, key, maxAgeMs);
        if (hit) {
          o.io.debug(`cache hit: ${label(q)} (stored ${isoSeconds(hit.storedAt)})`);
          return use(fromCache(hit, () => o.store.remove(profile, key)));
        }
      }
      const real = await o.real();
      if (!key) return real.report(q, hooks, use);
      return real.report(q, hooks, (res) =>
        use({
          async read(sink) {
            const entry = o.store.writer(profile, key);
            let rows: number;
            try {
              rows = await res.read({
                rows: sink.rows && ((r) => sink.rows!(r)),
                bytes(chunk) {
                  entry.write(chunk);
                  sink.bytes?.(chunk);
                },
              });
            } catch (err) {
              entry.abort();
              throw err;
            }
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
    async exportReport(q, hooks) {
      return (await o.real()).exportReport(q, hooks);
    },
    async exportReportWith(q, hooks, save) {
      return (await o.real()).exportReportWith(q, hooks, save);
    },
    async close() {
      // The real service (if one was built) is closed by deps with the HTTP client.
    },
  };
}

/**
 * A stored answer as the service would have given it, read from its file. It was a report when
 * stored; should the row stream still refuse it, the entry goes, so the next run asks again.
 */
function fromCache(hit: CachedAnswer, drop: () => void): ReportResponse {
  return {
    read(sink) {
      return readAnswer(entryChunksAsync(hit), sink, (m) => {
        drop();
        return new ServiceError(`a cached answer is not a report (${m.why}); it was removed`, {
          hint: 'run the command again to ask the service',
        });
      });
    },
  };
}

async function* entryChunksAsync(hit: CachedAnswer): AsyncGenerator<Buffer> {
  yield* entryChunks(hit);
}
