// A run's watchers (JSON log, metrics file, pings) never change it: a failure is one warning.
import type { Dispatcher } from 'undici';
import type { Deps } from '../deps.js';
import type { RunCommand } from '../domain.js';
import { plural } from '../errors.js';
import { ITEM_STATUSES, type ItemStatus, type RunEvent } from '../events.js';
import { createDispatcher, request } from '../http/client.js';
import { waitLine } from '../http/retry.js';
import type { LogEntry } from '../log.js';
import { redactPingUrl } from '../redact.js';
import { itemLabel } from '../run/outcomes.js';
import { type RunMetrics, writeMetricsFile } from './metrics.js';

export const PING_TIMEOUT_MS = 5_000;
export const PING_BODY_MAX = 10_000;

type PingKind = 'start' | 'success' | 'failure';

export type PingRequest = { method: 'GET' | 'POST'; url: string; body?: string };

/** `url`: as the ping-url setting holds it, without a trailing slash. */
export function pingRequest(url: string, kind: PingKind, exitCode = 0, body = ''): PingRequest {
  if (kind === 'start') return { method: 'GET', url: `${url}/start` };
  const text = body.length > PING_BODY_MAX ? `${body.slice(0, PING_BODY_MAX)}\n…` : body;
  return { method: 'POST', url: kind === 'success' ? url : `${url}/${exitCode}`, body: text };
}

async function sendPing(dispatcher: Dispatcher, req: PingRequest): Promise<void> {
  try {
    const res = await request(dispatcher, req.url, {
      method: req.method,
      headers: {
        'user-agent': 'prs',
        ...(req.body !== undefined ? { 'content-type': 'text/plain; charset=utf-8' } : {}),
      },
      body: req.body,
      signal: AbortSignal.timeout(PING_TIMEOUT_MS),
      timeoutMs: PING_TIMEOUT_MS,
    });
    await res.body.dump().catch(() => {});
    if (res.statusCode < 200 || res.statusCode >= 300) throw new Error(`HTTP ${res.statusCode}`);
  } catch (err) {
    const e = err as Error & { code?: string; cause?: { code?: string } };
    const why =
      e.name === 'TimeoutError' || e.name === 'AbortError'
        ? `no answer within ${PING_TIMEOUT_MS / 1000} s`
        : (e.cause?.code ?? e.code ?? e.message);
    throw new Error(`${redactPingUrl(req.url)}: ${why}`);
  }
}

export type RunObserver = Awaited<ReturnType<typeof watchRun>>;

export const emptyTally = () => ({
  items: Object.fromEntries(ITEM_STATUSES.map((s) => [s, 0])) as Record<ItemStatus, number>,
  requests: new Map<string, RunMetrics['requests'][number]>(),
  rateLimitWaitMs: 0,
  bytesWritten: 0,
  failures: [] as string[],
});
type Tally = ReturnType<typeof emptyTally>;

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

const requestCount = (t: Tally) => [...t.requests.values()].reduce((n, r) => n + r.count, 0);

export function summaryLine(command: RunCommand, t: Tally, exitCode: number, durationMs: number): string {
  const items = ITEM_STATUSES.filter((s) => t.items[s] > 0).map((s) => `${t.items[s]} ${s}`);
  const requests = requestCount(t);
  return [
    `prs ${command}: exit ${exitCode} after ${(durationMs / 1000).toFixed(1)} s`,
    ...(items.length ? [items.join(', ')] : []),
    `${requests} ${plural(requests, 'request')}`,
  ].join('; ');
}

function entryOf(e: RunEvent): LogEntry | undefined {
  if (e.event === 'start') {
    const { event, command, ...counts } = e;
    return {
      level: 'info',
      event,
      message: `${command}: ${e.items} ${plural(e.items, 'item')}, ${e.requests} ${plural(e.requests, 'request')}`,
      ...counts,
    };
  }
  if (e.event === 'wait') {
    const [line, fields] = waitLine(e.waitMs, e.reason);
    return { level: 'info', message: line.replace(/^~ /, ''), ...fields, ...e.item };
  }
  if (e.event !== 'item') return undefined;
  const { event, item, message, ...fields } = e;
  const said = `${itemLabel(item)}: ${e.status}${message ? `: ${message}` : ''}`;
  return { level: e.status === 'failed' ? 'error' : 'info', event, message: said, ...item, ...fields };
}

export async function watchRun(deps: Deps, command: RunCommand, run: { type?: string } = {}) {
  // Settings that do not resolve (a bad PRS_RATE_LIMIT): those that do still record and ping exit 2.
  const s = await deps.settings().catch((err) =>
    deps.settings(undefined, { allowNewProfile: true, lenient: true }).catch(() => {
      throw err;
    }),
  );
  const { io } = deps;
  const started = deps.clock.now();
  const tally = emptyTally();
  const off = deps.events.on((e) => {
    count(tally, e);
    const entry = entryOf(e);
    if (entry) io.log(e.event === 'item' ? { ...entry, type: run.type } : entry);
  });
  const warn = (what: string, err: unknown) => io.warn(`prs: warning: ${what}: ${(err as Error).message}`);

  let dispatcher: Promise<Dispatcher> | undefined;
  let pingWarned = false;
  const ping = async (kind: PingKind, exitCode?: number, body?: string) => {
    if (!s.pingUrl) return;
    try {
      dispatcher ??= createDispatcher(s.proxy, PING_TIMEOUT_MS);
      await sendPing(await dispatcher, pingRequest(s.pingUrl, kind, exitCode, body));
    } catch (err) {
      if (!pingWarned) warn(`could not ping the monitor (${kind})`, err);
      pingWarned = true;
    }
  };
  const startPing = ping('start');
  if (s.pingUrl) io.debug(`ping: monitor ${redactPingUrl(s.pingUrl)}`);

  let finished = false;
  const writeMetrics = async (exitCode: number, now: number) => {
    const file = s.metricsFile;
    if (!file) return;
    await writeMetricsFile(file, {
      ...tally,
      command,
      profile: s.profile,
      exitCode,
      endedAt: now,
      durationMs: now - started,
      requests: [...tally.requests.values()],
    }).catch((err) => warn(`could not write the metrics file ${file}`, err));
  };

  return {
    /** Emits `end`, writes the metrics, sends the last ping. Never throws. `errorLines`: main's error. */
    async finish(exitCode: number, errorLines: readonly string[]) {
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
      await writeMetrics(exitCode, now);
      await startPing;
      if (exitCode === 0) await ping('success', 0, summary);
      else await ping('failure', exitCode, [...tally.failures, ...errorLines, summary].join('\n'));
      await dispatcher?.then((d) => d.destroy()).catch(() => {});
    },
    finishNow(exitCode: number) {
      if (finished) return;
      finished = true;
      void writeMetrics(exitCode, deps.clock.now());
    },
  };
}
