import { spawnSync } from 'node:child_process';
import {
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FileError } from '../../../src/errors.js';
import { assertWritableDir, createAtomicFile, openReplacement, replaceFile } from '../../../src/fs/atomic.js';
import { tempNameFor } from '../../../src/fs/temp-names.js';
import { tempDir } from '../../helpers/run.js';

async function writeFileAtomic(path: string, data: string, o: { force: boolean }): Promise<void> {
  const file = await createAtomicFile(path, o);
  file.stream.write(data);
  await file.commit();
}

let dir: { path: string; cleanup: () => void };
beforeEach(() => {
  dir = tempDir();
});
afterEach(() => dir.cleanup());

describe('atomic files', () => {
  it('writes a whole file and leaves no temp behind', async () => {
    const p = join(dir.path, 'a.json');
    await writeFileAtomic(p, '[1]', { force: false });
    expect(readFileSync(p, 'utf8')).toBe('[1]');
    expect(readdirSync(dir.path)).toEqual(['a.json']);
  });
  it('never clobbers without force, and leaves the old file untouched', async () => {
    const p = join(dir.path, 'a.json');
    writeFileSync(p, 'old');
    await expect(writeFileAtomic(p, 'new', { force: false })).rejects.toBeInstanceOf(FileError);
    expect(readFileSync(p, 'utf8')).toBe('old');
    expect(readdirSync(dir.path)).toEqual(['a.json']);
  });
  it('refuses at commit when the target appeared meanwhile', async () => {
    const p = join(dir.path, 'race.json');
    const f = await createAtomicFile(p, { force: false });
    f.stream.write('mine');
    writeFileSync(p, 'theirs');
    await expect(f.commit()).rejects.toThrow(/already exists/);
    expect(readFileSync(p, 'utf8')).toBe('theirs');
    expect(readdirSync(dir.path)).toEqual(['race.json']);
  });
  it('overwrites with force', async () => {
    const p = join(dir.path, 'a.json');
    writeFileSync(p, 'old');
    await writeFileAtomic(p, 'new', { force: true });
    expect(readFileSync(p, 'utf8')).toBe('new');
  });
  it('abort removes the temp file', async () => {
    const f = await createAtomicFile(join(dir.path, 'b.json'), { force: false });
    f.stream.write('partial');
    await f.abort();
    expect(readdirSync(dir.path)).toEqual([]);
  });
  it('a missing directory is a FileError naming the path', async () => {
    const p = join(dir.path, 'nope', 'a.json');
    await expect(writeFileAtomic(p, 'x', { force: false })).rejects.toThrow(
      new RegExp(`${p}: no such directory`),
    );
  });
  it.skipIf(!existsSync('/dev/full'))('disk full is a FileError', async () => {
    // /dev/full cannot hold a temp file beside it, so exercise the error mapping directly.
    const { fileError } = await import('../../../src/errors.js');
    expect(fileError(Object.assign(new Error('x'), { code: 'ENOSPC' }), '/dev/full').message).toBe(
      'cannot write /dev/full: disk full',
    );
  });
});

describe('replaceFile', () => {
  it('replaces a file whole, with the mode asked for; no temporary left', () => {
    const p = join(dir.path, 'state.json');
    writeFileSync(p, 'old and longer');
    replaceFile(p, 'new', { mode: 0o600 });
    expect(readFileSync(p, 'utf8')).toBe('new');
    expect(statSync(p).mode & 0o777).toBe(0o600);
    expect(readdirSync(dir.path)).toEqual(['state.json']);
  });
  it('openReplacement: written through its descriptor, committed with the time asked for', () => {
    const p = join(dir.path, 'entry');
    const r = openReplacement(p, { mode: 0o600 });
    writeSync(r.fd, 'new');
    r.commit(1_000_000);
    expect(readFileSync(p, 'utf8')).toBe('new');
    expect(statSync(p).mtimeMs).toBe(1_000_000);
    expect(readdirSync(dir.path)).toEqual(['entry']);
  });
  it('replaces a link in its place (dangling or not), never its target', () => {
    const target = join(dir.path, 'target');
    writeFileSync(target, 'keep');
    symlinkSync(target, join(dir.path, 'a'));
    symlinkSync(join(dir.path, 'missing'), join(dir.path, 'b'));
    replaceFile(join(dir.path, 'a'), 'x');
    replaceFile(join(dir.path, 'b'), 'y');
    expect(readFileSync(target, 'utf8')).toBe('keep');
    expect(existsSync(join(dir.path, 'missing'))).toBe(false);
    expect(lstatSync(join(dir.path, 'a')).isFile() && lstatSync(join(dir.path, 'b')).isFile()).toBe(true);
  });
  it('a failed replace throws and leaves the old file and no temporary', () => {
    const p = join(dir.path, 'd');
    mkdirSync(p);
    expect(() => replaceFile(p, 'x')).toThrow(/EISDIR|ENOTEMPTY|EEXIST/);
    expect(readdirSync(dir.path)).toEqual(['d']);
  });
});

describe("assertWritableDir: an -o file's directory", () => {
  /** A temporary of a run that was killed: its process is gone. */
  function deadRunsTemporary(): string {
    const pid = Number(
      spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']).stdout,
    );
    const name = tempNameFor('out.csv').replace(`.${process.pid}.`, `.${pid}.`);
    writeFileSync(join(dir.path, name), 'x');
    return name;
  }

  it.each([
    [false, 'kept'],
    [true, 'removed'],
  ])("clean %s: a dead run's temporary beside the file is %s", async (clean, what) => {
    const name = deadRunsTemporary();
    await assertWritableDir(join(dir.path, 'out.csv'), clean);
    expect(readdirSync(dir.path)).toEqual(what === 'kept' ? [name] : []);
  });

  it('a missing directory is a FileError; a special file is written in place, its directory unchecked', async () => {
    await expect(assertWritableDir(join(dir.path, 'missing', 'out.csv'))).rejects.toBeInstanceOf(FileError);
    await assertWritableDir('/dev/null', true);
  });
});
