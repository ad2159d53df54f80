// `--metrics-file`: Prometheus text for node_exporter's textfile collector, per command and profile.
import type { RunCommand } from '../domain.js';
import { type Endpoint, ITEM_STATUSES, type ItemStatus } from '../events.js';
import { updateFile } from '../fs/atomic.js';

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

/** The families in the file's order; a name ending in _total is a counter, the others are gauges. */
const HELP: Record<string, string> = {
  prs_last_run_exit_code: 'Exit code of the last run (0 success, see prs help exit-codes).',
  prs_last_run_timestamp_seconds: 'When the last run ended, in seconds since the epoch.',
  prs_last_success_timestamp_seconds:
    'When the last successful run ended, in seconds since the epoch (kept across failed runs).',
  prs_run_duration_seconds: 'How long the last run took.',
  prs_items: 'Items (portfolio x date) of the last run by outcome.',
  prs_requests_total: 'HTTP requests of the last run by endpoint and status code (0: no answer).',
  prs_rate_limit_wait_seconds: 'Time the last run waited for the rate limit.',
  prs_bytes_written: 'Bytes the last run wrote (files or stdout).',
};

export function metricsText(m: RunMetrics, previous = ''): string {
  const others = otherSeries(previous, m.command, m.profile);
  const series: Record<string, [Record<string, string>, string][]> = {
    prs_last_run_exit_code: [[{}, String(m.exitCode)]],
    prs_last_run_timestamp_seconds: [[{}, seconds(m.endedAt)]],
    prs_last_success_timestamp_seconds: m.lastSuccessAt === undefined ? [] : [[{}, seconds(m.lastSuccessAt)]],
    prs_run_duration_seconds: [[{}, seconds(m.durationMs)]],
    prs_items: ITEM_STATUSES.map((status) => [{ status }, String(m.items[status])]),
    prs_requests_total: [...m.requests]
      .sort((a, b) => a.endpoint.localeCompare(b.endpoint) || a.code - b.code)
      .map((r) => [{ endpoint: r.endpoint, code: String(r.code) }, String(r.count)]),
    prs_rate_limit_wait_seconds: [[{}, seconds(m.rateLimitWaitMs)]],
    prs_bytes_written: [[{}, String(m.bytesWritten)]],
  };
  const out: string[] = [];
  for (const [name, help] of Object.entries(HELP)) {
    const kept = others.get(name) ?? [];
    if (!series[name]!.length && !kept.length) continue;
    out.push(
      `# HELP ${name} ${help}`,
      `# TYPE ${name} ${name.endsWith('_total') ? 'counter' : 'gauge'}`,
      ...kept,
    );
    for (const [extra, value] of series[name]!)
      out.push(`${name}${labels({ command: m.command, profile: m.profile, ...extra })} ${value}`);
  }
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
