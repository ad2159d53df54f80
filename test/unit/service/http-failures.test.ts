import { STATUS_CODES } from 'node:http';
import { describe, expect, it } from 'vitest';
import { ExitCode, exitCodeFor, type FailedAnswer, httpFailure } from '../../../src/errors.js';
import { shortMessage } from '../../../src/http/client.js';

type ErrorContext = Omit<FailedAnswer, 'status' | 'said'>;
/** As the service builds it from a final answer. */
const errorForStatus = (status: number, body: string, contentType: string | undefined, c: ErrorContext) =>
  httpFailure({ ...c, status, said: shortMessage(body, contentType) });

describe('shortMessage', () => {
  it.each([
    ['{"message":"Invalid date"}', undefined, 'Invalid date'],
    ['{"error":"invalid_token","error_description":"Token expired"}', undefined, 'Token expired'],
    ['{"error":{"message":"nested"}}', undefined, 'nested'],
    [
      '{"status":500,"error":"Internal Server Error","path":"/x"}',
      'application/json',
      'Internal Server Error',
    ],
    ['{"foo":1}', undefined, undefined],
    ['"just a string"', 'application/json', 'just a string'],
    ['<!DOCTYPE html><html><body><h1>502</h1></body></html>', 'text/html', undefined],
    ['<html>no content type</html>', undefined, undefined],
    ['Service down for maintenance\nsecond line', 'text/plain', 'Service down for maintenance'],
    ['bad\u001b[31m red', 'text/plain', 'bad [31m red'],
    ['', undefined, undefined],
    ['{broken json', 'application/json', undefined],
  ])('%j (%s) → %j', (body, type, want) => {
    expect(shortMessage(body, type)).toBe(want);
  });

  it('caps long messages at 200 characters', () => {
    const m = shortMessage(JSON.stringify({ message: 'x'.repeat(500) }))!;
    expect(m).toHaveLength(200);
    expect(m.endsWith('…')).toBe(true);
  });
});

describe('errorForStatus → exit code', () => {
  const c: ErrorContext = {
    portfolioId: 999,
    tenant: 'acme',
    baseUrl: 'https://x',
    retries: 0,
    ci: false,
  };
  it.each([
    [400, ExitCode.usage],
    [401, ExitCode.auth],
    [403, ExitCode.forbidden],
    [404, ExitCode.notFound],
    [429, ExitCode.rateLimited],
    [500, ExitCode.service],
    [502, ExitCode.service],
    [503, ExitCode.service],
    [504, ExitCode.service],
    [409, ExitCode.service],
    [302, ExitCode.service],
  ])('%i → exit %i', (status, code) => {
    expect(exitCodeFor(errorForStatus(status, '', undefined, c))).toBe(code);
  });

  it('the messages of the issue', () => {
    expect(errorForStatus(404, '', undefined, c).message).toBe('portfolio 999 not found — check the id');
    expect(errorForStatus(403, '', undefined, c).message).toBe(
      "forbidden — check the tenant (X-CLIENT-ID acme) and your account's permissions",
    );
    expect(errorForStatus(503, '<html>down</html>', 'text/html', { ...c, retries: 3 }).message).toBe(
      'service error: 503 Service Unavailable (after 3 retries)',
    );
  });
});

describe('reason phrases', () => {
  // Every status but 403 and 404 (messages of their own) names its reason phrase.
  const named = Object.entries(STATUS_CODES).filter(([code]) => code !== '403' && code !== '404');
  it.each(named)("%s: node:http's", (code, phrase) => {
    const c = { portfolioId: 1, tenant: 't', baseUrl: 'https://x' };
    expect(errorForStatus(Number(code), '', undefined, c as ErrorContext).message).toContain(
      `${code} ${phrase}`,
    );
  });
});
