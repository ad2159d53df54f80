/** The live temporary files main removes when it must leave at once (a second Ctrl-C, a stuck cleanup). */
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createAtomicFile } from '../../../src/fs/atomic.js';
import { temporaries } from '../../../src/fs/temporaries.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'prs-temporaries-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('temporaries', () => {
  it('removeAllSync removes the temporary file of a write in progress', async () => {
    const file = await createAtomicFile(join(dir, 'a.json'), { force: false });
    file.stream.write('[1,');
    expect(existsSync(file.tempPath)).toBe(true);
    temporaries.removeAllSync();
    expect(readdirSync(dir)).toEqual([]);
    await file.abort();
  });
});
