/**
 * Peak memory of `prs report` (issues 23, 30): the row stream holds one chunk and one row of an
 * answer, its output waits in a spool that goes to a temporary file past 64 KiB, so memory does not
 * grow with the answer or with the number of answers (sandbox portfolio 7: 20,000 rows, ~6 MB). The
 * BUILT binary (run `npm run build` first); its own peak RSS, read at its exit (measured, not timed).
 * Node 20 and 24 (CI runs it under both); PRS_SKIP_MEMORY_TEST=1 leaves it out.
 */
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { baseEnv, PRS_BIN } from '../helpers/run.js';
import { useLoggedIn } from '../helpers/session.js';

const NODE_MAJOR = Number(process.versions.node.split('.')[0]);

// This sandbox keeps every answer it generates (portfolio 7's eleven days): the tests ask for the same
// days again, and generating 20,000 rows costs this process more CPU than prs takes to print them.
const { tmp, env: session } = useLoggedIn('prs-report-memory-', { rateLimit: '1000/1s', cachedAnswers: 16 });
/** The same rows, spaced as Python's json.dumps writes them (issue 30: 2-8× the memory before). */
const spaced = useLoggedIn('prs-report-memory-spaced-', { rateLimit: '1000/1s', jsonStyle: 'spaced' });
let probe: string;
beforeAll(() => {
  probe = join(tmp.path, 'rss-probe.cjs');
  writeFileSync(
    probe,
    // VmHWM: the process's own peak (getrusage's maxRSS also counts the pages of the parent it was forked from).
    "const fs = require('node:fs');\nprocess.on('exit', () => fs.writeFileSync(process.env.RSS_OUT, /VmHWM:\\s+(\\d+)/.exec(fs.readFileSync('/proc/self/status', 'utf8'))?.[1] ?? String(process.resourceUsage().maxRSS)));\n",
  );
});

let n = 0;
/** Peak RSS (MiB) of one `prs report` run, its output thrown away. */
async function peakOf(args: string[], env = session): Promise<number> {
  const out = join(tmp.path, `rss-${n++}`);
  const child = spawn(process.execPath, ['-r', probe, PRS_BIN, ...args], {
    env: baseEnv({ ...env, RSS_OUT: out }),
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (c) => {
    stderr += c;
  });
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  expect([code, stderr]).toEqual([0, '']);
  return Number(readFileSync(out, 'utf8')) / 1024;
}

describe.skipIf(process.env.PRS_SKIP_MEMORY_TEST === '1')('report memory', () => {
  it('one 20,000-row answer under 80 MiB; ten in one run under 85, not growing with them; compact or spaced', async () => {
    const report = (...dates: string[]) => [
      '-q',
      'report',
      '7',
      '-t',
      'constituent.close',
      ...dates,
      '-f',
      'ndjson',
    ];
    for (const env of [session, spaced.env]) {
      const one = await peakOf(report('-d', '2024-05-02'), env);
      // 2024-05-01 .. 2024-05-14: ten weekdays.
      const ten = await peakOf(report('--from', '2024-05-01', '--to', '2024-05-14'), env);
      expect(one).toBeLessThan(80);
      // Node 24 keeps more over a range than Node 20: held to issue 30's 90 for a range.
      expect(ten).toBeLessThan(NODE_MAJOR === 20 ? 85 : 90);
      // A range keeps what V8 has not collected yet above one answer's peak, and stays there: 40 answers
      // peak where ten do (npm run bench, docs/performance.md).
      expect(ten - one).toBeLessThan(25);
    }
  });

  it('-f parquet of 200,000 rows (ten answers) stays under 100 MB (issue 33), close to 20,000', async () => {
    let run = 0;
    const parquet = (to: string) => [
      '-q',
      'report',
      '7',
      '-t',
      'constituent.close',
      '--from',
      '2024-05-01',
      '--to',
      to,
      '-o',
      join(tmp.path, `rows-${to}-${run++}.parquet`),
    ];
    // The lower of two runs each: one run's peak moves by a few MiB (when collections fall).
    const lower = async (to: string) => Math.min(await peakOf(parquet(to)), await peakOf(parquet(to)));
    const one = await lower('2024-05-01');
    const ten = await lower('2024-05-14');
    // #33: ≤ 100 MB (95.4 MiB) on Node 20 and 24 (docs/performance.md, Parquet, has the current figures).
    expect(ten).toBeLessThan(95.4);
    expect(ten - one).toBeLessThan(15);
  }, 360_000); // four runs of up to 200,000 rows: minutes on a busy machine

  it('with the answer cache on, storing a 20,000-row answer costs little more than printing it', async () => {
    const args = [
      '-q',
      '--cache',
      '7d',
      'report',
      '7',
      '-t',
      'constituent.close',
      '-d',
      '2024-05-15',
      '-f',
      'ndjson',
    ];
    // Asked and stored: its shape is read from the bytes and its entry written without a copy of the
    // body (a few MiB more; it was +17 MiB when the check parsed the whole body and the entry was one
    // buffer, which this bound still catches). The lowest of three runs each: when the collector runs
    // moves a peak by a few MiB, upwards.
    const printed: number[] = [];
    const stored: number[] = [];
    for (let i = 0; i < 3; i++) {
      printed.push(await peakOf([...args, '--no-cache']));
      stored.push(await peakOf([...args, '--refresh']));
    }
    expect(Math.max(...stored)).toBeLessThan(80);
    expect(Math.min(...stored) - Math.min(...printed)).toBeLessThan(8);
  });
});
