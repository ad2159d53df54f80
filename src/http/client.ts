// undici is loaded at the first request: importing this module for hostOf costs no one its load.
import type { Readable } from 'node:stream';
import type { buildConnector, Dispatcher } from 'undici';
import { errnoCode, InterruptedError, NetworkError, ServiceError, statusLine } from '../errors.js';
import type { Endpoint, RunEvents } from '../events.js';
import type { IO } from '../io.js';
import { redactForm, redactHeaders } from '../redact.js';
import type { Settings } from '../settings.js';

export interface HttpRequest {
  method: 'GET' | 'POST';
  url: string;
  headers?: Record<string, string>;
  form?: string;
  endpoint?: Endpoint;
  signal?: AbortSignal;
}

export interface HttpResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Readable & { text(): Promise<string>; dump(): Promise<void> };
}

interface HttpOptions extends Pick<Settings, 'timeoutMs' | 'proxy'> {
  io: Pick<IO, 'debug' | 'verbose'>;
  events?: Pick<RunEvents, 'emit'>;
  dispatcher?: Dispatcher;
}

// Every TLS connection (origin, tunnel, HTTPS proxy): NODE_TLS_REJECT_UNAUTHORIZED=0 cannot turn it off.
const VERIFY = { rejectUnauthorized: true } as const;

export async function createDispatcher(proxy: Settings['proxy'], timeoutMs: number): Promise<Dispatcher> {
  // maxHeaderSize: undici would load node:http to read Node's default; the build leaves HTTP/2 out.
  const agentOpts = {
    connectTimeout: timeoutMs,
    keepAliveTimeout: 10_000,
    maxHeaderSize: 16 * 1024,
    connect: VERIFY,
    allowH2: false,
  };
  if (proxy.httpProxy || proxy.httpsProxy) {
    // The whole index: the proxy agent needs the methods it installs.
    const undici = await import('undici');
    const { EnvHttpProxyAgent, Pool, buildConnector } =
      (undici as unknown as { default?: typeof undici }).default ?? undici;
    // The connection to an HTTP(S) proxy is ours (an https:// proxy's TLS verified, --timeout): undici's
    // proxyTls would go to a SOCKS proxy as well, whose agent then speaks TLS to it and never hears back.
    const connect = buildConnector({ ...VERIFY, timeout: timeoutMs });
    // A connection to the proxy that fails says so: transportError names the proxy, not the service.
    const clientFactory = (url: URL) => {
      const address = `${url.hostname}:${portOf(url)}`;
      // An IP is no TLS server name (RFC 6066; Node warns on stderr), undici's proxy agent passes it:
      // left out, the certificate is still checked against the IP.
      const { isIP } = process.getBuiltinModule('node:net');
      const named = (co: buildConnector.Options) =>
        isIP(co.servername?.replace(/^\[|\]$/g, '') ?? '') ? { ...co, servername: undefined } : co;
      const pool = new Pool(url, {
        connect: (co, done) =>
          connect(named(co), (err, socket) =>
            err ? done(Object.assign(err, { proxy: address }), null) : done(err, socket),
          ),
      });
      // A tunnel the proxy refuses (407, 502...): undici's error says neither the proxy nor its answer.
      const tunnel = pool.connect.bind(pool) as (
        o: Dispatcher.ConnectOptions,
      ) => Promise<Dispatcher.ConnectData>;
      return Object.assign(pool, {
        async connect(o: Dispatcher.ConnectOptions): Promise<Dispatcher.ConnectData> {
          const data = await tunnel(o);
          if (data.statusCode === 200) return data;
          data.socket.on('error', () => {}).destroy();
          const { statusCode: status } = data;
          // The proxy could not reach the service: retried as a refused connection to it would be.
          const code = [502, 503, 504].includes(status) ? 'PROXY_TUNNEL_FAILED' : 'PROXY_TUNNEL_REFUSED';
          const err = new Error(`proxy ${address} answered CONNECT with ${status}`);
          throw Object.assign(err, { code, proxy: address, status, login: !!url.username });
        },
      });
    };
    // Left undefined, the agent reads http_proxy / HTTP_PROXY itself, even a value settings refused: '' is none.
    const { httpProxy = '', httpsProxy = '', noProxy = '' } = proxy;
    if ([httpProxy, httpsProxy].some((p) => /^socks5?:/i.test(p))) quietSocksWarnings();
    const proxies = { httpProxy, httpsProxy, noProxy, clientFactory, requestTls: VERIFY };
    return new EnvHttpProxyAgent({ ...agentOpts, ...proxies });
  }
  // Deep imports: undici's index also loads fetch, WebSocket, caches and mocks.
  const { default: Agent } = await import('undici/lib/dispatcher/agent.js');
  return new Agent(agentOpts);
}

