/**
 * One error class per concern. Commands and the service throw these; `src/main.ts` maps them to the
 * exit codes of CLI.md in its single switch. `hint` is printed as at most one extra stderr line.
 */
export interface ErrorDetails {
  hint?: string;
  cause?: unknown;
}

export class PrsError extends Error {
  readonly hint?: string;
  constructor(message: string, details: ErrorDetails = {}) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.hint = details.hint;
  }
}

/** Exit 2: bad flags or values, checked before any request; also a 400 from the service; a corrupt config file. */
export class UsageError extends PrsError {
  override name = 'UsageError';
}

/** Exit 3: the service answered, but with no data. */
export class NoDataError extends PrsError {
  override name = 'NoDataError';
}

/** Exit 4: no session, refused credentials, or a 401 that persisted after one re-authentication. */
export class AuthError extends PrsError {
  override name = 'AuthError';
}

/** An HTTP answer the client cannot use. `status` is the HTTP status; `body` a short, safe excerpt. */
export class HttpError extends PrsError {
  override name = 'HttpError';
  constructor(
    message: string,
    readonly status: number,
    readonly method: string,
    readonly url: string,
    readonly body = '',
    details: ErrorDetails = {},
  ) {
    super(message, details);
  }
}

/** Exit 5: 403. */
export class ForbiddenError extends HttpError {
  override name = 'ForbiddenError';
}

/** Exit 6: 404. */
export class NotFoundError extends HttpError {
  override name = 'NotFoundError';
}

/** Exit 7: 429 still there after the retries. */
export class RateLimitError extends HttpError {
  override name = 'RateLimitError';
}

/** Exit 8: 5xx after retries, or a body that is malformed, truncated or corrupt. */
export class ServiceError extends PrsError {
  override name = 'ServiceError';
}

/** Exit 9: connection refused or reset, DNS, TLS, timeout. */
export class NetworkError extends PrsError {
  override name = 'NetworkError';
}

/** Exit 10: a local file problem: exists without --force, unwritable, missing directory, disk full. */
export class FileError extends PrsError {
  override name = 'FileError';
}

/** Exit 10 too: the target file exists (no --force). In a run of many items, a failure of that item only. */
export class FileExistsError extends FileError {
  override name = 'FileExistsError';
  constructor(
    readonly path: string,
    hint = 'use --force to overwrite it',
  ) {
    super(`${path} already exists`, { hint });
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
}

/** Exit 130: Ctrl-C. Thrown when the run's AbortSignal fires, after temp files are removed. */
export class InterruptedError extends PrsError {
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
  override name = 'StdoutClosedError';
  constructor() {
    super('the reader of stdout went away');
  }
}

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
  interrupted: 130,
  terminated: 143,
} as const;

/** Turns a local file-system error (ENOSPC, EACCES, ENOENT, EEXIST, ...) into a FileError naming the path. */
export function fileError(err: unknown, path: string, what = 'cannot write'): FileError {
  const code = (err as NodeJS.ErrnoException)?.code;
  const reason =
    code === 'ENOSPC'
      ? 'disk full'
      : code === 'EACCES' || code === 'EPERM'
        ? 'permission denied'
        : code === 'ENOENT'
          ? 'no such directory'
          : code === 'EEXIST'
            ? 'already exists'
            : code === 'EROFS'
              ? 'read-only file system'
              : code === 'EFBIG'
                ? 'file too large'
                : code === 'EIO'
                  ? 'input/output error'
                  : code === 'ENOTDIR'
                    ? 'not a directory'
                    : ((err as Error)?.message ?? String(err));
  return new FileError(`${what} ${path}: ${reason}`, { cause: err });
}
