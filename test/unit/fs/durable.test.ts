import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { replaceFile } from '../../../src/fs/atomic.js';
import { tempDir } from '../../helpers/run.js';

// fsync leaves no trace a test can read back: counted instead.
const fsyncs = vi.hoisted(() => ({ count: 0 }));
vi.mock('node:fs', async (importOriginal) => {
  const fs = await importOriginal<typeof import('node:fs')>();
  const fsyncSync = (fd: number) => {
    fsyncs.count++;
    fs.fsyncSync(fd);
  };
  return { ...fs, fsyncSync, default: { ...fs, fsyncSync } };
});

let dir: { path: string; cleanup: () => void };
beforeEach(() => {
  dir = tempDir();
  fsyncs.count = 0;
});
afterEach(() => dir.cleanup());

describe('replaceFile durable', () => {
  it('by default syncs the data and then the directory', () => {
    replaceFile(join(dir.path, 'a'), 'x');
    expect(readFileSync(join(dir.path, 'a'), 'utf8')).toBe('x');
    expect(fsyncs.count).toBe(2);
  });
  it('durable: false syncs nothing (the limiter state, cache entries)', () => {
    replaceFile(join(dir.path, 'a'), 'x', { durable: false });
    expect(readFileSync(join(dir.path, 'a'), 'utf8')).toBe('x');
    expect(fsyncs.count).toBe(0);
  });
});
