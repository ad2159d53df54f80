// `--metrics-file`: the Prometheus text exposition of the last run per command and profile, for
// node_exporter's textfile collector; a failed run carries the last success over.
import type { RunCommand } from '../domain.js';
import type { Endpoint, ItemStatus } from '../events.js';
import { updateFile } from '../fs/atomic.js';

export const ITEM_STATUSES: readonly ItemStatus[] = ['written', 'skipped', 'empty', 'failed'];

export interface RunMetrics {
  command: RunCommand;
  profile: string;
  exitCode: number;
  endedAt: number;
  durationMs: number;
  lastSuccessAt?: number;
  items: Record<ItemStatus, number>;
  /** Answers by endpoint and status code (0: no answer: refused, timed out). */
  requests: { endpoint: Endpoint; code: number; count: number }[];
  rateLimitWaitMs: number;
  bytesWritten: number;
}

export function escapeLabel(value: string): string {
  return value.replaceAll('\\', '\\\\').replaceAll('"', '\\"').replaceAll('\n', '\\n');
}

function labels(pairs: Record<string, string>): string {
  return `{${Object.entries(pairs)
    .map(([k, v]) => `${k}="${escapeLabel(v)}"`)
    .join(',')}}`;
}

/** Seconds with at most millisecond precision, never in exponent notation. */
const seconds = (ms: number) => String(Math.round(ms) / 1000);

/** A sample line as prs writes it: command and profile are its first labels. */
const SAMPLE =
  /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{command="(?:[^"\\\n]|\\.)*",profile="(?:[^"\\\n]|\\.)*")[,}].* \S+$/;

function otherSeries(previous: string, command: string, profile: string): Map<string, string[]> {
  const own = labels({ command, profile }).slice(0, -1);
  const out = new Map<string, string[]>();
  for (const line of previous.split('\n')) {
    const m = SAMPLE.exec(line);
    if (m && m[2] !== own) out.set(m[1]!, [...(out.get(m[1]!) ?? []), line]);
  }
  return out;
}

export function metricsText(m: RunMetrics, previous = ''): string {
  const base = { command: m.command, profile: m.profile };
  const others = otherSeries(previous, m.command, m.profile);
  const out: string[] = [];
  const family = (
    name: string,
    type: 'gauge' | 'counter',
    help: string,
    series: [Record<string, string>, string][],
  ) => {
    const kept = others.get(name) ?? [];
    if (!series.length && !kept.length) return;
    out.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`, ...kept);
    for (const [extra, value] of series) out.push(`${name}${labels({ ...base, ...extra })} ${value}`);
  };
  family(
    'prs_last_run_exit_code',
    'gauge',
    'Exit code of the last run (0 success, see prs help exit-codes).',
    [[{}, String(m.exitCode)]],
  );
  family('prs_last_run_timestamp_seconds', 'gauge', 'When the last run ended, in seconds since the epoch.', [
    [{}, seconds(m.endedAt)],
  ]);
  family(
    'prs_last_success_timestamp_seconds',
    'gauge',
    'When the last successful run ended, in seconds since the epoch (kept across failed runs).',
    m.lastSuccessAt === undefined ? [] : [[{}, seconds(m.lastSuccessAt)]],
  );
  family('prs_run_duration_seconds', 'gauge', 'How long the last run took.', [[{}, seconds(m.durationMs)]]);
  family(
    'prs_items',
    'gauge',
    'Items (portfolio x date) of the last run by outcome.',
    ITEM_STATUSES.map((status) => [{ status }, String(m.items[status])]),
  );
  family(
    'prs_requests_total',
    'counter',
    'HTTP requests of the last run by endpoint and status code (0: no answer).',
    [...m.requests]
      .sort((a, b) => a.endpoint.localeCompare(b.endpoint) || a.code - b.code)
      .map((r) => [{ endpoint: r.endpoint, code: String(r.code) }, String(r.count)]),
  );
  family('prs_rate_limit_wait_seconds', 'gauge', 'Time the last run waited for the rate limit.', [
    [{}, seconds(m.rateLimitWaitMs)],
  ]);
  family('prs_bytes_written', 'gauge', 'Bytes the last run wrote (files or stdout).', [
    [{}, String(m.bytesWritten)],
  ]);
  return `${out.join('\n')}\n`;
}

export function lastSuccessFrom(text: string, command: string, profile: string): number | undefined {
  const want = labels({ command, profile });
  for (const line of text.split('\n')) {
    if (!line.startsWith(`prs_last_success_timestamp_seconds${want} `)) continue;
    const value = Number(line.slice(line.lastIndexOf(' ') + 1));
    if (Number.isFinite(value) && value > 0) return Math.round(value * 1000);
  }
  return undefined;
}

/** This run's series into the file under its lock: two runs ending together each keep the other's. */
export function writeMetricsFile(path: string, m: Omit<RunMetrics, 'lastSuccessAt'>): Promise<void> {
  return updateFile(
    path,
    (text) => {
      const lastSuccessAt = m.exitCode === 0 ? m.endedAt : lastSuccessFrom(text, m.command, m.profile);
      return { text: metricsText({ ...m, lastSuccessAt }, text), result: undefined };
    },
    { createDir: false },
  );
}
