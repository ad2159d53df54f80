import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, existsSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  forgotten,
  holdsSession,
  loggedIn,
  openStore,
  parseStoreText,
  tokenRefused,
  withSession,
} from '../../../src/auth/store.js';
import { exitCodeFor, UsageError } from '../../../src/errors.js';
import { tempDir } from '../../helpers/run.js';

// What another process does while this one is inside the lock, between its read of a file and what follows.
const afterNextRead = vi.hoisted(() => ({ run: undefined as (() => void) | undefined }));
vi.mock('node:fs', async (importOriginal) => {
  const fs = await importOriginal<typeof import('node:fs')>();
  const readFileSync = ((...args: Parameters<typeof fs.readFileSync>) => {
    const text = fs.readFileSync(...args);
    const run = afterNextRead.run;
    afterNextRead.run = undefined;
    run?.();
    return text;
  }) as typeof fs.readFileSync;
  return { ...fs, readFileSync, default: { ...fs, readFileSync } };
});

let dir: { path: string; cleanup: () => void };
beforeEach(() => {
  dir = tempDir('prs-store-');
});
afterEach(() => dir.cleanup());

const mode = (p: string) => statSync(p).mode & 0o777;

describe('parseStoreText (pure)', () => {
  it.each([
    ['', true],
    ['{}', true],
    ['{"profiles":{}}', true],
    ['{"profiles":{"a":{"settings":{"tenant":"t"}}}}', true],
    ['{"profiles":{"a":{"settings":{},"session":{"accessToken":"x","expiresAt":1}}}}', true],
    ['{"profiles":{"a":{"settings":{},"secrets":{"password":"p"}}},"future":1}', true],
    ['{', false],
    ['[]', false],
    ['{"profiles":[]}', false],
    ['{"profiles":{"a":1}}', false],
    ['{"profiles":{"a":{"settings":{"tenant":5}}}}', false],
    ['{"profiles":{"a":{"settings":{"tennant":"x"}}}}', false],
    ['{"profiles":{"a":{"session":{"accessToken":"x"}}}}', false],
    ['{"profiles":{"a":{"session":{"accessToken":"x","expiresAt":1,"refreshToken":2}}}}', false],
    ['{"profiles":{"a":{"secrets":"pw"}}}', false],
  ])('%s → ok %s', (text, ok) => expect('data' in parseStoreText(text)).toBe(ok));
});

describe("a profile's record: what login, logout and the session leave (pure)", () => {
  const session = { accessToken: 'a', expiresAt: 10 };
  const kept = { settings: { tenant: 't' }, session, secrets: { password: 'p', clientSecret: 'c' } };
  it.each<[string, unknown, unknown]>([
    [
      'login keeps the client secret, drops a saved password',
      loggedIn(kept, { tenant: 'u' }, session, { password: 'p2', clientSecret: 'c2' }, false),
      { settings: { tenant: 'u' }, session, secrets: { clientSecret: 'c2' } },
    ],
    [
      'login --save-password keeps both',
      loggedIn(undefined, {}, session, { password: 'p2', clientSecret: 'c2' }, true),
      { settings: {}, session, secrets: { password: 'p2', clientSecret: 'c2' } },
    ],
    [
      'a renewal replaces the session',
      withSession(kept, { ...session, accessToken: 'b' }),
      { ...kept, session: { ...session, accessToken: 'b' } },
    ],
    [
      'a refused refresh drops it, keeping the rest',
      withSession(kept, undefined),
      { settings: kept.settings, secrets: kept.secrets },
    ],
    ['no profile and no session: still none', withSession(undefined, undefined), undefined],
    [
      'a refused token expires now',
      tokenRefused(kept, 'a'),
      { ...kept, session: { ...session, expiresAt: 0 } },
    ],
    ['another token is left alone', tokenRefused(kept, 'x'), kept],
    ['logout forgets session and secrets, keeps settings', forgotten(kept), { settings: { tenant: 't' } }],
    [
      'holdsSession',
      [holdsSession(kept), holdsSession(forgotten(kept)), holdsSession(undefined)],
      [true, false, false],
    ],
  ])('%s', (_what, got, want) => expect(got).toEqual(want));
});

