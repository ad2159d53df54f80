import { describe, expect, it } from 'vitest';
import { NetworkError, ServiceError } from '../../../src/errors.js';
import {
  type AttemptFailure,
  backoff,
  type Failed,
  failedOn,
  nextDelay,
  parseRetryAfter,
  withRetries,
} from '../../../src/http/retry.js';

const NOW = Date.UTC(2024, 4, 1, 6, 0, 0);
const policy = { limit: 3 };
const limited = { limit: 3, rateLimitWaitMs: 60_000 };
const status = (s: number, retryAfter?: string): AttemptFailure => ({
  kind: 'status',
  status: s,
  retryAfter,
});
const net = (code: string): AttemptFailure => ({ kind: 'network', code });
const max = () => 0.999_999;
const min = () => 0;

describe('nextDelay', () => {
  it.each([
    [
      '429 Retry-After seconds',
      policy,
      1,
      status(429, '41'),
      min,
      { action: 'wait', ms: 41_000, reason: 'retry-after' },
    ],
    [
      '503 Retry-After seconds',
      policy,
      1,
      status(503, '2'),
      min,
      { action: 'wait', ms: 2000, reason: 'retry-after' },
    ],
    [
      '429 Retry-After HTTP date',
      policy,
      1,
      status(429, new Date(NOW + 30_000).toUTCString()),
      min,
      { action: 'wait', ms: 30_000, reason: 'retry-after' },
    ],
    [
      'Retry-After date in the past → 0',
      policy,
      1,
      status(429, new Date(NOW - 30_000).toUTCString()),
      min,
      { action: 'wait', ms: 0, reason: 'retry-after' },
    ],
    [
      'Retry-After beyond 120 s: give up at once, with the wait asked for',
      policy,
      1,
      status(429, '3600'),
      min,
      { action: 'give-up', retryAfterMs: 3_600_000 },
    ],
    [
      'Retry-After of exactly 120 s is waited for',
      policy,
      1,
      status(429, '120'),
      min,
      { action: 'wait', ms: 120_000, reason: 'retry-after' },
    ],
    [
      'garbage Retry-After → backoff',
      policy,
      1,
      status(429, 'soon'),
      min,
      { action: 'wait', ms: 500, reason: 'backoff' },
    ],
    [
      '429 without Retry-After, limited endpoint → next limiter slot',
      limited,
      1,
      status(429),
      min,
      { action: 'wait', ms: 60_000, reason: 'rate-limit' },
    ],
    [
      '429 without Retry-After, unlimited endpoint → backoff',
      policy,
      2,
      status(429),
      min,
      { action: 'wait', ms: 1000, reason: 'backoff' },
    ],
    [
      '500 attempt 1, lowest jitter',
      policy,
      1,
      status(500),
      min,
      { action: 'wait', ms: 500, reason: 'backoff' },
    ],
    [
      '500 attempt 1, highest jitter',
      policy,
      1,
      status(500),
      max,
      { action: 'wait', ms: 1000, reason: 'backoff' },
    ],
    ['502 attempt 2', policy, 2, status(502), max, { action: 'wait', ms: 2000, reason: 'backoff' }],
    ['504 attempt 3', policy, 3, status(504), max, { action: 'wait', ms: 4000, reason: 'backoff' }],
    ['ECONNRESET', policy, 1, net('ECONNRESET'), max, { action: 'wait', ms: 1000, reason: 'backoff' }],
    ['ECONNREFUSED', policy, 2, net('ECONNREFUSED'), min, { action: 'wait', ms: 1000, reason: 'backoff' }],
    [
      'headers timeout',
      policy,
      1,
      net('UND_ERR_HEADERS_TIMEOUT'),
      max,
      { action: 'wait', ms: 1000, reason: 'backoff' },
    ],
    ['limit reached (5xx)', policy, 4, status(500), min, { action: 'give-up' }],
    ['limit reached (429 with Retry-After)', policy, 4, status(429, '1'), min, { action: 'give-up' }],
    ['limit reached (network)', policy, 4, net('ECONNRESET'), min, { action: 'give-up' }],
    ['--retries 0', { limit: 0 }, 1, status(503), min, { action: 'give-up' }],
    ['400 never', policy, 1, status(400), min, { action: 'give-up' }],
    ['401 never (re-auth is separate)', policy, 1, status(401), min, { action: 'give-up' }],
    ['403 never', policy, 1, status(403), min, { action: 'give-up' }],
    ['404 never', policy, 1, status(404), min, { action: 'give-up' }],
    ['404 even with Retry-After', policy, 1, status(404, '1'), min, { action: 'give-up' }],
    ['501 not in the list', policy, 1, status(501), min, { action: 'give-up' }],
    ['TLS failure is not retried', policy, 1, net('DEPTH_ZERO_SELF_SIGNED_CERT'), min, { action: 'give-up' }],
    ['DNS failure is not retried', policy, 1, net('ENOTFOUND'), min, { action: 'give-up' }],
    [
      "a proxy's 502/503/504 to CONNECT",
      policy,
      1,
      net('PROXY_TUNNEL_FAILED'),
      max,
      { action: 'wait', ms: 1000, reason: 'backoff' },
    ],
    [
      "a proxy's 407 (or 403) to CONNECT is not retried",
      policy,
      1,
      net('PROXY_TUNNEL_REFUSED'),
      min,
      { action: 'give-up' },
    ],
  ])('%s', (_name, p, attempt, outcome, random, want) => {
    expect(nextDelay(p, attempt, outcome, NOW, random)).toEqual(want);
  });

  it('backoff grows exponentially up to the ceiling', () => {
    const ceilings = [1, 2, 3, 4, 5, 6, 7, 8].map((a) => backoff(a, max));
    expect(ceilings).toEqual([1000, 2000, 4000, 8000, 16_000, 30_000, 30_000, 30_000]);
  });

  it('jitter stays within [½, 1] of the ceiling', () => {
    for (let i = 0; i < 50; i++) {
      const ms = backoff(3, Math.random);
      expect(ms).toBeGreaterThanOrEqual(2000);
      expect(ms).toBeLessThanOrEqual(4000);
    }
  });
});

