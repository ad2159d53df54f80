/** Hand-built Deps for unit tests of commands: every dependency is a fake the test controls. */
import type { Session } from '../../src/auth/session.js';
import type { ProfileData, Store } from '../../src/auth/types.js';
import type { Deps } from '../../src/deps.js';
import { createRunEvents } from '../../src/events.js';
import type { Http } from '../../src/http/client.js';
import type { Service } from '../../src/service/types.js';
import {
  type GlobalOptions,
  resolveSettings,
  type Settings,
  type SettingValues,
  storedProfile,
} from '../../src/settings.js';
import { FakeClock } from './clock.js';
import { createTestIO, type TestIO } from './io.js';

/** An in-memory Store. */
export function memoryStore(
  initial: Record<string, ProfileData> = {},
  path = '/tmp/prs-test/config.json',
): Store {
  const data = new Map(Object.entries(structuredClone(initial)));
  return {
    path,
    profileNames: () => [...data.keys()].sort(),
    get: (p) => (data.has(p) ? structuredClone(data.get(p)) : undefined),
    update: async (p, fn) => {
      const next = fn(data.has(p) ? structuredClone(data.get(p)) : undefined);
      if (next === undefined) data.delete(p);
      else data.set(p, structuredClone(next));
    },
  };
}

interface FakeDepsOptions {
  io?: TestIO;
  env?: Record<string, string>;
  globals?: GlobalOptions;
  profile?: SettingValues;
  store?: Store;
  clock?: FakeClock;
  service?: Partial<Service>;
  session?: Partial<Session>;
  http?: Http;
  signal?: AbortSignal;
}

export function fakeDeps(o: FakeDepsOptions = {}): Deps & { io: TestIO; clock: FakeClock } {
  const io = o.io ?? createTestIO();
  const clock = o.clock ?? new FakeClock();
  const env = o.env ?? { PRS_CONFIG_DIR: '/tmp/prs-test', PRS_CACHE_DIR: '/tmp/prs-test/cache' };
  const store = o.store ?? memoryStore(o.profile ? { default: { settings: o.profile } } : {});
  const globals = o.globals ?? {};
  const settings = async (extra: SettingValues = {}): Promise<Settings> =>
    resolveSettings(
      { ...extra, profile: globals.profile },
      env,
      store.get(globals.profile ?? 'default')?.settings ?? {},
    );
  const notFaked = (what: string) => () => {
    throw new Error(`fakeDeps: ${what} was not faked in this test`);
  };
  return {
    io,
    env,
    clock,
    signal: o.signal ?? new AbortController().signal,
    globals,
    events: createRunEvents(),
    profileName: () => globals.profile ?? 'default',
    store: async () => store,
    profile: async (po = {}) => storedProfile(store, globals.profile ?? 'default', po.allowNew),
    settings,
    http: async () => o.http ?? (notFaked('http')() as never),
    session: async () =>
      ({
        token: notFaked('session.token'),
        renew: notFaked('session.renew'),
        ...o.session,
      }) as Session,
    service: async () => {
      return {
        report: notFaked('service.report'),
        exportReport: notFaked('service.exportReport'),
        close: async () => {},
        ...o.service,
      } as Service;
    },
    close: async () => {},
  };
}
