import type { CacheUse } from './cache/answers.js';
import type { CacheStore } from './cache/store.js';
import { type Clock, systemClock } from './clock.js';
import { type Env, resolveDirs } from './dirs.js';
import { createRunEvents } from './events.js';
import type { IO } from './io.js';
import type { ReportService, Service } from './service/types.js';
import {
  type GlobalOptions,
  resolveProfileName,
  type Settings,
  type SettingValues,
  settingsFrom,
  storedProfile,
} from './settings.js';

export type Deps = ReturnType<typeof createDeps>;

export function createDeps(
  io: IO,
  env: Env,
  globals: GlobalOptions,
  signal: AbortSignal,
  o: { clock?: Clock } = {},
) {
  const clock = o.clock ?? systemClock;
  const once = <T>(f: () => Promise<T>): (() => Promise<T>) => {
    let p: Promise<T> | undefined;
    return () => (p ??= f());
  };
  const profileName = () => resolveProfileName(globals.profile, env);
  const store = once(async () =>
    (await import('./auth/store.js')).openStore(resolveDirs(env).configDir, { warn: io.warn }),
  );
  const profile = async (po: { allowNew?: boolean } = {}) =>
    storedProfile(await store(), profileName(), po.allowNew);
  const resolved = new Map<string, Promise<Settings>>();
  const settings = async (
    extra?: SettingValues,
    so: { allowNewProfile?: boolean; lenient?: boolean } = {},
  ) => {
    const key = JSON.stringify([extra, so]);
    const pending =
      resolved.get(key) ?? store().then((st) => settingsFrom(st, globals, env, { ...so, extra }));
    resolved.set(key, pending);
    const s = await pending;
    io.useLogFormat(s.logFormat);
    return s;
  };
  const events = createRunEvents();
  const http = once(async () => {
    // `prs login` creates profiles: do not demand one.
    const s = await settings().catch(() => settings(undefined, { allowNewProfile: true }));
    const { createHttp } = await import('./http/client.js');
    return createHttp({ timeoutMs: s.timeoutMs, proxy: s.proxy, io, events });
  });
  const context = async () => ({ clock, io, signal, settings: await settings(), http: await http() });
  const session = once(async () => {
    const { createSession } = await import('./auth/session.js');
    return createSession({ ...(await context()), store: await store() });
  });
  let serviceInstance: Service | undefined;
  const realService = once(async () => {
    const { createService } = await import('./service/service.js');
    serviceInstance = createService({ ...(await context()), session: await session() });
    return serviceInstance;
  });
  let answers: CacheStore | undefined;
  function service(): Promise<Service>;
  function service(so: { cache: CacheUse }): Promise<ReportService>;
  async function service(so: { cache?: CacheUse } = {}): Promise<ReportService> {
    const s = await settings();
    if (so.cache === undefined || so.cache === 'off' || s.cacheMaxAgeMs === undefined) return realService();
    const { cachedService, storeFor } = await import('./cache/answers.js');
    answers ??= storeFor(s, clock)!;
    return cachedService({ settings: s, use: so.cache, store: answers, clock, io, real: realService });
  }
  return {
    io,
    env,
    clock,
    signal,
    globals,
    events,
    profileName,
    store,
    profile,
    settings,
    http,
    session,
    service,
    // The HTTP client's idle keep-alive sockets are unref'd and go with the process: closing them costs CPU.
    close: async () => {
      await serviceInstance?.close();
    },
  };
}
