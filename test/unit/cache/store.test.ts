/** The answer cache's store and key (src/cache/store.ts, src/cache/answers.ts): tables on a fake clock. */

import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  statSync,
  symlinkSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { answerKey, cacheableDate } from '../../../src/cache/answers.js';
import {
  type AnswerKey,
  clearAnswers,
  createCacheStore,
  entryName,
  keyText,
} from '../../../src/cache/store.js';
import { tempNameFor } from '../../../src/fs/temp-names.js';
import { parseMaxAge, parseSize, resolveSettings } from '../../../src/settings.js';
import { entryBody, putEntry } from '../../helpers/cache.js';
import { FakeClock } from '../../helpers/clock.js';
import { tempDir } from '../../helpers/run.js';

const KEY: AnswerKey = {
  baseUrl: 'https://reports.example.com',
  realm: 'r',
  clientId: 'prs-cli',
  identity: 'demo',
  tenant: 'T1',
  portfolioId: 42,
  reportType: 'index',
  date: '2024-05-02',
};
const Q = { portfolioId: 42, reportType: 'index' as const, date: '2024-05-02' };
const settings = (env: Record<string, string>) =>
  resolveSettings({}, { PRS_CONFIG_DIR: '/tmp/x', PRS_CACHE_DIR: '/tmp/x/cache', ...env });
const BASE = {
  PRS_BASE_URL: 'https://reports.example.com',
  PRS_REALM: 'r',
  PRS_CLIENT_ID: 'prs-cli',
  PRS_USERNAME: 'demo',
  PRS_TENANT: 'T1',
};

describe('key derivation: every field that makes another answer makes another entry', () => {
  const base = answerKey(settings(BASE), Q)!;
  it('from the settings alone', () => expect(base).toEqual(KEY));
  it.each([
    ['base URL', { PRS_BASE_URL: 'https://other.example.com' }, {}],
    ['realm', { PRS_REALM: 'r2' }, {}],
    ['client id', { PRS_CLIENT_ID: 'other-cli' }, {}],
    ['user', { PRS_USERNAME: 'other' }, {}],
    ['tenant', { PRS_TENANT: 'T2' }, {}],
    ['a token (its digest, never the token)', { PRS_TOKEN: 'abc' }, {}],
    ['portfolio', {}, { portfolioId: 43 }],
    ['type', {}, { reportType: 'constituent.close' as const }],
    ['date', {}, { date: '2024-05-03' }],
  ])('%s', (_name, env, query) => {
    const k = answerKey(settings({ ...BASE, ...env }), { ...Q, ...query })!;
    expect(keyText(k)).not.toBe(keyText(base));
    expect(entryName(k)).not.toBe(entryName(base));
    expect(keyText(k)).not.toContain('"abc"');
  });
  it('no base URL or tenant: nothing to key (the service refuses the run)', () => {
    expect(answerKey(settings({ ...BASE, PRS_TENANT: '' }), Q)).toBeUndefined();
    expect(answerKey(settings({ PRS_TENANT: 'T1' }), Q)).toBeUndefined();
  });
  it('the file name is a digest: no user or tenant name in a path', () => {
    expect(entryName(KEY)).toMatch(/^[0-9a-f]{64}\.entry$/);
  });
});

describe('max-age and size (the one resolver)', () => {
  it.each([
    ['30m', 1_800_000],
    ['12h', 43_200_000],
    ['7d', 604_800_000],
    ['90s', 90_000],
    ['2w', 1_209_600_000],
    [' 7D ', 604_800_000],
    ['off', undefined],
    ['OFF', undefined],
  ])('%s', (v, ms) => expect(parseMaxAge(v)).toBe(ms));
  it.each(['7', '0d', '-1h', '7 days', '1.5h', '', 'never'])('refused: "%s"', (v) =>
    expect(() => parseMaxAge(v)).toThrow(/^invalid cache max-age ".*": expected a duration such as 30m/),
  );
  it.each([
    ['1GiB', 1024 ** 3],
    ['500MiB', 500 * 1024 ** 2],
    ['64KiB', 65_536],
    ['2GB', 2e9],
    ['1048576', 1_048_576],
    ['1.5k', 1536],
  ])('%s', (v, bytes) => expect(parseSize(v)).toBe(bytes));
  it.each(['0', '-1GiB', '1PiB', 'big', ''])('refused: "%s"', (v) =>
    expect(() => parseSize(v)).toThrow(/^invalid cache size/),
  );
  it('defaults: off, 1 GiB; a bad value names where it came from', () => {
    const s = settings({});
    expect([s.cacheMaxAgeMs, s.cacheMaxBytes]).toEqual([undefined, 1024 ** 3]);
    expect(settings({ PRS_CACHE: '7d' }).cacheMaxAgeMs).toBe(604_800_000);
    expect(() => settings({ PRS_CACHE: '7' })).toThrow(/\(from PRS_CACHE\)$/);
    expect(() => resolveSettings({ cache: 'x' }, {})).toThrow(/\(from --cache\)$/);
  });
});

