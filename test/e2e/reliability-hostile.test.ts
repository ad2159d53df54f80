/**
 * Hostile answers and killed runs (issue 24), against the BUILT binary (`npm run build` first) and the
 * sandbox's faults: a zip bomb, a CSV of NUL bytes, a server-chosen extension, the temporaries of a
 * run killed with SIGKILL, a `--dir` that does not exist yet.
 * Row ids in [brackets] are listed in docs/reliability.md (checked by test/unit/reliability/doc.test.ts).
 */
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { useFaultServer } from '../helpers/fault-server.js';
import { runPrs } from '../helpers/run.js';
import { tokenEnv, useLoggedIn } from '../helpers/session.js';
import { expectCleanFailure, spawnPrs, tempFiles, waitFor } from './reliability-helpers.js';

const DATE = '2024-05-03'; // a Friday
const server = useFaultServer();
let out: string;

const {
  sandbox,
  tmp,
  env: session,
} = useLoggedIn('prs-reliability-hostile-', { rateLimit: '100/1s' }, { PRS_RETRIES: '0' });
beforeEach(() => {
  sandbox.stats.reset();
  out = tmp.fresh();
});

const prs = (args: string[]) => runPrs(args, { env: session });
const exportArgs = (...more: string[]) => ['export', '42', '-t', 'index', '-d', DATE, '--dir', out, ...more];
const MiB = 1024 * 1024;

describe('zip safety', () => {
  it('[R-H01] a zip bomb (4 MiB of NUL bytes in a few kB), even with --extract: exit 8, nothing written', async () => {
    for (const extract of [[], ['--extract']]) {
      sandbox.injectFault({ endpoint: 'export', zip: { bytes: 4 * MiB, fill: 'nul' } });
      const r = await prs(exportArgs('-f', 'csv', ...extract));
      expectCleanFailure(r, 8, /is corrupt: zip entry ".*\.csv" inflates more than 100-fold/);
      expect(readdirSync(out)).toEqual([]);
    }
    // Text compresses as well: a 2 MiB CSV of one line repeated is refused too.
    sandbox.injectFault({ endpoint: 'export', zip: { bytes: 2 * MiB, fill: 'text' } });
    expectCleanFailure(await prs(exportArgs('-f', 'csv', '--extract')), 8, /inflates more than 100-fold/);
    expect(readdirSync(out)).toEqual([]);
  });

  it('[R-H02] a CSV member holding NUL bytes (64 kB, under the ratio floor), --extract: exit 8, nothing written', async () => {
    sandbox.injectFault({ endpoint: 'export', zip: { bytes: 64 * 1024, fill: 'nul' } });
    const r = await prs(exportArgs('-f', 'csv', '--extract'));
    expectCleanFailure(r, 8, /is corrupt: zip entry ".*\.csv" holds NUL bytes/);
    expect(readdirSync(out)).toEqual([]);
  });

  it('[R-H03] a 900 kB CSV that compresses ~1000-fold (under the 1 MiB floor): saved and extracted, exit 0', async () => {
    sandbox.injectFault({ endpoint: 'export', zip: { bytes: 900 * 1024, fill: 'text' } });
    const r = await prs(exportArgs('-f', 'csv', '--extract'));
    expect([r.code, r.stderr]).toEqual([0, '']);
    const files = readdirSync(out).sort();
    expect(files.map((f) => f.replace(/^.*\./, ''))).toEqual(['csv', 'zip']);
    const csv = files.find((f) => f.endsWith('.csv'))!;
    expect(statSync(join(out, csv)).size).toBe(900 * 1024);
    expect(statSync(join(out, files.find((f) => f.endsWith('.zip'))!)).size).toBeLessThan(9 * 1024);
  });
});

