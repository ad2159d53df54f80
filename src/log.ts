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

/** main's error: its message, a hint, and anything more (commander's suggestion, a stack trace). */
export interface ErrorReport {
  message: string;
  hint?: string;
  detail?: string;
}

/** One entry, so a log query for errors sees the hint too. */
export function errorEntry(e: ErrorReport, exitCode: number): LogEntry {
  return { level: 'error', event: 'error', message: e.message, exitCode, hint: e.hint, detail: e.detail };
}
