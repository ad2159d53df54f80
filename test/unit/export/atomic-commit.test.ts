/** What `prs export` relies on in src/fs/atomic.ts: a final name chosen at commit, after a pipeline. */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FileError } from '../../../src/errors.js';
import { createAtomicFile } from '../../../src/fs/atomic.js';
import { tempDir } from '../../helpers/run.js';

let dir: ReturnType<typeof tempDir>;
beforeEach(() => {
  dir = tempDir('prs-atomic-commit-');
});
afterEach(() => dir.cleanup());

describe('createAtomicFile for exports', () => {
  it('commits after a pipeline has ended (and closed) the stream, under a name chosen late', async () => {
    const file = await createAtomicFile(join(dir.path, 'placeholder.json'), { force: false });
    await pipeline(Readable.from([Buffer.from('[1,'), Buffer.from('2]')]), file.stream);
    expect(file.stream.closed).toBe(true);
    await file.commit(join(dir.path, 'final.json'));
    expect(file.path).toBe(join(dir.path, 'final.json'));
    expect(readdirSync(dir.path)).toEqual(['final.json']);
    expect(readFileSync(join(dir.path, 'final.json'), 'utf8')).toBe('[1,2]');
  });

  it('a late name that exists meanwhile is refused without force, and the temp file removed', async () => {
    const file = await createAtomicFile(join(dir.path, 'placeholder.json'), { force: false });
    await pipeline(Readable.from([Buffer.from('new')]), file.stream);
    writeFileSync(join(dir.path, 'final.json'), 'old');
    await expect(file.commit(join(dir.path, 'final.json'))).rejects.toThrow(FileError);
    expect(readdirSync(dir.path)).toEqual(['final.json']);
    expect(readFileSync(join(dir.path, 'final.json'), 'utf8')).toBe('old');
  });

  it('refuses a final name in another directory', async () => {
    const file = await createAtomicFile(join(dir.path, 'a.json'), { force: false });
    await expect(file.commit('/elsewhere/a.json')).rejects.toThrow(/not beside/);
    await file.abort();
    expect(readdirSync(dir.path)).toEqual([]);
  });
});