describe('the extension follows the content', () => {
  const cases = [
    ['attachment; filename="x.zip"', 'json', 'x.json'],
    ["attachment; filename*=UTF-8''%E2%80%AEnosj.exe", 'json', 'nosj.json'],
    ['attachment; filename="x.json"', 'csv', 'x.zip'],
    // A zero-width space and a word joiner (format characters) inside the name.
    ["attachment; filename*=UTF-8''r%E2%80%8Bep%E2%81%A0ort.exe", 'csv', 'report.zip'],
  ] as const;
  it('[R-H04] x.zip for JSON, nosj.exe behind a bidi override, x.json for a zip: saved with the extension of the checked content, exit 0', async () => {
    for (const [header, format, name] of cases) {
      const dir = join(out, format + name);
      sandbox.injectFault({ endpoint: 'export', contentDisposition: header });
      const r = await prs(['export', '42', '-t', 'index', '-d', DATE, '--dir', dir, '-f', format]);
      expect([header, r.code, r.stderr]).toEqual([header, 0, '']);
      expect(readdirSync(dir)).toEqual([name]);
      expect(r.stdout).toBe(`${join(dir, name)}\n`);
      const head = readFileSync(join(dir, name)).subarray(0, 2).toString('latin1');
      expect(head).toBe(format === 'csv' ? 'PK' : '[{');
    }
  });
});

describe('killed runs and missing directories', () => {
  it('[R-H05] kill -9 during a --parallel 4 export: the resume removes the temporaries of the dead run (never of a live one), exit 0', async () => {
    const range = ['export', '42', '-t', 'index', '--from', '2024-05-06', '--to', '2024-05-09', '--dir', out];
    // Every answer sends half its body, then stalls: four temporaries being written at once.
    sandbox.injectFault({ endpoint: 'export', stallMs: 60_000, count: 4 });
    const run = spawnPrs([...range, '--parallel', '4'], session);
    expect(await waitFor(() => tempFiles(out).length === 4)).toBe(true);
    run.child.kill('SIGKILL');
    expect((await run.done).signal).toBe('SIGKILL');
    const left = tempFiles(out);
    expect(left).toHaveLength(4);
    expect(left.every((f) => f.includes(`.${run.child.pid}.`))).toBe(true);
    // A temporary of a live process (this test's own) beside them: never touched.
    const live = left[0]!.replace(`.${run.child.pid}.`, `.${process.pid}.`);
    writeFileSync(join(out, live), 'x');

    const r = await prs([...range, '--skip-existing', '--parallel', '4']);
    expect([r.code, r.stderr]).toEqual([0, '4 written\n']);
    expect(r.stdout.trim().split('\n')).toHaveLength(4);
    expect(tempFiles(out)).toEqual([live]);
    expect(readdirSync(out).filter((f) => f.endsWith('.json'))).toHaveLength(4);
  });

  it('[R-H11] kill -9 during a report -o range: the next report -o into that directory removes the temporary of the dead run (never of a live one), exit 0', async () => {
    const file = join(out, 'range.csv');
    // One request a minute: the run holds its temporary while it waits for the second.
    const run = spawnPrs(
      ['report', '42', '-t', 'index', '--from', '2024-05-06', '--to', '2024-05-09', '-f', 'csv', '-o', file],
      { ...session, PRS_RATE_LIMIT: '1/60s', PRS_CACHE_DIR: join(out, 'slow-cache') },
    );
    expect(await waitFor(() => tempFiles(out).length === 1)).toBe(true);
    run.child.kill('SIGKILL');
    expect((await run.done).signal).toBe('SIGKILL');
    const [left] = tempFiles(out);
    expect(left).toContain(`.${run.child.pid}.`);
    const live = left!.replace(`.${run.child.pid}.`, `.${process.pid}.`);
    writeFileSync(join(out, live), 'x');

    const r = await prs(['report', '42', '-t', 'index', '-d', DATE, '-f', 'csv', '-o', file]);
    expect([r.code, r.stderr]).toEqual([0, `wrote 2 rows to ${file}\n`]);
    expect(tempFiles(out)).toEqual([live]);
  });

  it('[R-H06] --dir that does not exist (with parents): created as mkdir -p, the file in it, exit 0', async () => {
    const dir = join(out, '2024', 'may');
    const r = await prs(['export', '42', '-t', 'index', '-d', DATE, '--dir', dir]);
    expect([r.code, r.stderr]).toEqual([0, '']);
    expect(readdirSync(dir)).toHaveLength(1);
    expect(r.stdout).toBe(`${join(dir, readdirSync(dir)[0]!)}\n`);
    // A relative one, as in the help's examples (`--dir may`).
    const rel = await runPrs(['export', '42', '-t', 'index', '-d', DATE, '--dir', 'may'], {
      env: session,
      cwd: out,
    });
    expect([rel.code, rel.stderr]).toEqual([0, '']);
    expect(readdirSync(join(out, 'may'))).toHaveLength(1);
  });
});

