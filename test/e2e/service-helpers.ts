/** Helpers for the adapter's end-to-end tests: bundle the fixture runner once, spawn it as a real process. */
import { spawn } from 'node:child_process';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer, Server as HttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { createProxy } from 'proxy';
import { afterAll, beforeAll } from 'vitest';
import { makeCertificates } from '../helpers/certs.js';
import { baseEnv, collect, type RunResult } from '../helpers/run.js';
import { later } from '../helpers/session.js';

const FIXTURE = fileURLToPath(new URL('./fixtures/service-run.ts', import.meta.url));

/** Bundles the fixture runner into `dir`; returns the .mjs path. */
export async function buildRunner(dir: string): Promise<string> {
  const outfile = join(dir, 'service-run.mjs');
  await build({
    entryPoints: [FIXTURE],
    outfile,
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20.19',
    logLevel: 'error',
    // CommonJS dependencies call require(); give the ESM bundle a real one (as scripts/build.mjs does).
    banner: {
      js: "import { createRequire as __r } from 'node:module'; const require = __r(import.meta.url);",
    },
  });
  return outfile;
}

export interface Runner {
  /** Resolves with the result when the process exits. */
  done: Promise<RunResult>;
  /** Resolves when the runner printed `ready` (with --wait-go). */
  ready: Promise<void>;
  go(): void;
}

export function spawnRunner(script: string, args: string[], env: Record<string, string | undefined>): Runner {
  const child = spawn(process.execPath, [script, ...args], {
    env: baseEnv(env),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let markReady: () => void = () => {};
  const ready = new Promise<void>((resolve) => {
    markReady = resolve;
  });
  const { done } = collect(child, 25_000, (out) => {
    if (Buffer.concat(out).toString().startsWith('ready\n')) markReady();
  });
  if (!args.includes('--wait-go')) child.stdin.end();
  return { done, ready, go: () => child.stdin.end('go\n') };
}

/** A report service stand-in that enforces a strict sliding window and records every arrival. */
export interface CountingServer {
  url: string;
  arrivals: number[];
  /** Answers that were 429. */
  rejected: number;
  /** Every request's URL and the headers the adapter must send. */
  seen: { url: string; auth?: string; tenant?: string }[];
  close(): Promise<void>;
}

export async function startCountingServer(
  o: { limit?: number; windowMs?: number; server?: Server | HttpsServer } = {},
): Promise<CountingServer> {
  const limit = o.limit ?? Number.POSITIVE_INFINITY;
  const windowMs = o.windowMs ?? 1000;
  const state: CountingServer = {
    url: '',
    arrivals: [],
    rejected: 0,
    seen: [],
    close: async () => {},
  };
  const handler = (req: IncomingMessage, res: ServerResponse) => {
    const now = Date.now();
    state.seen.push({
      url: req.url ?? '',
      auth: req.headers.authorization,
      tenant: req.headers['x-client-id'] as string | undefined,
    });
    const inWindow = state.arrivals.filter((t) => t > now - windowMs).length;
    if (inWindow >= limit) {
      state.rejected++;
      res.writeHead(429, { 'content-type': 'application/json' }).end('{"message":"Too Many Requests"}');
      return;
    }
    state.arrivals.push(now);
    res
      .writeHead(200, { 'content-type': 'application/json' })
      .end('{"report":[{"effectiveDate":"2024-05-02","indexValue":1302.917413}]}');
  };
  const server = o.server ?? createServer();
  server.on('request', handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  state.url = `${server instanceof HttpsServer ? 'https' : 'http'}://127.0.0.1:${port}`;
  state.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections?.();
      server.close(() => resolve());
    });
  return state;
}

/** A real HTTP proxy (npm `proxy`) on loopback that records what went through it. */
interface RecordingProxy {
  url: string;
  /** Targets of CONNECT tunnels (`host:port`). */
  connects: string[];
  /** URLs of plain proxied requests. */
  requests: string[];
  clear(): void;
  close(): Promise<void>;
}

async function startRecordingProxy(): Promise<RecordingProxy> {
  const server = createProxy(createServer());
  const connects: string[] = [];
  const requests: string[] = [];
  server.on('connect', (req) => connects.push(req.url ?? ''));
  server.on('request', (req) => requests.push(req.url ?? ''));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    connects,
    requests,
    clear() {
      connects.length = 0;
      requests.length = 0;
    },
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/**
 * For this file: a plain and an HTTPS counting server (certificates of a self-signed CA written to
 * `tmp`) and a recording proxy, started before its tests and closed after them.
 */
export function useNetwork(tmp: { readonly path: string }) {
  let net:
    | { plain: CountingServer; secure: CountingServer; proxied: RecordingProxy; tls: { caFile: string } }
    | undefined;
  beforeAll(async () => {
    const tls = makeCertificates(tmp.path);
    const plain = await startCountingServer();
    const secure = await startCountingServer({ server: createHttpsServer({ key: tls.key, cert: tls.cert }) });
    net = { plain, secure, proxied: await startRecordingProxy(), tls };
  });
  afterAll(async () => {
    await net?.plain.close();
    await net?.secure.close();
    await net?.proxied.close();
    net = undefined;
  });
  const part = <K extends keyof NonNullable<typeof net>>(k: K) =>
    later(() => net?.[k], 'the network servers');
  return {
    plain: part('plain'),
    secure: part('secure'),
    proxied: part('proxied'),
    tls: part('tls'),
    /** Forgets what the servers and the proxy saw. */
    reset() {
      net?.proxied.clear();
      if (net) net.plain.seen.length = net.secure.seen.length = 0;
    },
  };
}
