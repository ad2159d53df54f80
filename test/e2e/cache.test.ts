/**
 * The answer cache (CLI.md "The answer cache"), the BUILT binary against the sandbox, counting the
 * requests the sandbox received: hits send nothing, today is never kept, --refresh / --no-cache,
 * another tenant or user misses, a corrupt entry is a miss and is replaced, two writers leave one
 * whole entry, cache-size evicts, file modes, `prs cache info/clear`, logout clears the profile's.
 */

import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { loginArgs } from '../../src/sandbox/index.js';
import { baseEnv, collect, PRS_BIN, runPrs, tempDir } from '../helpers/run.js';
import { loginSandbox, useLoggedIn } from '../helpers/session.js';

const DAY = '2024-05-02';

const { sandbox, env } = useLoggedIn('prs-cache-', { rateLimit: '1000/1s' }, { PRS_CACHE: '7d' });
beforeEach(() => sandbox.stats.reset());

const prs = (args: string[], extra: Record<string, string> = {}) =>
  runPrs(args, { env: { ...env, ...extra } });
const requests = () => sandbox.stats.count({ endpoint: 'report' });
const answers = () => join(env.PRS_CACHE_DIR!, 'answers');
const entries = (profile = 'default') => {
  try {
    return readdirSync(join(answers(), profile)).filter((f) => f.endsWith('.entry'));
  } catch {
    return [];
  }
};
const report = (id: string, date: string, ...more: string[]) => [
  'report',
  id,
  '-t',
  'index',
  '-d',
  date,
  '-f',
  'json',
  ...more,
];

describe('hits and misses', () => {
  it('a past date: asked once, then answered from disk with no request; -v says cache hit', async () => {
    const first = await prs(report('42', DAY));
    expect(first.code, first.stderr).toBe(0);
    expect(requests()).toBe(1);
    const again = await prs(['-v', ...report('42', DAY)]);
    expect(again.code).toBe(0);
    expect(again.stdout).toBe(first.stdout);
    expect(requests()).toBe(1);
    expect(again.stderr).toMatch(/^cache hit: portfolio 42 index 2024-05-02 \(stored .*Z\)$/m);
    expect(again.stderr).not.toMatch(/^> GET/m);
  });

  it('--raw from the cache is the stored body byte for byte', async () => {
    const live = await prs(report('1', '2024-05-08', '--raw').filter((a) => a !== '-f' && a !== 'json'));
    expect(live.code, live.stderr).toBe(0);
    const cached = await prs(report('1', '2024-05-08', '--raw').filter((a) => a !== '-f' && a !== 'json'));
    expect(requests()).toBe(1);
    expect(cached.stdoutBytes.equals(live.stdoutBytes)).toBe(true);
  });

  it('without --cache (off, the default) nothing is kept or read', async () => {
    const before = entries().length;
    await prs(report('44', DAY), { PRS_CACHE: '' });
    await prs(report('44', DAY), { PRS_CACHE: 'off' });
    expect(requests()).toBe(2);
    expect(entries().length).toBe(before);
  });

  it("today's date is never kept", async () => {
    const before = entries().length;
    await prs(report('42', 'today'));
    await prs(report('42', 'today'));
    expect(requests()).toBe(2);
    expect(entries().length).toBe(before);
  });

  it('an empty answer (a weekend) is kept: exit 3 both times, one request', async () => {
    const a = await prs(report('42', '2024-05-04'));
    const b = await prs(report('42', '2024-05-04'));
    expect([a.code, b.code]).toEqual([3, 3]);
    expect(b.stdout).toBe('[]\n');
    expect(requests()).toBe(1);
  });

  it('an error is never kept', async () => {
    const a = await prs(report('999', DAY));
    const b = await prs(report('999', DAY));
    expect([a.code, b.code]).toEqual([6, 6]);
    expect(requests()).toBe(2);
  });

  it('--refresh asks again and updates; --no-cache neither reads nor writes', async () => {
    await prs(report('1', DAY));
    expect(requests()).toBe(1);
    const stored = () =>
      new Map(entries().map((f) => [f, readFileSync(join(answers(), 'default', f), 'utf8')]));
    const before = stored();
    const refreshed = await prs(report('1', DAY, '--refresh'));
    expect(refreshed.code).toBe(0);
    expect(requests()).toBe(2);
    // "updates": the entry is written again (its stored time is in its header), not just bypassed.
    const after = stored();
    expect([...after].filter(([f, text]) => before.get(f) !== text)).toHaveLength(1);
    await prs(report('1', DAY, '--no-cache'));
    expect(requests()).toBe(3);
    const count = entries().length;
    await prs(report('1', '2024-05-06', '--no-cache'));
    expect(entries().length).toBe(count);
    await prs(report('1', DAY));
    expect(requests()).toBe(5 - 1); // the last one was a hit
    // A global option: before the command too (CLI.md), neither read nor written.
    const early = await prs(['--no-cache', ...report('1', DAY)]);
    expect([early.code, requests()]).toEqual([0, 5]);
    await prs(['--no-cache', ...report('1', '2024-05-07')]);
    expect([entries().length, requests()]).toEqual([count, 6]);
  });

  it('another tenant misses (and its 403 is not kept); another user misses, then hits its own', async () => {
    await prs(report('42', DAY));
    const base = requests();
    const tenant = await prs(report('42', DAY, '--tenant', 'other-tenant'));
    expect(tenant.code).toBe(5);
    expect(requests()).toBe(base + 1);
    const other = {
      PRS_USERNAME: 'other',
      PRS_PASSWORD: 'other',
      PRS_CLIENT_SECRET: sandbox.clientSecret,
      PRS_TENANT: 'other-tenant',
    };
    const a = await prs(report('42', DAY), other);
    expect(a.code, a.stderr).toBe(0);
    expect(requests()).toBe(base + 2);
    await prs(report('42', DAY), other);
    expect(requests()).toBe(base + 2);
  });

  it('files 0600 in 0700 directories', async () => {
    await prs(report('42', DAY));
    expect(statSync(answers()).mode & 0o777).toBe(0o700);
    expect(statSync(join(answers(), 'default')).mode & 0o777).toBe(0o700);
    for (const f of entries()) expect(statSync(join(answers(), 'default', f)).mode & 0o777).toBe(0o600);
  });
});

