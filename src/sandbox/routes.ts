// Checked in the service's order: 401, 403, 400, 404, 429. Spring Boot's error bodies, without the timestamp.
import { type IncomingMessage, type RequestListener, type ServerResponse, STATUS_CODES } from 'node:http';
import { unescape as percentDecode } from 'node:querystring';
import { PassThrough, Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { setTimeout as sleep, setImmediate as tick } from 'node:timers/promises';
import { createGzip } from 'node:zlib';
import { REPORT_TYPES, type ReportType } from '../domain.js';
import type { RateLimit } from '../settings.js';
import { TokenIssuer } from './auth.js';
import { effectiveDateFor, isIsoDate } from './calendar.js';
import { createFaults, createStats, type Fault, type RequestRecord } from './controls.js';
import type { ResolvedOptions } from './options.js';
import { createCatalog, type Portfolio, rowsOf } from './portfolios.js';
import { contentDisposition, csvChunks, exportFileName, jsonChunks, zipChunks } from './wire.js';

const API_PATH = /^\/api\/v1\/report-service\/report\/generate\/portfolio\/([^/]+)(\/export)?$/;
type Headers = Record<string, string | number>;

type Exchange = { req: IncomingMessage; res: ServerResponse; rec: RequestRecord };

export function createRoutes(o: ResolvedOptions) {
  const stats = createStats();
  const faults = createFaults();
  const issuer = new TokenIssuer(o);
  const catalog = createCatalog(o.bigExportRows);
  const takeSlot = slidingWindow(o.limit);
  const cached = bodyCache(o.cachedAnswers ?? 4, 16 * 1024 * 1024);

  function head({ rec, res }: Exchange, status: number, headers: Headers) {
    rec.status = status;
    stats.record(rec);
    o.log?.(`${rec.method} ${rec.path} ${status}${rec.user ? ` (${rec.user})` : ''}`);
    return res.writeHead(status, headers);
  }

  function json(x: Exchange, status: number, body: unknown, headers: Headers = {}) {
    const data = JSON.stringify(body);
    x.rec.bytes = Buffer.byteLength(data);
    head(x, status, { 'Content-Type': 'application/json', 'Content-Length': x.rec.bytes, ...headers });
    x.res.end(data);
  }

  function error(x: Exchange, status: number, message: string, headers: Headers = {}) {
    if (x.rec.endpoint === 'token')
      return json(x, status, { error: 'server_error', error_description: message }, headers);
    const path = x.req.url?.split('?')[0];
    json(x, status, { status, error: STATUS_CODES[status] ?? 'Error', message, path }, headers);
  }

  async function injected(x: Exchange, f: Fault | undefined): Promise<boolean> {
    if (f?.delayMs) await sleep(f.delayMs);
    if (f?.status)
      error(x, f.status, 'Injected fault', f.retryAfter === undefined ? {} : { 'Retry-After': f.retryAfter });
    return !!f?.status;
  }

  async function token(x: Exchange, logout: boolean) {
    if (await injected(x, faults.take('token'))) return;
    const raw = await bodyText(x.req, 64 * 1024);
    if (raw === undefined) return error(x, 413, 'Request Entity Too Large');
    // Keycloak reads only form fields: any other body looks like a request with no fields at all.
    const isForm = /^application\/x-www-form-urlencoded\b/i.test(x.req.headers['content-type'] ?? '');
    const form = new URLSearchParams(isForm ? raw : '');
    x.rec.user = form.get('username') ?? undefined;
    x.rec.grant = form.get('grant_type') ?? undefined;
    const answer = logout ? issuer.logout(form) : issuer.token(form);
    if (answer.status === 204) head(x, 204, {}).end();
    else json(x, answer.status, answer.body);
  }

  async function report(x: Exchange, url: URL, id: string) {
    const fault = faults.take(x.rec.endpoint);
    if (await injected(x, fault)) return;
    const bearer = issuer.checkBearer(x.req.headers.authorization);
    if (!bearer.ok) {
      const why = `, error="invalid_token", error_description="${bearer.description}"`;
      const challenge = `Bearer realm="${o.realm}"${bearer.reason === 'missing' ? '' : why}`;
      return error(x, 401, bearer.description, { 'WWW-Authenticate': challenge });
    }
    x.rec.user = bearer.claims.preferred_username;
    const tenant = x.req.headers['x-client-id'];
    if (typeof tenant !== 'string' || tenant === '') return error(x, 403, 'Missing X-CLIENT-ID header');
    if (tenant !== bearer.claims.tenant)
      return error(x, 403, `Access denied: user is not a member of tenant '${tenant}'`);
    const q = parseQuery(id, url.searchParams, x.rec.endpoint === 'export');
    if (q.error !== undefined) return error(x, 400, q.error);
    const portfolio = catalog.get(q.portfolioId);
    if (!portfolio) return error(x, 404, `Portfolio ${q.portfolioId} not found`);
    const slot = x.rec.endpoint === 'report' ? takeSlot(x.rec.user, o.now()) : { ok: true as const };
    if (!slot.ok) {
      const message = `Rate limit exceeded: ${o.limit.limit} requests per ${o.limit.windowMs / 1000} seconds`;
      return error(x, 429, message, { 'Retry-After': retryAfterSeconds(slot.retryAfterMs) });
    }
    if (x.rec.endpoint === 'export' && o.exportDelayMs > 0) await sleep(o.exportDelayMs);
    if (portfolio.failStatus) return error(x, portfolio.failStatus, 'Report generation failed');
    return answer(x, portfolio, q, fault);
  }

  async function answer(x: Exchange, p: Portfolio, q: Query, fault: Fault | undefined) {
    const eff = effectiveDateFor(q.date) ?? '';
    const rows = () => (eff >= p.inception ? rowsOf(p, q.reportType, eff) : []);
    if (x.rec.endpoint === 'report') {
      const open = o.spaced ? '{"report": [' : '{"report":[';
      const body = cached(`${p.id}|${q.reportType}|${eff}`, () => jsonChunks(rows(), open, ']}', o.spaced));
      return stream(x, { 'Content-Type': 'application/json' }, body, fault);
    }
    if (rows()[Symbol.iterator]().next().done) return void head(x, 200, { 'Content-Length': 0 }).end();
    const zip = fault?.zip;
    const ext = q.format === 'csv' || zip ? 'zip' : 'json';
    const disposition = fault?.contentDisposition ?? contentDisposition(exportFileName(eff, p.name, ext));
    const headers = { 'Content-Type': `application/${ext}`, 'Content-Disposition': disposition };
    if (ext === 'json') return stream(x, headers, jsonChunks(rows(), '[', ']', o.spaced), fault);
    const text = zip ? filler(zip) : csvChunks(q.reportType, rows());
    // The big export (900) is stored, not deflated: what is timed is prs, not the sandbox.
    const entry = { member: exportFileName(eff, p.name, 'csv'), date: eff, store: !zip && p.id === 900 };
    return stream(x, headers, zipChunks(text, entry), fault);
  }

  // Up to 1 MiB goes whole with Content-Length, more (or gzip) chunked; a fault cuts at half or after 1 MiB.
  async function stream(x: Exchange, headers: Headers, chunks: Iterable<string | Uint8Array>, fault?: Fault) {
    const gzip = o.gzip && !fault && /\bgzip\b/i.test(String(x.req.headers['accept-encoding'] ?? ''));
    const it = chunks[Symbol.iterator]();
    const first: Buffer[] = [];
    let next = it.next();
    for (let size = 0; !gzip && !next.done && size < 1024 * 1024; next = it.next()) {
      first.push(Buffer.from(next.value));
      size += first.at(-1)!.length;
    }
    const body = Buffer.concat(first);
    const small = !gzip && next.done;
    head(x, 200, {
      ...headers,
      ...(gzip && { 'Content-Encoding': 'gzip', Vary: 'Accept-Encoding' }),
      ...(small && { 'Content-Length': body.length }),
    });
    const faulty = fault?.truncate || fault?.stallMs;
    const cut = !faulty ? 0 : small ? Math.floor(body.length / 2) : body.length;
    if (faulty) {
      x.rec.bytes += cut;
      x.res.write(body.subarray(0, cut));
      if (fault.truncate) return void tick().then(() => x.res.destroy());
      await sleep(fault.stallMs, undefined, { ref: false });
    }
    const rest = function* () {
      yield body.subarray(cut);
      for (; !next.done; next = it.next()) yield next.value;
    };
    const last = gzip ? createGzip() : new PassThrough();
    last.on('data', (chunk: Buffer) => {
      x.rec.bytes += chunk.length;
    });
    await pipeline(Readable.from(rest()), last, x.res).catch(() => {});
  }

  async function route(x: Exchange) {
    const url = new URL(x.req.url ?? '/', 'http://sandbox');
    const auth = /^\/realms\/([^/]+)\/protocol\/openid-connect\/(token|logout)$/.exec(url.pathname);
    const api = API_PATH.exec(url.pathname);
    if (auth && percentDecode(auth[1]) === o.realm) {
      x.rec.endpoint = 'token';
      if (x.req.method !== 'POST') return error(x, 405, 'Method Not Allowed', { Allow: 'POST' });
      return token(x, auth[2] === 'logout');
    }
    if (!api) return error(x, 404, 'No endpoint at this path');
    x.rec.endpoint = api[2] ? 'export' : 'report';
    if (x.req.method !== 'GET') return error(x, 405, 'Method Not Allowed', { Allow: 'GET' });
    return report(x, url, api[1]);
  }

  const listener: RequestListener = (req, res) => {
    const [method, path] = [req.method ?? '', req.url ?? ''];
    const rec: RequestRecord = { endpoint: 'other', method, path, status: 0, bytes: 0, at: o.now() };
    const x: Exchange = { req, res, rec };
    route(x).catch((err) => {
      o.log?.(`sandbox: internal error: ${(err as Error)?.message ?? err}`);
      x.rec.endpoint = 'other';
      if (!res.headersSent) error(x, 500, 'Internal error in the sandbox');
      else res.destroy();
    });
  };
  return { listener, stats, faults, issuer };
}

/** The last `entries` JSON report bodies under `maxChars`, so benchmarks time the client, not the generator. */
function bodyCache(entries: number, maxChars: number) {
  const map = new Map<string, Buffer>();
  return function* (key: string, make: () => Iterable<string>): Generator<string | Buffer> {
    const hit = map.get(key);
    const kept: string[] = [];
    let size = 0;
    for (const chunk of hit ? [] : make()) {
      size += chunk.length;
      if (size <= maxChars) kept.push(chunk);
      else kept.length = 0;
      yield chunk;
    }
    if (hit) yield hit;
    else if (size > maxChars) return;
    map.delete(key);
    map.set(key, hit ?? Buffer.from(kept.join('')));
    if (map.size > entries) map.delete(map.keys().next().value!);
  };
}

/** The body's text, or undefined past `max` bytes: the rest is read and dropped, never held. */
async function bodyText(req: IncomingMessage, max: number): Promise<string | undefined> {
  const parts: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size <= max) parts.push(chunk);
  }
  return size > max ? undefined : Buffer.concat(parts).toString();
}

