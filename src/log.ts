/** Fields that do not apply are left out (never null). */
export interface LogEntry {
  level: 'error' | 'warn' | 'info' | 'debug';
  event: string;
  message: string;
  [field: string]: unknown;
}

export type LineKind = 'err' | 'warning' | 'note' | 'hint' | 'debug';

const ANSI = /\u001b\[[0-9;]*m/g;

export function formatLogLine({ level, event, message, ...fields }: LogEntry, now: number): string {
  return `${JSON.stringify({ time: new Date(now).toISOString(), level, event, message, ...fields })}\n`;
}

export type LogFields = { event: string; [field: string]: unknown };

const LEVEL: Record<string, LogEntry['level']> = { debug: 'debug', warning: 'warn', error: 'error' };

/** An `err` line is an error when it is prs's (`prs: …`). */
export function entryFromText(kind: LineKind, line: string, fields?: LogFields): LogEntry {
  const message = line.replace(ANSI, '').replace(/\r?\n$/, '');
  const event = kind !== 'err' ? kind : /^prs: /.test(message) ? 'error' : 'message';
  return { level: LEVEL[event] ?? 'info', event, message, ...fields };
}

/** main's `prs: …` and `hint: …` lines as one entry, so a log query for errors sees both. */
export function errorEntry(lines: readonly string[], exitCode: number): LogEntry {
  const [first = '', ...rest] = lines;
  const hint = rest.find((l) => l.startsWith('hint: '));
  const detail = rest.filter((l) => l !== hint);
  return {
    level: 'error',
    event: 'error',
    message: first.replace(ANSI, '').replace(/^prs: |\s+$/g, ''),
    exitCode,
    hint: hint?.slice('hint: '.length),
    detail: detail.length ? detail.join('\n') : undefined,
  };
}
