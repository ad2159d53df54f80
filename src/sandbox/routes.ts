/**
 * The sandbox's routes: the Keycloak token endpoint and the two report endpoints, faithful to the
 * spec (§4, §5, §7, §8). Report endpoints check, in this order: 401 (bearer) → 403 (X-CLIENT-ID) → 400
 * (id, reportType, date, format) → 404 (portfolio) → 429 (JSON endpoint only) → 200. Error bodies are
 * small Spring-style JSON.
 */
import { type IncomingMessage, type RequestListener, type ServerResponse, STATUS_CODES } from 'node:http';
import { createGzip } from 'node:zlib';
import { REPORT_TYPES, type ReportType } from '../domain.js';
import { LOGOUT_PATH, TOKEN_PATH, type TokenIssuer } from './auth.js';
import { csvChunks, jsonChunks, peek, zipChunks } from './body.js';
import { effectiveDateFor, isIsoDate } from './calendar.js';
import type { createFaults, createStats, Endpoint, Fault, RequestRecord } from './controls.js';
import { retryAfterSeconds, type SlidingWindow } from './limiter.js';
import { contentDisposition, exportFileName } from './naming.js';
import type { ResolvedOptions } from './options.js';
import { BIG_PORTFOLIO_ID, type Portfolio } from './portfolios.js';

const API_PREFIX = '/api/v1/report-service/report/generate/portfolio/';
const MAX_FORM_BYTES = 64 * 1024;

export interface RouteEnv {
  o: ResolvedOptions;
  catalog: Map<number, Portfolio>;
  limiter: SlidingWindow;
  stats: ReturnType<typeof createStats>;
  faults: ReturnType<typeof createFaults>;
  /** The token issuer (its iss claim needs the URL, known only once the server listens). */
  issuer: () => TokenIssuer;
}

/**
 * The last `entries` JSON report bodies of at most `maxChars` each (bounded memory: a bigger body is
 * generated and streamed every time, never kept). A body is kept only once it was generated in full.
 */
