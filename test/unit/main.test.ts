import { CommanderError } from 'commander';
import { describe, expect, it } from 'vitest';
import {
  AuthError,
  BadRequestError,
  EXIT_CODES,
  ExitCode,
  exitCodeFor,
  FileError,
  FileExistsError,
  ForbiddenError,
  fileError,
  HttpError,
  InterruptedError,
  ItemsFailedError,
  NetworkError,
  NoDataError,
  NotFoundError,
  RateLimitError,
  ServerError,
  ServiceError,
  UsageError,
} from '../../src/errors.js';
import { errorLines, processExitCode } from '../../src/main.js';
import { errorForStatus } from '../../src/service/errors-map.js';
import { switchInArgv } from '../../src/settings.js';

const http = (C: typeof HttpError, status: number) => new C('x', { status });

describe('exitCodeFor: the contract table', () => {
  it.each([
    ['usage', new UsageError('x'), 2],
    ['no data', new NoDataError('x'), 3],
    ['auth', new AuthError('x'), 4],
    ['403', http(ForbiddenError, 403), 5],
    ['404', http(NotFoundError, 404), 6],
    ['429', http(RateLimitError, 429), 7],
    ['400 from the service', http(BadRequestError, 400), 2],
    ['500 from the service', http(ServerError, 500), 8],
    ['an unexpected status', http(HttpError, 409), 8],
    ['malformed body', new ServiceError('x'), 8],
    ['network', new NetworkError('x'), 9],
    ['file', new FileError('x'), 10],
    ['file exists', new FileExistsError('a.json'), 10],
    ['interrupted', new InterruptedError(), 130],
    ['items failed: the first failure', new ItemsFailedError('1 failed', http(NotFoundError, 404)), 6],
    ['items failed on a bug', new ItemsFailedError('1 failed', new TypeError('x')), 1],
    ['bug', new TypeError('boom'), 1],
    ['thrown string', 'boom', 1],
  ])('%s → %d', (_name, err, code) => {
    expect(exitCodeFor(err)).toBe(code);
    expect(processExitCode(err)).toBe(code);
  });

  it('every exit code an error class carries is one the help table explains', () => {
    const classes = [UsageError, NoDataError, AuthError, HttpError, BadRequestError, ForbiddenError];
    classes.push(NotFoundError, RateLimitError, ServerError, ServiceError, NetworkError, FileError);
    const explained = EXIT_CODES.map((e) => e.code);
    for (const C of [...classes, InterruptedError]) expect(explained).toContain(C.exitCode);
    expect(EXIT_CODES.map((e) => e.code)).toEqual(Object.values(ExitCode));
  });

  // The HTTP status table (errors.ts HTTP_FAILURES) through the service's own entry: status → class.
  it.each([
    [400, BadRequestError],
    [401, AuthError],
    [403, ForbiddenError],
    [404, NotFoundError],
    [429, RateLimitError],
    [500, ServerError],
    [503, ServerError],
    [409, HttpError],
  ])('HTTP %i → %s', (status, C) => {
    const c = { portfolioId: 1, tenant: 't', baseUrl: 'b', retries: 0, ci: false };
    expect(errorForStatus(status, '', undefined, c).constructor).toBe(C);
  });
});

describe('fileError: an errno in words, naming the path', () => {
  const errno = (code: string) => Object.assign(new Error(`${code}: raw`), { code });
  it.each([
    ['ENOSPC', 'disk full'],
    ['EACCES', 'permission denied'],
    ['EPERM', 'permission denied'],
    ['ENOENT', 'no such directory'],
    ['EEXIST', 'already exists'],
    ['EROFS', 'read-only file system'],
    ['EFBIG', 'file too large'],
    ['EIO', 'input/output error'],
    ['ENOTDIR', 'not a directory'],
    ['EMFILE', 'EMFILE: raw'],
  ])('%s → %s', (code, words) => {
    const err = fileError(errno(code), '/x/a.json');
    expect(err).toBeInstanceOf(FileError);
    expect(err.message).toBe(`cannot write /x/a.json: ${words}`);
  });
  it('another verb, and a thrown non-Error', () => {
    expect(fileError(errno('EACCES'), '/x', 'cannot read').message).toBe('cannot read /x: permission denied');
    expect(fileError('odd', '/x').message).toBe('cannot write /x: odd');
  });
});

describe("processExitCode: commander's own errors", () => {
  it.each([
    ['commander usage', new CommanderError(1, 'commander.unknownOption', "error: unknown option '--x'"), 2],
    ['commander help', new CommanderError(0, 'commander.helpDisplayed', '(outputHelp)'), 0],
    ['commander version', new CommanderError(0, 'commander.version', '1.0.0'), 0],
  ])('%s → %d', (_name, err, code) => expect(processExitCode(err)).toBe(code));
});

describe('errorLines', () => {
  it('a message and a hint', () =>
    expect(
      errorLines(new ForbiddenError('forbidden', { status: 403, hint: 'check the tenant' }), false),
    ).toEqual(['prs: forbidden', 'hint: check the tenant']));
  it('commander errors become one line plus the suggestion', () =>
    expect(
      errorLines(
        new CommanderError(
          1,
          'commander.unknownCommand',
          "error: unknown command 'reprot'\n(Did you mean report?)",
        ),
        false,
      ),
    ).toEqual(["prs: unknown command 'reprot'", 'did you mean report?']));
  it('no stack trace unless debugging', () => {
    const lines = errorLines(new TypeError('boom'), false);
    expect(lines.join('\n')).not.toMatch(/at .*\.ts/);
    expect(lines[0]).toBe('prs: internal error: boom');
  });
  it('tokens in messages are masked', () =>
    expect(errorLines(new AuthError('bad token eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2ln'), false)[0]).toBe(
      'prs: bad token ***',
    ));
});

describe("switchInArgv(argv, 'quiet') (before commander has parsed the flags)", () => {
  it.each([
    [['-q', 'report'], true],
    [['--quiet'], true],
    [['-qv', 'reprot'], true],
    [['reprot', '-vq'], true],
    [['-qf', 'csv'], true],
    [['-v', 'report'], false],
    [['-oq'], false],
    [['--', '-q'], false],
    [['--quietly'], false],
  ])('%j → %s', (argv, want) => expect(switchInArgv(argv, 'quiet')).toBe(want));
});
