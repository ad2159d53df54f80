/**
 * Ctrl-C and local file faults, against the BUILT binary (`npm run build` first): exit 130 with the
 * temporary files removed and the credential store and limiter state intact; a full disk, a missing
 * or unwritable directory → exit 10 with nothing written.
 * Row ids in [brackets] are listed in docs/reliability.md (checked by test/unit/reliability/doc.test.ts).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { useFaultServer } from '../helpers/fault-server.js';
import { runPrs } from '../helpers/run.js';
import { loginSandbox, tokenEnv, useSandbox, useTempDir } from '../helpers/session.js';
import { expectCleanFailure, readJson, spawnPrs, tempFiles, waitFor } from './reliability-helpers.js';

const DATE = '2024-05-03'; // a Friday
const isRoot = process.getuid?.() === 0;
const sandbox = useSandbox({ rateLimit: '100/1s' });
const server = useFaultServer();
const tmp = useTempDir('prs-reliability-local-');
let root: string;
let out: string;

beforeEach(() => {
  sandbox.stats.reset();
  root = tmp.fresh('run');
  out = join(root, 'out');
  mkdirSync(out);
});

const ready = () => ({ ...tokenEnv(server.url, root), PRS_RETRIES: '0' });
const json = { 'content-type': 'application/json' };
const rows = JSON.stringify([{ effectiveDate: DATE, indexName: 'Example 600 OG EUR', indexValue: 1.5 }]);

/** What must hold after any interrupted run: the store and the limiter state parse, no lock is left. */
function expectStateIntact(env: Record<string, string>, configBefore: unknown): void {
  const config = env.PRS_CONFIG_DIR!;
  const cache = env.PRS_CACHE_DIR!;
  expect(readJson(join(config, 'config.json'))).toEqual(configBefore);
  const states = readdirSync(cache).filter((f) => /^limiter-.*\.json$/.test(f));
  expect(states.length).toBeGreaterThan(0);
  for (const f of states) expect(readJson(join(cache, f))).toMatchObject({ stamps: expect.any(Array) });
  for (const d of [config, cache]) {
    expect(readdirSync(d).filter((f) => f.endsWith('.lock') || f.endsWith('.tmp'))).toEqual([]);
  }
}

describe('Ctrl-C and SIGTERM', () => {
  it.each([
    ['[R-I01] SIGINT, exit 130', 'SIGINT' as const, 130, 'interrupted'],
    ['[R-I03] SIGTERM, exit 143', 'SIGTERM' as const, 143, 'terminated'],
  ])(
    '%s, during a range report waiting on --rate-limit 1/30s: nothing written, store and limiter intact',
    async (_name, signal, code, word) => {
      const env = await loginSandbox(sandbox, root);
      const configBefore = readJson(join(env.PRS_CONFIG_DIR!, 'config.json'));
      const file = join(out, 'r.json');
      const run = spawnPrs(
        [...'report 42 -t index --from 2024-05-01 --rate-limit 1/30s'.split(' '), '--to', DATE, '-o', file],
        env,
      );
      expect(await waitFor(() => sandbox.stats.count({ endpoint: 'report', status: 200 }) === 1)).toBe(true);
      await new Promise((r) => setTimeout(r, 300)); // into the 30 s wait for the second slot
      const sent = Date.now();
      run.child.kill(signal);
      const r = await run.done;
      expect({ code: r.code, stderr: r.stderr, stdout: r.stdout }).toEqual({
        code,
        // Without a terminal a wait over 5 s is a stderr line (CLI.md), when it began before the signal.
        stderr: expect.stringMatching(
          new RegExp(`^(portfolio 42 on 2024-05-02: waiting \\d+ s for the rate limit\n)?prs: ${word}\n$`),
        ),
        stdout: '',
      });
      expect(Date.now() - sent).toBeLessThan(29_000); // before the 30 s slot: the wait was cut short
      expect(sandbox.stats.count({ endpoint: 'report' })).toBe(1); // the wait was cut short, nothing more sent
      expect(readdirSync(out)).toEqual([]);
      expectStateIntact(env, configBefore);
    },
  );

  it('[R-I02] SIGINT during a slow export: exit 130, no temporary file, store and limiter intact', async () => {
    const env = await loginSandbox(sandbox, root);
    // One report first, so there is limiter state that the interrupted run must leave intact.
    const first = await runPrs(['report', '42', '-t', 'index', '-d', DATE, '--json'], { env });
    expect(first.code, first.stderr).toBe(0);
    // A session is bound to its base URL (CLI.md "Session"): sign in for the stalling server's.
    await loginSandbox(sandbox, root, ['--base-url', server.url]);
    const configBefore = readJson(join(env.PRS_CONFIG_DIR!, 'config.json'));
    server.respond({ headers: json, body: rows + ' '.repeat(200_000), stallAfter: 60_000 });
    const run = spawnPrs(
      ['export', '42', '-t', 'index', '-d', DATE, '--dir', out, '--name', 'X', '--base-url', server.url],
      env,
    );
    expect(await waitFor(() => tempFiles(out).length > 0)).toBe(true);
    run.child.kill('SIGINT');
    const r = await run.done;
    expect({ code: r.code, stderr: r.stderr, stdout: r.stdout }).toEqual({
      code: 130,
      stderr: 'prs: interrupted\n',
      stdout: '',
    });
    expect(readdirSync(out)).toEqual([]);
    expectStateIntact(env, configBefore);
  });
});

