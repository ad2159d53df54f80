/**
 * createDeps(): everything a command may need, built lazily so that a command pays only for what it
 * uses (`completion` builds no HTTP client, `--version` loads none of this at all).
 */
import type { ProfileData, Session, Store } from './auth/types.js';
import type { CacheUse } from './cache/answers.js';
import { type Clock, systemClock } from './clock.js';
import { createRunEvents, type RunEvents } from './events.js';
import type { Http } from './http/client.js';
import type { IO } from './io.js';
import type { Service } from './service/types.js';
import {
  type Env,
  type GlobalOptions,
  globalSettingValues,
  resolveDirs,
  resolveProfileName,
  resolveSettings,
  type Settings,
  type SettingValues,
  storedProfile,
} from './settings.js';

export type { GlobalOptions } from './settings.js';

export interface Deps {
  io: IO;
  env: Env;
  clock: Clock;
  /** Aborted on Ctrl-C: pass it down so waits and requests stop and temp files are removed. */
  signal: AbortSignal;
  globals: GlobalOptions;
  /** What a report/export run tells its watchers (JSON log, metrics file, pings): events.ts. */
  events: RunEvents;
  /** The profile name in force (flag > PRS_PROFILE > "default"). */
  profileName(): string;
  store(): Promise<Store>;
  /**
   * The stored profile (undefined when none). A named profile that does not exist is a UsageError
   * listing the ones that do, unless `allowNew` (login and `config set` create profiles).
   */
  profile(opts?: { allowNew?: boolean }): Promise<ProfileData | undefined>;
  /**
   * Flags (global + `extra`, e.g. login's) > env > profile > defaults. A named profile that does not
   * exist is a UsageError listing the ones that do, unless `allowNewProfile` (login creates profiles).
   */
  settings(extra?: SettingValues, opts?: { allowNewProfile?: boolean }): Promise<Settings>;
  http(): Promise<Http>;
  session(): Promise<Session>;
  /**
   * The service. `cache` (report only): 'use' or 'refresh' put the answer cache in front of it when
   * the cache is on (--cache, PRS_CACHE or the profile's `cache`); a cache hit then builds no HTTP
   * client, session or limiter at all. Without it (or 'off', --no-cache): the service itself.
   * `rows`: its answers will be read through the row stream (ProcessSwitches.beforeRows).
   */
  service(o?: { cache?: CacheUse; rows?: boolean }): Promise<Service>;
  /** Closes what was opened (HTTP keep-alive sockets), so the process can exit promptly. */
  close(): Promise<void>;
}

/** Process-wide switches, defined (with their reasons) in src/entry.ts only. */
export interface ProcessSwitches {
  /** Called once before the first HTTP client is made. */
  beforeHttp?: () => Promise<void>;
  /** Called once before the first report answer is read (from the service or the answer cache). */
  beforeRows?: () => Promise<void>;
}

export interface DepsOverrides extends ProcessSwitches {
  clock?: Clock;
  /** Tests hand an undici MockAgent here. */
  dispatcher?: import('undici').Dispatcher;
}

export function createDeps(
  io: IO,
  env: Env,
  globals: GlobalOptions,
  signal: AbortSignal,
  o: DepsOverrides = {},
): Deps {
  const clock = o.clock ?? systemClock;
  const once = <T>(f: () => Promise<T>): (() => Promise<T>) => {
    let p: Promise<T> | undefined;
    return () => {
      p ??= f();
      return p;
    };
  };
  const profileName = () => resolveProfileName(globals.profile, env);
  const store = once(async () =>
    (await import('./auth/store.js')).openStore(resolveDirs(env).configDir, { warn: (line) => io.err(line) }),
  );
  const profile = async (po: { allowNew?: boolean } = {}) =>
    storedProfile(await store(), profileName(), po.allowNew);
  const settings = async (extra: SettingValues = {}, so: { allowNewProfile?: boolean } = {}) => {
    const stored = await profile({ allowNew: so.allowNewProfile });
    const resolved = resolveSettings(
      { ...globalSettingValues(globals), ...extra, profile: globals.profile },
      env,
      stored?.settings ?? {},
    );
    // A profile's log-format applies from here on (the flag and PRS_LOG_FORMAT did from the start).
    io.useLogFormat(resolved.logFormat);
    return resolved;
  };
  const events = createRunEvents();
  let httpClient: Http | undefined;
  const http = once(async () => {
    // Only timeout and proxy are needed here; `prs login` creates profiles, so do not demand one.
    const s = await settings(undefined, { allowNewProfile: true });
    const { createHttp } = await import('./http/client.js');
    await o.beforeHttp?.();
    httpClient = createHttp({ timeoutMs: s.timeoutMs, proxy: s.proxy, io, dispatcher: o.dispatcher, events });
    return httpClient;
  });
  const session = once(async () => {
    const { createSession } = await import('./auth/session.js');
    return createSession({
      settings: await settings(),
      store: await store(),
      http: await http(),
      clock,
      io,
      signal,
    });
  });
  let serviceInstance: Service | undefined;
  const realService = once(async () => {
    const { createService } = await import('./service/service.js');
    serviceInstance = createService({
      settings: await settings(),
      session: await session(),
      http: await http(),
      clock,
      io,
      signal,
    });
    return serviceInstance;
  });
  const rows = once(async () => o.beforeRows?.());
  const cached = once(async () => {
    const s = await settings();
    // The cache is off unless asked for: then its module is not loaded at all (a small report's start).
    if (s.cacheMaxAgeMs === undefined) return undefined;
    const { storeFor } = await import('./cache/answers.js');
    return storeFor(s, clock);
  });
  const service = async (so: { cache?: CacheUse; rows?: boolean } = {}): Promise<Service> => {
    if (so.rows) await rows();
    if (so.cache === undefined || so.cache === 'off') return realService();
    const store = await cached();
    if (!store) return realService();
    const { cachedService } = await import('./cache/answers.js');
    return cachedService({ settings: await settings(), use: so.cache, store, clock, io, real: realService });
  };
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
    close: async () => {
      await serviceInstance?.close();
      await httpClient?.close();
    },
  };
}
