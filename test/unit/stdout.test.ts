import { spawnSync } from 'node:child_process';
import { closeSync, constants, mkdtempSync, openSync, readFileSync, readSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { writeAll } from '../../src/stdout.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'prs-stdout-'));
});
afterEach(() => rmSync(dir, { recursive: true }));

describe('writeAll: every byte, or a throw', () => {
  it('a file: all of it, at the position given', () => {
    const path = join(dir, 'f');
    const fd = openSync(path, 'w');
    try {
      writeAll(fd, Buffer.from('....world'));
      writeAll(fd, Buffer.from('hey '), 0);
    } finally {
      closeSync(fd);
    }
    expect(readFileSync(path, 'utf8')).toBe('hey world');
  });

  it.skipIf(process.platform === 'win32')(
    'a full non-blocking pipe: throws EAGAIN with the count that went (never a short count to ignore)',
    () => {
      const fifo = join(dir, 'fifo');
      spawnSync('mkfifo', [fifo]);
      const reader = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK);
      const writer = openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK);
      try {
        const bytes = Buffer.alloc(4 * 1024 * 1024);
        for (let i = 0; i < bytes.length; i++) bytes[i] = i % 251;
        let thrown: (NodeJS.ErrnoException & { written?: number }) | undefined;
        try {
          writeAll(writer, bytes);
        } catch (err) {
          thrown = err as NodeJS.ErrnoException;
        }
        expect(thrown?.code).toBe('EAGAIN');
        const written = thrown!.written!;
        expect(written).toBeGreaterThan(0);
        expect(written).toBeLessThan(bytes.length);
        const got = Buffer.alloc(bytes.length);
        let n = 0;
        try {
          while (n < got.length) n += readSync(reader, got, n, got.length - n, null);
        } catch (err) {
          expect((err as NodeJS.ErrnoException).code).toBe('EAGAIN'); // the pipe read empty
        }
        expect(got.subarray(0, n).equals(bytes.subarray(0, written))).toBe(true);
      } finally {
        closeSync(writer);
        closeSync(reader);
      }
    },
  );
});