describe('never a wrong answer', () => {
  it('a truncated entry: a miss, removed and replaced, the right output', async () => {
    const good = await prs(report('42', '2024-05-09'));
    // The entry just written is the newest file.
    const newest = entries()
      .map((f) => join(answers(), 'default', f))
      .sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs)[0]!;
    truncateSync(newest, statSync(newest).size - 5);
    sandbox.stats.reset();
    const again = await prs(report('42', '2024-05-09'));
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toBe(good.stdout);
    expect(requests()).toBe(1);
    const third = await prs(report('42', '2024-05-09'));
    expect(third.stdout).toBe(good.stdout);
    expect(requests()).toBe(1);
  });

  it('two processes writing the same entry at once: one whole entry, no temporary left', async () => {
    const run = () => {
      const child = spawn(process.execPath, [PRS_BIN, ...report('42', '2024-05-10', '--refresh')], {
        env: baseEnv(env),
      });
      child.stdin.end();
      return collect(child).done;
    };
    const [a, b] = await Promise.all([run(), run()]);
    expect([a.code, b.code]).toEqual([0, 0]);
    expect(readdirSync(join(answers(), 'default')).filter((f) => f.endsWith('.tmp'))).toEqual([]);
    sandbox.stats.reset();
    const hit = await prs(report('42', '2024-05-10'));
    expect(hit.stdout).toBe(a.stdout);
    expect(requests()).toBe(0);
  });
});

