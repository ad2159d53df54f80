/**
 * The adapter through a real HTTP proxy (npm `proxy`) and over HTTPS with a self-signed CA, as a real
 * process (the bundled fixture runner), so HTTP(S)_PROXY / NO_PROXY and NODE_EXTRA_CA_CERTS are read
 * exactly as in `prs`: by the settings resolver and by Node at start-up.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { useTempDir } from '../helpers/session.js';
import { buildRunner, spawnRunner, useNetwork } from './service-helpers.js';

const tmp = useTempDir('prs-proxy-tls-');
const { plain, secure, proxied, tls, reset } = useNetwork(tmp);
let script: string;

beforeAll(async () => {
  script = await buildRunner(tmp.path);
});

const env = (baseUrl: string, extra: Record<string, string> = {}) => ({
  PRS_BASE_URL: baseUrl,
  PRS_TENANT: 'acme',
  PRS_TOKEN: 'tok-e2e',
  PRS_RETRIES: '0',
  PRS_RATE_LIMIT: '100/1s',
  PRS_CACHE_DIR: join(tmp.path, 'cache'),
  ...extra,
});

describe('HTTP proxy', () => {
  it('HTTP_PROXY is honoured: the request goes through the proxy with its headers', async () => {
    reset();
    const r = await spawnRunner(script, ['1'], env(plain.url, { HTTP_PROXY: proxied.url })).done;
    expect([r.code, r.stderr]).toEqual([0, '']);
    expect(JSON.parse(r.stdout).rows).toEqual([1]);
    // undici's ProxyAgent tunnels plain HTTP too (CONNECT), so the proxy sees the origin, not the path.
    expect(proxied.connects).toEqual([plain.url.replace('http://', '')]);
    expect(plain.seen).toEqual([
      {
        url: '/api/v1/report-service/report/generate/portfolio/1?reportType=index&date=2024-05-02',
        auth: 'Bearer tok-e2e',
        tenant: 'acme',
      },
    ]);
  });

  it('lower-case http_proxy works too', async () => {
    reset();
    const r = await spawnRunner(script, ['1'], env(plain.url, { http_proxy: proxied.url })).done;
    expect(r.code).toBe(0);
    expect(proxied.connects).toHaveLength(1);
  });

  it('NO_PROXY bypasses the proxy', async () => {
    reset();
    const r = await spawnRunner(
      script,
      ['1'],
      env(plain.url, { HTTP_PROXY: proxied.url, NO_PROXY: '127.0.0.1' }),
    ).done;
    expect([r.code, r.stderr]).toEqual([0, '']);
    expect(proxied.connects).toHaveLength(0);
    expect(proxied.requests).toHaveLength(0);
    expect(plain.seen).toHaveLength(1);
  });

  it('HTTPS_PROXY tunnels HTTPS (CONNECT) and the extra CA is trusted through the tunnel', async () => {
    reset();
    const r = await spawnRunner(
      script,
      ['1'],
      env(secure.url, { HTTPS_PROXY: proxied.url, NODE_EXTRA_CA_CERTS: tls.caFile }),
    ).done;
    expect([r.code, r.stderr]).toEqual([0, '']);
    expect(proxied.connects).toEqual([secure.url.replace('https://', '')]);
    expect(secure.seen).toHaveLength(1);
  });

  it('a proxy that refuses connections → exit 9', async () => {
    const dead = createServer();
    await new Promise<void>((resolve) => dead.listen(0, '127.0.0.1', resolve));
    const deadUrl = `http://127.0.0.1:${(dead.address() as AddressInfo).port}`;
    await new Promise((resolve) => dead.close(resolve));
    const r = await spawnRunner(script, ['1'], env(plain.url, { HTTP_PROXY: deadUrl })).done;
    expect(r.code).toBe(9);
    expect(r.stderr.split('\n')[0]).toMatch(/^prs: /);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });
});

describe('HTTPS with a self-signed CA', () => {
  it('without trust: exit 9, one clear line and the NODE_EXTRA_CA_CERTS hint, no retry', async () => {
    reset();
    const r = await spawnRunner(script, ['1'], env(secure.url, { PRS_RETRIES: '3' })).done;
    expect(r.code).toBe(9);
    const [first, hint, ...rest] = r.stderr.trimEnd().split('\n');
    expect(first).toMatch(/^prs: TLS certificate of 127\.0\.0\.1:\d+ not trusted \([A-Z_]+\)$/);
    expect(hint).toBe(
      'hint: if your organisation uses its own CA, point NODE_EXTRA_CA_CERTS at its PEM file',
    );
    expect(rest).toEqual([]);
    expect(secure.seen).toHaveLength(0);
  });

  it('with NODE_EXTRA_CA_CERTS pointing at the CA: works', async () => {
    reset();
    const r = await spawnRunner(script, ['2'], env(secure.url, { NODE_EXTRA_CA_CERTS: tls.caFile })).done;
    expect([r.code, r.stderr]).toEqual([0, '']);
    expect(JSON.parse(r.stdout).rows).toEqual([1, 1]);
    expect(secure.seen).toHaveLength(2);
  });
});
