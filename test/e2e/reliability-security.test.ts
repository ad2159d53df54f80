/**
 * Security, against the BUILT binary (`npm run build` first): secrets never in -v logs, a private
 * config whatever the umask, TLS verification that cannot be switched off, proxies from the
 * environment. (The adapter-level proxy/TLS tests are in test/e2e/proxy-tls.test.ts; these run `prs`.)
 * Row ids in [brackets] are listed in docs/reliability.md (checked by test/unit/reliability/doc.test.ts).
 */
import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { createProxy } from 'proxy';
import { describe, expect, it } from 'vitest';
import { loginArgs } from '../../src/sandbox/index.js';
import { makeCertificates } from '../helpers/certs.js';
import { startFaultServer } from '../helpers/fault-server.js';
import { baseEnv, PRS_BIN, type RunResult, runPrs } from '../helpers/run.js';
import { dirsEnv, loginSandbox, useSandbox, useTempDir } from '../helpers/session.js';
import { startSocks5 } from '../helpers/socks5.js';
import { expectCleanFailure, readJson } from './reliability-helpers.js';
import { startCountingServer, useNetwork } from './service-helpers.js';

const DATE = '2024-05-03';
const tmp = useTempDir('prs-reliability-security-');
// Secrets that appear nowhere else (the default demo/demo would match the user name).
const sandbox = useSandbox({
  rateLimit: '100/1s',
  users: [{ username: 'demo', password: 'pw-Quartz-4711', tenant: 'demo-tenant' }],
  clientSecret: 'cs-Basalt-0815',
});
const { plain, secure, proxied, tls, reset } = useNetwork(tmp);

/** `prs report` with a ready token against one of the counting servers; `globals` before the command (`-v`). */
const reportAt = (baseUrl: string, env: Record<string, string> = {}, globals: string[] = []) =>
  runPrs([...globals, 'report', '1', '-t', 'index', '-d', DATE, '--json'], {
    env: {
      ...dirsEnv(join(tmp.path, 'token-runs')),
      PRS_BASE_URL: baseUrl,
      PRS_TENANT: 'acme',
      PRS_TOKEN: 'tok-reliability',
      PRS_RETRIES: '0',
      PRS_RATE_LIMIT: '100/1s',
      ...env,
    },
  });
const okRows = [{ effectiveDate: '2024-05-02', indexValue: 1302.917413 }];

describe('secrets', () => {
  it('[R-S02] -v on report and export: Authorization masked, no token anywhere on stderr', async () => {
    const root = join(tmp.path, 'verbose');
    const env = await loginSandbox(sandbox, root);
    const stored = readJson(join(env.PRS_CONFIG_DIR!, 'config.json')) as {
      profiles: { default: { session: { accessToken: string; refreshToken: string } } };
    };
    const { accessToken, refreshToken } = stored.profiles.default.session;
    const rep = await runPrs(['-v', 'report', '42', '-t', 'index', '-d', DATE, '--json'], { env });
    const exp = await runPrs(['-v', 'export', '42', '-t', 'index', '-d', DATE, '--dir', root], { env });
    expect([rep.code, exp.code], rep.stderr + exp.stderr).toEqual([0, 0]);
    const stderr = rep.stderr + exp.stderr;
    expect(stderr.match(/"authorization":"Bearer \*\*\*"/g)).toHaveLength(2);
    expect(stderr).toMatch(/< 200 GET .*\/portfolio\/42\/export\?/);
    for (const s of [accessToken, refreshToken, sandbox.clientSecret, sandbox.users[0]!.password])
      expect(stderr).not.toContain(s);
    expect(stderr).not.toMatch(/eyJ/);
  });

  it('[R-S03] whatever the umask, the config is 0600 in a 0700 directory; the password only with --save-password', async () => {
    const run = (root: string, extra: string[]) =>
      new Promise<RunResult>((resolve) => {
        const user = sandbox.users[0]!;
        const args = [PRS_BIN, ...loginArgs(sandbox, user), ...extra];
        // `umask 000` first: a careless mkdir/writeFile would then make world-readable files.
        const child = spawn('sh', ['-c', 'umask 000 && exec "$@"', 'sh', process.execPath, ...args], {
          env: baseEnv({ ...dirsEnv(root), PRS_CLIENT_SECRET: sandbox.clientSecret }),
        });
        let stderr = '';
        child.stderr.on('data', (c) => {
          stderr += c;
        });
        child.stdin.end(user.password);
        child.on('close', (code, signal) =>
          resolve({ code, signal, stdout: '', stderr, stdoutBytes: Buffer.alloc(0) }),
        );
      });
    for (const [name, extra, secretsKept] of [
      ['plain', [], false],
      ['saved', ['--save-password'], true],
    ] as const) {
      const root = join(tmp.path, `umask-${name}`);
      const r = await run(root, [...extra]);
      expect(r.code, r.stderr).toBe(0);
      const dir = join(root, 'config');
      expect((statSync(dir).mode & 0o777).toString(8)).toBe('700');
      for (const f of readdirSync(dir)) expect((statSync(join(dir, f)).mode & 0o077).toString(8)).toBe('0');
      const text = readFileSync(join(dir, 'config.json'), 'utf8');
      expect(text.includes(sandbox.users[0]!.password)).toBe(secretsKept);
      // The client secret is kept with every session (refresh grants need it); the password only when saved.
      expect(text.includes(sandbox.clientSecret)).toBe(true);
    }
  });
});