describe('PRS_CACHE_DIR unusable: the run goes on', () => {
  it.each([
    ['under a file (not a directory)', 'file'],
    ['immutable (nothing can be created in it, not even by root)', 'immutable'],
  ])(
    '%s: one warning, the rate limit counted by this process alone, the cache all misses',
    async (_what, kind) => {
      const place = tempDir('prs-cache-unusable-');
      let cacheDir = join(place.path, 'cache');
      if (kind === 'file') {
        writeFileSync(join(place.path, 'file'), '');
        cacheDir = join(place.path, 'file', 'cache');
      } else {
        mkdirSync(cacheDir);
        try {
          execFileSync('chattr', ['+i', cacheDir], { stdio: 'ignore' });
        } catch {
          place.cleanup();
          return; // no chattr here (not root, not ext4): the "file" case stands for both
        }
      }
      try {
        const outputs: string[] = [];
        for (const _ of [1, 2]) {
          const r = await prs(
            ['report', '42', '-t', 'index', '--from', '2024-05-01', '--to', '2024-05-03', '--json'],
            {
              PRS_CACHE_DIR: cacheDir,
            },
          );
          expect(r.code, r.stderr).toBe(0);
          expect(
            new Set(JSON.parse(r.stdout).map((row: { effectiveDate: string }) => row.effectiveDate)).size,
          ).toBe(3);
          outputs.push(r.stdout);
          const warnings = r.stderr.split('\n').filter((l) => l.startsWith('prs: warning:'));
          expect(warnings).toEqual([
            expect.stringMatching(
              /^prs: warning: cannot use the rate-limit state .*; counting this process's requests alone$/,
            ),
          ]);
        }
        expect(requests()).toBe(6);
      } finally {
        if (kind === 'immutable') execFileSync('chattr', ['-i', cacheDir]);
        place.cleanup();
      }
    },
  );
});

describe('`answers` in the cache dir a regular file', () => {
  it('cache clear: not a directory, exit 10; logout: a note, and the logout goes on (Node 20 and 24 alike)', async () => {
    const place = tempDir('prs-cache-answers-file-');
    try {
      const dirs = { PRS_CONFIG_DIR: join(place.path, 'config'), PRS_CACHE_DIR: join(place.path, 'cache') };
      mkdirSync(dirs.PRS_CACHE_DIR);
      writeFileSync(join(dirs.PRS_CACHE_DIR, 'answers'), 'x');
      const because = `cannot clear the answer cache in ${join(dirs.PRS_CACHE_DIR, 'answers')}: not a directory`;
      const clear = await runPrs(['cache', 'clear'], { env: dirs });
      expect([clear.code, clear.stderr]).toEqual([10, `prs: ${because}\n`]);
      const out = await runPrs(['logout'], { env: dirs });
      expect([out.code, out.stderr]).toEqual([
        0,
        `prs: note: ${because}\nNot logged in (profile default); nothing to forget\n`,
      ]);
      expect(readFileSync(join(dirs.PRS_CACHE_DIR, 'answers'), 'utf8')).toBe('x');
    } finally {
      place.cleanup();
    }
  });
});

