/**
 * `-o /dev/null`, `-o /dev/stdout`, `-o /dev/full`, a named pipe: special files are written in place,
 * never renamed over (as root that would replace the device node), and need no --force. The devices
 * here are made with mknod in a temporary directory when allowed, so the real /dev is never at risk.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FileError } from '../../../src/errors.js';
import {
  assertWritableDir,
  assertWritableTarget,
  createAtomicFile,
  isSpecialFile,
} from '../../../src/fs/atomic.js';
import { tempDir } from '../../helpers/run.js';

async function writeFileAtomic(path: string, data: string, o: { force: boolean }): Promise<void> {
  const file = await createAtomicFile(path, o);
  file.stream.write(data);
  await file.commit();
}

let dir: ReturnType<typeof tempDir>;
beforeEach(() => {
  dir = tempDir('prs-special-');
});
afterEach(() => dir.cleanup());

/** A copy of /dev/full (char 1,7) in the temp dir, or undefined where mknod is not allowed. */
function mknodFull(): string | undefined {
  const p = join(dir.path, 'full');
  const r = spawnSync('mknod', [p, 'c', '1', '7'], { stdio: 'ignore' });
  return r.status === 0 ? p : undefined;
}
const tmpFiles = () => readdirSync(tmpdir()).filter((f) => /^\.full\.\d+\.[0-9a-f]+\.tmp$/.test(f));

describe('special files as targets', () => {
  it('[R-L04] a FIFO target stays a FIFO, gets the bytes and needs no --force', async () => {
    const fifo = join(dir.path, 'pipe');
    execFileSync('mkfifo', [fifo]);
    expect(await isSpecialFile(fifo)).toBe(true);
    await expect(assertWritableTarget(fifo, false)).resolves.toBe(true);
    // A reader in another process, so the open(2) of the FIFO for writing can complete.
    const { spawn } = await import('node:child_process');
    const reader = spawn('cat', [fifo]);
    let got = '';
    reader.stdout.on('data', (c) => {
      got += c;
    });
    const closed = new Promise((r) => reader.on('close', r));
    await writeFileAtomic(fifo, '[1,2]', { force: false });
    await closed;
    expect(got).toBe('[1,2]');
    expect(statSync(fifo).isFIFO()).toBe(true);
    expect(readdirSync(dir.path)).toEqual(['pipe']);
  });

  it('[R-L05] a full device (mknod copy of /dev/full): FileError "disk full", device kept, no temp left', async (ctx) => {
    const full = mknodFull();
    if (!full) return ctx.skip(); // no CAP_MKNOD: the e2e test against /dev/full itself still runs
    const before = tmpFiles();
    const err = await writeFileAtomic(full, 'x'.repeat(1000), { force: true }).catch((e) => e);
    expect(err).toBeInstanceOf(FileError);
    expect((err as Error).message).toBe(`cannot write ${full}: disk full`);
    expect(statSync(full).isCharacterDevice()).toBe(true);
    expect(tmpFiles()).toEqual(before);
  });

  it('regular files and directories are not special; a missing path is not either', async () => {
    const f = join(dir.path, 'a.json');
    await writeFileAtomic(f, '[]', { force: false });
    expect(readFileSync(f, 'utf8')).toBe('[]');
    expect(await isSpecialFile(f)).toBe(false);
    expect(await isSpecialFile(dir.path)).toBe(false);
    expect(await isSpecialFile(join(dir.path, 'nope'))).toBe(false);
    expect(await isSpecialFile('/dev/null')).toBe(true);
  });
});

describe('assertWritableDir (report -o checks this before any request)', () => {
  it('passes for a file in an existing directory, and for a special file anywhere', async () => {
    await expect(assertWritableDir(join(dir.path, 'r.json'))).resolves.toBeUndefined();
    await expect(assertWritableDir('/dev/null')).resolves.toBeUndefined();
  });
  it.each([
    ['a missing directory', 'missing/r.json', /^cannot write to .*missing: no such directory$/],
    ['a regular file as the directory', 'afile/r.json', /^cannot write to .*afile: not a directory$/],
  ])('%s is a FileError naming the directory', async (_what, rel, message) => {
    writeFileSync(join(dir.path, 'afile'), '');
    const err = await assertWritableDir(join(dir.path, rel)).catch((e) => e);
    expect(err).toBeInstanceOf(FileError);
    expect((err as Error).message).toMatch(message);
  });
});
