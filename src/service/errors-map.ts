// A failed answer's reason phrase and the short text of its body (never an HTML page); which error it
// becomes is errors.ts's HTTP_FAILURES.
import { type FailedAnswer, type HttpError, httpFailure, ServiceError } from '../errors.js';
import { shortMessage } from '../http/client.js';

/** What prs knows about the request whose answer failed. */
export type ErrorContext = Omit<FailedAnswer, 'status' | 'reason' | 'said'>;

/** The error for a final non-200 answer. `body` is (the start of) the response body. */
export function errorForStatus(
  status: number,
  body: string,
  contentType: string | undefined,
  c: ErrorContext,
): HttpError {
  // node:http only on this path: loading it costs every request's start-up.
  const reasons = process.getBuiltinModule('node:http').STATUS_CODES;
  const reason = `${status} ${reasons[status] ?? 'Unknown Status'}`;
  return httpFailure({ ...c, status, reason, said: shortMessage(body, contentType) });
}

export const BROKEN_ANSWER =
  'the service sent a broken answer; try again later, and tell its operators if it persists';

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
        ? BROKEN_ANSWER
        : `check the base URL (${c.baseUrl}); it should point at the report service`,
    },
  );
}
