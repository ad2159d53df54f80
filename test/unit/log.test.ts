import { describe, expect, it } from 'vitest';
import { waitLine } from '../../src/http/retry.js';
import {
  type ErrorReport,
  entryFromText,
  errorEntry,
  formatLogLine,
  type LineKind,
  type LogEntry,
} from '../../src/log.js';
import { jsonLogWanted } from '../../src/settings.js';
import { createTestIO } from '../helpers/io.js';

const T = Date.UTC(2024, 4, 3, 6, 0, 0, 123);

describe('formatLogLine', () => {
  it.each<[string, LogEntry, string]>([
    [
      'time first, then level, event, message',
      { level: 'info', event: 'note', message: 'hello' },
      '{"time":"2024-05-03T06:00:00.123Z","level":"info","event":"note","message":"hello"}\n',
    ],
    [
      'fields after; undefined ones left out',
      { level: 'error', event: 'item', message: 'x', portfolioId: 42, path: undefined, exitCode: 8 },
      '{"time":"2024-05-03T06:00:00.123Z","level":"error","event":"item","message":"x","portfolioId":42,"exitCode":8}\n',
    ],
    [
      'a newline or quote in a message stays inside the one line',
      { level: 'warn', event: 'warning', message: 'a "b"\nc' },
      '{"time":"2024-05-03T06:00:00.123Z","level":"warn","event":"warning","message":"a \\"b\\"\\nc"}\n',
    ],
  ])('%s', (_name, entry, want) => expect(formatLogLine(entry, T)).toBe(want));
});

describe('entryFromText: each line as its producer classed it', () => {
  it.each<[LineKind, string, Partial<LogEntry>]>([
    ['debug', 'auth: using the stored token', { level: 'debug', event: 'debug' }],
    ['warning', 'prs: warning: Redis unreachable', { level: 'warn', event: 'warning' }],
    ['err', 'prs: 42 2024-05-03: service error: 500', { level: 'error', event: 'error' }],
    ['hint', 'hint: check the portfolio id', { level: 'info', event: 'hint' }],
    ['note', 'prs: note: could not save the session', { level: 'info', event: 'note' }],
    ['note', '220 requests at 4/60s: about 55 min', { level: 'info', event: 'note' }],
    ['err', '✓ Logged in to x as y', { level: 'info', event: 'message' }],
    ['err', '\u001b[31mprs: boom\u001b[39m\n', { level: 'error', event: 'error', message: 'prs: boom' }],
  ])('%s %j', (kind, line, want) => expect(entryFromText(kind, line)).toMatchObject(want));
});

describe('errorEntry: main’s error as one object', () => {
  it.each<[ErrorReport, number, Partial<LogEntry>]>([
    [{ message: 'not found' }, 6, { level: 'error', event: 'error', message: 'not found', exitCode: 6 }],
    [
      { message: 'forbidden (403)', hint: 'check the tenant' },
      5,
      { message: 'forbidden (403)', hint: 'check the tenant', exitCode: 5 },
    ],
    [{ message: 'interrupted' }, 130, { message: 'interrupted', exitCode: 130 }],
  ])('%j', (report, code, want) => {
    const e = errorEntry(report, code);
    expect(e).toMatchObject(want);
    if (!want.hint) expect(JSON.parse(formatLogLine(e, 0))).not.toHaveProperty('hint');
  });
});

describe('jsonLogWanted: flag > PRS_LOG_FORMAT, before any setting is read', () => {
  it.each<[string[], Record<string, string>, boolean]>([
    [['--log-format', 'json', 'report'], {}, true],
    [['report', '--log-format=json'], {}, true],
    [['--log-format', 'text'], { PRS_LOG_FORMAT: 'json' }, false],
    [[], { PRS_LOG_FORMAT: 'json' }, true],
    [[], { PRS_LOG_FORMAT: '' }, false],
    [['--', '--log-format', 'json'], {}, false],
    // The flag without its value (commander's usage error follows): that error goes out as PRS_LOG_FORMAT asks.
    [['report', '--log-format'], { PRS_LOG_FORMAT: 'json' }, true],
  ])('%j %j → %s', (argv, env, want) => expect(jsonLogWanted(argv, env)).toBe(want));
});

describe('the IO in json format', () => {
  it('err, warn, hint and debug go out as JSON lines; no progress; -q still silences hints', () => {
    const io = createTestIO({ logFormat: 'json', verbose: true, isStderrTTY: true, quiet: false });
    io.err('prs: boom');
    io.warn('prs: warning: w');
    io.hint('x');
    io.debug(...waitLine(1000, 'rate-limit'));
    io.progress('1/2').update('2/2');
    io.log({ level: 'info', event: 'summary', message: 'done', exitCode: 0 });
    const lines = io
      .stderrText()
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => l.event)).toEqual(['error', 'warning', 'hint', 'wait', 'summary']);
    expect(lines[2].message).toBe('hint: x');
    const quiet = createTestIO({ logFormat: 'json', quiet: true });
    quiet.hint('x');
    expect(quiet.stderrText()).toBe('');
  });

  it('a debug line carries its producer’s fields; its text is not parsed for them', () => {
    const io = createTestIO({ logFormat: 'json', verbose: true });
    io.debug(...waitLine(41_000, 'rate-limit'));
    io.debug(...waitLine(1_537, 'backoff'));
    io.debug('< 429 GET https://x/y (12 ms)');
    io.debug('> GET https://x/y', { event: 'request', method: 'GET', url: 'https://x/y' });
    const lines = io
      .stderrText()
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines).toMatchObject([
      {
        level: 'debug',
        event: 'wait',
        message: '~ waiting 41.0 s (rate-limit)',
        waitMs: 41_000,
        reason: 'rate-limit',
      },
      {
        level: 'debug',
        event: 'retry',
        message: '~ waiting 1.5 s (backoff)',
        waitMs: 1_537,
        reason: 'backoff',
      },
      { level: 'debug', event: 'debug', message: '< 429 GET https://x/y (12 ms)' },
      { level: 'debug', event: 'request', message: '> GET https://x/y', method: 'GET', url: 'https://x/y' },
    ]);
    expect(lines[2].status).toBeUndefined();
    const text = createTestIO({ verbose: true });
    text.debug(...waitLine(41_000, 'rate-limit'));
    expect(text.stderrText()).toBe('~ waiting 41.0 s (rate-limit)\n');
  });

  it('text format: lines as before, and structured entries are not printed', () => {
    const io = createTestIO();
    io.err('prs: boom');
    io.log({ level: 'info', event: 'summary', message: 'done' });
    expect(io.stderrText()).toBe('prs: boom\n');
    io.useLogFormat('json');
    io.log({ level: 'info', event: 'summary', message: 'done' });
    expect(io.stderrText()).toContain('"event":"summary"');
  });
});
