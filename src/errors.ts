/** name: [code, a word or two for the --help footer, one line for `prs help exit-codes`]: CLI.md's table. */
const EXITS = {
  ok: [0, 'ok', 'success'],
  internal: [1, 'internal error', 'unexpected internal error — run again with PRS_DEBUG=1 and report it'],
  usage: [2, 'usage', 'usage or bad input, checked before any request; also a 400 from the service'],
  noData: [3, 'no data', 'no data for that portfolio, type and date'],
  auth: [
    4,
    'auth',
    'authentication needed or refused (no session, token endpoint refusal, 401 after re-login)',
  ],
  forbidden: [5, 'forbidden', 'forbidden (403) — check the tenant'],
  notFound: [6, 'not found', 'not found (404) — check the portfolio id'],
  rateLimited: [7, 'rate limited', 'rate limited (429 persisted after retries)'],
  service: [8, 'service', 'service error: 5xx after retries, or a malformed or corrupt response'],
  network: [9, 'network', 'network: connection refused, DNS, TLS or timeout'],
  file: [10, 'local file', 'local file: exists (no --force), unwritable, missing directory or disk full'],
  changed: [11, 'changed', 'diff --exit-code: something changed (0 when nothing did)'],
  interrupted: [130, 'interrupted', 'interrupted (Ctrl-C); temporary files removed'],
  terminated: [
    143,
    'terminated',
    "terminated (SIGTERM, e.g. a scheduler's timeout); temporary files removed",
  ],
} as const;
type Exits = typeof EXITS;

export const ExitCode = Object.fromEntries(Object.entries(EXITS).map(([name, [code]]) => [name, code])) as {
  readonly [K in keyof Exits]: Exits[K][0];
};

export const SIGNAL_EXITS = { SIGINT: 'interrupted', SIGTERM: 'terminated' } as const;

export const EXIT_CODES = Object.values(EXITS).map(([code, short, meaning]) => ({ code, short, meaning }));

interface ErrorDetails {
  hint?: string;
  cause?: unknown;
  silent?: boolean;
}

export class PrsError extends Error {
  static readonly exitCode: number = ExitCode.internal;
  readonly hint?: string;
  readonly silent: boolean;
  constructor(message: string, details: ErrorDetails = {}) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.name = new.target.name;
    this.hint = details.hint;
    this.silent = !!details.silent;
  }
  get exitCode(): number {
    return (this.constructor as typeof PrsError).exitCode;
  }
}

const endingIn = (exit: keyof Exits) =>
  class extends PrsError {
    static override readonly exitCode: number = ExitCode[exit];
  };

export class UsageError extends endingIn('usage') {}
export class NoDataError extends endingIn('noData') {}
export class AuthError extends endingIn('auth') {}

export class HttpError extends PrsError {
  readonly status: number;
  constructor(message: string, details: ErrorDetails & { status: number }) {
    super(message, details);
    this.status = details.status;
  }
  override get exitCode(): number {
    return ExitCode[failureRow(this.status).exit];
  }
}

export class ServiceError extends endingIn('service') {}
export class NetworkError extends endingIn('network') {}
export class FileError extends endingIn('file') {}

export const FORCE_HINT = 'use --force to overwrite it';

export class FileExistsError extends FileError {
  constructor(
    readonly path: string,
    hint = FORCE_HINT,
  ) {
    super(`${path} already exists`, { hint });
  }
}

/** `diff --exit-code` found a change: not a failure, so nothing is printed (as `git diff --exit-code`). */
export class ChangesFoundError extends endingIn('changed') {
  constructor() {
    super('changes found', { silent: true });
  }
}