/**
 * undici's SOCKS5 says on stderr, once a run, that it is experimental (README's proxy section says so
 * instead), and its TLS to a service named by an IP sends the IP as the server name, which Node warns of
 * (DEP0123; the certificate is still checked against the IP).
 */
let socksQuiet = false;
function quietSocksWarnings() {
  if (socksQuiet) return;
  socksQuiet = true;
  const emit = process.emitWarning as (warning: unknown, ...rest: unknown[]) => void;
  process.emitWarning = ((warning: unknown, ...rest: unknown[]) => {
    const socks = warning === 'SOCKS5 proxy support is experimental and subject to change';
    const ipName = rest[0] === 'DeprecationWarning' && rest[1] === 'DEP0123';
    if (!(socks && rest[0] === 'ExperimentalWarning') && !ipName) emit.call(process, warning, ...rest);
  }) as typeof process.emitWarning;
}

export async function request(
  dispatcher: Dispatcher,
  url: string,
  o: Pick<Dispatcher.RequestOptions, 'method' | 'headers' | 'body' | 'signal'> & { timeoutMs: number },
): Promise<Dispatcher.ResponseData> {
  const { default: request } = await import('undici/lib/api/api-request.js');
  const { origin, pathname, search } = new URL(url);
  const { timeoutMs, ...rest } = o;
  const timeouts = { headersTimeout: timeoutMs, bodyTimeout: timeoutMs };
  return request.call(dispatcher, { origin, path: `${pathname}${search}`, ...rest, ...timeouts });
}

export type Http = ReturnType<typeof createHttp>;

export function createHttp(o: HttpOptions) {
  const answered = (endpoint: Endpoint | undefined, status: number, durationMs: number) => {
    if (endpoint) o.events?.emit({ event: 'response', endpoint, status, durationMs });
  };
  let dispatcher: Promise<Dispatcher> | undefined;
  return {
    async send(req: HttpRequest): Promise<HttpResponse> {
      const started = Date.now();
      const headers: Record<string, string> = { 'user-agent': 'prs', ...(req.headers ?? {}) };
      if (req.form !== undefined) headers['content-type'] = 'application/x-www-form-urlencoded';
      if (o.io.verbose)
        o.io.debug(
          `> ${req.method} ${req.url} ${JSON.stringify(redactHeaders(headers))}${req.form !== undefined ? ` ${redactForm(req.form)}` : ''}`,
          { event: 'request', method: req.method, url: req.url },
        );
      try {
        dispatcher ??= o.dispatcher ? Promise.resolve(o.dispatcher) : createDispatcher(o.proxy, o.timeoutMs);
        const res = await request(await dispatcher, req.url, {
          method: req.method,
          headers,
          body: req.form,
          signal: req.signal,
          timeoutMs: o.timeoutMs,
        });
        watchProgress(res.body, o.timeoutMs);
        const ms = Date.now() - started;
        answered(req.endpoint, res.statusCode, ms);
        if (o.io.verbose)
          o.io.debug(
            `< ${res.statusCode} ${req.method} ${req.url} (${ms} ms) ${String(res.headers['content-type'] ?? '')}`,
            { event: 'response', status: res.statusCode, method: req.method, url: req.url, durationMs: ms },
          );
        return { status: res.statusCode, headers: res.headers, body: res.body as HttpResponse['body'] };
      } catch (err) {
        answered(req.endpoint, 0, Date.now() - started);
        throw transportError(err, req, o.timeoutMs);
      }
    },
    async close(): Promise<void> {
      if (!o.dispatcher && dispatcher) await (await dispatcher).destroy();
    },
  };
}

