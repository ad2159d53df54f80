/**
 * One error class per concern, and the table that ties them to CLI.md: each class carries its exit
 * code (`exitCode`), `exitCodeFor` reads it, `EXIT_CODES` says what each code means (`prs help
 * exit-codes` and the root --help footer are generated from it), and `HTTP_FAILURES` says which class,
 * message and hint a final HTTP answer of the report service becomes. `hint` is printed as at most one
 * extra stderr line.
 */

/** The exit codes of CLI.md, by name. */
export const ExitCode = {
  ok: 0,
  internal: 1,
  usage: 2,
  noData: 3,
  auth: 4,
  forbidden: 5,
  notFound: 6,
  rateLimited: 7,
  service: 8,
  network: 9,
  file: 10,
  changed: 11,
  interrupted: 130,
  terminated: 143,
} as const;

export interface ExitCodeInfo {
  code: number;
  /** A word or two, for the root --help footer. */
  short: string;
  /** One line: what happened and what to do. */
  meaning: string;
}

/** What each exit code means, in order: the text of `prs help exit-codes` and of the --help footer. */
export const EXIT_CODES: readonly ExitCodeInfo[] = [
  { code: ExitCode.ok, short: 'ok', meaning: 'success' },
  {
    code: ExitCode.internal,
    short: 'internal error',
    meaning: 'unexpected internal error — run again with PRS_DEBUG=1 and report it',
  },
  {
    code: ExitCode.usage,
    short: 'usage',
    meaning: 'usage or bad input, checked before any request; also a 400 from the service',
  },
  { code: ExitCode.noData, short: 'no data', meaning: 'no data for that portfolio, type and date' },
  {
    code: ExitCode.auth,
    short: 'auth',
    meaning: 'authentication needed or refused (no session, token endpoint refusal, 401 after re-login)',
  },
  { code: ExitCode.forbidden, short: 'forbidden', meaning: 'forbidden (403) — check the tenant' },
  { code: ExitCode.notFound, short: 'not found', meaning: 'not found (404) — check the portfolio id' },
  {
    code: ExitCode.rateLimited,
    short: 'rate limited',
    meaning: 'rate limited (429 persisted after retries)',
  },
  {
    code: ExitCode.service,
    short: 'service',
    meaning: 'service error: 5xx after retries, or a malformed or corrupt response',
  },
  { code: ExitCode.network, short: 'network', meaning: 'network: connection refused, DNS, TLS or timeout' },
  {
    code: ExitCode.file,
    short: 'local file',
    meaning: 'local file: exists (no --force), unwritable, missing directory or disk full',
  },
  {
    code: ExitCode.changed,
    short: 'changed',
    meaning: 'diff --exit-code: something changed (0 when nothing did)',
  },
  {
    code: ExitCode.interrupted,
    short: 'interrupted',
    meaning: 'interrupted (Ctrl-C); temporary files removed',
  },
  {
    code: ExitCode.terminated,
    short: 'terminated',
    meaning: "terminated (SIGTERM, e.g. a scheduler's timeout); temporary files removed",
  },
];

export interface ErrorDetails {
  hint?: string;
  cause?: unknown;
  /** Nothing is printed: the exit code says it all (`auth status -q`). */
  silent?: boolean;
}

export class PrsError extends Error {
  /** The exit code of CLI.md that this class of failure ends prs with; each class sets its own. */
  static readonly exitCode: number = ExitCode.internal;
  readonly hint?: string;
  readonly silent: boolean;
  constructor(message: string, details: ErrorDetails = {}) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.hint = details.hint;
    this.silent = !!details.silent;
  }
  /** This error's exit code: its class's. */
  get exitCode(): number {
    return (this.constructor as typeof PrsError).exitCode;
  }
}

/** Exit 2: bad flags or values, checked before any request; a corrupt config file. */
export class UsageError extends PrsError {
  static override readonly exitCode: number = ExitCode.usage;
  override name = 'UsageError';
}

/** Exit 3: the service answered, but with no data. */
export class NoDataError extends PrsError {
  static override readonly exitCode: number = ExitCode.noData;
  override name = 'NoDataError';
}

/** Exit 4: no session, refused credentials, or a 401 that persisted after one re-authentication. */
export class AuthError extends PrsError {
  static override readonly exitCode: number = ExitCode.auth;
  override name = 'AuthError';
}

/** Where an HTTP answer came from, and a short, safe excerpt of its body. */
export interface HttpErrorDetails extends ErrorDetails {
  status: number;
  method: string;
  url: string;
  body?: string;
}