describe('dates: only before today (UTC)', () => {
  const now = Date.UTC(2024, 4, 3, 0, 30); // 00:30 UTC on 2024-05-03
  it.each([
    ['2024-05-02', true],
    ['2023-12-31', true],
    ['2024-05-03', false],
    ['2024-05-04', false],
  ])('%s', (date, ok) => expect(cacheableDate(date, now)).toBe(ok));
});

describe('entries', () => {
  const body = Buffer.from('{"report":[{"a":1.10}]}');
  const clock = new FakeClock(1234);
  let tmp: ReturnType<typeof tempDir>;
  beforeEach(() => {
    tmp = tempDir();
  });
  afterEach(() => tmp.cleanup());
  const store = () => createCacheStore({ cacheDir: tmp.path, maxBytes: 1024 ** 3, clock });
  const pathOf = (k: AnswerKey) => join(tmp.path, 'answers', 'default', entryName(k));
  const stored = (k = KEY) => {
    putEntry(store(), 'default', k, body);
    return pathOf(k);
  };
  it('round trip, byte for byte', () => {
    stored();
    const e = store().get('default', KEY, 86_400_000)!;
    expect([entryBody(e), e.storedAt]).toEqual([body, 1234]);
  });
  it.each([
    ['truncated', (b: Buffer) => b.subarray(0, b.length - 1)],
    [
      'a flipped byte in the body',
      (b: Buffer) => Buffer.concat([b.subarray(0, -2), Buffer.from('X'), b.subarray(-1)]),
    ],
    ['empty', () => Buffer.alloc(0)],
    ['no header', (b: Buffer) => b.subarray(5)],
    ['longer', (b: Buffer) => Buffer.concat([b, Buffer.from(' ')])],
  ])('%s → corrupt: a miss, and removed', (_n, damage) => {
    const path = stored();
    writeFileSync(path, damage(readFileSync(path)));
    expect(store().get('default', KEY, 86_400_000)).toBeUndefined();
    expect(existsSync(path)).toBe(false);
  });
  it('another key inside → not this answer, and kept', () => {
    renameSync(stored({ ...KEY, tenant: 'T2' }), pathOf(KEY));
    expect(store().get('default', KEY, 86_400_000)).toBeUndefined();
    expect(existsSync(pathOf(KEY))).toBe(true);
  });
});

