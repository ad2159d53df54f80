// A failed answer's reason phrase and the short text of its body (never an HTML page); which error it
// becomes is errors.ts's HTTP_FAILURES.
import { type FailedAnswer, httpFailure, type PrsError, ServiceError } from '../errors.js';

/** What prs knows about the request whose answer failed. */
export type ErrorContext = Omit<FailedAnswer, 'status' | 'reason' | 'said'>;

/** The error for a final non-200 answer. `body` is (the start of) the response body. */
export function errorForStatus(
  status: number,
  body: string,
  contentType: string | undefined,
  c: ErrorContext,
): PrsError {
  // node:http only on this path: loading it costs every request's start-up.
  const reasons = process.getBuiltinModule('node:http').STATUS_CODES;
  const reason = `${status} ${reasons[status] ?? 'Unknown Status'}`;
  return httpFailure({ ...c, status, reason, said: shortMessage(body, contentType) });
}

/** A 200 whose body is not a report. `broken`: the service's JSON is broken; else the URL is suspect. */
export function malformedResponse(
  why: string,
  contentType: string | undefined,
  c: { baseUrl: string },
  broken = false,
): ServiceError {
  return new ServiceError(
    `malformed response from the service: ${why}${contentType ? ` (${contentType})` : ''}`,
    {
      hint: broken
        ? 'the service sent a broken answer; try again later, and tell its operators if it persists'
        : `check the base URL (${c.baseUrl}); it should point at the report service`,
    },
  );
}

const MAX_MESSAGE = 200;

/** A short text from an error body: a JSON message field, or a plain-text body's first line. */
export function shortMessage(body: string, contentType?: string): string | undefined {
  const text = body.trim();
  if (!text) return undefined;
  if (/^[{[]/.test(text) || /json/i.test(contentType ?? '')) {
    try {
      return fromJson(JSON.parse(text));
    } catch {
      return undefined;
    }
  }
  if (/html|xml/i.test(contentType ?? '') || text.startsWith('<')) return undefined;
  return clean(text.split('\n')[0]!);
}

function fromJson(v: unknown): string | undefined {
  if (typeof v === 'string') return clean(v);
  if (!v || typeof v !== 'object' || Array.isArray(v)) return undefined;
  const o = v as Record<string, unknown>;
  for (const key of ['message', 'error_description', 'error', 'detail', 'title', 'errorMessage']) {
    const value = o[key];
    if (typeof value === 'string' && value.trim()) return clean(value);
    if (value && typeof value === 'object') {
      const inner = fromJson(value);
      if (inner) return inner;
    }
  }
  return undefined;
}

function clean(s: string): string | undefined {
  const one = s
    .replace(/[\u0000-\u001f\u007f]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  if (!one) return undefined;
  return one.length > MAX_MESSAGE ? `${one.slice(0, MAX_MESSAGE - 1)}…` : one;
}
