/**
 * `--ping-url` (CLI.md "Unattended runs"): Healthchecks' protocol, which borgmatic and resticprofile
 * speak too — `GET <url>/start` when a run starts, `POST <url>` with the summary when it succeeds,
 * `POST <url>/<exit code>` with the error lines when it fails (exit 3 "no data" is a failure there).
 * A ping gets at most 5 s and never changes the run's outcome: the caller turns a failure into one
 * warning. The URL is a secret (whoever has it can report a success): only redactPingUrl's form of it
 * is ever printed.
 */
import type { Dispatcher } from 'undici';
import { redactPingUrl } from '../redact.js';

export const PING_TIMEOUT_MS = 5_000;
/** Healthchecks keeps the first 100 kB of a ping body; a log excerpt needs far less. */
export const PING_BODY_MAX = 10_000;

export type PingKind = 'start' | 'success' | 'failure';

export interface PingRequest {
  method: 'GET' | 'POST';
  url: string;
  body?: string;
}

/** The request of one ping; pure. */
export function pingRequest(base: string, kind: PingKind, exitCode = 0, body = ''): PingRequest {
  const url = base.replace(/\/+$/, '');
  if (kind === 'start') return { method: 'GET', url: `${url}/start` };
  const text = body.length > PING_BODY_MAX ? `${body.slice(0, PING_BODY_MAX)}\n…` : body;
  return kind === 'success'
    ? { method: 'POST', url, body: text }
    : { method: 'POST', url: `${url}/${exitCode}`, body: text };
}

/**
 * Sends one ping within the time limit; resolves when answered with a 2xx, else throws an Error
 * whose message names the monitor only in redacted form.
 */
export async function sendPing(
  dispatcher: Dispatcher,
  req: PingRequest,
  timeoutMs = PING_TIMEOUT_MS,
): Promise<void> {
  const u = new URL(req.url);
  let status: number;
  try {
    // Loaded here, not at the top: main loads this module for every report/export, and most runs
    // send no ping (undici's request module and node:net are ~3–5 ms of a cache hit's start).
    const { default: request } = await import('undici/lib/api/api-request.js');
    const res = await request.call(dispatcher, {
      origin: u.origin,
      path: `${u.pathname}${u.search}`,
      method: req.method,
      headers: {
        'user-agent': 'prs',
        ...(req.body !== undefined ? { 'content-type': 'text/plain; charset=utf-8' } : {}),
      },
      body: req.body,
      signal: AbortSignal.timeout(timeoutMs),
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
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
