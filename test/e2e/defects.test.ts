/**
 * Defects found trying prs as its users would (issue 18), against the BUILT binary (`npm run build`
 * first): suggestions, settings with control characters, odd answers, slow bodies, previous-weekday.
 */
import { once } from 'node:events';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { drip, useFaultServer } from '../helpers/fault-server.js';
import { runPrs } from '../helpers/run.js';
import { useTempDir } from '../helpers/session.js';
import { expectCleanFailure } from './reliability-helpers.js';

const DATE = '2024-05-03';
const rows = JSON.stringify([{ effectiveDate: DATE, indexName: 'Example 600 OG EUR', indexValue: 1.5 }]);
const server = useFaultServer();
const tmp = useTempDir('prs-defects-');
let out: string;

beforeEach(() => {
  out = tmp.fresh();
});

/** A token run against `baseUrl`, with its own config and cache directories. */
const env = (baseUrl: string, extra: Record<string, string> = {}) => ({
  PRS_CONFIG_DIR: join(tmp.path, 'config'),
  PRS_CACHE_DIR: join(tmp.path, 'cache'),
  HOME: tmp.path,
  PRS_BASE_URL: baseUrl,
  PRS_TENANT: 'T1',
  PRS_TOKEN: 'ready-token',
  PRS_RETRIES: '0',
  ...extra,
});

/**
 * A server that answers every request with `response`, byte for byte: node:http refuses to send a
 * header with control characters, a hostile or broken server does not.
 */
async function rawServer(response: string): Promise<{ url: string; close(): Promise<void> }> {
  const srv: Server = createServer((s) => s.once('data', () => s.end(response)));
  srv.listen(0, '127.0.0.1');
  await once(srv, 'listening');
  const { port } = srv.address() as { port: number };
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise((r) => srv.close(() => r())) };
}

describe('suggestions: only what is close (defect 7)', () => {
  it.each([
    [['bogus'], "prs: unknown command 'bogus'\nrun `prs --help` for usage\n"],
    [['exprot', '1'], "prs: unknown command 'exprot'\ndid you mean export?\n"],
  ])('prs %j', async (args, stderr) => {
    const r = await runPrs(args);
    expect({ code: r.code, stdout: r.stdout, stderr: r.stderr }).toEqual({ code: 2, stdout: '', stderr });
  });
});

describe('previous-weekday (defect 6)', () => {
  it('every cron example of `export --help` asks for the previous weekday, never yesterday', async () => {
    const r = await runPrs(['export', '--help']);
    const cron = r.stdout.split('\n').filter((l) => /^\s*[\d*]+ [\d*]+ [\d*]+ /.test(l));
    expect(cron.length).toBeGreaterThan(0);
    for (const line of cron) expect(line).toMatch(/ -d previous-weekday /);
  });

  it('is accepted where a date is, and a typo of it is exit 2 naming it', async () => {
    const bad = await runPrs(['report', '42', '-t', 'index', '-d', 'previous-wekday']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^prs: invalid date "previous-wekday": expected .*"previous-weekday"/);
  });
});