describe('the store', () => {
  let tmp: ReturnType<typeof tempDir>;
  let clock: FakeClock;
  const DAY = 86_400_000;
  const open = (maxBytes = 1024 ** 3) => createCacheStore({ cacheDir: tmp.path, maxBytes, clock });
  const k = (portfolioId: number) => ({ ...KEY, portfolioId });
  beforeEach(() => {
    tmp = tempDir('prs-cache-store-');
    clock = new FakeClock(Date.UTC(2024, 4, 10));
  });
  afterEach(() => tmp.cleanup());

  it('put then get; older than max-age is a miss; modes 0600 in 0700', () => {
    const s = open();
    putEntry(s, 'default', KEY, Buffer.from('[]'));
    expect(entryBody(s.get('default', KEY, DAY)!).toString()).toBe('[]');
    clock.advance(DAY);
    expect(s.get('default', KEY, DAY)).toBeUndefined();
    const dir = join(tmp.path, 'answers', 'default');
    expect(statSync(join(tmp.path, 'answers')).mode & 0o777).toBe(0o700);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(join(dir, entryName(KEY))).mode & 0o777).toBe(0o600);
  });

  it.each([
    ['that profile', 'default' as string | undefined],
    ['every profile (--all)', undefined],
  ])('a logout of %s during a run: the run stores no further answers; a later run does', (_what, cleared) => {
    const run = open();
    putEntry(run, 'default', k(1), Buffer.from('[1]'));
    putEntry(run, 'other', k(1), Buffer.from('[1]'));
    expect(clearAnswers(tmp.path, cleared).entries).toBe(cleared ? 1 : 2);
    expect(() => putEntry(run, 'default', k(2), Buffer.from('[2]'))).toThrow(/logged out/);
    expect(clearAnswers(tmp.path, 'default').entries).toBe(0);
    // Another profile is untouched by a logout of this one.
    if (cleared) putEntry(run, 'other', k(2), Buffer.from('[2]'));
    expect(run.get('other', k(2), DAY) !== undefined).toBe(cleared !== undefined);
    const next = open();
    putEntry(next, 'default', k(3), Buffer.from('[3]'));
    expect(entryBody(next.get('default', k(3), DAY)!).toString()).toBe('[3]');
  });

  it('a wider existing directory is made 0700', () => {
    mkdirSync(join(tmp.path, 'answers', 'default'), { recursive: true, mode: 0o755 });
    putEntry(open(), 'default', KEY, Buffer.from('[]'));
    expect(statSync(join(tmp.path, 'answers', 'default')).mode & 0o777).toBe(0o700);
  });

  it('profiles are apart: another profile misses; clear(profile) leaves the others', () => {
    const s = open();
    putEntry(s, 'a', KEY, Buffer.from('[1]'));
    putEntry(s, 'b', KEY, Buffer.from('[2]'));
    expect(entryBody(s.get('b', KEY, DAY)!).toString()).toBe('[2]');
    expect(clearAnswers(tmp.path, 'a').entries).toBe(1);
    expect(s.get('a', KEY, DAY)).toBeUndefined();
    expect(s.get('b', KEY, DAY)).toBeDefined();
    expect(s.info()).toMatchObject({ entries: 1, profiles: { b: { entries: 1 } } });
    expect(clearAnswers(tmp.path).entries).toBe(1);
    expect(s.info().entries).toBe(0);
  });

  it('an answer written as it streams in; nothing is stored before commit, or after an abort', () => {
    const s = open();
    const w = s.writer('default', KEY);
    w.write(Buffer.from('{"report":[{"a":'));
    expect(s.get('default', KEY, DAY)).toBeUndefined();
    w.write(Buffer.from('1.10}]}'));
    w.commit();
    expect(entryBody(s.get('default', KEY, DAY)!).toString()).toBe('{"report":[{"a":1.10}]}');
    const w2 = s.writer('default', k(2));
    w2.write(Buffer.from('[{"a":'));
    w2.abort();
    expect(s.get('default', k(2), DAY)).toBeUndefined();
    expect(readdirSync(join(tmp.path, 'answers', 'default'))).toEqual([entryName(KEY)]);
  });

  it('an entry of an earlier prs (numbers not zero-padded) still reads', () => {
    const dir = join(tmp.path, 'answers', 'default');
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const body = '[{"a":1}]';
    const digest = createHash('sha256').update(body).digest('hex');
    writeFileSync(
      join(dir, entryName(KEY)),
      `prs-answer 1 ${body.length} ${digest} ${clock.now()}\n${keyText(KEY)}\n${body}`,
    );
    expect(entryBody(open().get('default', KEY, DAY)!).toString()).toBe(body);
  });

  it('a flipped byte in a stored body is a miss, and the entry is removed', () => {
    const s = open();
    putEntry(s, 'default', KEY, Buffer.from('{"report":[{"a":1}]}'));
    const file = join(tmp.path, 'answers', 'default', entryName(KEY));
    const bytes = readFileSync(file);
    bytes[bytes.length - 4] = 0x32;
    writeFileSync(file, bytes);
    expect(s.get('default', KEY, DAY)).toBeUndefined();
    expect(readdirSync(join(tmp.path, 'answers', 'default'))).toEqual([]);
  });

  it('a truncated entry is a miss and is removed', () => {
    const s = open();
    putEntry(s, 'default', KEY, Buffer.from('{"report":[{"a":1}]}'));
    const file = join(tmp.path, 'answers', 'default', entryName(KEY));
    truncateSync(file, statSync(file).size - 3);
    expect(s.get('default', KEY, DAY)).toBeUndefined();
    expect(readdirSync(join(tmp.path, 'answers', 'default'))).toEqual([]);
  });

  it('info: entries, bytes, oldest and newest stored', () => {
    const s = open();
    putEntry(s, 'default', k(1), Buffer.from('[]'));
    clock.advance(1000);
    putEntry(s, 'default', k(2), Buffer.from('[]'));
    const info = s.info();
    expect(info).toMatchObject({ entries: 2, oldest: clock.now() - 1000, newest: clock.now() });
    expect(info.bytes).toBe(
      readdirSync(join(tmp.path, 'answers', 'default')).reduce(
        (n, f) => n + readFileSync(join(tmp.path, 'answers', 'default', f)).length,
        0,
      ),
    );
  });

  it('eviction: least recently used first (a hit counts as a use), until under the bound', () => {
    const body = Buffer.alloc(300, 32);
    const head = `prs-answer 1 ${'0'.repeat(15)} ${'0'.repeat(64)} ${'0'.repeat(15)}\n${keyText(k(1))}\n`;
    const size = head.length + body.length;
    const s = open(size * 3);
    for (const id of [1, 2, 3]) {
      putEntry(s, 'default', k(id), body);
      clock.advance(1000);
    }
    expect(s.get('default', k(1), DAY)).toBeDefined(); // 1 is now the most recently used
    clock.advance(1000);
    putEntry(s, 'default', k(4), body); // over the bound by one entry: 2 goes
    const left = [1, 2, 3, 4].filter((id) => s.peek('default', k(id), DAY));
    expect(left).toEqual([1, 3, 4]);
    clock.advance(1000);
    putEntry(s, 'default', k(5), Buffer.alloc(size + 300, 32)); // an entry of two places: 3 then 1 go
    expect([1, 3, 4, 5].filter((id) => s.peek('default', k(id), DAY))).toEqual([4, 5]);
  });

  it('a store directory that cannot be listed is an error for info and clear, not an empty store', () => {
    // A symlink loop: the one unreadable directory root cannot read past (EACCES does not bite root).
    symlinkSync('answers', join(tmp.path, 'answers'));
    const s = open();
    expect(() => s.info()).toThrow(/ELOOP/);
    expect(() => clearAnswers(tmp.path)).toThrow(/ELOOP/);
    expect(s.peek('default', KEY, DAY)).toBe(false);
  });

  it('`answers` a regular file: clearing a profile is ENOTDIR on every Node; clearing all removes the file', () => {
    writeFileSync(join(tmp.path, 'answers'), 'x');
    expect(() => clearAnswers(tmp.path, 'default')).toThrow(expect.objectContaining({ code: 'ENOTDIR' }));
    expect(readFileSync(join(tmp.path, 'answers'), 'utf8')).toBe('x');
    expect(clearAnswers(tmp.path)).toEqual({ entries: 0, bytes: 0 });
    expect(existsSync(join(tmp.path, 'answers'))).toBe(false);
  });

  it('an unreadable clear-marks directory: the store still opens, and misses', () => {
    symlinkSync('answers.cleared', join(tmp.path, 'answers.cleared'));
    expect(open().peek('default', KEY, DAY)).toBe(false);
  });

  it('an answer larger than the whole store is not kept', () => {
    const s = open(100);
    putEntry(s, 'default', KEY, Buffer.alloc(200, 32));
    expect(s.info().entries).toBe(0);
  });

  it("a dead writer's temporary file is removed by the next scan; a live writer's is left", () => {
    const dir = join(tmp.path, 'answers', 'default');
    mkdirSync(dir, { recursive: true });
    const live = tempNameFor('x.entry');
    const exited = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']);
    const dead = live.replace(`.${process.pid}.`, `.${exited.stdout.toString()}.`);
    for (const name of [live, dead]) writeFileSync(join(dir, name), 'half');
    expect(open().info().entries).toBe(0);
    expect(readdirSync(dir)).toEqual([live]);
  });
});
