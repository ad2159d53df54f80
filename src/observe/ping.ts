// `--ping-url`: Healthchecks' protocol (start, success, failure/<exit code>). The URL is a secret: only
// its redacted form is ever printed.
import type { Dispatcher } from 'undici';
import { request } from '../http/client.js';
import { redactPingUrl } from '../redact.js';

export const PING_TIMEOUT_MS = 5_000;
export const PING_BODY_MAX = 10_000;

export type PingKind = 'start' | 'success' | 'failure';

export type PingRequest = { method: 'GET' | 'POST'; url: string; body?: string };

export function pingRequest(base: string, kind: PingKind, exitCode = 0, body = ''): PingRequest {
  const url = base.replace(/\/+$/, '');
  if (kind === 'start') return { method: 'GET', url: `${url}/start` };
  const text = body.length > PING_BODY_MAX ? `${body.slice(0, PING_BODY_MAX)}\n…` : body;
  return { method: 'POST', url: kind === 'success' ? url : `${url}/${exitCode}`, body: text };
}

export async function sendPing(dispatcher: Dispatcher, req: PingRequest): Promise<void> {
  const timeoutMs = PING_TIMEOUT_MS;
  let status: number;
  try {
    const res = await request(dispatcher, req.url, {
      method: req.method,
      headers: {
        'user-agent': 'prs',
        ...(req.body !== undefined ? { 'content-type': 'text/plain; charset=utf-8' } : {}),
      },
      body: req.body,
      signal: AbortSignal.timeout(timeoutMs),
      timeoutMs,
    });
    status = res.statusCode;
    await res.body.dump().catch(() => {});
  } catch (err) {
    const e = err as Error & { code?: string; cause?: { code?: string } };
    const why =
      e.name === 'TimeoutError' || e.name === 'AbortError'
        ? `no answer within ${timeoutMs / 1000} s`
        : (e.cause?.code ?? e.code ?? e.message);
    throw new Error(`${redactPingUrl(req.url)}: ${why}`);
  }
  if (status < 200 || status >= 300) throw new Error(`${redactPingUrl(req.url)}: HTTP ${status}`);
}
