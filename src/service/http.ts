/**
 * The HTTP plumbing shared by the token call and the two report endpoints: one keep-alive undici
 * dispatcher (through a proxy when HTTP(S)_PROXY is set), per-request timeouts, -v logging with
 * secrets redacted, and transport failures turned into NetworkError / InterruptedError.
 * Corporate CAs need nothing here: Node adds NODE_EXTRA_CA_CERTS to the default trust store.
 */
import type { Readable } from 'node:stream';
import { Agent, type Dispatcher, EnvHttpProxyAgent, request } from 'undici';
import { InterruptedError, NetworkError } from '../errors.js';
import type { IO } from '../io.js';
import { redactForm, redactHeaders } from '../redact.js';
import type { Settings } from '../settings.js';

export interface HttpRequest {
  method: 'GET' | 'POST';
  url: string;
  headers?: Record<string, string>;
  /** A form body (the token call); logged with secret fields masked. */
  form?: string;
  signal?: AbortSignal;
}

export interface HttpResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** The body stream; call `text()` / `bytes()` or consume it as a Readable. Always consume or dump it. */
  body: Readable & { text(): Promise<string>; arrayBuffer(): Promise<ArrayBuffer>; dump(): Promise<void> };
  method: string;
  url: string;
}

export interface Http {
  send(req: HttpRequest): Promise<HttpResponse>;
  close(): Promise<void>;
}

export interface HttpOptions {
  timeoutMs: number;
  proxy: Settings['proxy'];
  io: Pick<IO, 'debug'>;
  /** Tests pass an undici MockAgent here. */
  dispatcher?: Dispatcher;
}

export function createDispatcher(proxy: Settings['proxy'], timeoutMs: number): Dispatcher {
  const agentOpts = { connectTimeout: timeoutMs, keepAliveTimeout: 10_000 };
  if (proxy.httpProxy || proxy.httpsProxy) {
    return new EnvHttpProxyAgent({ ...agentOpts, ...proxy });
  }
  return new Agent(agentOpts);
}

export function createHttp(o: HttpOptions): Http {
  const dispatcher = o.dispatcher ?? createDispatcher(o.proxy, o.timeoutMs);
  return {
    async send(req) {
      const started = performance.now();
      const headers: Record<string, string> = { 'user-agent': 'prs', ...(req.headers ?? {}) };
      if (req.form !== undefined) headers['content-type'] = 'application/x-www-form-urlencoded';
      o.io.debug(
        `> ${req.method} ${req.url} ${JSON.stringify(redactHeaders(headers))}${req.form !== undefined ? ` ${redactForm(req.form)}` : ''}`,
      );
      try {
        const res = await request(req.url, {
          method: req.method,
          headers,
          body: req.form,
          dispatcher,
          signal: req.signal,
          headersTimeout: o.timeoutMs,
          bodyTimeout: o.timeoutMs,
        });
        const ms = Math.round(performance.now() - started);
        o.io.debug(
          `< ${res.statusCode} ${req.method} ${req.url} (${ms} ms) ${String(res.headers['content-type'] ?? '')}`,
        );
        return {
          status: res.statusCode,
          headers: res.headers,
          body: res.body as HttpResponse['body'],
          method: req.method,
          url: req.url,
        };
      } catch (err) {
        throw transportError(err, req, o.timeoutMs);
      }
    },
    async close() {
      if (!o.dispatcher) await dispatcher.close();
    },
  };
}

/** Maps undici / socket / TLS failures to NetworkError (or InterruptedError for Ctrl-C). */
export function transportError(
  err: unknown,
  req: { method: string; url: string; signal?: AbortSignal },
  timeoutMs: number,
): Error {
  if (err instanceof InterruptedError || err instanceof NetworkError) return err;
  if (req.signal?.aborted) return new InterruptedError();
  const e = err as NodeJS.ErrnoException & { cause?: NodeJS.ErrnoException };
  const code = e?.code ?? e?.cause?.code ?? '';
  const host = safeHost(req.url);
  const secs = `${timeoutMs / 1000} s`;
  const table: Record<string, [string, string?]> = {
    ECONNREFUSED: [`connection refused by ${host}`, 'is the service (or `prs sandbox`) running at that URL?'],
    ECONNRESET: [`connection reset by ${host}`],
    UND_ERR_SOCKET: [`connection to ${host} closed unexpectedly`],
    ENOTFOUND: [`cannot resolve host ${host}`, 'check --base-url / --auth-url and your DNS or proxy'],
    EAI_AGAIN: [`cannot resolve host ${host} (DNS temporarily unavailable)`],
    ETIMEDOUT: [`connection to ${host} timed out`],
    UND_ERR_CONNECT_TIMEOUT: [`connecting to ${host} timed out after ${secs}`],
    UND_ERR_HEADERS_TIMEOUT: [
      `${host} sent no response within ${secs}`,
      'raise --timeout if the service is slow',
    ],
    UND_ERR_BODY_TIMEOUT: [`${host} stopped sending the response for ${secs}`],
    EHOSTUNREACH: [`host ${host} unreachable`],
    ENETUNREACH: [`network unreachable for ${host}`],
  };
  const known = table[code];
  if (known) return new NetworkError(known[0], { hint: known[1], cause: err });
  if (/CERT|SSL|TLS|SELF_SIGNED|UNABLE_TO_VERIFY/i.test(code)) {
    return new NetworkError(`TLS certificate of ${host} not trusted (${code})`, {
      hint: 'if your organisation uses its own CA, point NODE_EXTRA_CA_CERTS at its PEM file',
      cause: err,
    });
  }
  const message = (e?.message || String(err)).split('\n')[0];
  return new NetworkError(`request to ${host} failed: ${message}${code ? ` (${code})` : ''}`, { cause: err });
}

function safeHost(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}
