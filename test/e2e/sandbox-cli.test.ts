/** `prs sandbox` as a user runs it: the built binary, its first stdout line, Ctrl-C. */
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { SANDBOX_DEFAULTS } from '../../src/sandbox/options.js';
import { baseEnv, PRS_BIN, runPrs } from '../helpers/run.js';
import { sandboxTokens } from '../helpers/session.js';

const PATH = '/api/v1/report-service/report/generate/portfolio/42?reportType=index&date=2024-05-02';

describe('prs sandbox (binary)', () => {
  it('prints its URL first, answers 401 without a token, applies its --rate-limit, exits 0 on SIGINT', async () => {
    const child = spawn(process.execPath, [PRS_BIN, 'sandbox', '--port', '0', '--rate-limit', '2/60s'], {
      env: baseEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stderr.on('data', (c) => {
      stderr += c;
    });
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    try {
      const url = await new Promise<string>((resolve, reject) => {
        child.stdout.on('data', (c) => {
          stdout += c;
          if (stdout.includes('\n')) resolve(stdout.split('\n')[0]);
        });
        child.on('close', () => reject(new Error(`sandbox exited early: ${stderr}`)));
      });
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);

      const anonymous = await fetch(url + PATH);
      expect(anonymous.status).toBe(401);
      expect(anonymous.headers.get('www-authenticate')).toContain('Bearer');

      const { access_token } = await sandboxTokens({ ...SANDBOX_DEFAULTS, authUrl: url });
      const headers = { authorization: `Bearer ${access_token}`, 'x-client-id': 'demo-tenant' };
      const statuses = [];
      for (let i = 0; i < 3; i++) statuses.push((await fetch(url + PATH, { headers })).status);
      expect(statuses).toEqual([200, 200, 429]); // --rate-limit 2/60s reached the sandbox

      // The banner tells how to log in, with the secret in the environment, not in argv.
      expect(stderr).toContain(
        `PRS_CLIENT_SECRET=sandbox-secret prs login --auth-url ${url} --realm prs-sandbox --client-id prs-cli --username demo --tenant demo-tenant --base-url ${url} --password-stdin`,
      );
      expect(stderr).toContain('limit 2/60s');
    } finally {
      child.kill('SIGINT');
    }
    expect(await exited).toBe(0);
  });

  it.each([
    [['sandbox', '--port', 'abc'], 'invalid --port "abc"'],
    [['sandbox', '--rate-limit', 'lots'], 'invalid rate limit "lots"'],
    [['sandbox', '--token-ttl', '0'], 'invalid --token-ttl "0"'],
    [['sandbox', '--big-rows', '-1'], 'invalid --big-rows "-1"'],
  ])('%j: exit 2 with one line', async (args, message) => {
    const r = await runPrs(args);
    expect(r.code).toBe(2);
    expect(r.stderr.startsWith(`prs: ${message}`)).toBe(true);
    expect(r.stderr).not.toContain('    at ');
    expect(r.stdout).toBe('');
  });
});
