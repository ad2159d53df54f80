/**
 * Reads a final unusable HTTP answer of the report service: its reason phrase and the short text in
 * its body. Which error (and so exit code), message and hint it becomes is HTTP_FAILURES, beside the
 * error classes in src/errors.ts. Messages carry at most a short text from the body (a JSON
 * `message`/`error`), never an HTML page.
 */
import { type FailedAnswer, httpFailure, type PrsError, ServiceError } from '../errors.js';

/**
 * HTTP reason phrases, exactly node:http's STATUS_CODES table.
 * Kept here rather than read from node:http's STATUS_CODES: loading node:http costs a request's
 * start-up several ms (and, imported as an ES module on Node 24, it loads Node's internal undici,
 * ~60 ms), all for a table of strings.
 */
export const REASONS: Readonly<Record<number, string>> = {
  100: 'Continue',
  101: 'Switching Protocols',
  102: 'Processing',
  103: 'Early Hints',
  200: 'OK',
  201: 'Created',
  202: 'Accepted',
  203: 'Non-Authoritative Information',
  204: 'No Content',
  205: 'Reset Content',
  206: 'Partial Content',
  207: 'Multi-Status',
  208: 'Already Reported',
  226: 'IM Used',
  300: 'Multiple Choices',
  301: 'Moved Permanently',
  302: 'Found',
  303: 'See Other',
  304: 'Not Modified',
  305: 'Use Proxy',
  307: 'Temporary Redirect',
  308: 'Permanent Redirect',
  400: 'Bad Request',
  401: 'Unauthorized',
  402: 'Payment Required',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  406: 'Not Acceptable',
  407: 'Proxy Authentication Required',
  408: 'Request Timeout',
  409: 'Conflict',
  410: 'Gone',
  411: 'Length Required',
  412: 'Precondition Failed',
  413: 'Payload Too Large',
  414: 'URI Too Long',
  415: 'Unsupported Media Type',
  416: 'Range Not Satisfiable',
  417: 'Expectation Failed',
  418: "I'm a Teapot",
  421: 'Misdirected Request',
  422: 'Unprocessable Entity',
  423: 'Locked',
  424: 'Failed Dependency',
  425: 'Too Early',
  426: 'Upgrade Required',
  428: 'Precondition Required',
  429: 'Too Many Requests',
  431: 'Request Header Fields Too Large',
  451: 'Unavailable For Legal Reasons',
  500: 'Internal Server Error',
  501: 'Not Implemented',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
  505: 'HTTP Version Not Supported',
  506: 'Variant Also Negotiates',
  507: 'Insufficient Storage',
  508: 'Loop Detected',
  509: 'Bandwidth Limit Exceeded',
  510: 'Not Extended',
  511: 'Network Authentication Required',
};

/** What prs knows about the request whose answer failed. */
export type ErrorContext = Omit<FailedAnswer, 'status' | 'reason' | 'said'>;

/** The error for a final non-200 answer. `body` is (the start of) the response body. */
export function errorForStatus(
  status: number,
  body: string,
  contentType: string | undefined,
  c: ErrorContext,
): PrsError {
  const reason = `${status} ${REASONS[status] ?? 'Unknown Status'}`;
  return httpFailure({ ...c, status, reason, said: shortMessage(body, contentType) });
}

/**
 * A 200 whose body is not a report. `broken`: JSON cut short or nested absurdly deep, the service's
 * own fault (the URL is right: it answered JSON); else (HTML, another API's JSON) the URL is suspect.
 */
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

/**
 * A short human text from an error body: a JSON `message` / `error_description` / `error` / `detail` /
 * `title`, or the first line of a short plain-text body. undefined for HTML and anything else.
 */
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
