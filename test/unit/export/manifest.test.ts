import { createHash } from 'node:crypto';
import {
  appendFileSync,
  chownSync,
  existsSync,
  linkSync,
  lstatSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  describeFiles,
  exportItemKey,
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
  exportItemKey(
    { baseUrl: 'https://x', tenant: 't' },
    { type: 'index', format: 'json', extract: false },
    { portfolioId: 42, date },
  );
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
  it('the key tells services, tenants, types, formats, --extract and name templates apart', () => {
    const settings = { baseUrl: 'https://x', tenant: 't' };
    const run = { type: 'index', format: 'csv', extract: false };
    const item = { portfolioId: 42, date: '2024-05-01' };
    const keys = [
      exportItemKey(settings, run, item),
      exportItemKey({ ...settings, baseUrl: 'https://y' }, run, item),
      exportItemKey({ ...settings, tenant: 'u' }, run, item),
      exportItemKey(settings, { ...run, type: 'constituent.close' }, item),
      exportItemKey(settings, { ...run, format: 'json' }, item),
      exportItemKey(settings, { ...run, extract: true }, item),
      exportItemKey(settings, { ...run, nameTemplate: '{date}_{type}' }, item),
      exportItemKey({ ...settings, nameTemplate: '{type}_{date}' }, run, item),
    ];
    expect(new Set(keys).size).toBe(keys.length);
    // The flag wins over the settings' template; without one the key has no template part.
    expect(
      exportItemKey({ ...settings, nameTemplate: '{type}' }, { ...run, nameTemplate: '{date}' }, item),
    ).toBe(exportItemKey(settings, { ...run, nameTemplate: '{date}' }, item));
    expect(exportItemKey({}, run, item)).toBe('||42|index|2024-05-01|csv|');
  });

  it('kept: the recorded files while unchanged, else nothing', async () => {
    const files = await recordFile('a.json', '[1]');
    const m = await openManifest(dir.path);
    expect(await m.kept(key('2024-05-01'))).toEqual(files);
    expect(await m.kept(key('2024-05-02'))).toBeUndefined();
    writeFileSync(join(dir.path, 'a.json'), '[2]');
    expect(await m.kept(key('2024-05-01'))).toBeUndefined();
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

  it("two runs exporting into one directory at once keep both runs' lines", async () => {
    writeFileSync(join(dir.path, 'a.json'), '[1]');
    const files = await describeFiles([{ path: join(dir.path, 'a.json'), bytes: 3, sha256: sha('[1]') }]);
    const first = await openManifest(dir.path);
    const second = await openManifest(dir.path);
    await first.record(key('2024-05-01'), files);
    await second.record(key('2024-05-02'), files);
    await first.record(key('2024-05-03'), files);
    const reread = await openManifest(dir.path);
    for (const date of ['2024-05-01', '2024-05-02', '2024-05-03'])
      expect(reread.get(key(date))).toEqual(files);
    expect(existsSync(join(dir.path, `${MANIFEST_NAME}.lock`))).toBe(false);
  });

  describe('never written through what it did not make (as root, a planted link reached /etc/passwd)', () => {
    let outside: string;
    beforeEach(() => {
      outside = mkdtempSync(join(tmpdir(), 'prs-manifest-outside-'));
    });
    afterEach(() => rmSync(outside, { recursive: true, force: true }));
    const manifest = () => join(dir.path, MANIFEST_NAME);
    const OUTSIDE_TEXT = 'root:x:0:0:root:/root:/bin/bash\n';

    it.each([
      ['a link to a file outside', 'symlink'],
      ['a hard link to a file outside', 'hardlink'],
    ])('%s is replaced, its target untouched and unread', async (_what, kind) => {
      const target = join(outside, 'passwd');
      // A target that looks like a manifest: reading it through the link would skip item 2024-05-02.
      const planted = `${OUTSIDE_TEXT}${JSON.stringify({ key: key('2024-05-02'), files: [{ name: 'a.json', bytes: 3, sha256: sha('[1]'), mtimeMs: 1 }] })}\n`;
      writeFileSync(target, planted);
      if (kind === 'symlink') symlinkSync(target, manifest());
      else linkSync(target, manifest());
      expect((await openManifest(dir.path)).get(key('2024-05-02'))).toBeUndefined();
      const files = await recordFile('a.json', '[1]');
      expect(readFileSync(target, 'utf8')).toBe(planted);
      expect(lstatSync(manifest()).isFile()).toBe(true);
      expect(lstatSync(manifest()).nlink).toBe(1);
      expect((await openManifest(dir.path)).get(key('2024-05-01'))).toEqual(files);
      // The next record appends to the manifest prs made.
      await recordFile('b.json', '[2]', '2024-05-03');
      const reread = await openManifest(dir.path);
      expect(reread.get(key('2024-05-01'))).toEqual(files);
      expect(reread.get(key('2024-05-03'))).toHaveLength(1);
      expect(readFileSync(target, 'utf8')).toBe(planted);
    });

    it('a dangling link: its target is never created', async () => {
      const target = join(outside, 'created-by-prs');
      symlinkSync(target, manifest());
      const files = await recordFile('a.json', '[1]');
      expect(existsSync(target)).toBe(false);
      expect(lstatSync(manifest()).isFile()).toBe(true);
      expect((await openManifest(dir.path)).get(key('2024-05-01'))).toEqual(files);
    });

    it.runIf(process.getuid?.() === 0)("another user's file is replaced, not appended to", async () => {
      writeFileSync(manifest(), 'theirs\n');
      chownSync(manifest(), 12345, 12345);
      await recordFile('a.json', '[1]');
      expect(lstatSync(manifest()).uid).toBe(0);
      expect(readFileSync(manifest(), 'utf8')).not.toContain('theirs');
    });
  });
});