/** prs against the fault server with a ready token (it accepts any). */
const faulty = (args: string[]) =>
  runPrs(args, { env: { ...tokenEnv(server.url, join(tmp.path, 'faulty')), PRS_RETRIES: '1' } });
const report = ['report', '42', '-t', 'index', '-d', DATE, '--json'];

describe('messages that say what happened', () => {
  it('[R-H07] a response header of 64 kB: exit 8, a malformed answer (was exit 9, network), not retried', async () => {
    server.respond({
      headers: { 'content-type': 'application/json', 'x-padding': 'a'.repeat(65_536) },
      body: '{"report":[]}',
    });
    const r = await faulty(report);
    expectCleanFailure(r, 8, /^prs: malformed response from 127\.0\.0\.1:\d+: its headers exceed 16 kB$/);
    expect(server.requests).toHaveLength(1);
  });

  it('[R-H08] --timeout 1e12 (or 1000000000000, or 0.0001): exit 2 naming the range, before any request', async () => {
    for (const t of ['1e12', '1000000000000', '0.0001']) {
      const r = await faulty([...report, '--timeout', t]);
      expectCleanFailure(
        r,
        2,
        new RegExp(
          `^prs: invalid timeout "${t}": expected seconds from 0\\.001 to 86400, in digits \\(e\\.g\\. 60 or 2\\.5\\) \\(from --timeout\\)$`,
        ),
      );
    }
    expect(server.requests).toEqual([]);
  });

  it('[R-H09] -o naming a directory, with and without --force (export and report): exit 10, it is a directory, no --force hint', async () => {
    const dir = join(out, 'adir');
    mkdirSync(dir);
    server.respond({ headers: { 'content-type': 'application/json' }, body: '[{"a":1}]' });
    for (const args of [
      ['export', '42', '-t', 'index', '-d', DATE, '-o', dir],
      ['export', '42', '-t', 'index', '-d', DATE, '-o', dir, '--force'],
      [...report, '-o', dir, '--force'],
    ]) {
      const r = await faulty(args);
      expectCleanFailure(r, 10, new RegExp(`^prs: cannot write ${dir}: it is a directory$`));
      expect(r.stderr).not.toMatch(/--force|EISDIR|rename/);
    }
    expect(server.requests).toEqual([]);
    expect(readdirSync(out)).toEqual(['adir']);
    expect(readdirSync(dir)).toEqual([]);
  });

  // As root: /proc itself passes the writable check, and the file system refuses the new file.
  it.runIf(process.platform === 'linux' && process.getuid?.() === 0)(
    '[R-H10] -o /proc/version --force: exit 10, /proc does not allow new files (was "no such directory")',
    async () => {
      server.respond({ headers: { 'content-type': 'application/json' }, body: '[{"a":1}]' });
      const r = await faulty(['export', '42', '-t', 'index', '-d', DATE, '-o', '/proc/version', '--force']);
      expectCleanFailure(r, 10, /^prs: cannot write \/proc\/version: \/proc does not allow new files in it$/);
    },
  );
});