export function createBodyCache(entries: number, maxChars: number) {
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

/** The request listener; every answer is recorded in `stats` before its first byte leaves. */
export function createRoutes({ o, catalog, limiter, stats, faults, issuer }: RouteEnv): RequestListener {
  const bodies = createBodyCache(4, 16 * 1024 * 1024);
  const listener: RequestListener = (req, res) => {
    arrivals.set(req, o.now());
    handle(req, res).catch((err) => {
      o.log?.(`sandbox: internal error: ${(err as Error)?.message ?? err}`);
      if (!res.headersSent) sendError(res, { endpoint: 'other', req }, 500, 'Internal error in the sandbox');
      else res.destroy();
    });
  };

  interface Ctx {
    endpoint: Endpoint;
    req: IncomingMessage;
    user?: string;
    grant?: string;
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
      grant: ctx.grant,
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
    sendJson(res, ctx, status, { status, error: STATUS_CODES[status] ?? 'Error', message, path }, extra);
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
      const logout = realmMatch[2] === LOGOUT_PATH;
      if (realmMatch[2] !== TOKEN_PATH && !logout) {
        return sendJson(res, { ...ctx, endpoint: 'other' }, 404, {
          error: 'Unable to find matching target resource method',
        });
      }
      const fault = faults.take('token');
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
      ctx.grant = form.get('grant_type') ?? undefined;
      const answer = logout ? issuer().logout(form) : issuer().token(form);
      if (answer.status === 204) {
        head(res, ctx, 204, { 'Cache-Control': 'no-store' });
        return void res.end();
      }
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
    const fault = faults.take(ctx.endpoint);
    if (fault?.delayMs) await sleep(fault.delayMs);
    if (fault?.status) return sendFault(res, ctx, fault);

    // 401
    const bearer = issuer().checkBearer(req.headers.authorization);
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
    return sendReport(res, ctx, portfolio, q, fault);
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
    fault: Fault | undefined,
  ): Promise<void> {
    const eff = effectiveDateFor(q.date);
    const rows = eff !== undefined && eff >= p.inception ? peek(p.rows(q.reportType, eff)) : undefined;
    if (ctx.endpoint === 'report') {
      // The same request gives the same bytes: keep recent bodies, so clients are measured, not the generator.
      const key = `${p.id}|${q.reportType}|${eff}`;
      const cached = bodies.get(key);
      const chunks = cached
        ? [cached]
        : bodies.remember(
            key,
            rows
              ? o.spaced
                ? jsonChunks(rows, '{"report": [', ']}', true)
                : jsonChunks(rows, '{"report":[', ']}')
              : [o.spaced ? '{"report": []}' : '{"report":[]}'],
          );
      return stream(res, ctx, { 'Content-Type': 'application/json' }, chunks, fault);
    }
    if (!rows || !eff) {
      head(res, ctx, 200, { 'Content-Length': 0 });
      res.end();
      return;
    }
    const isZip = q.format === 'csv' || fault?.zip !== undefined;
    const ext = isZip ? 'zip' : 'json';
    const headers = {
      'Content-Type': isZip ? 'application/zip' : 'application/json',
      'Content-Disposition':
        fault?.contentDisposition ?? contentDisposition(exportFileName(eff, p.name, ext)),
    };
    const chunks = fault?.zip
      ? zipChunks(filler(fault.zip), {
          member: fault.zip.member ?? exportFileName(eff, p.name, 'csv'),
          date: eff,
        })
      : q.format === 'csv'
        ? zipChunks(csvChunks(q.reportType, rows), {
            member: exportFileName(eff, p.name, 'csv'),
            date: eff,
            store: p.id === BIG_PORTFOLIO_ID,
          })
        : jsonChunks(rows, '[', ']', o.spaced);
    return stream(res, ctx, headers, chunks, fault);
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
    fault: Fault | undefined,
  ): Promise<void> {
    if (o.gzip && /\bgzip\b/i.test(String(ctx.req.headers['accept-encoding'] ?? '')) && !fault) {
      return gzipped(res, ctx, headers, chunks);
    }
    const truncate = !!fault?.truncate;
    const stallMs = fault?.stallMs ?? 0;
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
      if (stallMs > 0) {
        const half = Math.floor(body.length / 2);
        res.write(body.subarray(0, half));
        await pause(res, stallMs);
        if (res.destroyed) return;
        record.bytes = body.length;
        res.end(body.subarray(half));
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
    if (stallMs > 0) await pause(res, stallMs);
    if (truncate) {
      await new Promise((r) => setImmediate(r));
      res.destroy();
      return;
    }
    for (; !next.done && !closed; next = it.next()) await send(next.value);
    if (!closed) res.end();
  }

  /** The chunks gzip-compressed as they are written (chunked, no Content-Length), with backpressure. */
  async function gzipped(
    res: ServerResponse,
    ctx: Ctx,
    headers: Record<string, string | number>,
    chunks: Iterable<string | Uint8Array>,
  ): Promise<void> {
    const record = head(res, ctx, 200, { ...headers, 'Content-Encoding': 'gzip', Vary: 'Accept-Encoding' });
    const gzip = createGzip();
    gzip.on('data', (d: Buffer) => {
      record.bytes += d.length;
      if (!res.write(d)) gzip.pause();
    });
    res.on('drain', () => gzip.resume());
    let closed = false;
    res.on('close', () => {
      closed = true;
      gzip.destroy();
    });
    for (const c of chunks) {
      if (closed) return;
      if (!gzip.write(c)) await new Promise((r) => gzip.once('drain', r));
    }
    await new Promise<void>((resolve) => {
      gzip.once('end', resolve);
      gzip.end();
    });
    if (!closed) res.end();
  }

  return listener;
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

/** A zip fault's member: `bytes` bytes of NUL, or of one CSV line over and over, in 64 KiB pieces. */
function* filler(z: NonNullable<Fault['zip']>): Generator<string> {
  const unit = z.fill === 'nul' ? '\0' : '2024-05-01,CH0102878927,Example 600 OG,1302.917413\n';
  const piece = unit.repeat(Math.ceil(65536 / unit.length)).slice(0, 65536);
  for (let left = z.bytes; left > 0; left -= piece.length) yield piece.slice(0, Math.min(left, piece.length));
}

/** Waits `ms`, or less when the client goes away meanwhile. */
function pause(res: ServerResponse, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      res.off('close', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    res.on('close', done);
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
