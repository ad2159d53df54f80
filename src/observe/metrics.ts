/**
 * `--metrics-file` (CLI.md "Unattended runs"): the Prometheus text exposition of one report/export
 * run, for node_exporter's textfile collector. Pure and library-free (a few lines; `promtool check
 * metrics` is the judge, in test/e2e/observe.test.ts). The file is replaced after every run, so every
 * series describes the last run; `prs_last_success_timestamp_seconds` alone reaches further back: a
 * failed run carries it over from the file it replaces (lastSuccessFrom), which is what an alert
 * "has not succeeded for 26 hours" needs.
 */
import type { Endpoint, ItemStatus } from '../events.js';

export const ITEM_STATUSES: readonly ItemStatus[] = ['written', 'skipped', 'empty', 'failed'];

/** What one run adds up to, as the metrics watcher collects it from the run's events. */
export interface RunMetrics {
  command: 'report' | 'export';
  profile: string;
  exitCode: number;
  /** When the run ended (ms since the epoch). */
  endedAt: number;
  durationMs: number;
  /** The last successful run's end (ms): this run's when it succeeded, else the previous file's. */
  lastSuccessAt?: number;
  items: Record<ItemStatus, number>;
  /** Answers by endpoint and status code (0: no answer: refused, timed out). */
  requests: { endpoint: Endpoint; code: number; count: number }[];
  /** Time spent waiting for the rate limit (the limiter's waits and a 429's Retry-After). */
  rateLimitWaitMs: number;
  bytesWritten: number;
}

/** A label value as the exposition format wants it: backslash, double quote and newline escaped. */
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

/** A sample line of the exposition: its metric name and its labels (unescaped). */
const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)\{((?:[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\.)*",?)*)\} \S+$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\\n]|\\.)*)"/g;
const unescapeLabel = (v: string) => v.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));

/**
 * The sample lines of a previous file that belong to other runs (another command or profile), by
 * metric name. Lines that do not parse, and comments, are left out: HELP and TYPE are written anew.
 */
export function otherSeries(previous: string, command: string, profile: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const line of previous.split('\n')) {
    const m = SAMPLE.exec(line);
    if (!m) continue;
    const l = new Map([...m[2]!.matchAll(LABEL)].map(([, k, v]) => [k!, unescapeLabel(v!)]));
    if (l.get('command') === command && l.get('profile') === profile) continue;
    out.set(m[1]!, [...(out.get(m[1]!) ?? []), line]);
  }
  return out;
}

/**
 * The file's text: HELP and TYPE for each family, every series labelled with command and profile.
 * `previous`: the file this one replaces; its other runs' series are kept (otherSeries).
 */
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

/**
 * The last success (ms) recorded in a previous file for this command and profile, or undefined (no
 * file, another job's file, a value that is not a number). Read back with the writer's own escaping.
 */
export function lastSuccessFrom(text: string, command: string, profile: string): number | undefined {
  const want = labels({ command, profile });
  for (const line of text.split('\n')) {
    if (!line.startsWith(`prs_last_success_timestamp_seconds${want} `)) continue;
    const value = Number(line.slice(line.lastIndexOf(' ') + 1));
    if (Number.isFinite(value) && value > 0) return Math.round(value * 1000);
  }
  return undefined;
}
