/**
 * The watchers of a report/export run (CLI.md "Unattended runs"), wired once by main: the JSON log's
 * structured entries, the metrics file and the health pings. They listen on `deps.events` (run/
 * events.ts) and never change the run: whatever goes wrong with them is one warning, and the exit
 * code stays the run's. Commands know nothing of them.
 */
import { readFileSync } from 'node:fs';
import type { Deps } from '../deps.js';
import type { ItemStatus, RunEvent } from '../events.js';
import { replaceFile } from '../fs/atomic.js';
import type { LogEntry } from '../log.js';
import { redactPingUrl } from '../redact.js';
import { itemLabel } from '../run/outcomes.js';
import {
  checkSetting,
  effectiveSettings,
  globalSettingValues,
  resolveProxy,
  type Settings,
} from '../settings.js';
import { ITEM_STATUSES, lastSuccessFrom, metricsText, type RunMetrics } from './metrics.js';
import { type PingKind, pingRequest, sendPing } from './ping.js';

export type RunCommand = 'report' | 'export';

export interface RunObserver {
  /**
   * The run is over: emits `end`, writes the metrics file, sends the last ping (awaited, ≤ 5 s).
   * Never throws. `errorLines`: what main printed for the run's error (none on success).
   */
  finish(exitCode: number, errorLines: readonly string[]): Promise<void>;
  /** The forced way out (a second Ctrl-C): the metrics file only, synchronously. */
  finishNow(exitCode: number): void;
}

/** What the run's events add up to: the metrics, the summary line and a failure ping's body. */
export interface Tally {
  items: Record<ItemStatus, number>;
  requests: Map<
    string,
    { endpoint: RunMetrics['requests'][number]['endpoint']; code: number; count: number }
  >;
  rateLimitWaitMs: number;
  bytesWritten: number;
  /** Item failures as their lines ("portfolio 42 on 2024-05-03: …"), for the failure ping. */
  failures: string[];
}

export function emptyTally(): Tally {
  return {
    items: { written: 0, skipped: 0, empty: 0, failed: 0 },
    requests: new Map(),
    rateLimitWaitMs: 0,
    bytesWritten: 0,
    failures: [],
  };
}

/** Adds one event to the tally; pure apart from the tally it is given. */
export function count(t: Tally, e: RunEvent): void {
  if (e.event === 'item') {
    t.items[e.status]++;
    t.bytesWritten += e.bytes ?? 0;
    if (e.status === 'failed') t.failures.push(`${itemLabel(e.item)}: ${e.message ?? 'failed'}`);
  } else if (e.event === 'response') {
    const key = `${e.endpoint} ${e.status}`;
    const r = t.requests.get(key) ?? { endpoint: e.endpoint, code: e.status, count: 0 };
    r.count++;
    t.requests.set(key, r);
  } else if (e.event === 'wait' && e.reason !== 'backoff') {
    t.rateLimitWaitMs += e.waitMs;
  }
}

/** Every response counted, whatever its endpoint and status. */
function requestCount(t: Tally): number {
  let n = 0;
  for (const r of t.requests.values()) n += r.count;
  return n;
}

/** "prs export: exit 0 after 1.2 s; 2 written, 1 skipped; 3 requests" — the success ping's body and the summary entry's message. */
export function summaryLine(command: RunCommand, t: Tally, exitCode: number, durationMs: number): string {
  const items = ITEM_STATUSES.filter((s) => t.items[s] > 0).map((s) => `${t.items[s]} ${s}`);
  const requests = requestCount(t);
  return [
    `prs ${command}: exit ${exitCode} after ${(durationMs / 1000).toFixed(1)} s`,
    ...(items.length ? [items.join(', ')] : []),
    `${requests} ${requests === 1 ? 'request' : 'requests'}`,
  ].join('; ');
}

/** The structured log entry of a run event (json log format); undefined for those logged as text. */
export function entryOf(e: RunEvent): LogEntry | undefined {
  switch (e.event) {
    case 'start':
      return {
        level: 'info',
        event: 'start',
        message: `${e.command}: ${e.items} items, ${e.requests} requests`,
        items: e.items,
        requests: e.requests,
        etaMs: e.etaMs,
      };
    case 'wait':
      return {
        level: 'info',
        event: e.reason === 'rate-limit' ? 'wait' : 'retry',
        message: `waiting ${(e.waitMs / 1000).toFixed(1)} s (${e.reason})`,
        waitMs: e.waitMs,
        reason: e.reason,
        portfolioId: e.item?.portfolioId,
        date: e.item?.date,
      };
    case 'item':
      return {
        level: e.status === 'failed' ? 'error' : 'info',
        event: 'item',
        message: `${itemLabel(e.item)}: ${e.status}${e.message ? `: ${e.message}` : ''}`,
        portfolioId: e.item.portfolioId,
        date: e.item.date,
        status: e.status,
        path: e.path,
        bytes: e.bytes,
        exitCode: e.exitCode,
      };
    default:
      // `response`: with -v the HTTP layer's own line says it (with the URL); `end`: the summary.
      return undefined;
  }
}

