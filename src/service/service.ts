/**
 * The service adapter: the two endpoints of spec §4 behind one request loop that adds the headers,
 * takes a slot from the shared rate limiter (JSON endpoint only), re-authenticates once on 401,
 * retries per the policy in retry.ts and maps the final failure in errors-map.ts. The endpoints differ
 * only in a path segment, the Accept header, the limiter and what happens to a 200's body.
 */
import { neverLoggedIn, neverLoggedInError } from '../auth/not-logged-in.js';
import type { Session } from '../auth/types.js';
import { type Clock, isoSeconds } from '../clock.js';
import type { ExportFormat } from '../domain.js';
import { HttpError, NetworkError, PrsError, ServiceError, UsageError } from '../errors.js';
import { type Http, type HttpResponse, transportError } from '../http/client.js';
import {
  type AttemptFailure,
  MAX_RETRY_AFTER_MS,
  networkCodeOf,
  nextDelay,
  retryPolicy,
  waitLine,
} from '../http/retry.js';
import type { IO } from '../io.js';
import { readAnswer } from '../rows/answer.js';
import type { Settings } from '../settings.js';
import { ACCEPT_ENCODING, decodedBody, isDecodeError, malformedEncoding } from './decode.js';
import { errorForStatus, malformedResponse } from './errors-map.js';
import type { Limiter } from './limiter.js';
import { openLimiter } from './limiter-of.js';
import type { CallHooks, ExportResponse, ReportQuery, ReportResponse, Service } from './types.js';

export interface ServiceDeps {
  settings: Settings;
  session: Session;
  http: Http;
  clock: Clock;
  /** Every wait is a -v line; the Redis limiter's one warning goes to stderr. */
  io: IO;
  signal: AbortSignal;
  /** Jitter source; tests pass a fixed one. */
  random?: () => number;
}

export const API_PATH = '/api/v1/report-service/report/generate/portfolio';

/** Error bodies are read only this far: enough for a JSON message, never a whole page in memory. */
const ERROR_BODY_MAX = 16 * 1024;

interface Endpoint<T> {
  /** '' for the JSON report, '/export' for the file. */
  suffix: '' | '/export';
  query: Record<string, string>;
  accept: string;
  /** Behind the shared client-side limiter (spec §8 gives a limit for the JSON endpoint only). */
  limited: boolean;
  /** Turns a 200 into the result. A NetworkError thrown here (body cut off) is retried like any other. */
  onOk(res: HttpResponse): Promise<T>;
}

