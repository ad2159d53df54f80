import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Fault } from './controls.js';
import { resolveOptions, type SandboxOptions } from './options.js';
import { createRoutes } from './routes.js';

export { loginArgs, type SandboxOptions } from './options.js';

export type Sandbox = Awaited<ReturnType<typeof startSandbox>>;

const urlHost = (host: string) =>
  host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '[::1]' : host.includes(':') ? `[${host}]` : host;

export async function startSandbox(options: SandboxOptions = {}) {
  const o = resolveOptions(options);
  const { listener, stats, faults, issuer } = createRoutes(o);
  const server = createServer(listener);
  // Longer than a client's idle timeout (prs: 10 s): no connection is reused just as the server closes it.
  server.keepAliveTimeout = 60_000;
  await once(server.listen(o.port, o.host), 'listening');
  const port = (server.address() as AddressInfo).port;
  const url = `http://${urlHost(o.host)}:${port}`;
  return {
    ...o,
    url,
    authUrl: url,
    port,
    stats,
    revokeTokens: (opts?: { refresh?: boolean }) => issuer.revoke(opts),
    injectFault: (f: Fault) => faults.push(f),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