describe('openStore', () => {
  it('creates a 0700 directory and a 0600 file holding every profile', async () => {
    const configDir = join(dir.path, 'nested', 'prs');
    const store = await openStore(configDir);
    expect(store.path).toBe(join(configDir, 'config.json'));
    expect(store.profileNames()).toEqual([]);
    await store.update('default', () => ({ settings: { tenant: 't1' } }));
    await store.update('prod', () => ({ settings: { tenant: 't2' } }));
    expect(mode(configDir)).toBe(0o700);
    expect(mode(store.path)).toBe(0o600);
    expect(JSON.parse(readFileSync(store.path, 'utf8'))).toEqual({
      profiles: { default: { settings: { tenant: 't1' } }, prod: { settings: { tenant: 't2' } } },
    });
    expect(store.profileNames()).toEqual(['default', 'prod']);
  });

  it('tightens a file someone made world-readable on the next write', async () => {
    const store = await openStore(dir.path);
    await store.update('default', () => ({ settings: {} }));
    chmodSync(store.path, 0o644);
    await store.update('default', (p) => ({ ...p!, settings: { tenant: 'x' } }));
    expect(mode(store.path)).toBe(0o600);
  });

  describe('a config.json holding a secret that others can read', () => {
    const SECRET = JSON.stringify({
      profiles: { a: { settings: { tenant: 't' }, secrets: { clientSecret: 's3cret' } } },
    });
    const loose = () => {
      const file = join(dir.path, 'config.json');
      writeFileSync(file, SECRET);
      chmodSync(file, 0o644);
      chmodSync(dir.path, 0o755);
      return file;
    };

    it('is made 0600 (directory 0700) when read, with one warning however often it is read', async () => {
      const file = loose();
      const warnings: string[] = [];
      const store = await openStore(dir.path, { warn: (l) => warnings.push(l) });
      expect(store.get('a')?.secrets?.clientSecret).toBe('s3cret');
      store.get('a');
      store.profileNames();
      expect([mode(file), mode(dir.path)]).toEqual([0o600, 0o700]);
      expect(warnings).toEqual([
        `prs: warning: ${dir.path} holds secrets and others could open it (mode 755): made it 0700`,
        `prs: warning: ${file} holds secrets and others could read it (mode 644): made it 0600`,
      ]);
    });

    it('without a secret in it, its mode is the user’s choice: left, no warning', async () => {
      const file = join(dir.path, 'config.json');
      writeFileSync(file, JSON.stringify({ profiles: { a: { settings: { tenant: 't' } } } }));
      chmodSync(file, 0o644);
      const warnings: string[] = [];
      expect((await openStore(dir.path, { warn: (l) => warnings.push(l) })).get('a')).toBeDefined();
      expect([mode(file), warnings]).toEqual([0o644, []]);
    });

    it('the fast path (no warn) refuses it and leaves it for the CLI to tighten and say so', async () => {
      const file = loose();
      await expect(openStore(dir.path).then((s) => s.get('a'))).rejects.toThrow(/holds secrets/);
      expect(mode(file)).toBe(0o644);
    });

    it.runIf(process.getuid?.() === 0 && chattrWorks())(
      'one that cannot be tightened (immutable) is refused: exit 10 with the way out',
      async () => {
        const file = loose();
        execFileSync('chattr', ['+i', file]);
        try {
          const store = await openStore(dir.path, { warn: () => {} });
          let err: unknown;
          try {
            store.get('a');
          } catch (e) {
            err = e;
          }
          expect((err as Error).message).toMatch(
            /^refusing to use the secrets in .*config\.json: others can read or write it \(mode 644\) and prs cannot change that \(EPERM\)$/,
          );
          expect(exitCodeFor(err)).toBe(10);
        } finally {
          execFileSync('chattr', ['-i', file]);
        }
      },
    );
  });

  it('always reads the disk: a second instance sees the first one’s writes', async () => {
    const a = await openStore(dir.path);
    const b = await openStore(dir.path);
    expect(b.get('default')).toBeUndefined();
    await a.update('default', () => ({ settings: { realm: 'r1' } }));
    expect(b.get('default')?.settings.realm).toBe('r1');
    await b.update('default', (p) => ({ ...p!, settings: { ...p!.settings, tenant: 't' } }));
    expect(a.get('default')?.settings).toEqual({ realm: 'r1', tenant: 't' });
  });

  it("update() whose lock was taken over meanwhile writes nothing under it: the other's profile stays", async () => {
    const store = await openStore(dir.path);
    await store.update('theirs', () => ({ settings: { tenant: 't' } }));
    const theirs = readFileSync(store.path, 'utf8');
    await store.update('theirs', () => undefined);
    const lock = `${store.path}.lock`;
    let calls = 0;
    await store.update('mine', () => {
      if (++calls === 1) {
        // This process stalled past the stale time; another took the lock over, wrote, and (soon) leaves.
        rmSync(lock);
        writeFileSync(lock, '4242 elsewhere k2j5d\n');
        writeFileSync(store.path, theirs);
        setTimeout(() => rmSync(lock), 0);
      }
      return { settings: { tenant: 'm' } };
    });
    expect(calls).toBe(2);
    expect(store.profileNames()).toEqual(['mine', 'theirs']);
  });

  it('update() returning undefined deletes the profile; get() hands out copies', async () => {
    const store = await openStore(dir.path);
    await store.update('x', () => ({ settings: { tenant: 'a' } }));
    const copy = store.get('x')!;
    copy.settings.tenant = 'mutated';
    expect(store.get('x')?.settings.tenant).toBe('a');
    await store.update('x', () => undefined);
    expect(store.profileNames()).toEqual([]);
  });

  it.each([
    ['invalid JSON', '{"profiles": {', /invalid JSON/],
    [
      'a wrong shape',
      '{"profiles": {"default": {"settings": {"timeout": 60}}}}',
      /setting "timeout" must be a string/,
    ],
  ])('%s is a usage error (exit 2) naming the file and the repair', async (_n, text, reason) => {
    const store = await openStore(dir.path);
    writeFileSync(store.path, text);
    for (const f of [() => store.get('default'), () => store.profileNames()]) {
      let err: unknown;
      try {
        f();
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(UsageError);
      expect(exitCodeFor(err)).toBe(2);
      expect((err as Error).message).toContain(store.path);
      expect((err as Error).message).toMatch(reason);
      expect((err as UsageError).hint).toMatch(/prs logout --all/);
    }
    await expect(store.update('default', (p) => p)).rejects.toBeInstanceOf(UsageError);
    // The file is left as it was for the user to inspect.
    expect(readFileSync(store.path, 'utf8')).toBe(text);
  });

  it('reset() moves a corrupt file aside and leaves a sound one alone', async () => {
    const store = await openStore(dir.path);
    await store.update('default', () => ({ settings: { tenant: 't' } }));
    expect(await store.reset!()).toEqual({ movedTo: undefined });
    expect(store.get('default')?.settings.tenant).toBe('t');
    writeFileSync(store.path, 'garbage');
    expect(await store.reset!()).toEqual({ movedTo: `${store.path}.corrupt` });
    expect(readFileSync(`${store.path}.corrupt`, 'utf8')).toBe('garbage');
    expect(store.profileNames()).toEqual([]);
    await store.update('default', () => ({ settings: {} }));
    expect(mode(store.path)).toBe(0o600);
  });

  it("reset() whose lock was taken over meanwhile moves nothing under it: the other's repaired file stays", async () => {
    const store = await openStore(dir.path);
    writeFileSync(store.path, 'garbage');
    const repaired = JSON.stringify({ profiles: { theirs: { settings: { tenant: 't' } } } });
    const lock = `${store.path}.lock`;
    afterNextRead.run = () => {
      // This process stalled past the stale time; another took the lock over, wrote a sound file, and
      // (soon) leaves.
      rmSync(lock);
      writeFileSync(lock, '4242 elsewhere k2j5d\n');
      writeFileSync(store.path, repaired);
      setTimeout(() => rmSync(lock), 0);
    };
    expect(await store.reset!()).toEqual({ movedTo: undefined });
    expect(readFileSync(store.path, 'utf8')).toBe(repaired);
    expect(existsSync(`${store.path}.corrupt`)).toBe(false);
  });

  it('a config directory that cannot be created is a file error (exit 10), not a crash', async () => {
    const blocker = join(dir.path, 'not-a-dir');
    writeFileSync(blocker, '');
    const store = await openStore(join(blocker, 'prs'));
    expect(() => store.get('default')).toThrow(/^cannot read .*: not a directory$/);
    const err = await store.update('default', () => ({ settings: {} })).catch((e) => e);
    expect(exitCodeFor(err)).toBe(10);
    expect(err.message).toMatch(/^cannot create config directory .*not-a-dir\/prs: not a directory$/);
  });

  it('two processes updating at once lose no update and leave valid JSON', async () => {
    // Bundle the store for plain node children (they cannot import TypeScript).
    const script = join(dir.path, 'worker.mjs');
    await build({
      stdin: {
        contents: `
          import { openStore } from ${JSON.stringify(join(process.cwd(), 'src/auth/store.ts'))};
          const [dirPath, id, n] = process.argv.slice(2);
          const store = await openStore(dirPath);
          for (let i = 0; i < Number(n); i++) {
            await store.update('shared', (p) => ({
              settings: { retries: String(Number(p?.settings.retries ?? 0) + 1) },
              session: { accessToken: id + '-' + i, expiresAt: i },
            }));
            await store.update(id, () => ({ settings: { tenant: String(i) } }));
          }
        `,
        resolveDir: process.cwd(),
        loader: 'ts',
      },
      bundle: true,
      platform: 'node',
      format: 'esm',
      outfile: script,
      logLevel: 'silent',
      banner: {
        js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);",
      },
    });
    const configDir = join(dir.path, 'cfg');
    const N = 15;
    const run = (id: string) =>
      new Promise<number | null>((resolve) => {
        const child = spawn(process.execPath, [script, configDir, id, String(N)], { stdio: 'inherit' });
        child.on('close', resolve);
      });
    expect(await Promise.all([run('a'), run('b')])).toEqual([0, 0]);
    const data = JSON.parse(readFileSync(join(configDir, 'config.json'), 'utf8'));
    expect(data.profiles.shared.settings.retries).toBe(String(2 * N));
    expect(data.profiles.a.settings.tenant).toBe(String(N - 1));
    expect(data.profiles.b.settings.tenant).toBe(String(N - 1));
    expect(mode(join(configDir, 'config.json'))).toBe(0o600);
  });
});

/** chattr +i works here (root on ext4, and the capability to set it): else the refusal test is skipped. */
function chattrWorks(): boolean {
  const probeDir = tempDir('prs-chattr-');
  const probe = join(probeDir.path, 'probe');
  writeFileSync(probe, '');
  try {
    execFileSync('chattr', ['+i', probe], { stdio: 'ignore' });
    execFileSync('chattr', ['-i', probe], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  } finally {
    probeDir.cleanup();
  }
}
