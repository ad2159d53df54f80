/**
 * `--dry-run` (CLI.md), the BUILT binary against the sandbox: nothing is sent (no request, no token
 * call), the plan's counts are those of the real run that follows (cache hits for report,
 * --skip-existing for export), its waits come from the limiter's state and rate, and it is JSON on
 * stdout with --json or lines on stderr.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import type { RunPlan } from '../../src/run/dry-run.js';
import { runPrs, tempDir } from '../helpers/run.js';
import { dirsEnv, loginSandbox, signInEnv, useLoggedIn } from '../helpers/session.js';

const { sandbox, tmp, env } = useLoggedIn('prs-dry-run-', { rateLimit: '1000/1s' }, { PRS_CACHE: '7d' });
beforeEach(() => sandbox.stats.reset());

const prs = (args: string[], extra: Record<string, string> = {}) =>
  runPrs(args, { env: { ...env, ...extra } });
const sent = () => sandbox.stats.requests.length;
const range = (from: string, to: string) => ['report', '42', '1', '-t', 'index', '--from', from, '--to', to];

describe('report --dry-run', () => {
  it('counts the cache hits; sends nothing; the real run sends exactly the planned requests', async () => {
    // 2 portfolios × 3 weekdays cached, then a plan over 2 × 8 weekdays.
    const warm = await prs([...range('2024-05-06', '2024-05-08'), '-f', 'json', '-q']);
    expect(warm.code, warm.stderr).toBe(0);
    sandbox.stats.reset();
    const dry = await prs([...range('2024-05-06', '2024-05-15'), '--json', '--dry-run']);
    expect(dry.code, dry.stderr).toBe(0);
    expect(sent()).toBe(0);
    const plan = JSON.parse(dry.stdout) as RunPlan;
    expect(plan).toMatchObject({ command: 'report', items: 16, cached: 6, requests: 10, waitMs: 0 });
    const real = await prs([...range('2024-05-06', '2024-05-15'), '-f', 'json', '-q']);
    expect(real.code, real.stderr).toBe(0);
    expect(sandbox.stats.count({ endpoint: 'report' })).toBe(plan.requests);
  });

  it('--no-cache and --refresh plan every item as a request', async () => {
    for (const flag of ['--no-cache', '--refresh']) {
      const dry = await prs([...range('2024-05-06', '2024-05-08'), '--json', '--dry-run', flag]);
      expect(JSON.parse(dry.stdout)).toMatchObject({ items: 6, cached: 0, requests: 6 });
    }
    expect(sent()).toBe(0);
  });

  it('the waits follow the limit and the limiter state: 3 requests at 2/600s wait one window, more once the window is used', async () => {
    const root = tempDir('prs-dry-run-wait-');
    try {
      const e = { ...(await loginSandbox(sandbox, root.path)), PRS_RATE_LIMIT: '2/600s' };
      sandbox.stats.reset();
      const ids = ['report', '42', '1', '13', '-t', 'index', '-d', '2024-05-06'];
      const dry = await runPrs([...ids, '--json', '--dry-run'], { env: e });
      const plan = JSON.parse(dry.stdout) as RunPlan;
      expect(plan).toMatchObject({
        requests: 3,
        rateLimit: { limit: 2, windowMs: 600_000 },
        waitMs: 600_000,
      });
      expect(plan.etaMs).toBe(600_000);
      // Two requests spent: the window is full, so all three wait, the third for a second window.
      const spend = ['report', '42', '-t', 'index', '--from', '2024-05-07', '--to', '2024-05-08', '-q'];
      expect((await runPrs(spend, { env: e })).code).toBe(0);
      sandbox.stats.reset();
      const after = JSON.parse((await runPrs([...ids, '--json', '--dry-run'], { env: e })).stdout) as RunPlan;
      expect(after.requests).toBe(3);
      expect(after.waitMs).toBeGreaterThan(2 * 600_000 - 60_000);
      expect(Date.parse(after.until!)).toBeGreaterThan(Date.now() + 2 * 600_000 - 60_000);
      expect(sent()).toBe(0);
      // The text form, on stderr; stdout stays empty.
      const text = await runPrs([...ids, '--dry-run'], { env: e });
      expect(text.code).toBe(0);
      expect(text.stdout).toBe('');
      expect(text.stderr).toMatch(/^dry run: 3 items, nothing sent$/m);
      expect(text.stderr).toMatch(/^requests to send: 3$/m);
      expect(text.stderr).toMatch(
        /^waits at 2\/600s from the limiter's state now: \d+ min, the last request at /m,
      );
      expect(sent()).toBe(0);
    } finally {
      root.cleanup();
    }
  });

  it('a bad input is still exit 2 before anything; never logged in: exit 4', async () => {
    expect((await prs([...range('2024-05-06', '2024-05-03'), '--dry-run'])).code).toBe(2);
    const r = await prs([...range('2024-05-06', '2024-05-08'), '--dry-run'], {
      PRS_CONFIG_DIR: join(tmp.path, 'none'),
    });
    expect(r.code).toBe(4);
    expect(sent()).toBe(0);
  });
});

describe('export --dry-run', () => {
  it('counts what --skip-existing skips; sends nothing; the real run fetches exactly the rest', async () => {
    const dir = join(tmp.path, 'exports');
    mkdirSync(dir);
    const ex = (from: string, to: string, ...more: string[]) =>
      prs([
        'export',
        '42',
        '-t',
        'index',
        '--from',
        from,
        '--to',
        to,
        '--dir',
        dir,
        '--skip-existing',
        ...more,
      ]);
    expect((await ex('2024-05-06', '2024-05-08')).code).toBe(0);
    sandbox.stats.reset();
    const dry = await ex('2024-05-06', '2024-05-10', '--dry-run', '--json');
    expect(dry.code, dry.stderr).toBe(0);
    expect(sent()).toBe(0);
    const plan = JSON.parse(dry.stdout) as RunPlan;
    expect(plan).toMatchObject({ command: 'export', items: 5, skipped: 3, requests: 2, rateLimit: null });
    const real = await ex('2024-05-06', '2024-05-10');
    expect(real.code, real.stderr).toBe(0);
    expect(sandbox.stats.count({ endpoint: 'export' })).toBe(plan.requests);
  });

  it('a plan is not a run: no token call even with no session, no metrics file, no ping', async () => {
    // A fresh config dir and credentials in the environment: a real run would first sign in (one
    // token call), write the metrics file and ping start and success — the ping URL is the sandbox's
    // own, so a ping would be counted with the rest.
    const root = tempDir('prs-dry-run-quiet-');
    try {
      const metrics = join(root.path, 'prs.prom');
      const fresh = {
        ...dirsEnv(root.path),
        ...signInEnv(sandbox),
        PRS_METRICS_FILE: metrics,
        PRS_PING_URL: `${sandbox.url}/ping/dry-run-check`,
      };
      const { existsSync } = await import('node:fs');
      for (const args of [
        [...range('2024-05-06', '2024-05-08'), '--dry-run'],
        ['export', '42', '-t', 'index', '-d', '2024-05-06', '--dir', root.path, '--dry-run', '--json'],
      ]) {
        const dry = await prs(args, fresh);
        expect(dry.code, dry.stderr).toBe(0);
        expect(sent()).toBe(0);
        expect(existsSync(metrics)).toBe(false);
      }
      // The same environment does reach the sandbox on a real run: the checks above could fail.
      const real = await prs([...range('2024-05-06', '2024-05-06'), '-f', 'json', '-q'], fresh);
      expect(real.code, real.stderr).toBe(0);
      expect(sandbox.stats.count({ endpoint: 'token' })).toBe(1);
      expect(sandbox.stats.requests.some((r) => r.path.startsWith('/ping/dry-run-check'))).toBe(true);
      expect(existsSync(metrics)).toBe(true);
    } finally {
      root.cleanup();
    }
  });

  it('a missing --dir is not created by a plan', async () => {
    const dir = join(tmp.path, 'not-yet');
    const r = await prs(['export', '42', '-t', 'index', '-d', '2024-05-06', '--dir', dir, '--dry-run']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/^requests to send: 1$/m);
    const { existsSync } = await import('node:fs');
    expect(existsSync(dir)).toBe(false);
    expect(sent()).toBe(0);
  });
});