describe('parseRetryAfter', () => {
  it.each([
    ['0', 0],
    ['7', 7000],
    [' 12 ', 12_000],
    [new Date(NOW + 5000).toUTCString(), 5000],
    ['-1', undefined],
    ['1.5', undefined],
    ['', undefined],
    ['tomorrow', undefined],
  ])('%j → %j', (value, want) => {
    expect(parseRetryAfter(value, NOW)).toBe(want);
  });
});

describe('withRetries: the one retry loop', () => {
  const ok = { ok: 'body' } as const;
  const failed = (outcome: AttemptFailure): Failed => ({
    outcome,
    error: new Error(JSON.stringify(outcome)),
  });
  const run = async (answers: ({ ok: string } | Failed)[], limit = 2) => {
    const log: string[] = [];
    const clock = { now: () => NOW, sleep: async (ms: number) => void log.push(`sleep ${ms}`) };
    const attempt = async (retries: number) => {
      log.push(`attempt ${retries}`);
      return answers.shift()!;
    };
    const onWait = (ms: number, reason: string) => void log.push(`wait ${ms} ${reason}`);
    const giveUp = (f: Failed, retryAfterMs: number | undefined, retries: number) =>
      new Error(`gave up after ${retries}: ${f.error?.message} ${retryAfterMs ?? ''}`.trim());
    const r = await withRetries({ policy: { limit }, clock, random: min }, attempt, onWait, giveUp).catch(
      (err: Error) => err.message,
    );
    return [r, log.join(', ')];
  };

  it.each([
    ['an answer at once', [ok], ['body', 'attempt 0']],
    [
      'a 503, then an answer',
      [failed(status(503)), ok],
      ['body', 'attempt 0, wait 500 backoff, sleep 500, attempt 1'],
    ],
    [
      'a reset every time',
      [failed(net('ECONNRESET')), failed(net('ECONNRESET')), failed(net('ECONNRESET'))],
      [
        'gave up after 2: {"kind":"network","code":"ECONNRESET"}',
        'attempt 0, wait 500 backoff, sleep 500, attempt 1, wait 1000 backoff, sleep 1000, attempt 2',
      ],
    ],
    ['a 400', [failed(status(400))], ['gave up after 0: {"kind":"status","status":400}', 'attempt 0']],
    [
      'a 429 asking for 300 s',
      [failed(status(429, '300'))],
      ['gave up after 0: {"kind":"status","status":429,"retryAfter":"300"} 300000', 'attempt 0'],
    ],
  ])('%s', async (_name, answers, want) => expect(await run(answers)).toEqual(want));
});

describe('failedOn', () => {
  it.each([
    ['a NetworkError over a socket error', 'ECONNRESET', { kind: 'network', code: 'ECONNRESET' }],
    ['a NetworkError over a wrapped one', 'UND_ERR_SOCKET', { kind: 'network', code: 'UND_ERR_SOCKET' }],
    ['a NetworkError without a cause', undefined, { kind: 'network', code: '' }],
  ])('%s', (name, code, outcome) => {
    const inner = code && Object.assign(new Error(code), { code });
    const cause = name.includes('wrapped') ? new Error('wrap', { cause: inner }) : inner;
    const err = new NetworkError('down', { cause });
    expect(failedOn(err)).toEqual({ outcome, error: err });
  });

  it('throws any other error on', () => {
    const err = new ServiceError('broken');
    expect(() => failedOn(err)).toThrow(err);
  });
});
