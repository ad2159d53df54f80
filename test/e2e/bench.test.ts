// `npm run bench` reports and never fails CI on its figures; this only keeps the script itself
// working (options, sandbox, login, JSON output) with one quick pass of its rows (the curl | jq ones
// when both tools are installed); the export rows are left out, they take a minute.
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { baseEnv, collect, tempDir } from '../helpers/run.js';

const BENCH = fileURLToPath(new URL('../../scripts/bench.mjs', import.meta.url));
const tmp = tempDir('prs-bench-test-');
afterAll(() => tmp.cleanup());

interface Row {
  name: string;
  caBundle?: string;
  ratio?: number;
  medianA?: number;
  requests?: number;
  spanMs?: number;
  count429?: number;
}

describe('npm run bench', () => {
  it('runs its start-up and limiter rows and writes the figures as JSON', async () => {
    const out = join(tmp.path, 'results.json');
    const child = spawn(process.execPath, [BENCH, '--runs', '1', '--only', 'startup,limiter', '--out', out], {
      env: baseEnv({ NODE_EXTRA_CA_CERTS: undefined }),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    child.stdin.end();
    const r = await collect(child, 60_000).done;
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^start-up: --version +[\d.]+ ms vs +[\d.]+ ms +ratio [\d.]+×/m);
    const { results, runs, node } = JSON.parse(readFileSync(out, 'utf8')) as {
      results: Row[];
      runs: number;
      node: string;
    };
    expect({ runs, node }).toEqual({ runs: 1, node: process.version });
    const byName = new Map(results.map((row) => [row.name, row]));
    for (const name of ['start-up: --version', 'start-up: --help']) {
      expect(byName.get(name)).toMatchObject({ caBundle: 'as set', ratio: expect.any(Number) });
      expect(byName.get(name)!.medianA).toBeGreaterThan(0);
    }
    const limiter = byName.get('limiter: 12 requests at 4/1s')!;
    expect(limiter).toMatchObject({ requests: 12, count429: 0 });
    // The spacing is the limiter's (tested exactly elsewhere); here only that it was measured.
    expect(limiter.spanMs).toBeGreaterThanOrEqual(2000);
  }, 90_000);

  const has = (tool: string) => spawnSync(tool, ['--version'], { stdio: 'ignore' }).status === 0;
  it.skipIf(!has('curl') || !has('jq'))(
    'runs its curl | jq rows: the small report and 20,000 rows to CSV and JSON',
    async () => {
      const out = join(tmp.path, 'results-jq.json');
      const child = spawn(process.execPath, [BENCH, '--runs', '1', '--only', 'small,csv', '--out', out], {
        env: baseEnv({ NODE_EXTRA_CA_CERTS: undefined }),
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      child.stdin.end();
      const r = await collect(child, 60_000).done;
      expect([r.code, r.stderr]).toEqual([0, '']);
      const { results } = JSON.parse(readFileSync(out, 'utf8')) as { results: Row[] };
      expect(results.map((row) => row.name)).toEqual([
        'small report vs node -e 0',
        'small report vs curl|jq',
        '20k rows → CSV vs curl|jq',
        '20k rows → JSON vs curl|jq',
        '20k rows → table vs CSV',
      ]);
      for (const row of results) expect(row.ratio).toBeGreaterThan(0);
    },
    90_000,
  );
});