/**
 * Exit 8: an HTTP answer the client cannot use (a status the contract does not name: 409, a 302).
 * The statuses it names have subclasses of their own (HTTP_FAILURES), so nothing re-checks `status`.
 */
export class HttpError extends PrsError {
  static override readonly exitCode: number = ExitCode.service;
  override name = 'HttpError';
  readonly status: number;
  readonly method: string;
  readonly url: string;
  readonly body: string;
  constructor(message: string, details: HttpErrorDetails) {
    super(message, details);
    this.status = details.status;
    this.method = details.method;
    this.url = details.url;
    this.body = details.body ?? '';
  }
}

/** Exit 2: 400, the service refused the request as the caller's mistake. */
export class BadRequestError extends HttpError {
  static override readonly exitCode: number = ExitCode.usage;
  override name = 'BadRequestError';
}

/** Exit 5: 403. */
export class ForbiddenError extends HttpError {
  static override readonly exitCode: number = ExitCode.forbidden;
  override name = 'ForbiddenError';
}

/** Exit 6: 404. */
export class NotFoundError extends HttpError {
  static override readonly exitCode: number = ExitCode.notFound;
  override name = 'NotFoundError';
}

/** Exit 7: 429 still there after the retries. */
export class RateLimitError extends HttpError {
  static override readonly exitCode: number = ExitCode.rateLimited;
  override name = 'RateLimitError';
}

/** Exit 8: a 5xx still there after the retries. */
export class ServerError extends HttpError {
  static override readonly exitCode: number = ExitCode.service;
  override name = 'ServerError';
}

/** Exit 8: a body that is malformed, truncated or corrupt (or a token endpoint that failed). */
export class ServiceError extends PrsError {
  static override readonly exitCode: number = ExitCode.service;
  override name = 'ServiceError';
}

/** Exit 9: connection refused or reset, DNS, TLS, timeout. */
export class NetworkError extends PrsError {
  static override readonly exitCode: number = ExitCode.network;
  override name = 'NetworkError';
}

/** Exit 10: a local file problem: exists without --force, unwritable, missing directory, disk full. */
export class FileError extends PrsError {
  static override readonly exitCode: number = ExitCode.file;
  override name = 'FileError';
}

/** Exit 10 too: the target file exists (no --force). In a run of many items, a failure of that item only. */
/** FileExistsError's hint when its thrower knows nothing more to say. */
export const FORCE_HINT = 'use --force to overwrite it';

export class FileExistsError extends FileError {
  override name = 'FileExistsError';
  constructor(
    readonly path: string,
    hint = FORCE_HINT,
  ) {
    super(`${path} already exists`, { hint });
  }
}

/**
 * Exit 11: `prs diff --exit-code` found a change. Not a failure, so nothing is printed for it (as
 * `git diff --exit-code`): the summary lines already said what changed.
 */
export class ChangesFoundError extends PrsError {
  static override readonly exitCode: number = ExitCode.changed;
  override name = 'ChangesFoundError';
  constructor() {
    super('changes found');
  }
}

/**
 * A run of many items in which some items failed (CLI.md "Runs of many items"): the message is the
 * run's summary line, the exit code that of the first failed item.
 */
export class ItemsFailedError extends PrsError {
  override name = 'ItemsFailedError';
  constructor(
    summary: string,
    readonly first: unknown,
  ) {
    super(summary);
  }
  override get exitCode(): number {
    return exitCodeFor(this.first);
  }
}

/** Exit 130: Ctrl-C. Thrown when the run's AbortSignal fires, after temp files are removed. */
export class InterruptedError extends PrsError {
  static override readonly exitCode: number = ExitCode.interrupted;
  override name = 'InterruptedError';
  constructor(message = 'interrupted') {
    super(message);
  }
}

/**
 * Exit 0, silently: the reader of stdout went away (`prs report … | head -1`). It got what it wanted;
 * the run stops at once (CLI.md "Output that scripts can trust").
 */
export class StdoutClosedError extends PrsError {
  static override readonly exitCode: number = ExitCode.ok;
  override name = 'StdoutClosedError';
  constructor() {
    super('the reader of stdout went away');
  }
}

/**
 * The contract's exit code for any error prs threw (its class's); anything else is a defect: exit 1.
 * Commander's own parse errors are main.ts's (commander is not loaded by every module that throws).
 */
export function exitCodeFor(err: unknown): number {
  return err instanceof PrsError ? err.exitCode : ExitCode.internal;
}

