import { spawnSync } from 'node:child_process';
import { closeSync, constants, mkdtempSync, openSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { colorFor } from '../../src/color.js';
import { createIO, guardStdout, pagerCommand } from '../../src/io.js';
import { createTestIO } from '../helpers/io.js';

describe('colorFor: the one colour rule', () => {
  it.each([
    [undefined, {}, true, true],
    [undefined, {}, false, false],
    [false, {}, true, false],
    [undefined, { NO_COLOR: '1' }, true, false],
    [undefined, { FORCE_COLOR: '1' }, false, true],
    [undefined, { FORCE_COLOR: '0' }, true, false],
    [undefined, { TERM: 'dumb' }, true, false],
  ])('flag %j env %j tty %j → %j', (flag, env, tty, want) => expect(colorFor(flag, env, tty)).toBe(want));
});

describe('the IO paints', () => {
  it('red only when colour is on', () => {
    expect(createTestIO({ isStderrTTY: true }).red('prs: x')).toBe('\x1b[31mprs: x\x1b[39m');
    expect(createTestIO({ isStderrTTY: true, color: false }).red('prs: x')).toBe('prs: x');
  });

  it('no colour under JSON logs: the test IO is createIO, so it decides as the real one', () => {
    const io = createTestIO({ isStderrTTY: true, env: { FORCE_COLOR: '1' }, logFormat: 'json' });
    expect(io.red('x')).toBe('x');
    io.useLogFormat('text');
    expect(io.red('x')).toBe('\x1b[31mx\x1b[39m');
  });

  it('decides both streams from --no-color and the environment', () => {
    expect(createIO({ env: { FORCE_COLOR: '1' } }).colorStdout).toBe(true);
    expect(createIO({ color: false, env: { FORCE_COLOR: '1' } })).toMatchObject({ colorStdout: false });
    expect(createIO({ color: false, env: { FORCE_COLOR: '1' } }).red('x')).toBe('x');
    expect(createIO({ env: { NO_COLOR: '1', FORCE_COLOR: '1' } }).red('x')).toBe('x');
    expect(createIO({ env: { FORCE_COLOR: '1' } }).red('x')).toBe('\x1b[31mx\x1b[39m');
  });
});

describe('pagerCommand (PRS_PAGER, else PAGER, else less -FRX; empty or cat: off)', () => {
  it.each([
    [{}, 'less -FRX'],
    [{ PAGER: 'more' }, 'more'],
    [{ PRS_PAGER: 'bat -p', PAGER: 'more' }, 'bat -p'],
    [{ PRS_PAGER: '', PAGER: 'more' }, undefined],
    [{ PAGER: ' ' }, undefined],
    [{ PRS_PAGER: 'cat' }, undefined],
  ])('%j → %s', (env, want) => expect(pagerCommand(env)).toBe(want));
});

describe('guardStdout over a SyncWriteStream (stdout a file or device)', () => {
  it.skipIf(process.platform === 'win32')(
    'a write the device takes only in part fails stdout (never exit 0 on cut output)',
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'prs-io-'));
      const fifo = join(dir, 'fifo');
      spawnSync('mkfifo', [fifo]);
      const reader = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK);
      const writer = openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK);
      try {
        // What Node hands over for a non-TTY character device; this one is a full non-blocking pipe.
        class SyncWriteStream {
          fd = writer;
          on() {}
        }
        const guard = guardStdout(new SyncWriteStream() as unknown as NodeJS.WritableStream);
        guard.stream.write(Buffer.alloc(1024 * 1024, 65));
        await guard.idle();
        expect(guard.gone.aborted).toBe(true);
        expect((guard.gone.reason as Error).message).toMatch(/^cannot write to stdout: /);
      } finally {
        closeSync(writer);
        closeSync(reader);
        rmSync(dir, { recursive: true });
      }
    },
  );
});

describe('progress on a terminal', () => {
  const terminal = (columns: number | undefined) =>
    Object.assign(new PassThrough(), { isTTY: true, columns }) as PassThrough & { isTTY: true };
  it.each([
    [80, true],
    [undefined, true],
    [0, false], // a pty nobody sized: ora would divide by 0 columns and redraw forever
  ])('stderr of %j columns → spinner %j', (columns, shown) => {
    let started = 0;
    const io = createIO({
      streams: { stdout: terminal(80), stderr: terminal(columns), stdin: () => new PassThrough() },
      spinner: () => {
        started++;
        return { update() {}, stop() {} };
      },
    });
    io.progress('1/2').stop();
    expect(started).toBe(shown ? 1 : 0);
  });
});