export function createService(d: ServiceDeps): Service {
  let limiter: Limiter | undefined;
  const random = d.random ?? Math.random;

  async function call<T>(q: ReportQuery, ep: Endpoint<T>, hooks: CallHooks): Promise<T> {
    const { baseUrl, tenant } = target(d.settings);
    const signal = hooks.signal ? AbortSignal.any([d.signal, hooks.signal]) : d.signal;
    const url = `${baseUrl}${API_PATH}/${q.portfolioId}${ep.suffix}?${new URLSearchParams({
      reportType: q.reportType,
      date: q.date,
      ...ep.query,
    })}`;
    const policy = retryPolicy(
      d.settings.retries,
      ep.limited ? { rateLimitWaitMs: d.settings.rateLimit.windowMs } : {},
    );
    // Every wait, the limiter's (whichever process or machine holds the slots) and the retries', is
    // a -v line and reaches the caller's onWait (progress, ETA): never a silent pause.
    const onWait: CallHooks['onWait'] = (ms, reason) => {
      d.io.debug(waitLine(ms, reason));
      hooks.onWait?.(ms, reason);
    };
    // The token first: a refresh (or a refusal) should come before a limiter slot is taken.
    let token = await d.session.token();
    let renewed = false;
    for (let retries = 0; ; retries++) {
      const sent = ep.limited ? await getLimiter(baseUrl, tenant).acquire({ onWait, signal }) : undefined;
      // A limiter wait can outlast the token's margin (up to a window: 60 s against 30 s): check it
      // again, so a token that ran out while waiting is renewed now rather than spent on a 401.
      // (Cheap: the session keeps the token in memory. The slot is re-dated at the response anyway.)
      if (sent !== undefined) token = await d.session.token();
      const req = {
        method: 'GET' as const,
        url,
        headers: {
          authorization: `Bearer ${token}`,
          'x-client-id': tenant,
          accept: ep.accept,
          'accept-encoding': ACCEPT_ENCODING,
        },
        signal,
      };
      let outcome: AttemptFailure;
      let failure: PrsError;
      // A 200 whose body broke off: retried like a network failure, but in the end it is a corrupt
      // response (exit 8), as for export. A body that stalls past --timeout stays a network timeout.
      let cutOff = false;
      try {
        // The server has seen the request once an answer (or a failure) is back: the slot counts from then.
        const res = await d.http.send(req).finally(() => {
          if (sent !== undefined) getLimiter(baseUrl, tenant).settle(sent);
        });
        if (res.status === 200) {
          const body = decodedBody(res.body, header(res, 'content-encoding'));
          return await ep.onOk({ ...res, body: body as HttpResponse['body'] }).catch((err) => {
            if (isDecodeError(err)) throw malformedEncoding(err);
            cutOff = !(err instanceof PrsError) || err instanceof NetworkError;
            throw err instanceof PrsError ? err : transportError(err, req, d.settings.timeoutMs);
          });
        }
        if (res.status === 401 && !renewed) {
          await discard(res);
          renewed = true;
          token = await d.session.renew(token);
          retries--; // the one re-authentication is not one of the --retries
          continue;
        }
        const body = await readCapped(res, ERROR_BODY_MAX);
        const contentType = header(res, 'content-type');
        failure = errorForStatus(res.status, body, contentType, {
          method: req.method,
          url,
          portfolioId: q.portfolioId,
          tenant,
          baseUrl,
          retries,
          ci: d.settings.ci,
        });
        outcome = { kind: 'status', status: res.status, retryAfter: header(res, 'retry-after') };
      } catch (err) {
        if (!(err instanceof NetworkError)) throw err;
        failure = err;
        outcome = { kind: 'network', code: networkCodeOf(err) };
      }
      const next = nextDelay(policy, retries + 1, outcome, d.clock.now(), random);
      if (next.action === 'give-up') {
        if (next.retryAfterMs !== undefined && failure instanceof HttpError) {
          throw tooLongToWait(failure, next.retryAfterMs, d.clock.now());
        }
        if (cutOff && outcome.kind === 'network' && outcome.code !== 'UND_ERR_BODY_TIMEOUT') {
          throw new ServiceError(
            `the response from ${new URL(url).host} broke off before its end (${failure.message})`,
            {
              cause: failure,
              hint:
                retries > 0
                  ? `the same happened on ${retries} ${retries === 1 ? 'retry' : 'retries'}`
                  : undefined,
            },
          );
        }
        throw failure;
      }
      // Tell every process sharing the limiter to hold back too, not just this one.
      if (ep.limited && outcome.kind === 'status' && outcome.status === 429) {
        await getLimiter(baseUrl, tenant).block(next.ms);
      }
      onWait(next.ms, next.reason);
      await d.clock.sleep(next.ms, signal);
    }
  }

  /** The export endpoint; `save` consumes the body inside the retry loop (Service.exportReportWith). */
  function exportCall<T>(
    q: ReportQuery & { format: ExportFormat },
    hooks: CallHooks,
    save: (res: ExportResponse) => Promise<T>,
  ): Promise<T> {
    const { format, ...rest } = q;
    return call<T>(
      rest,
      {
        suffix: '/export',
        query: { format },
        accept: format === 'csv' ? 'application/zip, */*;q=0.5' : 'application/json, */*;q=0.5',
        limited: false,
        async onOk(res) {
          const length = Number(header(res, 'content-length'));
          // A Content-Length counts the encoded bytes: nothing to hold the decoded body to.
          const sized =
            header(res, 'content-length') !== undefined && header(res, 'content-encoding') === undefined;
          const response: ExportResponse = {
            contentDisposition: header(res, 'content-disposition'),
            contentType: header(res, 'content-type'),
            contentLength: sized && Number.isFinite(length) ? length : undefined,
            body: res.body,
          };
          return save(response);
        },
      },
      hooks,
    );
  }

  function getLimiter(baseUrl: string, tenant: string): Limiter {
    limiter ??= openLimiter({
      settings: d.settings,
      baseUrl,
      tenant,
      identity: d.session.identity(),
      clock: d.clock,
      signal: d.signal,
      io: d.io,
    });
    return limiter;
  }

  return {
    report(q, hooks, use) {
      return call(
        q,
        {
          suffix: '',
          query: {},
          accept: 'application/json',
          limited: true,
          onOk(res) {
            const contentType = header(res, 'content-type');
            let read = false;
            const answer: ReportResponse = {
              read(sink) {
                if (read) throw new Error('internal: an answer read twice');
                read = true;
                return readAnswer(res.body, sink, (m) =>
                  malformedResponse(m.why, contentType, { baseUrl: d.settings.baseUrl! }, m.broken),
                );
              },
            };
            // An answer `use` did not read is dropped with its connection.
            return use(answer).finally(() => {
              if (!read) res.body.destroy();
            });
          },
        },
        hooks,
      );
    },
    exportReport(q, hooks = {}) {
      return exportCall(q, hooks, async (res) => res);
    },
    exportReportWith: exportCall,
    limiterState() {
      const { baseUrl, tenant } = target(d.settings);
      return getLimiter(baseUrl, tenant).peek();
    },
    async close() {
      // The HTTP client belongs to deps and is closed there; the limiter may still be writing.
      await limiter?.idle();
    },
  };
}