export const MIN_PROGRESS_BYTES = 1024;

// --timeout bounds the body too (bodyTimeout only notices silence): under 1 kB in a timeout fails as
// UND_ERR_BODY_TIMEOUT, unless the reader is the slow side (its buffer is full).
export function watchProgress(body: Readable, timeoutMs: number): void {
  let received = 0;
  let mark = 0;
  // Counted at push: a 'data' listener would switch the stream to flowing.
  const push = body.push;
  body.push = (chunk: unknown, encoding?: BufferEncoding) => {
    if (chunk === null) stop();
    else if (chunk) received += (chunk as Uint8Array | string).length;
    return push.call(body, chunk, encoding);
  };
  const timer = setInterval(() => {
    const readerBehind = body.readableLength >= body.readableHighWaterMark;
    if (!readerBehind && received - mark < MIN_PROGRESS_BYTES) {
      const err = new Error(`the body advanced by less than ${MIN_PROGRESS_BYTES} bytes in ${timeoutMs} ms`);
      body.destroy(Object.assign(err, { name: 'BodyTimeoutError', code: 'UND_ERR_BODY_TIMEOUT' }));
    }
    mark = received;
  }, timeoutMs);
  timer.unref();
  body.once('close', stop);
  function stop() {
    clearInterval(timer);
  }
}

// A connection's error code or message: the far end spoke no TLS (a plain port behind https:// or
// rediss://), or else TLS failed, most often on a certificate not trusted.
export const NOT_TLS = /WRONG_VERSION_NUMBER|PACKET_LENGTH_TOO_LONG|wrong version number/i;
export const TLS_FAILED = /CERT|SSL|TLS|SELF_SIGNED|UNABLE_TO_VERIFY/i;

/** undici's SOCKS5 agent marks nothing: a name not resolved, or a port refused, not the service's is its proxy's. */
function socksProxy(err: unknown, url: string): string | undefined {
  const e = err as { syscall?: string; hostname?: string; address?: string; port?: number } | undefined;
  const u = new URL(url);
  if (e?.syscall === 'getaddrinfo' && e.hostname !== u.hostname) return e.hostname;
  if (e?.syscall === 'connect' && e.port !== undefined && e.port !== portOf(u))
    return `${e.address?.includes(':') ? `[${e.address}]` : e.address}:${e.port}`;
}

