/**
 * `prs sandbox`: a local stand-in for the Portfolio Report Service and its Keycloak token endpoint.
 * Tests and scripts start it in-process with startSandbox(). The parts: options.ts (defaults, login
 * arguments), routes.ts (the endpoints), portfolios.ts and friends (the data), controls.ts (`stats`,
 * `injectFault`), limiter.ts (the JSON endpoint's sliding window).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type SandboxServiceClient, type SandboxUser, TokenIssuer } from './auth.js';
import { createFaults, createStats, type Fault, type SandboxStats } from './controls.js';
import { SlidingWindow } from './limiter.js';
import { resolveOptions, type SandboxOptions } from './options.js';
import { createCatalog } from './portfolios.js';
import { createRoutes } from './routes.js';

export type { SandboxServiceClient, SandboxUser } from './auth.js';
export type { Endpoint, Fault, RequestRecord, SandboxStats } from './controls.js';
export { loginArgs, SANDBOX_DEFAULTS, type SandboxOptions, serviceLoginArgs } from './options.js';
export {
  BIG_PORTFOLIO_ID,
  BROKEN_PORTFOLIO_ID,
  EMPTY_PORTFOLIO_ID,
  EXAMPLE_PORTFOLIO_ID,
  LARGE_PORTFOLIO_ID,
  PRECISION_PORTFOLIO_ID,
} from './portfolios.js';
export { REBALANCE_PORTFOLIO_ID } from './rebalance.js';
export { parseQuery } from './routes.js';

export interface Sandbox {
  /** Base URL, the part before /api/v1. */
  url: string;
  /** Auth URL, the part before /realms. */
  authUrl: string;
  realm: string;
  clientId: string;
  clientSecret: string;
  users: readonly SandboxUser[];
  /** Service-account clients (client_credentials only), each bound to a tenant. */
  serviceClients: readonly SandboxServiceClient[];
  port: number;
  stats: SandboxStats;
  /** Makes every access token issued so far answer 401 (with `refresh`, refresh tokens too). */
  revokeTokens(opts?: { refresh?: boolean }): void;
  injectFault(fault: Fault): void;
  close(): Promise<void>;
}

const urlHost = (host: string) =>
  host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '[::1]' : host.includes(':') ? `[${host}]` : host;

export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  const o = resolveOptions(options);
  const stats = createStats();
  const faults = createFaults();
  // The issuer (iss claim) needs the URL, known only once listening; tokens are checked against it.
  let issuer: TokenIssuer | undefined;
  const server = createServer(
    createRoutes({
      o,
      catalog: createCatalog({ bigExportRows: o.bigExportRows }),
      limiter: new SlidingWindow(o.rateLimit.limit, o.rateLimit.windowMs),
      stats,
      faults,
      issuer: () => issuer!,
    }),
  );

  if (o.keepAliveMs !== undefined) server.keepAliveTimeout = o.keepAliveMs;
  const info = await new Promise<AddressInfo>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port, o.host, () => {
      server.off('error', reject);
      resolve(server.address() as AddressInfo);
    });
  });
  const url = `http://${urlHost(o.host)}:${info.port}`;
  issuer = new TokenIssuer({
    issuer: `${url}/realms/${o.realm}`,
    clientId: o.clientId,
    clientSecret: o.clientSecret,
    users: o.users,
    serviceClients: o.serviceClients,
    tokenTtl: o.tokenTtl,
    refreshTtl: o.refreshTtl,
    now: o.now,
  });

  return {
    url,
    authUrl: url,
    realm: o.realm,
    clientId: o.clientId,
    clientSecret: o.clientSecret,
    users: o.users,
    serviceClients: o.serviceClients,
    port: info.port,
    stats,
    revokeTokens: (opts) => issuer!.revoke(opts),
    injectFault: (f: Fault) => faults.push(f),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