/**
 * The service asked for a wait longer than prs waits (MAX_RETRY_AFTER_MS): the same error (a 429
 * stays exit 7), failing now with the time the service named rather than waiting for nothing.
 */
export function tooLongToWait(failure: HttpError, ms: number, now: number): HttpError {
  const at = isoSeconds(now + ms);
  const Kind = failure.constructor as typeof HttpError;
  return new Kind(
    `${failure.message} — the service asks to wait ${waitText(ms)}, until ${at}; prs waits at most ${MAX_RETRY_AFTER_MS / 1000} s`,
    {
      status: failure.status,
      method: failure.method,
      url: failure.url,
      body: failure.body,
      cause: failure,
      hint: `run it again after ${at}`,
    },
  );
}

function waitText(ms: number): string {
  const s = Math.ceil(ms / 1000);
  if (s < 120) return `${s} s`;
  if (s < 7200) return `${Math.round(s / 60)} min`;
  return `${(s / 3600).toFixed(1)} h`;
}

/**
 * Base URL and tenant, or a usage error naming where to set them, before any request; on a machine
 * never logged in, exit 4 "not logged in" instead, whichever is missing.
 */
export function target(
  s: Pick<
    Settings,
    | 'baseUrl'
    | 'tenant'
    | 'ci'
    | 'profile'
    | 'token'
    | 'username'
    | 'password'
    | 'clientSecret'
    | 'grant'
    | 'sources'
  >,
): { baseUrl: string; tenant: string } {
  if ((!s.baseUrl || !s.tenant) && neverLoggedIn(s)) throw neverLoggedInError(s);
  if (!s.baseUrl) {
    throw new UsageError('no base URL for the report service', {
      hint: s.ci ? 'set PRS_BASE_URL' : 'pass --base-url, set PRS_BASE_URL, or run `prs login`',
    });
  }
  if (!s.tenant) {
    throw new UsageError('no tenant (sent as X-CLIENT-ID)', {
      hint: s.ci ? 'set PRS_TENANT' : 'pass --tenant, set PRS_TENANT, or run `prs login`',
    });
  }
  return { baseUrl: s.baseUrl, tenant: s.tenant };
}

function header(res: HttpResponse, name: string): string | undefined {
  const v = res.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

async function discard(res: HttpResponse): Promise<void> {
  await res.body.dump().catch(() => {});
}

/** The first `max` bytes of a body as text; the rest is thrown away and the stream destroyed. */
async function readCapped(res: HttpResponse, max: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of res.body) {
      chunks.push(chunk as Buffer);
      size += (chunk as Buffer).length;
      if (size >= max) break;
    }
  } catch {
    // A body cut off while reading an error is still an error: the status says enough.
  } finally {
    res.body.destroy();
  }
  return Buffer.concat(chunks).subarray(0, max).toString('utf8');
}