export class ItemsFailedError extends PrsError {
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

export class InterruptedError extends endingIn('interrupted') {
  constructor(message = 'interrupted') {
    super(message);
  }
}

/** `prs report … | head -1`: the reader got what it wanted; exit 0, silently. */
export class StdoutClosedError extends endingIn('ok') {
  constructor() {
    super('the reader of stdout went away');
  }
}

/** Anything but prs's own errors is a defect. */
export function exitCodeFor(err: unknown): number {
  return err instanceof PrsError ? err.exitCode : ExitCode.internal;
}

export interface FailedAnswer {
  status: number;
  said?: string;
  portfolioId: number;
  tenant: string;
  baseUrl: string;
  retries: number;
  ci: boolean;
}

interface HttpFailure {
  exit: keyof Exits;
  message: (a: FailedAnswer) => string;
  hint: (a: FailedAnswer) => string | undefined;
}

/** A count's noun as every message words it: one `one`, else `many`. */
export const plural = (n: number, one: string, many = `${one}s`) => (n === 1 ? one : many);

/** A system error's code, or its cause's (undici wraps the socket's error: `fetch failed`). */
export function errnoCode(err: unknown): string {
  const e = err as (NodeJS.ErrnoException & { cause?: NodeJS.ErrnoException }) | undefined;
  return e?.code ?? e?.cause?.code ?? '';
}

// node:http only here: loading it costs every request's start-up.
export const statusLine = (status: number) =>
  `${status} ${process.getBuiltinModule('node:http').STATUS_CODES[status] ?? 'Unknown Status'}`;
const reason = (a: FailedAnswer) => statusLine(a.status);
const saying = (a: FailedAnswer) => (a.said ? `: ${a.said}` : '');
const after = (a: FailedAnswer) =>
  a.retries > 0 ? ` (after ${a.retries} ${plural(a.retries, 'retry', 'retries')})` : '';

export const HTTP_FAILURES: Readonly<Record<400 | 401 | 403 | 404 | 429 | '5xx' | 'other', HttpFailure>> = {
  400: {
    exit: 'usage',
    message: (a) => `the service rejected the request: ${a.said ?? reason(a)}`,
    hint: () => 'check the report type and the date',
  },
  401: {
    exit: 'auth',
    message: (a) => `the service refused the access token (${reason(a)}) even after signing in again`,
    hint: (a) =>
      a.ci
        ? 'check PRS_TOKEN, or PRS_USERNAME / PRS_PASSWORD / PRS_CLIENT_SECRET'
        : 'run `prs login`, or check that the token is meant for this service',
  },
  403: {
    exit: 'forbidden',
    message: (a) => `forbidden — check the tenant (X-CLIENT-ID ${a.tenant}) and your account's permissions`,
    hint: (a) => (a.said ? `the service said: ${a.said}` : undefined),
  },
  404: {
    exit: 'notFound',
    message: (a) => `portfolio ${a.portfolioId} not found — check the id`,
    hint: (a) => `if every id gives 404, check the base URL (${a.baseUrl})`,
  },
  429: {
    exit: 'rateLimited',
    message: (a) => `rate limited by the service (${reason(a)})${after(a)}${saying(a)}`,
    hint: () => 'try again later; if other clients share this account, lower --rate-limit',
  },
  '5xx': {
    exit: 'service',
    message: (a) => `service error: ${reason(a)}${saying(a)}${after(a)}`,
    hint: () => 'the service has a problem; try again later',
  },
  other: {
    exit: 'service',
    message: (a) => `unexpected answer from the service: ${reason(a)}${saying(a)}`,
    hint: (a) => `check the base URL (${a.baseUrl})`,
  },
};

const failureRow = (status: number): HttpFailure =>
  HTTP_FAILURES[status as keyof typeof HTTP_FAILURES] ?? HTTP_FAILURES[status >= 500 ? '5xx' : 'other'];

export function httpFailure(a: FailedAnswer): HttpError {
  const row = failureRow(a.status);
  return new HttpError(row.message(a), { status: a.status, hint: row.hint(a) });
}

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
  ['EAGAIN', 'resource temporarily unavailable'],
]);

export function fileError(err: unknown, path: string, what = 'cannot write'): FileError {
  const reason =
    FILE_ERRNO_WORDS.get((err as NodeJS.ErrnoException)?.code) ?? (err as Error)?.message ?? String(err);
  return new FileError(`${what} ${path}: ${reason}`, { cause: err });
}