/**
 * A device that answers every write with ENOSPC. As root, a mknod copy of /dev/full (char 1,7) in the
 * test's own directory, so that a regression could at worst replace that copy, never the real one;
 * as an ordinary user /dev/full itself (its directory is not writable, so it cannot be replaced).
 */
function fullDevice(): string | undefined {
  if (!existsSync('/dev/full')) return undefined;
  if (!isRoot) return '/dev/full';
  const p = join(root, 'full');
  return spawnSync('mknod', [p, 'c', '1', '7'], { stdio: 'ignore' }).status === 0 ? p : undefined;
}
const strayTemps = () => readdirSync(tmpdir()).filter((f) => /^\.full\.\d+\.[0-9a-f]+\.tmp$/.test(f));

describe('local faults', () => {
  it('[R-L01] report -o /dev/full (disk full): exit 10, the device stays a device', async (ctx) => {
    const full = fullDevice();
    if (!full) return ctx.skip(); // no /dev/full, or root without CAP_MKNOD
    server.respond({ headers: json, body: JSON.stringify({ report: JSON.parse(rows) }) });
    const before = strayTemps();
    const r = await runPrs(['report', '42', '-t', 'index', '-d', DATE, '-o', full], { env: ready() });
    expectCleanFailure(r, 10, /^prs: cannot write .*full: disk full$/);
    expect(statSync(full).isCharacterDevice()).toBe(true);
    expect(strayTemps()).toEqual(before);
  });

  it('[R-L02] export -o /dev/full (disk full): exit 10, no temporary file left', async (ctx) => {
    const full = fullDevice();
    if (!full) return ctx.skip();
    server.respond({ headers: json, body: rows });
    const before = strayTemps();
    const r = await runPrs(['export', '42', '-t', 'index', '-d', DATE, '-o', full], { env: ready() });
    expectCleanFailure(r, 10, /^prs: cannot write .*full: disk full$/);
    expect(statSync(full).isCharacterDevice()).toBe(true);
    expect(strayTemps()).toEqual(before);
  });

  it('[R-L03] a path under a regular file (ENOTDIR): exit 10 before any request, for export and report', async () => {
    const file = join(root, 'afile');
    writeFileSync(file, 'x');
    const exp = await runPrs(['export', '42', '-t', 'index', '-d', DATE, '--dir', join(file, 'sub')], {
      env: ready(),
    });
    expectCleanFailure(exp, 10, /^prs: cannot write to .*afile\/sub: not a directory$/);
    const rep = await runPrs(['report', '42', '-t', 'index', '-d', DATE, '-o', join(file, 'r.json')], {
      env: ready(),
    });
    expectCleanFailure(rep, 10, /^prs: cannot write to .*afile: not a directory$/);
    const missing = await runPrs(
      ['report', '42', '-t', 'index', '-d', DATE, '-o', join(root, 'no', 'r.json')],
      {
        env: ready(),
      },
    );
    expectCleanFailure(missing, 10, /^prs: cannot write to .*\/no: no such directory$/);
    expect(server.requests).toEqual([]);
  });

  // chmod 555 does not stop root (test/e2e/export-faults.test.ts covers it for ordinary users);
  // sysfs refuses new files even to root, so /sys is the unwritable directory here.
  it.runIf(isRoot && existsSync('/sys/kernel'))(
    '[R-L06] an unwritable directory as root (/sys): exit 10, nothing written',
    async () => {
      server.respond({ headers: json, body: rows });
      const exp = await runPrs(['export', '42', '-t', 'index', '-d', DATE, '--dir', '/sys/kernel'], {
        env: ready(),
      });
      expectCleanFailure(exp, 10, /^prs: cannot write .*\/sys\/kernel.*: permission denied$/);
      server.respond({ headers: json, body: JSON.stringify({ report: JSON.parse(rows) }) });
      const rep = await runPrs(['report', '42', '-t', 'index', '-d', DATE, '-o', '/sys/kernel/r.json'], {
        env: ready(),
      });
      expectCleanFailure(rep, 10, /^prs: cannot write \/sys\/kernel\/r\.json: permission denied$/);
      expect(existsSync('/sys/kernel/r.json')).toBe(false);
    },
  );
});