export function transportError(
  err: unknown,
  req: { method: string; url: string; signal?: AbortSignal },
  timeoutMs: number,
): Error {
  if (err instanceof InterruptedError || err instanceof NetworkError) return err;
  if (req.signal?.aborted) return new InterruptedError();
  type Cause = NodeJS.ErrnoException & { proxy?: string; status?: number; login?: boolean };
  const e = err as Cause & { cause?: Cause };
  const code = errnoCode(err);
  // Failed on the way to the proxy (marked by createDispatcher): named as curl does, the service unknown.
  const proxy = e?.proxy ?? e?.cause?.proxy ?? socksProxy(err, req.url);
  const tunnel = e?.status ?? e?.cause?.status ?? 0;
  const login = e?.login ?? e?.cause?.login;
  const host = proxy ? `proxy ${proxy}` : hostOf(req.url);
  const named = proxy ? host : `host ${host}`;
  const secs = `${timeoutMs / 1000} s`;
  const slow = 'raise --timeout if the service is slow';
  const table: Record<string, [string, string?]> = {
    ECONNREFUSED: [`connection refused by ${host}`, 'is the service (or `prs sandbox`) running at that URL?'],
    ECONNRESET: [`connection reset by ${host}`],
    UND_ERR_SOCKET: [`connection to ${host} closed unexpectedly`],
    ENOTFOUND: [`cannot resolve ${named}`, 'check --base-url / --auth-url and your DNS or proxy'],
    EAI_AGAIN: [`cannot resolve ${named} (DNS temporarily unavailable)`],
    ETIMEDOUT: [`connection to ${host} timed out`],
    UND_ERR_CONNECT_TIMEOUT: [`connecting to ${host} timed out after ${secs}`],
    UND_ERR_HEADERS_TIMEOUT: [`${host} sent no response within ${secs}`, slow],
    UND_ERR_BODY_TIMEOUT: [`${host} sent less than 1 kB of the response in ${secs}`, slow],
    EHOSTUNREACH: [`${named} unreachable`],
    ENETUNREACH: [`network unreachable for ${host}`],
    PROXY_TUNNEL_REFUSED: [
      `${host} refused the tunnel: ${statusLine(tunnel)}`,
      tunnel !== 407
        ? 'check HTTPS_PROXY / HTTP_PROXY and NO_PROXY'
        : login
          ? 'the proxy refused the user:password in the proxy URL'
          : 'put user:password in the proxy URL: http://user:password@host:port',
    ],
    PROXY_TUNNEL_FAILED: [
      `${host} refused the tunnel: ${statusLine(tunnel)}`,
      'the proxy could not reach the service: check --base-url / --auth-url, or list its host in NO_PROXY',
    ],
    // undici's SOCKS5 handshake: its errors say nothing of which proxy (HTTPS_PROXY / HTTP_PROXY names it).
    UND_ERR_SOCKS5_AUTH_FAILED: [
      'the SOCKS proxy refused the login in its URL',
      'check user:password in HTTPS_PROXY / HTTP_PROXY',
    ],
    UND_ERR_SOCKS5_AUTH_REJECTED: [
      'the SOCKS proxy wants a login',
      'put user:password in the proxy URL: socks5://user:password@host:port',
    ],
  };
  const known = table[code];
  const ownHint = code.startsWith('PROXY_TUNNEL_');
  const hint = proxy && !ownHint ? 'check HTTPS_PROXY / HTTP_PROXY and NO_PROXY' : known?.[1];
  if (known) return new NetworkError(known[0], { hint, cause: err });
  const message = (e?.message || String(err)).split('\n')[0];
  const overflow = code === 'UND_ERR_HEADERS_OVERFLOW' || e?.name === 'HeadersOverflowError';
  if (overflow || e?.name === 'HTTPParserError' || /^HPE_/.test(code)) {
    const why = overflow ? 'its headers exceed 16 kB' : message;
    return new ServiceError(`malformed response from ${host}: ${why}`, { cause: err });
  }
  if (NOT_TLS.test(code) || NOT_TLS.test(message))
    return new NetworkError(`${host} did not speak TLS (${code || 'no TLS handshake'})`, {
      hint: `check the scheme: the server at ${host} may speak plain http://, not https://`,
      cause: err,
    });
  if (TLS_FAILED.test(code))
    return new NetworkError(`TLS certificate of ${host} not trusted (${code})`, {
      hint: 'if your organisation uses its own CA, point NODE_EXTRA_CA_CERTS at its PEM file',
      cause: err,
    });
  return new NetworkError(`request to ${host} failed: ${message}${code ? ` (${code})` : ''}`, { cause: err });
}

export function header(res: Pick<HttpResponse, 'headers'>, name: string): string | undefined {
  const v = res.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

export const hostOf = (url: string): string => (URL.canParse(url) ? new URL(url).host : url);
const portOf = (u: URL) => Number(u.port || (u.protocol === 'https:' ? 443 : 80));

const MAX_MESSAGE = 200;

export function shortMessage(body: string, contentType?: string): string | undefined {
  const text = body.trim();
  if (!text) return undefined;
  if (/^[{[]/.test(text) || /json/i.test(contentType ?? ''))
    try {
      return fromJson(JSON.parse(text));
    } catch {
      return undefined;
    }
  if (/html|xml/i.test(contentType ?? '') || text.startsWith('<')) return undefined;
  return clean(text.split('\n')[0]!);
}

function fromJson(v: unknown): string | undefined {
  if (typeof v === 'string') return clean(v);
  if (!v || typeof v !== 'object' || Array.isArray(v)) return undefined;
  for (const key of ['message', 'error_description', 'error', 'detail', 'title', 'errorMessage']) {
    const said = fromJson((v as Record<string, unknown>)[key]);
    if (said) return said;
  }
  return undefined;
}

function clean(s: string): string | undefined {
  const one = s
    .replace(/[\u0000-\u001f\u007f]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  if (!one) return undefined;
  return one.length > MAX_MESSAGE ? `${one.slice(0, MAX_MESSAGE - 1)}…` : one;
}
