/**
 * `prs sandbox`: a local stand-in for the Portfolio Report Service and its Keycloak token endpoint,
 * faithful to the spec (§4, §5, §7, §8). Tests and scripts start it in-process with startSandbox().
 *
 * Report endpoints check, in this order: 401 (bearer) → 403 (X-CLIENT-ID) → 400 (id, reportType, date,
 * format) → 404 (portfolio) → 429 (JSON endpoint only) → 200. Error bodies are small Spring-style JSON.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { REPORT_TYPES, type ReportType } from '../input.js';
import { parseRateLimit } from '../settings.js';
import { type SandboxUser, TokenIssuer } from './auth.js';
import { csvChunks, jsonChunks, peek, zipChunks } from './body.js';
import { effectiveDateFor, isIsoDate } from './calendar.js';
import { contentDisposition, exportFileName, retryAfterSeconds, SlidingWindow } from './naming.js';
import { BIG_PORTFOLIO_ID, createCatalog, type Portfolio } from './portfolios.js';

export type { SandboxUser } from './auth.js';
export {
  BIG_PORTFOLIO_ID,
  BROKEN_PORTFOLIO_ID,
  EMPTY_PORTFOLIO_ID,
  EXAMPLE_PORTFOLIO_ID,
  LARGE_PORTFOLIO_ID,
  PRECISION_PORTFOLIO_ID,
} from './portfolios.js';

/**
 * The `prs login` arguments that sign `user` in to a sandbox: the password goes on stdin and the
 * client secret in PRS_CLIENT_SECRET, never on argv. The banner, the demo, the benchmark and the
 * tests all use this one list.
 */
export function loginArgs(
  s: { url: string; authUrl: string; realm: string; clientId: string },
  user: { username: string; tenant: string },
): string[] {
  return [
    'login',
    '--auth-url',
    s.authUrl,
    '--realm',
    s.realm,
    '--client-id',
    s.clientId,
    '--username',
    user.username,
    '--tenant',
    user.tenant,
    '--base-url',
    s.url,
    '--password-stdin',
  ];
}

export const SANDBOX_DEFAULTS = {
  host: '127.0.0.1',
  realm: 'prs-sandbox',
  clientId: 'prs-cli',
  clientSecret: 'sandbox-secret',
  rateLimit: '4/60s',
  tokenTtl: 300,
  refreshTtl: 1800,
  users: [
    { username: 'demo', password: 'demo', tenant: 'demo-tenant' },
    { username: 'other', password: 'other', tenant: 'other-tenant' },
  ] as readonly SandboxUser[],
} as const;

export interface SandboxOptions {
  /** 0 (the default) picks a free port. */
  port?: number;
  host?: string;
  /** The JSON endpoint's limit per user, e.g. "4/60s" (sliding window). The export endpoint has none. */
  rateLimit?: string;
  /** Access token lifetime, seconds. */
  tokenTtl?: number;
  /** Refresh token lifetime, seconds. */
  refreshTtl?: number;
  realm?: string;
  clientId?: string;
  clientSecret?: string;
  users?: readonly SandboxUser[];
  /** Constituent rows of portfolio 900 (default 1000); streamed, so any size works. */
  bigExportRows?: number;
  /** Milliseconds added before each export answer (default 0): parallel-export benchmarks, interrupt tests. */
  exportDelayMs?: number;
  /** Milliseconds since the epoch; tests pass a fake one to expire tokens and slide the window. */
  clock?: () => number;
  /** One line per request (method, path, status, user); never tokens or passwords. */
  log?: (line: string) => void;
}

export type Endpoint = 'token' | 'report' | 'export' | 'other';

export interface RequestRecord {
  endpoint: Endpoint;
  method: string;
  /** Path and query (no secrets travel there). */
  path: string;
  status: number;
  user?: string;
  /** The X-CLIENT-ID header as received. */
  clientIdHeader?: string;
  /** Body bytes written so far (grows while a big body streams; tests use it to see backpressure). */
  bytes: number;
  /** When the request arrived (the sandbox clock, ms since the epoch). */
  at: number;
}

export interface SandboxStats {
  /** Requests answered, optionally only those matching every given property. */
  count(filter?: { endpoint?: Endpoint; status?: number; user?: string }): number;
  /** The latest requests (at most 10,000), oldest first. */
  readonly requests: readonly RequestRecord[];
  reset(): void;
}

