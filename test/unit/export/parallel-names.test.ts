// export --parallel: two items whose server names their files alike (a holiday answered with the
// previous day's rows, named after that day) download side by side. The later one must find the name
// taken from the moment the earlier one's file can exist, not only once its commit has returned:
// in that window it opened the name as a file in the way (exit 10; seen once on CI's Node 24 pass).
import { readdirSync } from 'node:fs';
import { Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type SaveContext, saveExport } from '../../../src/export/save.js';
import { createAtomicFile } from '../../../src/fs/atomic.js';
import { tempDir } from '../../helpers/run.js';

let dir: ReturnType<typeof tempDir>;
beforeEach(() => {
  dir = tempDir('prs-parallel-names-');
});
afterEach(() => dir.cleanup());

const BODY = '[{"effectiveDate":"2024-12-24","indexValue":1}]';
const answer = () => ({
  contentDisposition: 'attachment; filename="2024-12-24_Example_index.json"',
  contentType: 'application/json',
  body: Readable.from([Buffer.from(BODY)]),
});
const context = (date: string, written: Set<string>, extra: Partial<SaveContext> = {}): SaveContext => ({
  portfolioId: 42,
  date,
  format: 'json',
  dir: dir.path,
  force: false,
  extract: false,
  signal: new AbortController().signal,
  written,
  ...extra,
});

describe('saveExport under --parallel', () => {
  it('a later item named alike, arriving while the earlier one commits, is a repeat, never exit 10', async () => {
    const written = new Set<string>();
    let releaseCommit!: () => void;
    const committing = new Promise<void>((resolve) => {
      releaseCommit = resolve;
    });
    let fileExists!: () => void;
    const exists = new Promise<void>((resolve) => {
      fileExists = resolve;
    });
    // The earlier item's commit: the file is in place, then its commit has not returned yet.
    const slowCommit: typeof createAtomicFile = async (path, o) => {
      const file = await createAtomicFile(path, o);
      const commit = file.commit.bind(file);
      return Object.assign(file, {
        commit: async (p?: string) => {
          await commit(p);
          fileExists();
          await committing;
        },
      });
    };
    const seen = new Set<string>();
    const turn = async ({ sha256 }: { sha256: string }) => {
      const first = !seen.has(sha256);
      seen.add(sha256);
      return first;
    };
    const earlier = saveExport(answer(), context('2024-12-24', written, { openFile: slowCommit, turn }));
    await exists;
    const later = await saveExport(answer(), context('2024-12-25', written, { turn }));
    releaseCommit();
    expect(later).toEqual({ kind: 'repeat', sha256: expect.any(String) });
    expect((await earlier).kind).toBe('written');
    expect(readdirSync(dir.path)).toEqual(['2024-12-24_Example_index.json']);
  });
});