function readText(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}

/** What the watchers need of the settings: where the run's signals go. */
type RunSignals = Pick<Settings, 'profile' | 'metricsFile' | 'pingUrl' | 'proxy'>;

/**
 * The run's settings do not resolve (a bad PRS_RATE_LIMIT, a hand-edited profile): the metrics file
 * and ping URL read on their own, so that the run's exit 2 is still recorded and pinged (CLI.md:
 * "after every report or export run"); the command then meets the same error and main ends the run
 * with it. When even they cannot be read, `err` goes on as before (no watchers).
 */
async function signalsAlone(deps: Deps, err: unknown): Promise<RunSignals> {
  try {
    const stored = await deps.profile().catch(() => undefined);
    const eff = effectiveSettings(globalSettingValues(deps.globals), deps.env, stored?.settings ?? {});
    const one = (key: 'metrics-file' | 'ping-url') => {
      const value = eff[key].value;
      return value ? checkSetting(key, value) : undefined;
    };
    return {
      profile: deps.profileName(),
      metricsFile: one('metrics-file'),
      pingUrl: one('ping-url'),
      proxy: resolveProxy(deps.env),
    };
  } catch {
    throw err;
  }
}

/**
 * Starts watching a report/export run (before its first request; sends the start ping). `run.type`:
 * the report type of the command's options, added to each item entry of the JSON log.
 */
export async function watchRun(
  deps: Deps,
  command: RunCommand,
  run: { type?: string } = {},
): Promise<RunObserver> {
  const s: RunSignals = await deps.settings().catch((err) => signalsAlone(deps, err));
  const { io } = deps;
  const started = deps.clock.now();
  const tally = emptyTally();
  const off = deps.events.on((e) => {
    count(tally, e);
    const entry = entryOf(e);
    if (entry) io.log(e.event === 'item' ? { ...entry, type: run.type } : entry);
  });
  const warn = (what: string, err: unknown) => io.err(`prs: warning: ${what}: ${(err as Error).message}`);

  // Pings go through a dispatcher of their own (proxy and TLS rules as for the service), made once.
  let dispatcher: Promise<import('undici').Dispatcher> | undefined;
  let pingWarned = false;
  const ping = async (kind: PingKind, exitCode?: number, body?: string) => {
    if (!s.pingUrl) return;
    try {
      dispatcher ??= import('../http/client.js').then((m) => m.createDispatcher(s.proxy, 5_000));
      await sendPing(await dispatcher, pingRequest(s.pingUrl, kind, exitCode, body));
    } catch (err) {
      // One warning per run: an unreachable monitor is one problem, however many pings it misses.
      if (!pingWarned) warn(`could not ping the monitor (${kind})`, err);
      pingWarned = true;
    }
  };
  // Not awaited: the run starts at once; finish() waits for it before the last ping.
  const startPing = ping('start');
  if (s.pingUrl) io.debug(`ping: monitor ${redactPingUrl(s.pingUrl)}`);

  let finished = false;
  const writeMetrics = (exitCode: number, now: number) => {
    if (!s.metricsFile) return;
    try {
      const text = readText(s.metricsFile);
      const previous = lastSuccessFrom(text, command, s.profile);
      // Replaced whole, synchronously (a second Ctrl-C writes it on the way out): the collector never
      // reads half a file. Other commands' and profiles' series in it are kept.
      replaceFile(
        s.metricsFile,
        metricsText(
          {
            command,
            profile: s.profile,
            exitCode,
            endedAt: now,
            durationMs: now - started,
            lastSuccessAt: exitCode === 0 ? now : previous,
            items: tally.items,
            requests: [...tally.requests.values()],
            rateLimitWaitMs: tally.rateLimitWaitMs,
            bytesWritten: tally.bytesWritten,
          },
          text,
        ),
      );
    } catch (err) {
      warn(`could not write the metrics file ${s.metricsFile}`, err);
    }
  };

  return {
    async finish(exitCode, errorLines) {
      if (finished) return;
      finished = true;
      const now = deps.clock.now();
      const durationMs = now - started;
      deps.events.emit({ event: 'end', exitCode, durationMs });
      off();
      const summary = summaryLine(command, tally, exitCode, durationMs);
      io.log({
        level: exitCode === 0 ? 'info' : 'error',
        event: 'summary',
        message: summary,
        ...tally.items,
        requests: requestCount(tally),
        exitCode,
        durationMs,
      });
      writeMetrics(exitCode, now);
      await startPing;
      if (exitCode === 0) await ping('success', 0, summary);
      else await ping('failure', exitCode, [...tally.failures, ...errorLines, summary].join('\n'));
      await dispatcher?.then((d) => d.destroy()).catch(() => {});
    },
    finishNow(exitCode) {
      if (finished) return;
      finished = true;
      writeMetrics(exitCode, deps.clock.now());
    },
  };
}