/** A one-shot misbehaviour for tests of retries, timeouts and corrupt bodies. */
export interface Fault {
  /** Which endpoint it hits (default: report and export). */
  endpoint?: Endpoint;
  /** Answer this status (with a Spring-style body) instead of the real answer. */
  status?: number;
  /** With `status`: send this Retry-After (seconds). */
  retryAfter?: number;
  /** Wait this long before answering. */
  delayMs?: number;
  /** Send the headers and part of the body, then drop the connection. */
  truncate?: boolean;
  /** How many requests it affects (default 1). */
  count?: number;
}

export interface Sandbox {
  /** Base URL, the part before /api/v1. */
  url: string;
  /** Auth URL, the part before /realms. */
  authUrl: string;
  realm: string;
  clientId: string;
  clientSecret: string;
  users: readonly SandboxUser[];
  port: number;
  stats: SandboxStats;
  /** Makes every access token issued so far answer 401 (with `refresh`, refresh tokens too). */
  revokeTokens(opts?: { refresh?: boolean }): void;
  injectFault(fault: Fault): void;
  close(): Promise<void>;
}

const API_PREFIX = '/api/v1/report-service/report/generate/portfolio/';
const MAX_FORM_BYTES = 64 * 1024;
const STATUS_TEXT: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  413: 'Payload Too Large',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
};

/** Checks options; throws Error with a one-line message for bad values. */
function resolveOptions(o: SandboxOptions) {
  const positiveInt = (name: string, v: number) => {
    if (!Number.isInteger(v) || v < 1) throw new Error(`invalid ${name} ${v}: expected a whole number ≥ 1`);
    return v;
  };
  const port = o.port ?? 0;
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`invalid port ${port}`);
  const big = o.bigExportRows;
  if (big !== undefined && (!Number.isInteger(big) || big < 0))
    throw new Error(`invalid bigExportRows ${big}: expected a whole number ≥ 0`);
  const users = o.users ?? SANDBOX_DEFAULTS.users;
  if (users.length === 0) throw new Error('the sandbox needs at least one user');
  return {
    port,
    host: o.host ?? SANDBOX_DEFAULTS.host,
    rateLimit: parseRateLimit(o.rateLimit ?? SANDBOX_DEFAULTS.rateLimit),
    tokenTtl: positiveInt('tokenTtl', o.tokenTtl ?? SANDBOX_DEFAULTS.tokenTtl),
    refreshTtl: positiveInt('refreshTtl', o.refreshTtl ?? SANDBOX_DEFAULTS.refreshTtl),
    realm: o.realm ?? SANDBOX_DEFAULTS.realm,
    clientId: o.clientId ?? SANDBOX_DEFAULTS.clientId,
    clientSecret: o.clientSecret ?? SANDBOX_DEFAULTS.clientSecret,
    users,
    bigExportRows: big,
    exportDelayMs: Math.max(0, o.exportDelayMs ?? 0),
    now: o.clock ?? Date.now,
    log: o.log,
  };
}

function createStats(): SandboxStats & { record(r: RequestRecord): void } {
  let requests: RequestRecord[] = [];
  return {
    get requests() {
      return requests;
    },
    record(r) {
      requests.push(r);
      if (requests.length > 10_000) requests = requests.slice(-5_000);
    },
    count(f = {}) {
      return requests.filter(
        (r) =>
          (f.endpoint === undefined || r.endpoint === f.endpoint) &&
          (f.status === undefined || r.status === f.status) &&
          (f.user === undefined || r.user === f.user),
      ).length;
    },
    reset() {
      requests = [];
    },
  };
}

/**
 * The last `entries` JSON report bodies of at most `maxChars` each (bounded memory: a bigger body is
 * generated and streamed every time, never kept). A body is kept only once it was generated in full.
 */
function createBodyCache(entries: number, maxChars: number) {
  const map = new Map<string, Buffer>();
  return {
    get(key: string): Buffer | undefined {
      const body = map.get(key);
      if (body) {
        map.delete(key);
        map.set(key, body);
      }
      return body;
    },
    *remember(key: string, chunks: Iterable<string>): Generator<string> {
      let kept: string[] | undefined = [];
      let size = 0;
      for (const chunk of chunks) {
        size += chunk.length;
        if (size > maxChars) kept = undefined;
        kept?.push(chunk);
        yield chunk;
      }
      if (!kept) return;
      map.set(key, Buffer.from(kept.join('')));
      if (map.size > entries) map.delete(map.keys().next().value!);
    },
  };
}

