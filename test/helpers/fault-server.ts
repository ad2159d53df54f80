/**
 * A misbehaving HTTP server for fault tests: each request gets the next scripted answer — a status,
 * headers, a body that may be cut off, stalled or reset, or an endless generated stream. It serves any
 * path (point PRS_BASE_URL at `url`) and records every request, so tests can assert what was sent.
 *
 *   const server = useFaultServer();
 *   server.respond({ body: '[1,2', headers: { 'content-type': 'application/json' } });
 *   // ... run prs against server.url ...
 *   expect(server.requests).toHaveLength(1);
 */
import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { later } from './session.js';

export interface FaultReply {
  /** Default 200. */
  status?: number;
  headers?: Record<string, string | number>;
  /** The body: bytes, text, or chunks produced on demand (any size; written with backpressure). */
  body?: string | Uint8Array | (() => Iterable<Uint8Array | string> | AsyncIterable<Uint8Array | string>);
  /**
   * Content-Length to declare. Default: the body's length for bytes/text, none (chunked) for a
   * generated body. A number larger than what is sent makes a truncated response.
   */
  contentLength?: number | 'none';
  /** Send only the first N bytes of the body, then destroy the socket (a body cut mid-stream). */
  cutAfter?: number;
  /** After N bytes of the body, send nothing more and keep the connection open (a stalled server). */
  stallAfter?: number;
  /** Destroy the connection before any response. */
  reset?: boolean;
  /** Wait this long before sending the headers. */
  delayMs?: number;
}

interface FaultRequest {
  method: string;
  /** Path and query. */
  url: string;
  headers: IncomingHttpHeaders;
}

interface FaultServer {
  /** http://127.0.0.1:<port> */
  url: string;
  requests: FaultRequest[];
  /**
   * Scripts the answers: one per request, in order; the last one repeats. A function decides per
   * request instead.
   */
  respond(...replies: (FaultReply | ((req: FaultRequest, n: number) => FaultReply))[]): void;
  close(): Promise<void>;
}

/**
 * This file's (or describe block's) fault server: started before its tests, closed after them; each
 * test starts with no requests recorded.
 */
export function useFaultServer(): FaultServer {
  let server: FaultServer | undefined;
  beforeAll(async () => {
    server = await startFaultServer();
  });
  afterAll(async () => {
    await server?.close();
    server = undefined;
  });
  beforeEach(() => {
    if (server) server.requests.length = 0;
  });
  return later(() => server, 'the fault server');
}

