import { createHash } from 'node:crypto';
import { appendFileSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  describeFiles,
  exportItemKey,
  itemKey,
  keptFiles,
  MANIFEST_NAME,
  openManifest,
  unchanged,
} from '../../../src/export/manifest.js';
import { tempDir } from '../../helpers/run.js';

let dir: ReturnType<typeof tempDir>;
beforeEach(() => {
  dir = tempDir('prs-manifest-');
});
afterEach(() => dir.cleanup());

const key = (date: string) =>
  itemKey({
    baseUrl: 'https://x',
    tenant: 't',
    portfolioId: 42,
    type: 'index',
    date,
    format: 'json',
    extract: false,
  });
const sha = (s: string) => createHash('sha256').update(s).digest('hex');

async function recordFile(name: string, content: string, date = '2024-05-01') {
  writeFileSync(join(dir.path, name), content);
  const m = await openManifest(dir.path);
  const files = await describeFiles([
    { path: join(dir.path, name), bytes: content.length, sha256: sha(content) },
  ]);
  await m.record(key(date), files);
  return files;
}

describe('manifest', () => {
  it('the key tells services, tenants, types, formats and --extract apart', () => {
    const base = {
      baseUrl: 'https://x',
      tenant: 't',
      portfolioId: 42,
      type: 'index',
      date: '2024-05-01',
      format: 'csv',
      extract: false,
    };
    const keys = new Set([
      itemKey(base),
      itemKey({ ...base, baseUrl: 'https://y' }),
      itemKey({ ...base, tenant: 'u' }),
      itemKey({ ...base, type: 'constituent.close' }),
      itemKey({ ...base, format: 'json' }),
      itemKey({ ...base, extract: true }),
    ]);
    expect(keys.size).toBe(6);
  });

  it("an export run's item key is the item key of its settings (unset ones empty) and request", () => {
    const run = { type: 'index', format: 'json', extract: false };
    const item = { portfolioId: 42, date: '2024-05-01' };
    expect(exportItemKey({ baseUrl: 'https://x', tenant: 't' }, run, item)).toBe(key('2024-05-01'));
    expect(exportItemKey({}, run, item)).toBe(itemKey({ ...run, ...item, baseUrl: '', tenant: '' }));
  });

  it('keptFiles: the recorded files while unchanged, else nothing', async () => {
    const files = await recordFile('a.json', '[1]');
    const m = await openManifest(dir.path);
    expect(await keptFiles(m, dir.path, key('2024-05-01'))).toEqual(files);
    expect(await keptFiles(m, dir.path, key('2024-05-02'))).toBeUndefined();
    writeFileSync(join(dir.path, 'a.json'), '[2]');
    expect(await keptFiles(m, dir.path, key('2024-05-01'))).toBeUndefined();
  });

  it('a recorded file is found again, and is unchanged until altered or removed', async () => {
    const files = await recordFile('a.json', '[1]');
    const m = await openManifest(dir.path);
    expect(m.get(key('2024-05-01'))).toEqual(files);
    expect(await unchanged(dir.path, files)).toBe(true);
    // Touched but the same bytes: still unchanged (the hash decides).
    utimesSync(join(dir.path, 'a.json'), new Date(0), new Date(0));
    expect(await unchanged(dir.path, files)).toBe(true);
    writeFileSync(join(dir.path, 'a.json'), '[2]');
    expect(await unchanged(dir.path, files)).toBe(false);
    dir.cleanup();
    expect(await unchanged(dir.path, files)).toBe(false);
  });

  it.each([
    ['missing', undefined],
    ['not JSON at all', 'garbage\n'],
    ['a line cut short', '{"key":"k","files":[{"na'],
    [
      'a file name that leaves the directory',
      '{"key":"k","files":[{"name":"../x","bytes":1,"sha256":"a","mtimeMs":1}]}\n',
    ],
  ])('a manifest %s only means more gets fetched', async (_what, text) => {
    if (text !== undefined) writeFileSync(join(dir.path, MANIFEST_NAME), text);
    const m = await openManifest(dir.path);
    expect(m.get('k')).toBeUndefined();
  });

  it('a record after a line cut short starts on a line of its own', async () => {
    writeFileSync(join(dir.path, MANIFEST_NAME), '{"key":"k","fi');
    await recordFile('a.json', '[1]');
    expect(readFileSync(join(dir.path, MANIFEST_NAME), 'utf8').split('\n')[0]).toBe('{"key":"k","fi');
    expect((await openManifest(dir.path)).get(key('2024-05-01'))).toHaveLength(1);
  });

  it('a later line for a key replaces the earlier one', async () => {
    await recordFile('a.json', '[1]');
    const files = await recordFile('b.json', '[2]');
    appendFileSync(join(dir.path, MANIFEST_NAME), '\n');
    expect((await openManifest(dir.path)).get(key('2024-05-01'))).toEqual(files);
  });
});
