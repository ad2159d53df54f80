// `npm run bench` reports and never fails CI on its figures; this only keeps the script itself
// working (options, sandbox, login, JSON output) with one quick pass of its rows (the curl | jq ones
// when both tools are installed; the export rows on a 2,000-row file instead of 800,000).
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
  peakRssMiB?: number;
  caBundle?: string;
  ratio?: number;
  medianA?: number;
}

/** One pass of the `--only` rows; the run, and the file it wrote its figures to. */
async function runBench(only: string, file: string, ...extra: string[]) {
  const out = join(tmp.path, file);
  const child = spawn(process.execPath, [BENCH, '--runs', '1', '--only', only, '--out', out, ...extra], {
    env: baseEnv({ NODE_EXTRA_CA_CERTS: undefined }),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  child.stdin.end();
  return { r: await collect(child, 60_000).done, out };
}

describe('npm run bench', () => {
  // The limiter row (two processes sharing a window) is left out: test/e2e/service-limiter.test.ts
  // runs that scenario.
  it('runs its start-up rows and writes the figures as JSON', async () => {
    const { r, out } = await runBench('startup', 'results.json');
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
  });

  const has = (tool: string) => spawnSync(tool, ['--version'], { stdio: 'ignore' }).status === 0;
  it.skipIf(!has('curl'))(
    'runs its export rows (time against curl -o, peak RSS)',
    async () => {
      const { r, out } = await runBench('export', 'results-export.json', '--big-rows', '2000');
      expect([r.code, r.stderr]).toEqual([0, '']);
      const { results } = JSON.parse(readFileSync(out, 'utf8')) as { results: Row[] };
      expect(results.map((row) => row.name)).toEqual(['export 2000 rows vs curl -o', 'export peak RSS']);
      expect(results[0]!.ratio).toBeGreaterThan(0);
      expect(results[1]!.peakRssMiB).toBeGreaterThan(0);
    },
    90_000,
  );

  it.skipIf(!has('curl') || !has('jq'))(
    'runs its curl | jq rows: the small report and 20,000 rows to CSV and JSON',
    async () => {
      const { r, out } = await runBench('small,csv', 'results-jq.json');
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