describe('TLS', () => {
  it('[R-S04] a self-signed certificate: exit 9, one clear line and the NODE_EXTRA_CA_CERTS hint, nothing sent', async () => {
    reset();
    const r = await reportAt(secure.url, { PRS_RETRIES: '2' });
    expectCleanFailure(r, 9, /^prs: TLS certificate of 127\.0\.0\.1:\d+ not trusted \([A-Z_]+\)$/);
    expect(r.stderr).toContain('hint: if your organisation uses its own CA, point NODE_EXTRA_CA_CERTS');
    expect(secure.seen).toHaveLength(0);
  });

  it('[R-S05] with NODE_EXTRA_CA_CERTS pointing at the CA: works', async () => {
    reset();
    const r = await reportAt(secure.url, { NODE_EXTRA_CA_CERTS: tls.caFile });
    expect([r.code, r.stderr]).toEqual([0, '']);
    expect(JSON.parse(r.stdout)).toEqual(okRows);
    expect(secure.seen).toHaveLength(1);
  });

  it('[R-S06] NODE_TLS_REJECT_UNAUTHORIZED=0 does not turn verification off: still exit 9', async () => {
    reset();
    const r = await reportAt(secure.url, { NODE_TLS_REJECT_UNAUTHORIZED: '0' });
    // Node itself warns about the variable (two lines, its wording); prs's own lines follow as usual.
    const nodeWarning =
      /^\(node:\d+\) Warning: Setting the NODE_TLS_REJECT_UNAUTHORIZED .*\n\(Use `node --trace-warnings .*\n/;
    expect(r.stderr).toMatch(nodeWarning);
    expectCleanFailure(
      { ...r, stderr: r.stderr.replace(nodeWarning, '') },
      9,
      /^prs: TLS certificate of 127\.0\.0\.1:\d+ not trusted \([A-Z_]+\)$/,
    );
    expect(secure.seen).toHaveLength(0);
  });
});

describe('proxies (the real binary)', () => {
  it('[R-S07] HTTPS_PROXY: HTTPS tunnelled through the proxy (CONNECT), the extra CA trusted through it', async () => {
    reset();
    const r = await reportAt(secure.url, { HTTPS_PROXY: proxied.url, NODE_EXTRA_CA_CERTS: tls.caFile });
    expect([r.code, r.stderr]).toEqual([0, '']);
    expect(JSON.parse(r.stdout)).toEqual(okRows);
    expect(proxied.connects).toEqual([secure.url.replace('https://', '')]);
    expect(secure.seen).toHaveLength(1);
  });

  it('[R-S08] NO_PROXY bypasses the proxy; without it HTTP_PROXY is used', async () => {
    reset();
    const bypass = await reportAt(plain.url, { HTTP_PROXY: proxied.url, NO_PROXY: 'localhost,127.0.0.1' });
    expect([bypass.code, bypass.stderr]).toEqual([0, '']);
    expect(proxied.connects.length + proxied.requests.length).toBe(0);
    expect(plain.seen).toHaveLength(1);
    const through = await reportAt(plain.url, { HTTP_PROXY: proxied.url });
    expect([through.code, through.stderr]).toEqual([0, '']);
    expect(proxied.connects.length + proxied.requests.length).toBe(1);
    expect(plain.seen).toHaveLength(2);
  });

  it('[R-S10] a malformed proxy variable: exit 2 naming it, its password masked, nothing sent', async () => {
    for (const [name, value, shown] of [
      ['HTTPS_PROXY', 'not a url', 'not a url'],
      ['https_proxy', 'http://ops:Secr3t-Proxy@[::1', 'http://***@[::1'],
      ['HTTP_PROXY', 'ftp://proxy.example:2121', 'ftp://proxy.example:2121'],
      ['http_proxy', 'ops:Secr3t-Proxy@proxy.example:3128/path', '***@proxy.example:3128/path'],
      ['HTTP_PROXY', 'http://ops:Secr3t-Proxy@127.0.0.1:3128/path', 'http://ops:***@127.0.0.1:3128/path'],
    ]) {
      reset();
      const r = await reportAt(plain.url, { [name!]: value!, PRS_RETRIES: '2' });
      expectCleanFailure(r, 2);
      expect(r.stderr).toBe(
        `prs: invalid proxy URL "${shown}": expected http://[user:password@]host:port (from ${name})\n`,
      );
      expect(plain.seen.length + proxied.connects.length + proxied.requests.length).toBe(0);
    }
  });
  it('[R-S11] a proxy that refuses connections: exit 9 naming the proxy (no password), not the service; retried', async () => {
    const dead = createServer();
    await new Promise<void>((resolve) => dead.listen(0, '127.0.0.1', resolve));
    const port = (dead.address() as AddressInfo).port;
    await new Promise((resolve) => dead.close(resolve));
    reset();
    const proxy = `http://ops:Secr3t-Proxy@127.0.0.1:${port}`;
    const r = await reportAt(plain.url, { PRS_RETRIES: '1', HTTP_PROXY: proxy }, ['-v']);
    expect(r.code).toBe(9);
    // As for any network failure: tried again after a backoff, then given up.
    expect(r.stderr.match(/^> GET /gm)).toHaveLength(2);
    expect(r.stderr).toMatch(/^~ waiting .* \(backoff\)$/m);
    expect(r.stderr.split('\n').slice(-3)).toEqual([
      `prs: connection refused by proxy 127.0.0.1:${port}`,
      'hint: check HTTPS_PROXY / HTTP_PROXY and NO_PROXY',
      '',
    ]);
    expect(r.stderr).not.toContain('Secr3t');
    expect(plain.seen).toHaveLength(0);
  });

  it('[R-S12] a proxy without a scheme (host:port, user:password@host:port) is taken as http://', async () => {
    const bare = proxied.url.replace('http://', '');
    for (const [name, value, server] of [
      ['HTTP_PROXY', bare, plain],
      ['http_proxy', `ops:Secr3t-Proxy@${bare}`, plain],
      ['HTTPS_PROXY', bare, secure],
    ] as const) {
      reset();
      const r = await reportAt(server.url, { [name]: value, NODE_EXTRA_CA_CERTS: tls.caFile });
      expect([r.code, r.stderr]).toEqual([0, '']);
      expect(JSON.parse(r.stdout)).toEqual(okRows);
      expect(proxied.connects).toEqual([server.url.replace(/^https?:\/\//, '')]);
      expect(server.seen).toHaveLength(1);
    }
  });

  it('[R-S13] a proxy refusing the tunnel: exit 9, 407 names the login (not retried), 502 the service (retried)', async () => {
    // A real proxy that wants a login, and one that cannot reach the service (as a proxy answers then).
    const login = `Basic ${Buffer.from('ops:Secr3t-Proxy').toString('base64')}`;
    const guarded = createProxy(createServer());
    guarded.authenticate = (req) => req.headers['proxy-authorization'] === login;
    const cut = createServer().on('connect', (_req, socket) =>
      socket.end('HTTP/1.1 502 Bad Gateway\r\n\r\n'),
    );
    const at = async (server: ReturnType<typeof createServer>) => {
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      return `127.0.0.1:${(server.address() as AddressInfo).port}`;
    };
    const [guardedAt, cutAt] = [await at(guarded), await at(cut)];
    const run = (proxy: string) => reportAt(plain.url, { PRS_RETRIES: '1', HTTP_PROXY: proxy }, ['-v']);
    try {
      reset();
      for (const [proxy, hint] of [
        [`http://${guardedAt}`, 'hint: put user:password in the proxy URL: http://user:password@host:port'],
        [`http://ops:wrong-Pass@${guardedAt}`, 'hint: the proxy refused the user:password in the proxy URL'],
      ]) {
        const r = await run(proxy!);
        expect(r.code, r.stderr).toBe(9);
        // A login does not change by waiting: one attempt.
        expect(r.stderr.match(/^> GET /gm)).toHaveLength(1);
        expect(r.stderr.split('\n').slice(-3)).toEqual([
          `prs: proxy ${guardedAt} refused the tunnel: 407 Proxy Authentication Required`,
          hint,
          '',
        ]);
        expect(r.stderr).not.toContain('wrong-Pass');
      }
      expect(plain.seen).toHaveLength(0);
      const ok = await run(`ops:Secr3t-Proxy@${guardedAt}`);
      expect([ok.code, JSON.parse(ok.stdout)]).toEqual([0, okRows]);

      const r = await run(`http://${cutAt}`);
      expect(r.code, r.stderr).toBe(9);
      // As when the service refuses a connection: tried again after a backoff, then given up.
      expect(r.stderr.match(/^> GET /gm)).toHaveLength(2);
      expect(r.stderr).toMatch(/^~ waiting .* \(backoff\)$/m);
      expect(r.stderr.split('\n').slice(-3)).toEqual([
        `prs: proxy ${cutAt} refused the tunnel: 502 Bad Gateway`,
        'hint: the proxy could not reach the service: check --base-url / --auth-url, or list its host in NO_PROXY',
        '',
      ]);
    } finally {
      for (const server of [guarded, cut]) {
        server.closeAllConnections();
        await new Promise((resolve) => server.close(resolve));
      }
    }
  });

  /** An https:// proxy with a certificate of its own (its CA in `certs.caFile`), and the CONNECTs it saw. */
  const startHttpsProxy = async (name: string, address: string) => {
    const dir = join(tmp.path, name);
    mkdirSync(dir, { recursive: true });
    const certs = makeCertificates(dir);
    const server = createProxy(createHttpsServer({ key: certs.key, cert: certs.cert }));
    const connects: string[] = [];
    server.on('connect', (req) => connects.push(req.url ?? ''));
    const failed = await new Promise<Error | undefined>((resolve) =>
      server.once('error', resolve).listen(0, address, () => resolve(undefined)),
    );
    return {
      certs,
      connects,
      failed,
      port: () => (server.address() as AddressInfo).port,
      async close() {
        server.closeAllConnections();
        await new Promise((resolve) => server.close(resolve));
      },
    };
  };

  // An https:// proxy named by an IP: no DEP0123 (no IP sent as the TLS server name), its certificate still
  // checked. IPv6's brackets stay in undici's hostname and must go before the IP check. Skipped, saying why,
  // where the machine cannot listen on the address.
  const httpsProxyByIp =
    (id: string, address: string, host: string, named: string) => async (ctx: { skip: () => void }) => {
      const { certs, connects, failed, port, close } = await startHttpsProxy(`https-proxy-${id}`, address);
      if (failed) {
        console.warn(`${id} skipped: this machine cannot listen on ${address} (${failed.message})`);
        return ctx.skip();
      }
      try {
        reset();
        const proxy = `https://${host}:${port()}`;
        const r = await reportAt(plain.url, { HTTP_PROXY: proxy, NODE_EXTRA_CA_CERTS: certs.caFile });
        // Node's warning: a TLS server name set to an IP (RFC 6066).
        expect(r.stderr).not.toContain('DEP0123');
        expect([r.code, r.stderr]).toEqual([0, '']);
        expect(JSON.parse(r.stdout)).toEqual(okRows);
        expect(connects).toEqual([plain.url.replace('http://', '')]);
        // Without the CA the proxy's certificate is refused: verification did not go with the name.
        const untrusted = await reportAt(plain.url, { HTTP_PROXY: proxy });
        expectCleanFailure(
          untrusted,
          9,
          new RegExp(`^prs: TLS certificate of proxy ${named}:\\d+ not trusted \\(`),
        );
        expect(plain.seen).toHaveLength(1);
      } finally {
        await close();
      }
    };

  it(
    '[R-S14] an https:// proxy named by its IP: tunnelled, no DEP0123 warning on stderr; its certificate still checked (else exit 9)',
    httpsProxyByIp('R-S14', '127.0.0.1', '127.0.0.1', '127\\.0\\.0\\.1'),
  );

  it(
    '[R-S17] an https:// proxy named by an IPv6 address ([::1]): tunnelled, no DEP0123 warning; its certificate still checked (else exit 9)',
    httpsProxyByIp('R-S17', '::1', '[::1]', '\\[::1\\]'),
  );

  it('[R-S15] a malformed HTTP_PROXY beside a good HTTPS_PROXY: exit 2, and the failure pinged directly, not through the proxy refused', async () => {
    reset();
    // The variable prs refused, left in the environment: the proxy agent must not read it back.
    const r = await reportAt(plain.url, {
      HTTPS_PROXY: proxied.url,
      HTTP_PROXY: `${proxied.url}/path`,
      PRS_PING_URL: `${plain.url}/ping/5f2c`,
    });
    expectCleanFailure(
      r,
      2,
      /^prs: invalid proxy URL "http:\/\/127\.0\.0\.1:\d+\/path": .* \(from HTTP_PROXY\)$/,
    );
    expect(plain.seen.map((s) => s.url)).toEqual(['/ping/5f2c/start', '/ping/5f2c/2']);
    expect(proxied.connects.length + proxied.requests.length).toBe(0);
  });

  it('[R-S16] a SOCKS5 proxy (with or without a login): HTTP and HTTPS through it, nothing on stderr; a login refused or missing, or the proxy down: exit 9 saying so', async () => {
    const [open, guarded] = [await startSocks5(), await startSocks5('ops:Secr3t-Socks')];
    try {
      reset();
      // By name: the proxy resolves it, and it is the TLS server name (an IP is none, and Node warns).
      const named = secure.url.replace('127.0.0.1', 'localhost');
      for (const [proxy, server, url] of [
        [{ HTTP_PROXY: open.url }, plain, plain.url],
        [
          { HTTPS_PROXY: open.url.replace('socks5:', 'socks:'), NODE_EXTRA_CA_CERTS: tls.caFile },
          secure,
          named,
        ],
        // By its IP: Node's DEP0123 (an IP as the TLS server name, which undici's SOCKS5 sends) kept off stderr.
        [{ HTTPS_PROXY: open.url, NODE_EXTRA_CA_CERTS: tls.caFile }, secure, secure.url],
        [{ HTTP_PROXY: guarded.url.replace('//', '//ops:Secr3t-Socks@') }, plain, plain.url],
      ] as const) {
        const r = await reportAt(url, proxy);
        // Node's ExperimentalWarning for undici's SOCKS5 would be two lines here.
        expect([r.code, r.stderr]).toEqual([0, '']);
        expect(JSON.parse(r.stdout)).toEqual(okRows);
        expect(server.seen).toHaveLength(1);
        reset();
      }
      expect(open.connects).toEqual([plain.url, named, secure.url].map((u) => u.replace(/^https?:\/\//, '')));
      expect([guarded.connects, guarded.logins]).toEqual([
        [plain.url.replace('http://', '')],
        ['ops:Secr3t-Socks'],
      ]);
      // A login refused, or none given to a proxy that wants one: exit 9, said as the proxy's answer.
      for (const [proxy, stderr] of [
        [
          guarded.url.replace('//', '//ops:wrong@'),
          'prs: the SOCKS proxy refused the login in its URL\nhint: check user:password in HTTPS_PROXY / HTTP_PROXY\n',
        ],
        [
          guarded.url,
          'prs: the SOCKS proxy wants a login\nhint: put user:password in the proxy URL: socks5://user:password@host:port\n',
        ],
      ]) {
        const r = await reportAt(plain.url, { HTTP_PROXY: proxy });
        expect([r.code, r.stderr]).toEqual([9, stderr]);
      }
      expect(guarded.logins).toEqual(['ops:Secr3t-Socks', 'ops:wrong']);
      expect(plain.seen).toHaveLength(0);
      const port = Number(guarded.url.split(':').pop());
      await guarded.close();
      const down = await reportAt(plain.url, { HTTP_PROXY: `socks5://ops:Secr3t-Socks@127.0.0.1:${port}` });
      expect([down.code, down.stderr]).toEqual([
        9,
        `prs: connection refused by proxy 127.0.0.1:${port}\nhint: check HTTPS_PROXY / HTTP_PROXY and NO_PROXY\n`,
      ]);
      expect(plain.seen).toHaveLength(0);
    } finally {
      await Promise.all([open.close(), guarded.close()]);
    }
  });

  it('[R-S18] a SOCKS5 proxy beside an https:// proxy, in either variable: each carries the requests of its scheme, exit 0; the certificate of the https:// proxy still checked (else exit 9)', async () => {
    const proxy = await startHttpsProxy('https-proxy-beside-socks', '127.0.0.1');
    expect(proxy.failed).toBeUndefined();
    const { certs, connects: tunnels } = proxy;
    // The https:// proxy's CA and the service's, for a run that meets both.
    const both = join(tmp.path, 'https-proxy-beside-socks', 'both-ca.pem');
    writeFileSync(both, readFileSync(certs.caFile, 'utf8') + readFileSync(tls.caFile, 'utf8'));
    const httpsProxy = `https://localhost:${proxy.port()}`;
    const socks = await startSocks5();
    const named = secure.url.replace('127.0.0.1', 'localhost');
    // Before, both proxies got the https:// proxy's TLS options, and the SOCKS proxy was spoken TLS to: a
    // hang until --timeout.
    const run = (url: string, env: Record<string, string>) => reportAt(url, { PRS_TIMEOUT: '5', ...env });
    try {
      reset();
      const one = { HTTP_PROXY: httpsProxy, HTTPS_PROXY: socks.url };
      const other = { HTTP_PROXY: socks.url, HTTPS_PROXY: httpsProxy };
      for (const [env, url, ca] of [
        [one, plain.url, certs.caFile],
        [one, named, tls.caFile],
        [other, plain.url, certs.caFile],
        [other, named, both],
      ] as const) {
        const r = await run(url, { ...env, NODE_EXTRA_CA_CERTS: ca });
        expect([r.code, r.stderr]).toEqual([0, '']);
        expect(JSON.parse(r.stdout)).toEqual(okRows);
      }
      const [http, https] = [plain.url, named].map((u) => u.replace(/^https?:\/\//, ''));
      expect({ tunnels, socks: socks.connects }).toEqual({ tunnels: [http, https], socks: [https, http] });
      expect([plain.seen.length, secure.seen.length]).toEqual([2, 2]);
      // Without its CA the https:// proxy's certificate is refused: verification stays with prs's connector.
      const untrusted = await run(plain.url, one);
      expectCleanFailure(untrusted, 9, /^prs: TLS certificate of proxy localhost:\d+ not trusted \(/);
      expect(plain.seen).toHaveLength(2);
    } finally {
      await proxy.close();
      await socks.close();
    }
  });
});

describe('redirects', () => {
  it('[R-S09] a redirect to another host is not followed: the token never leaves for it, exit 8', async () => {
    reset();
    const elsewhere = await startCountingServer();
    const redirector = await startFaultServer();
    try {
      redirector.respond({ status: 302, headers: { location: `${elsewhere.url}/steal` } });
      const r = await reportAt(redirector.url);
      expectCleanFailure(r, 8, /^prs: unexpected answer from the service: 302 Found$/);
      expect(redirector.requests).toHaveLength(1);
      expect(elsewhere.seen).toEqual([]);
    } finally {
      await elsewhere.close();
      await redirector.close();
    }
  });
});