describe('cache-size', () => {
  it('the store stays under the bound: the least recently used answers go first', async () => {
    const root = tempDir('prs-cache-size-');
    try {
      const small: Record<string, string> = {
        ...(await loginSandbox(sandbox, root.path)),
        PRS_RATE_LIMIT: '1000/1s',
        PRS_CACHE: '7d',
      };
      const set = await runPrs(['config', 'set', 'cache-size', '3KiB'], { env: small });
      expect(set.code, set.stderr).toBe(0);
      const dates = ['2024-05-06', '2024-05-07', '2024-05-08', '2024-05-09', '2024-05-10', '2024-05-13'];
      for (const d of dates) expect((await runPrs(report('42', d), { env: small })).code).toBe(0);
      const dir = join(small.PRS_CACHE_DIR, 'answers', 'default');
      const sizes = readdirSync(dir).map((f) => statSync(join(dir, f)).size);
      expect(sizes.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(3 * 1024);
      expect(sizes.length).toBeLessThan(dates.length);
      // The newest answer is kept, the oldest gone.
      sandbox.stats.reset();
      await runPrs(report('42', '2024-05-13'), { env: small });
      expect(requests()).toBe(0);
      await runPrs(report('42', '2024-05-06'), { env: small });
      expect(requests()).toBe(1);
    } finally {
      root.cleanup();
    }
  });
});

describe('a range', () => {
  it('200 of 250 dates cached: 50 requests; then all 250 from disk', async () => {
    const root = tempDir('prs-cache-range-');
    try {
      const r = { ...(await loginSandbox(sandbox, root.path)), PRS_RATE_LIMIT: '1000/1s', PRS_CACHE: '7d' };
      // 250 weekdays from 2023-01-02 end on 2023-12-15; 200 end on 2023-10-06.
      const range = (to: string) => [
        '-q',
        'report',
        '42',
        '-t',
        'index',
        '--from',
        '2023-01-02',
        '--to',
        to,
        '-f',
        'ndjson',
      ];
      const first = await runPrs(range('2023-10-06'), { env: r, timeoutMs: 60_000 });
      expect(first.code, first.stderr).toBe(0);
      expect(requests()).toBe(200);
      sandbox.stats.reset();
      const whole = await runPrs(range('2023-12-15'), { env: r, timeoutMs: 60_000 });
      expect(whole.code, whole.stderr).toBe(0);
      expect(requests()).toBe(50);
      sandbox.stats.reset();
      const cached = await runPrs(range('2023-12-15'), { env: r, timeoutMs: 60_000 });
      expect(cached.stdout).toBe(whole.stdout);
      expect(requests()).toBe(0);
      // At 1 request an hour, a range all from disk still plans no wait: no notice, a start event of 0.
      const slow = { ...r, PRS_RATE_LIMIT: '1/3600s', PRS_LOG_FORMAT: 'json' };
      const logged = await runPrs(range('2023-12-15').slice(1), { env: slow, timeoutMs: 60_000 });
      expect(logged.code, logged.stderr).toBe(0);
      expect(logged.stdout).toBe(whole.stdout);
      const start = JSON.parse(logged.stderr.split('\n')[0]!);
      expect(start).toMatchObject({ event: 'start', items: 250, requests: 0, etaMs: 0 });
      expect(logged.stderr).not.toMatch(/"level":"(note|warn)/);
      const plan = await runPrs([...range('2023-12-15'), '--dry-run'], {
        env: { ...slow, PRS_LOG_FORMAT: 'text' },
      });
      expect(plan.stderr).toBe(
        'dry run: 250 items, nothing sent\nanswered from the cache: 250\nrequests to send: 0\nwaits: none (rate limit 1/3600s)\n',
      );
    } finally {
      root.cleanup();
    }
  });
});

describe('prs cache info / clear, and logout', () => {
  it("info counts the store; clear removes this profile's entries, --all every profile's; logout clears the profile's", async () => {
    const root = tempDir('prs-cache-cmd-');
    try {
      const e: Record<string, string> = {
        ...(await loginSandbox(sandbox, root.path)),
        PRS_RATE_LIMIT: '1000/1s',
        PRS_CACHE: '7d',
      };
      const second = await runPrs(['--profile', 'two', ...loginArgs(sandbox, sandbox.users[0]!)], {
        env: { ...e, PRS_CLIENT_SECRET: sandbox.clientSecret },
        input: sandbox.users[0]!.password,
      });
      expect(second.code, second.stderr).toBe(0);
      for (const d of ['2024-05-06', '2024-05-07']) await runPrs(report('42', d), { env: e });
      await runPrs(['--profile', 'two', ...report('42', '2024-05-06')], { env: e });
      const info = await runPrs(['cache', 'info', '--json'], { env: e });
      expect(info.code, info.stderr).toBe(0);
      const json = JSON.parse(info.stdout);
      expect(json).toMatchObject({
        directory: join(e.PRS_CACHE_DIR!, 'answers'),
        entries: 3,
        maxBytes: 1024 ** 3,
        maxAge: '7d',
        profile: { name: 'default', entries: 2 },
      });
      expect(json.bytes).toBeGreaterThan(0);
      expect(Date.parse(json.oldest)).toBeLessThanOrEqual(Date.parse(json.newest));
      const text = await runPrs(['cache', 'info'], { env: e });
      expect(text.stdout).toMatch(/^entries: {3}3 \(2 in profile default\)$/m);

      const clear = await runPrs(['cache', 'clear'], { env: e });
      expect(clear.stderr).toMatch(/^✓ Removed 2 cached answers \(.*; profile default\)$/m);
      expect(JSON.parse((await runPrs(['cache', 'info', '--json'], { env: e })).stdout).entries).toBe(1);

      // logout of profile two takes its entries with the session.
      const out = await runPrs(['--profile', 'two', 'logout'], { env: e });
      expect(out.code).toBe(0);
      expect(out.stderr).toMatch(/^✓ Removed 1 cached answer \(.*; profile two\)$/m);
      expect(JSON.parse((await runPrs(['cache', 'info', '--json'], { env: e })).stdout).entries).toBe(0);

      await runPrs(report('42', '2024-05-06'), { env: e });
      await runPrs(['cache', 'clear', '--all'], { env: e });
      expect(JSON.parse((await runPrs(['cache', 'info', '--json'], { env: e })).stdout).entries).toBe(0);
    } finally {
      root.cleanup();
    }
  });
});
