import { CommanderError } from 'commander';
import { describe, expect, it } from 'vitest';
import {
  AuthError,
  EXIT_CODES,
  ExitCode,
  exitCodeFor,
  FileError,
  FileExistsError,
  fileError,
  HttpError,
  httpFailure,
  InterruptedError,
  ItemsFailedError,
  NetworkError,
  NoDataError,
  ServiceError,
  UsageError,
} from '../../src/errors.js';
import { errorLines, errorReport, processExitCode } from '../../src/main.js';
import { switchInArgv } from '../../src/settings.js';

const http = (status: number) => new HttpError('x', { status });

describe('exitCodeFor: the contract table', () => {
  it.each([
    ['usage', new UsageError('x'), 2],
    ['no data', new NoDataError('x'), 3],
    ['auth', new AuthError('x'), 4],
    ['403', http(403), 5],
    ['404', http(404), 6],
    ['429', http(429), 7],
    ['400 from the service', http(400), 2],
    ['500 from the service', http(500), 8],
    ['an unexpected status', http(409), 8],
    ['malformed body', new ServiceError('x'), 8],
    ['network', new NetworkError('x'), 9],
    ['file', new FileError('x'), 10],
    ['file exists', new FileExistsError('a.json'), 10],
    ['interrupted', new InterruptedError(), 130],
    ['items failed: the first failure', new ItemsFailedError('1 failed', http(404)), 6],
    ['items failed on a bug', new ItemsFailedError('1 failed', new TypeError('x')), 1],
    ['bug', new TypeError('boom'), 1],
    ['thrown string', 'boom', 1],
  ])('%s → %d', (_name, err, code) => {
    expect(exitCodeFor(err)).toBe(code);
    expect(processExitCode(err)).toBe(code);
  });

  it('every exit code an error class carries is one the help table explains', () => {
    const classes = [
      UsageError,
      NoDataError,
      AuthError,
      ServiceError,
      NetworkError,
      FileError,
      InterruptedError,
    ];
    const explained = EXIT_CODES.map((e) => e.code);
    for (const C of classes) expect(explained).toContain(C.exitCode);
    for (const status of [301, 400, 401, 403, 404, 409, 429, 500, 503])
      expect(explained).toContain(http(status).exitCode);
    expect(EXIT_CODES.map((e) => e.code)).toEqual(Object.values(ExitCode));
  });

  // The HTTP status table (errors.ts HTTP_FAILURES) through the service's own entry: status → exit code.
  it.each([
    [400, 2],
    [401, 4],
    [403, 5],
    [404, 6],
    [429, 7],
    [500, 8],
    [503, 8],
    [409, 8],
  ])('HTTP %i → exit %i', (status, code) => {
    const c = { portfolioId: 1, tenant: 't', baseUrl: 'b', retries: 0, ci: false };
    const err = httpFailure({ ...c, status });
    expect(err).toBeInstanceOf(HttpError);
    expect(err.status).toBe(status);
    expect(exitCodeFor(err)).toBe(code);
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
      errorLines(errorReport(new HttpError('forbidden', { status: 403, hint: 'check the tenant' }), false)),
    ).toEqual(['prs: forbidden', 'hint: check the tenant']));
  it('commander errors become one line plus the suggestion', () =>
    expect(
      errorLines(
        errorReport(
          new CommanderError(
            1,
            'commander.unknownCommand',
            "error: unknown command 'reprot'\n(Did you mean report?)",
          ),
          false,
        ),
      ),
    ).toEqual(["prs: unknown command 'reprot'", 'did you mean report?']));
  it('no stack trace unless debugging', () => {
    const lines = errorLines(errorReport(new TypeError('boom'), false));
    expect(lines.join('\n')).not.toMatch(/at .*\.ts/);
    expect(lines[0]).toBe('prs: internal error: boom');
  });
  it('tokens in messages are masked', () =>
    expect(
      errorLines(errorReport(new AuthError('bad token eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2ln'), false))[0],
    ).toBe('prs: bad token ***'));
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