const urlHost = (host: string) =>
  host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '[::1]' : host.includes(':') ? `[${host}]` : host;

export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  const o = resolveOptions(options);
  const catalog = createCatalog({ bigExportRows: o.bigExportRows });
  const limiter = new SlidingWindow(o.rateLimit.limit, o.rateLimit.windowMs);
  const stats = createStats();
  const bodies = createBodyCache(4, 16 * 1024 * 1024);
  const faults: Fault[] = [];
  // The issuer (iss claim) needs the URL, known only once listening; tokens are checked against it.
  let issuer: TokenIssuer | undefined;

  const server = createServer((req, res) => {
    arrivals.set(req, o.now());
    handle(req, res).catch((err) => {
      o.log?.(`sandbox: internal error: ${(err as Error)?.message ?? err}`);
      if (!res.headersSent) sendError(res, { endpoint: 'other', req }, 500, 'Internal error in the sandbox');
      else res.destroy();
    });
  });

  interface Ctx {
    endpoint: Endpoint;
    req: IncomingMessage;
    user?: string;
  }
  const arrivals = new WeakMap<IncomingMessage, number>();

  /** Writes the status line and headers, and records the request (before any byte leaves). */
  function head(
    res: ServerResponse,
    ctx: Ctx,
    status: number,
    headers: Record<string, string | number>,
  ): RequestRecord {
    const clientIdHeader = ctx.req.headers['x-client-id'];
    const record: RequestRecord = {
      endpoint: ctx.endpoint,
      method: ctx.req.method ?? '',
      path: ctx.req.url ?? '',
      status,
      user: ctx.user,
      clientIdHeader: typeof clientIdHeader === 'string' ? clientIdHeader : undefined,
      bytes: 0,
      at: arrivals.get(ctx.req) ?? o.now(),
    };
    stats.record(record);
    o.log?.(`${record.method} ${record.path} ${status}${ctx.user ? ` (${ctx.user})` : ''}`);
    res.writeHead(status, headers);
    return record;
  }

  function sendJson(
    res: ServerResponse,
    ctx: Ctx,
    status: number,
    body: unknown,
    extra: Record<string, string | number> = {},
  ) {
    const text = JSON.stringify(body);
    const record = head(res, ctx, status, {
      'Content-Type': 'application/json',
      'Content-Length': Buffer.byteLength(text),
      ...extra,
    });
    record.bytes = Buffer.byteLength(text);
    res.end(text);
  }

  /** Spring Boot's error body, without the timestamp (so answers stay byte-for-byte repeatable). */
  function sendError(
    res: ServerResponse,
    ctx: Ctx,
    status: number,
    message: string,
    extra: Record<string, string | number> = {},
  ) {
    const path = (ctx.req.url ?? '').split('?')[0];
    sendJson(res, ctx, status, { status, error: STATUS_TEXT[status] ?? 'Error', message, path }, extra);
  }

  function takeFault(endpoint: Endpoint): Fault | undefined {
    const i = faults.findIndex((f) =>
      f.endpoint === undefined ? endpoint === 'report' || endpoint === 'export' : f.endpoint === endpoint,
    );
    if (i < 0) return undefined;
    const f = faults[i];
    f.count = (f.count ?? 1) - 1;
    if (f.count <= 0) faults.splice(i, 1);
    return f;
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://sandbox');
    const path = url.pathname;
    const realmMatch = /^\/realms\/([^/]+)(\/.*)?$/.exec(path);
    if (realmMatch) {
      const ctx: Ctx = { endpoint: 'token', req };
      if (safeDecode(realmMatch[1]) !== o.realm) {
        return sendJson(res, ctx, 404, { error: 'Realm does not exist' });
      }
      if (realmMatch[2] !== '/protocol/openid-connect/token') {
        return sendJson(res, { ...ctx, endpoint: 'other' }, 404, {
          error: 'Unable to find matching target resource method',
        });
      }
      const fault = takeFault('token');
      if (fault?.delayMs) await sleep(fault.delayMs);
      if (fault?.status) return sendFault(res, ctx, fault);
      if (req.method !== 'POST') {
        return sendJson(res, ctx, 405, { error: 'HTTP 405 Method Not Allowed' }, { Allow: 'POST' });
      }
      const raw = await readBody(req, MAX_FORM_BYTES);
      if (raw === undefined) return sendJson(res, ctx, 413, { error: 'Request entity too large' });
      const isForm = /^application\/x-www-form-urlencoded\b/i.test(req.headers['content-type'] ?? '');
      // Keycloak reads only form fields: any other body looks like a request with no fields at all.
      const form = new URLSearchParams(isForm ? raw : '');
      ctx.user = form.get('username') ?? undefined;
      const answer = issuer!.token(form);
      return sendJson(res, ctx, answer.status, answer.body, {
        'Cache-Control': 'no-store',
        Pragma: 'no-cache',
      });
    }

    const api = path.startsWith(API_PREFIX)
      ? /^([^/]+)(\/export)?$/.exec(path.slice(API_PREFIX.length))
      : null;
    if (!api) return sendError(res, { endpoint: 'other', req }, 404, 'No endpoint at this path');
    const ctx: Ctx = { endpoint: api[2] ? 'export' : 'report', req };
    if (req.method !== 'GET') {
      return sendError(res, ctx, 405, `Request method '${req.method}' is not supported`, { Allow: 'GET' });
    }
    const fault = takeFault(ctx.endpoint);
    if (fault?.delayMs) await sleep(fault.delayMs);
    if (fault?.status) return sendFault(res, ctx, fault);

    // 401
    const bearer = issuer!.checkBearer(req.headers.authorization);
    if (!bearer.ok) {
      const challenge =
        bearer.reason === 'missing'
          ? `Bearer realm="${o.realm}"`
          : `Bearer realm="${o.realm}", error="invalid_token", error_description="${bearer.description}"`;
      return sendError(res, ctx, 401, bearer.description, { 'WWW-Authenticate': challenge });
    }
    ctx.user = bearer.claims.preferred_username;
    // 403
    const tenant = req.headers['x-client-id'];
    if (typeof tenant !== 'string' || tenant === '') {
      return sendError(res, ctx, 403, 'Missing X-CLIENT-ID header');
    }
    if (tenant !== bearer.claims.tenant) {
      return sendError(res, ctx, 403, `Access denied: user is not a member of tenant '${tenant}'`);
    }
    // 400
    const q = parseQuery(api[1], url.searchParams, ctx.endpoint === 'export');
    if ('error' in q) return sendError(res, ctx, 400, q.error);
    // 404
    const portfolio = catalog.get(q.portfolioId);
    if (!portfolio) return sendError(res, ctx, 404, `Portfolio ${q.portfolioId} not found`);
    // 429
    if (ctx.endpoint === 'report') {
      const slot = limiter.take(ctx.user, o.now());
      if (!slot.ok) {
        const seconds = retryAfterSeconds(slot.retryAfterMs);
        return sendError(
          res,
          ctx,
          429,
          `Rate limit exceeded: ${limiter.limit} requests per ${limiter.windowMs / 1000} seconds`,
          { 'Retry-After': seconds },
        );
      }
    }
    if (ctx.endpoint === 'export' && o.exportDelayMs > 0) await sleep(o.exportDelayMs);
    if (portfolio.failStatus) return sendError(res, ctx, portfolio.failStatus, 'Report generation failed');
    // 200
    return sendReport(res, ctx, portfolio, q, !!fault?.truncate);
  }

  function sendFault(res: ServerResponse, ctx: Ctx, f: Fault) {
    const extra: Record<string, string | number> =
      f.retryAfter === undefined ? {} : { 'Retry-After': f.retryAfter };
    if (ctx.endpoint === 'token') {
      return sendJson(
        res,
        ctx,
        f.status!,
        { error: 'server_error', error_description: 'Injected fault' },
        extra,
      );
    }
    return sendError(res, ctx, f.status!, 'Injected fault', extra);
  }

  async function sendReport(
    res: ServerResponse,
    ctx: Ctx,
    p: Portfolio,
    q: Query,
    truncate: boolean,
  ): Promise<void> {
    const eff = effectiveDateFor(q.date);
    const rows = eff !== undefined && eff >= p.inception ? peek(p.rows(q.reportType, eff)) : undefined;
    if (ctx.endpoint === 'report') {
      // The same request gives the same bytes: keep recent bodies, so clients are measured, not the generator.
      const key = `${p.id}|${q.reportType}|${eff}`;
      const cached = bodies.get(key);
      const chunks = cached
        ? [cached]
        : bodies.remember(key, rows ? jsonChunks(rows, '{"report":[', ']}') : ['{"report":[]}']);
      return stream(res, ctx, { 'Content-Type': 'application/json' }, chunks, truncate);
    }
    if (!rows || !eff) {
      head(res, ctx, 200, { 'Content-Length': 0 });
      res.end();
      return;
    }
    const ext = q.format === 'csv' ? 'zip' : 'json';
    const headers = {
      'Content-Type': q.format === 'csv' ? 'application/zip' : 'application/json',
      'Content-Disposition': contentDisposition(exportFileName(eff, p.name, ext)),
    };
    const chunks =
      q.format === 'csv'
        ? zipChunks(csvChunks(q.reportType, rows), {
            member: exportFileName(eff, p.name, 'csv'),
            date: eff,
            store: p.id === BIG_PORTFOLIO_ID,
          })
        : jsonChunks(rows, '[', ']');
    return stream(res, ctx, headers, chunks, truncate);
  }

  /**
   * Sends chunks: a small body (under 1 MiB) whole with Content-Length, a bigger one chunked, written
   * with backpressure so memory stays flat whatever the size.
   */
  async function stream(
    res: ServerResponse,
    ctx: Ctx,
    headers: Record<string, string | number>,
    chunks: Iterable<string | Uint8Array>,
    truncate: boolean,
  ): Promise<void> {
    const it = chunks[Symbol.iterator]();
    const first: Buffer[] = [];
    let size = 0;
    let next = it.next();
    while (!next.done && size < 1024 * 1024) {
      const b = Buffer.from(next.value);
      first.push(b);
      size += b.length;
      next = it.next();
    }
    if (next.done) {
      const body = Buffer.concat(first);
      const record = head(res, ctx, 200, { ...headers, 'Content-Length': body.length });
      if (truncate) {
        record.bytes = Math.floor(body.length / 2);
        res.write(body.subarray(0, record.bytes));
        await new Promise((r) => setImmediate(r));
        res.destroy();
        return;
      }
      record.bytes = body.length;
      res.end(body);
      return;
    }
    const record = head(res, ctx, 200, headers);
    let closed = false;
    res.on('close', () => {
      closed = true;
    });
    const send = async (chunk: string | Uint8Array) => {
      record.bytes += typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.length;
      if (!res.write(chunk)) await drained(res);
    };
    for (const b of first) await send(b);
    if (truncate) {
      await new Promise((r) => setImmediate(r));
      res.destroy();
      return;
    }
    for (; !next.done && !closed; next = it.next()) await send(next.value);
    if (!closed) res.end();
  }

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
    port: info.port,
    stats,
    revokeTokens: (opts) => issuer!.revoke(opts),
    injectFault: (f) => {
      faults.push({ ...f });
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

interface Query {
  portfolioId: number;
  reportType: ReportType;
  date: string;
  format: 'json' | 'csv';
}

/** The 400 checks, in order: portfolio id, reportType, date, format (export only). */
export function parseQuery(
  id: string,
  params: URLSearchParams,
  isExport: boolean,
): Query | { error: string } {
  const decoded = safeDecode(id);
  if (!/^[+-]?\d{1,10}$/.test(decoded) || Math.abs(Number(decoded)) > 2_147_483_647) {
    return { error: `Invalid value '${decoded}' for path variable 'portfolioId': must be an integer` };
  }
  const reportType = params.get('reportType');
  if (reportType === null) return { error: "Required request parameter 'reportType' is not present" };
  if (!(REPORT_TYPES as readonly string[]).includes(reportType)) {
    return { error: `Invalid reportType '${reportType}': expected one of ${REPORT_TYPES.join(', ')}` };
  }
  const date = params.get('date');
  if (date === null) return { error: "Required request parameter 'date' is not present" };
  if (!isIsoDate(date)) return { error: `Invalid date '${date}': expected YYYY-MM-DD` };
  const format = params.get('format') ?? 'json';
  if (isExport && format !== 'json' && format !== 'csv') {
    return { error: `Invalid format '${format}': expected json or csv` };
  }
  return {
    portfolioId: Number(decoded),
    reportType: reportType as ReportType,
    date,
    format: isExport ? (format as 'json' | 'csv') : 'json',
  };
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** The request body as text, or undefined past `limit` bytes. */
function readBody(req: IncomingMessage, limit: number): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let over = false;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > limit) over = true;
      else chunks.push(c);
    });
    req.on('end', () => resolve(over ? undefined : Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function drained(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