export async function startFaultServer(): Promise<FaultServer> {
  let script: (FaultReply | ((req: FaultRequest, n: number) => FaultReply))[] = [{ status: 404 }];
  const requests: FaultRequest[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((req, res) => {
    const r: FaultRequest = { method: req.method ?? 'GET', url: req.url ?? '/', headers: req.headers };
    requests.push(r);
    const n = requests.length - 1;
    const step = script[Math.min(n, script.length - 1)];
    const reply = typeof step === 'function' ? step(r, n) : step;
    req.resume();
    answer(res, reply).catch(() => res.destroy());
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    respond(...replies) {
      script = replies.length ? replies : [{ status: 404 }];
    },
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

async function answer(res: ServerResponse, r: FaultReply): Promise<void> {
  if (r.delayMs) await new Promise((resolve) => setTimeout(resolve, r.delayMs));
  if (r.reset) {
    res.socket?.destroy();
    return;
  }
  const fixed = typeof r.body === 'function' ? undefined : Buffer.from(r.body ?? '');
  const headers: Record<string, string | number> = { ...r.headers };
  const length = r.contentLength ?? (fixed ? fixed.length : 'none');
  if (length !== 'none') headers['content-length'] = length;
  res.writeHead(r.status ?? 200, headers);
  let sent = 0;
  const limit = r.cutAfter ?? r.stallAfter;
  const chunks: Iterable<Uint8Array | string> | AsyncIterable<Uint8Array | string> =
    fixed !== undefined ? [fixed] : (r.body as () => Iterable<Uint8Array>)();
  for await (const c of chunks) {
    let chunk = Buffer.from(c);
    if (limit !== undefined && sent + chunk.length > limit) chunk = chunk.subarray(0, limit - sent);
    sent += chunk.length;
    if (chunk.length && !res.write(chunk)) await once(res, 'drain');
    if (res.destroyed) return;
    if (limit !== undefined && sent >= limit) break;
  }
  if (r.cutAfter !== undefined) {
    // Let the bytes leave before the connection drops, so the client sees a body cut mid-stream.
    await new Promise((resolve) => setTimeout(resolve, 20));
    res.socket?.destroy();
    return;
  }
  if (r.stallAfter !== undefined) return; // never ends; close() destroys the socket
  res.end();
}

/**
 * A valid JSON array of about `bytes` bytes (at least 2), produced in ~64 KB chunks so that any size
 * streams in flat memory: for tests of big exports. Rows look like the service's index rows; one block
 * of rows is built once and repeated, so even 200 MB costs little CPU.
 */
export function* jsonArrayOfSize(bytes: number, indexName = 'Example 600 OG EUR'): Generator<Buffer> {
  const row = (i: number) =>
    JSON.stringify({
      effectiveDate: '2024-05-01',
      indexId: `a3f1c2d4-5b6e-4f70-8a91-${String(i).padStart(12, '0')}`,
      indexName,
      indexValue: 1302.917413 + i,
      currency: 'EUR',
      closeMarketValue: 13029174,
      openMarketValue: 13029174,
    });
  const first = Buffer.from(`[${row(0)}`);
  const parts: string[] = [];
  for (let i = 1, size = 0; size < 64 * 1024; i++) {
    const r = `,${row(i)}`;
    parts.push(r);
    size += r.length;
  }
  const block = Buffer.from(parts.join(''));
  yield first;
  let sent = first.length + 1;
  while (sent + block.length <= bytes) {
    yield block;
    sent += block.length;
  }
  yield Buffer.from(']');
}

/**
 * A valid zip holding one CSV member of about `bytes` bytes, deflated as it streams (fflate's
 * streaming Zip: sizes and CRC in a data descriptor), in flat memory: for tests of big CSV exports.
 */
export async function* zipOfSize(
  bytes: number,
  member = 'export.csv',
  level: 0 | 1 | 6 = 1,
): AsyncGenerator<Uint8Array> {
  const { Zip, ZipDeflate, ZipPassThrough } = await import('fflate');
  const out: Uint8Array[] = [];
  const zip = new Zip((err, chunk) => {
    if (err) throw err;
    out.push(chunk);
  });
  const entry = level === 0 ? new ZipPassThrough(member) : new ZipDeflate(member, { level });
  zip.add(entry);
  const lines: string[] = [
    'Effective Date,ISIN,Security Name,Security Ticker,Exchange Code,Closing Price,Currency,Closing Fx,Index Shares,Index Weighting\n',
  ];
  for (let i = 0; lines.join('').length < 64 * 1024; i++) {
    lines.push(
      `2024-05-01,CH${String(102878927 + i).padStart(10, '0')},STOXX EXAMPLE ${i} OIL & GAS GROSS EUR,SXEGR${i} Index,,${(242.76633 + i).toFixed(5)},EUR,1,${13417.402222 + i},0.25\n`,
    );
  }
  const block = Buffer.from(lines.join(''));
  for (let sent = 0; sent < bytes; sent += block.length) {
    entry.push(block, sent + block.length >= bytes);
    yield* out.splice(0);
  }
  zip.end();
  yield* out.splice(0);
}

/**
 * A body that drips: one byte of `text` every `everyMs`, for the slow-body tests (`--timeout` bounds a
 * body that does not advance by 1 kB within it). Use as `server.respond({ body: drip(rows, 200) })`.
 */
export function drip(text: string, everyMs: number): () => AsyncIterable<Uint8Array> {
  return async function* () {
    for (const byte of Buffer.from(text)) {
      yield Uint8Array.of(byte);
      await new Promise((resolve) => setTimeout(resolve, everyMs));
    }
  };
}