describe('exit codes that sent the user the wrong way (defect 3)', () => {
  it.each([
    [
      'PRS_TENANT',
      { PRS_TENANT: 'T1\nX-Evil: 1' },
      [],
      /^prs: invalid tenant "T1\\nX-Evil: 1": control characters/,
    ],
    ['--tenant', {}, ['--tenant', 'T1\rX'], /^prs: invalid tenant .*\(from --tenant\)/],
    ['PRS_BASE_URL', { PRS_BASE_URL: 'http://127.0.0.1:1/\nx' }, [], /^prs: invalid base-url/],
    [
      'PRS_TOKEN',
      { PRS_TOKEN: 'tok\nX-Evil: 1' },
      [],
      /^prs: invalid PRS_TOKEN: it contains control characters$/,
    ],
  ])(
    'a setting with control characters (%s): exit 2 before any request',
    async (_n, extra, args, message) => {
      const r = await runPrs(['report', '42', '-t', 'index', '-d', DATE, '--json', ...args], {
        env: env(server.url, extra),
      });
      expectCleanFailure(r, 2, message);
      expect(server.requests).toEqual([]);
    },
  );

  it('a Content-Disposition with control characters: exit 8 (a malformed answer), no file', async () => {
    const raw = await rawServer(
      'HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n' +
        `content-disposition: attachment; filename="a\u001b[31mb.json"\r\ncontent-length: ${rows.length}\r\n` +
        `connection: close\r\n\r\n${rows}`,
    );
    try {
      const r = await runPrs(['export', '42', '-t', 'index', '-d', DATE, '--dir', out], {
        env: env(raw.url),
      });
      expectCleanFailure(r, 8, /^prs: malformed response from 127\.0\.0\.1:\d+: /);
      expect(readdirSync(out)).toEqual([]);
    } finally {
      await raw.close();
    }
  });

  it('https:// against a plain-HTTP port: exit 9, the server did not speak TLS, check the scheme', async () => {
    server.respond({ headers: { 'content-type': 'application/json' }, body: rows });
    const r = await runPrs(['report', '42', '-t', 'index', '-d', DATE, '--json'], {
      env: env(server.url.replace('http:', 'https:')),
    });
    expectCleanFailure(r, 9, /^prs: 127\.0\.0\.1:\d+ did not speak TLS/);
    expect(r.stderr).toMatch(
      /\nhint: check the scheme: the server at 127\.0\.0\.1:\d+ may speak plain http:\/\/, not https:\/\//,
    );
    expect(r.stderr).not.toMatch(/NODE_EXTRA_CA_CERTS|certificate/);
  });
});

describe('--timeout bounds a slow body (defect 4)', () => {
  // One byte every 100 ms: never silent for long (undici's idle timeout never fires), yet far below
  // 1 kB per second. Delivered whole, it would take over 8 s.
  const json = { 'content-type': 'application/json' };

  it('the JSON report: exit 9 after the retries, nothing on stdout', async () => {
    server.respond({ headers: json, body: drip(JSON.stringify({ report: JSON.parse(rows) }), 100) });
    const r = await runPrs(
      ['report', '42', '-t', 'index', '-d', DATE, '--json', '--timeout', '1', '--retries', '1'],
      {
        env: env(server.url),
      },
    );
    expectCleanFailure(r, 9, /^prs: 127\.0\.0\.1:\d+ sent less than 1 kB of the response in 1 s$/);
    expect(r.stdout).toBe('');
    expect(server.requests).toHaveLength(2);
  });

  it('the export download: retried, then exit 9, no file, no temporary file', async () => {
    server.respond({ headers: json, body: drip(rows, 100) });
    const r = await runPrs(
      ['export', '42', '-t', 'index', '-d', DATE, '--dir', out, '--timeout', '1', '--retries', '1', '-v'],
      {
        env: env(server.url),
      },
    );
    expect(r.code, r.stderr).toBe(9);
    expect(r.stderr).toMatch(/^prs: the download of portfolio 42 on 2024-05-03 stalled after \d+ bytes$/m);
    expect(r.stderr).toMatch(/^~ waiting \d+\.\d s \(backoff\)$/m);
    expect(r.stdout).toBe('');
    expect(readdirSync(out)).toEqual([]);
    expect(server.requests).toHaveLength(2);
  });

  it('the export download that stalls once is asked for again and saved whole', async () => {
    server.respond({ headers: json, body: drip(rows, 100) }, { headers: json, body: rows });
    const r = await runPrs(
      ['export', '42', '-t', 'index', '-d', DATE, '--dir', out, '--timeout', '1', '--retries', '1'],
      {
        env: env(server.url),
      },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(server.requests).toHaveLength(2);
    const files = readdirSync(out);
    expect(files).toHaveLength(1);
    expect(readFileSync(join(out, files[0]), 'utf8')).toBe(rows);
  });
});
