import { describe, expect, it } from 'vitest';
import type { SandboxCommandOptions } from '../../../src/commands/sandbox.js';
import { parseSandboxOptions, sandbox, startBanner } from '../../../src/commands/sandbox.js';
import { UsageError } from '../../../src/errors.js';
import { fakeDeps } from '../../helpers/deps.js';

const base: SandboxCommandOptions = {
  port: '0',
  host: '127.0.0.1',
  rateLimit: '4/60s',
  tokenTtl: '300',
  refreshTtl: '1800',
  bigRows: '1000',
  exportDelay: '0',
  jsonStyle: 'compact',
};

describe('parseSandboxOptions', () => {
  it('turns flags into options', () => {
    expect(
      parseSandboxOptions({ ...base, port: '8080', rateLimit: '2/1s', tokenTtl: '1', bigRows: '500000' }),
    ).toEqual({
      port: 8080,
      host: '127.0.0.1',
      rateLimit: '2/1s',
      tokenTtl: 1,
      refreshTtl: 1800,
      bigExportRows: 500000,
      exportDelayMs: 0,
      jsonStyle: 'compact',
    });
  });

  it('--json-style and --gzip: the byte shapes a real service may send', () => {
    expect(parseSandboxOptions({ ...base, jsonStyle: 'spaced', gzip: true })).toMatchObject({
      jsonStyle: 'spaced',
      gzip: true,
    });
    expect(parseSandboxOptions({ ...base, jsonStyle: 'compact' }).jsonStyle).toBe('compact');
  });

  it.each([
    [{ jsonStyle: 'pretty' }, '--json-style'],
    [{ port: '-1' }, '--port'],
    [{ port: '65536' }, '--port'],
    [{ port: 'abc' }, '--port'],
    [{ host: '' }, '--host'],
    [{ host: 'http://x' }, '--host'],
    [{ rateLimit: 'fast' }, '--rate-limit'],
    [{ rateLimit: '0/60s' }, '--rate-limit'],
    [{ tokenTtl: '0' }, '--token-ttl'],
    [{ tokenTtl: '1.5' }, '--token-ttl'],
    [{ refreshTtl: 'x' }, '--refresh-ttl'],
    [{ bigRows: '-5' }, '--big-rows'],
    [{ bigRows: '1e6' }, '--big-rows'],
  ])('%j is a usage error naming %s', (bad, flag) => {
    expect(() => parseSandboxOptions({ ...base, ...bad })).toThrow(UsageError);
    expect(() => parseSandboxOptions({ ...base, ...bad })).toThrow(flag);
  });
});

describe('startBanner', () => {
  it('shows the exact login command, secret in the environment, not in argv', () => {
    const lines = startBanner({
      url: 'http://127.0.0.1:5555',
      authUrl: 'http://127.0.0.1:5555',
      realm: 'prs-sandbox',
      clientId: 'prs-cli',
      clientSecret: 'sandbox-secret',
      users: [{ username: 'demo', password: 'demo', tenant: 'demo-tenant' }],
      serviceClients: [{ clientId: 'prs-robot', clientSecret: 'robot-secret', tenant: 'demo-tenant' }],
      rateLimit: '4/60s',
      tokenTtl: 300,
      bigExportRows: 1000,
    });
    expect(lines).toContain(
      '  PRS_CLIENT_SECRET=robot-secret prs login --client-credentials --auth-url http://127.0.0.1:5555 --realm prs-sandbox --client-id prs-robot --tenant demo-tenant --base-url http://127.0.0.1:5555',
    );
    expect(lines).toContain(
      "  printf '%s' demo | PRS_CLIENT_SECRET=sandbox-secret prs login --auth-url http://127.0.0.1:5555 --realm prs-sandbox --client-id prs-cli --username demo --tenant demo-tenant --base-url http://127.0.0.1:5555 --password-stdin",
    );
  });
});

describe('sandbox command', () => {
  it('prints the URL first on stdout, serves until aborted, then closes', async () => {
    const ac = new AbortController();
    const deps = fakeDeps({ signal: ac.signal });
    const running = sandbox(base, deps);
    // Wait for the URL line, then prove the server answers.
    let url = '';
    for (let i = 0; i < 200 && !url; i++) {
      await new Promise((r) => setTimeout(r, 10));
      url = deps.io.stdoutText().split('\n')[0];
    }
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const res = await fetch(
      `${url}/api/v1/report-service/report/generate/portfolio/42?reportType=index&date=2024-05-01`,
    );
    expect(res.status).toBe(401);
    expect(deps.io.stderrText()).toContain('prs login --auth-url');
    ac.abort();
    await running;
    await expect(fetch(url)).rejects.toThrow();
    expect(deps.io.stderrText()).toContain('stopped');
  });

  it('rejects a port in use as a usage error', async () => {
    const ac = new AbortController();
    const { startSandbox } = await import('../../../src/sandbox/index.js');
    const other = await startSandbox();
    try {
      await expect(
        sandbox({ ...base, port: String(other.port) }, fakeDeps({ signal: ac.signal })),
      ).rejects.toThrow(/already in use/);
    } finally {
      await other.close();
    }
  });
});
