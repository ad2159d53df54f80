/**
 * `--log-format json` (CLI.md "Unattended runs"): every stderr message as one JSON object per line,
 * for log pipelines that read `jq -c`. Pure: the IO hands each line here (err, note, debug) and writes
 * what comes back; the run's watchers hand structured entries (item, wait, summary).
 *
 * A line prs prints as text is classified by its shape, once, here: `> GET …` / `< 200 GET …` (the
 * -v lines of the HTTP layer) are `request` / `response`, `~ waiting …` a `wait`, `prs: warning:` a
 * warning, `hint:` a hint, any other `prs: …` an error. Secrets never reach this point: the lines are
 * redacted where they are made (redact.ts), as for text.
 */

export type LogLevel = 'error' | 'warn' | 'info' | 'debug';

/** One log record before its time is added. Fields that do not apply are left out (never null). */
export interface LogEntry {
  level: LogLevel;
  event: string;
  message: string;
  [field: string]: unknown;
}

/** Which IO method printed the line: `err` always, `note` unless -q, `debug` only with -v. */
export type LineKind = 'err' | 'note' | 'debug';

const ANSI = /\u001b\[[0-9;]*m/g;

/** The JSON line of an entry: `time` first, then level, event, message, then the entry's own fields. */
export function formatLogLine(entry: LogEntry, now: number): string {
  const { level, event, message, ...fields } = entry;
  const record: Record<string, unknown> = { time: new Date(now).toISOString(), level, event, message };
  for (const [k, v] of Object.entries(fields)) if (v !== undefined) record[k] = v;
  return `${JSON.stringify(record)}\n`;
}

/** A line as prs prints it in text → its entry (see the header for the shapes). */
export function entryFromText(kind: LineKind, line: string): LogEntry {
  const message = line.replace(ANSI, '').replace(/\r?\n$/, '');
  if (kind === 'debug') {
    const req = /^> ([A-Z]+) (\S+)/.exec(message);
    if (req) return { level: 'debug', event: 'request', message, method: req[1], url: req[2] };
    const res = /^< (\d{3}) ([A-Z]+) (\S+) \((\d+) ms\)/.exec(message);
    if (res)
      return {
        level: 'debug',
        event: 'response',
        message,
        status: Number(res[1]),
        method: res[2],
        url: res[3],
        durationMs: Number(res[4]),
      };
    const wait = /^~ waiting (\d+(?:\.\d+)?) s \(([\w-]+)\)/.exec(message);
    if (wait)
      return {
        level: 'debug',
        event: wait[2] === 'rate-limit' ? 'wait' : 'retry',
        message,
        waitMs: Math.round(Number(wait[1]) * 1000),
        reason: wait[2],
      };
    return { level: 'debug', event: 'debug', message };
  }
  if (/^(prs: )?warning:/i.test(message)) return { level: 'warn', event: 'warning', message };
  if (/^hint:/.test(message)) return { level: 'info', event: 'hint', message };
  if (/^(prs: )?note:/.test(message)) return { level: 'info', event: 'note', message };
  if (kind === 'err' && /^prs: /.test(message)) return { level: 'error', event: 'error', message };
  return { level: 'info', event: kind === 'note' ? 'note' : 'message', message };
}

/**
 * The run's final error (main's one or two lines: `prs: …` and its `hint: …`) as one entry, the hint
 * a field of it, so a log query for errors sees both together.
 */
export function errorEntry(lines: readonly string[], exitCode: number): LogEntry {
  const [first = '', ...rest] = lines;
  const hint = rest.find((l) => l.startsWith('hint: '));
  const detail = rest.filter((l) => l !== hint);
  return {
    level: 'error',
    event: 'error',
    message: first
      .replace(ANSI, '')
      .replace(/^prs: /, '')
      .trimEnd(),
    exitCode,
    hint: hint?.slice('hint: '.length),
    detail: detail.length ? detail.join('\n') : undefined,
  };
}
