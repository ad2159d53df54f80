import { CommanderError } from 'commander';
import { describe, expect, it } from 'vitest';
import {
  AuthError,
  FileError,
  ForbiddenError,
  HttpError,
  InterruptedError,
  NetworkError,
  NoDataError,
  NotFoundError,
  RateLimitError,
  ServiceError,
  UsageError,
} from '../../src/errors.js';
import { errorLines, exitCodeFor, quietInArgv } from '../../src/main.js';

describe('exitCodeFor: the contract table', () => {
  const http = (C: typeof HttpError, status: number) => new C('x', status, 'GET', 'http://h/p');
  it.each([
    ['usage', new UsageError('x'), 2],
    ['no data', new NoDataError('x'), 3],
    ['auth', new AuthError('x'), 4],
    ['403', http(ForbiddenError, 403), 5],
    ['404', http(NotFoundError, 404), 6],
    ['429', http(RateLimitError, 429), 7],
    ['400 from the service', http(HttpError, 400), 2],
    ['500 from the service', http(HttpError, 500), 8],
    ['malformed body', new ServiceError('x'), 8],
    ['network', new NetworkError('x'), 9],
    ['file', new FileError('x'), 10],
    ['interrupted', new InterruptedError(), 130],
    ['bug', new TypeError('boom'), 1],
    ['thrown string', 'boom', 1],
    ['commander usage', new CommanderError(1, 'commander.unknownOption', "error: unknown option '--x'"), 2],
    ['commander help', new CommanderError(0, 'commander.helpDisplayed', '(outputHelp)'), 0],
    ['commander version', new CommanderError(0, 'commander.version', '1.0.0'), 0],
  ])('%s → %d', (_name, err, code) => expect(exitCodeFor(err)).toBe(code));
});

describe('errorLines', () => {
  it('a message and a hint', () =>
    expect(
      errorLines(new ForbiddenError('forbidden', 403, 'GET', 'u', '', { hint: 'check the tenant' }), false),
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

describe('quietInArgv (before commander has parsed the flags)', () => {
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
  ])('%j → %s', (argv, want) => expect(quietInArgv(argv)).toBe(want));
});