type Query = Exclude<ReturnType<typeof parseQuery>, { error: string }>;

function parseQuery(id: string, params: URLSearchParams, isExport: boolean) {
  const decoded = percentDecode(id);
  if (!/^[+-]?\d{1,10}$/.test(decoded) || Math.abs(Number(decoded)) > 2_147_483_647)
    return { error: `Invalid value '${decoded}' for path variable 'portfolioId': must be an integer` };
  const reportType = params.get('reportType');
  if (reportType === null) return { error: "Required request parameter 'reportType' is not present" };
  if (!(REPORT_TYPES as readonly string[]).includes(reportType))
    return { error: `Invalid reportType '${reportType}': expected one of ${REPORT_TYPES.join(', ')}` };
  const date = params.get('date');
  if (date === null) return { error: "Required request parameter 'date' is not present" };
  if (!isIsoDate(date)) return { error: `Invalid date '${date}': expected YYYY-MM-DD` };
  const format = isExport ? (params.get('format') ?? 'json') : 'json';
  if (format !== 'json' && format !== 'csv')
    return { error: `Invalid format '${format}': expected json or csv` };
  return { portfolioId: Number(decoded), reportType: reportType as ReportType, date, format };
}

function* filler(z: NonNullable<Fault['zip']>): Generator<string> {
  const unit = z.fill === 'nul' ? '\0' : '2024-05-01,CH0102878927,Example 600 OG,1302.917413\n';
  const piece = unit.repeat(Math.ceil(65536 / unit.length)).slice(0, 65536);
  for (let left = z.bytes; left > 0; left -= piece.length) yield piece.slice(0, Math.min(left, piece.length));
}

/** The JSON endpoint's sliding-window limit per key: a slot, or when one frees (refusals take none). */
export function slidingWindow({ limit, windowMs }: RateLimit) {
  const hits = new Map<string, number[]>();
  return (key: string, now: number): { ok: true } | { ok: false; retryAfterMs: number } => {
    const recent = (hits.get(key) ?? []).filter((t) => t > now - windowMs);
    hits.set(key, recent);
    if (recent.length >= limit) return { ok: false, retryAfterMs: recent[0] + windowMs - now };
    recent.push(now);
    return { ok: true };
  };
}

export const retryAfterSeconds = (ms: number): number => Math.max(1, Math.ceil(ms / 1000));