/** A final non-200 answer of the report service, and what prs knows about the request. */
export interface FailedAnswer {
  status: number;
  /** "503 Service Unavailable" */
  reason: string;
  /** A short text from the body (a JSON `message`, the first line of plain text), if any. */
  said?: string;
  method: string;
  url: string;
  portfolioId: number;
  tenant: string;
  baseUrl: string;
  /** Retries already made when giving up. */
  retries: number;
  /** Under CI hints name environment variables instead of `prs login`. */
  ci: boolean;
}

interface HttpFailure {
  /** The class, and so the exit code. */
  error: new (
    message: string,
    details: HttpErrorDetails,
  ) => PrsError;
  message: (a: FailedAnswer) => string;
  hint: (a: FailedAnswer) => string | undefined;
}

const saying = (a: FailedAnswer) => (a.said ? `: ${a.said}` : '');
const after = (a: FailedAnswer) =>
  a.retries > 0 ? ` (after ${a.retries} ${a.retries === 1 ? 'retry' : 'retries'})` : '';

/**
 * What a final HTTP answer of the report service becomes: by status, then '5xx', then 'other'.
 * Messages carry at most a short text from the body, never an HTML page.
 */
export const HTTP_FAILURES: Readonly<Record<400 | 401 | 403 | 404 | 429 | '5xx' | 'other', HttpFailure>> = {
  400: {
    error: BadRequestError,
    message: (a) => `the service rejected the request: ${a.said ?? a.reason}`,
    hint: () => 'check the report type and the date',
  },
  401: {
    error: AuthError,
    message: (a) => `the service refused the access token (${a.reason}) even after signing in again`,
    hint: (a) =>
      a.ci
        ? 'check PRS_TOKEN, or PRS_USERNAME / PRS_PASSWORD / PRS_CLIENT_SECRET'
        : 'run `prs login`, or check that the token is meant for this service',
  },
  403: {
    error: ForbiddenError,
    message: (a) => `forbidden — check the tenant (X-CLIENT-ID ${a.tenant}) and your account's permissions`,
    hint: (a) => (a.said ? `the service said: ${a.said}` : undefined),
  },
  404: {
    error: NotFoundError,
    message: (a) => `portfolio ${a.portfolioId} not found — check the id`,
    hint: (a) => `if every id gives 404, check the base URL (${a.baseUrl})`,
  },
  429: {
    error: RateLimitError,
    message: (a) => `rate limited by the service (${a.reason})${after(a)}${saying(a)}`,
    hint: () => 'try again later; if other clients share this account, lower --rate-limit',
  },
  '5xx': {
    error: ServerError,
    message: (a) => `service error: ${a.reason}${saying(a)}${after(a)}`,
    hint: () => 'the service has a problem; try again later',
  },
  other: {
    error: HttpError,
    message: (a) => `unexpected answer from the service: ${a.reason}${saying(a)}`,
    hint: (a) => `check the base URL (${a.baseUrl})`,
  },
};

/** The error for a final non-200 answer, from HTTP_FAILURES. */
export function httpFailure(a: FailedAnswer): PrsError {
  const row =
    HTTP_FAILURES[a.status as keyof typeof HTTP_FAILURES] ?? HTTP_FAILURES[a.status >= 500 ? '5xx' : 'other'];
  return new row.error(row.message(a), {
    status: a.status,
    method: a.method,
    url: a.url,
    body: a.said ?? '',
    hint: row.hint(a),
  });
}

/** The words a FileError gives for a file-system errno; any other error keeps its own message. */
const FILE_ERRNO_WORDS: ReadonlyMap<string | undefined, string> = new Map([
  ['ENOSPC', 'disk full'],
  ['EACCES', 'permission denied'],
  ['EPERM', 'permission denied'],
  ['ENOENT', 'no such directory'],
  ['EEXIST', 'already exists'],
  ['EROFS', 'read-only file system'],
  ['EFBIG', 'file too large'],
  ['EIO', 'input/output error'],
  ['ENOTDIR', 'not a directory'],
]);

/** Turns a local file-system error (ENOSPC, EACCES, ENOENT, EEXIST, ...) into a FileError naming the path. */
export function fileError(err: unknown, path: string, what = 'cannot write'): FileError {
  const reason =
    FILE_ERRNO_WORDS.get((err as NodeJS.ErrnoException)?.code) ?? (err as Error)?.message ?? String(err);
  return new FileError(`${what} ${path}: ${reason}`, { cause: err });
}
