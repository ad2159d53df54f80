import { identityOf } from '../auth/identity.js';
import { neverLoggedIn, neverLoggedInError } from '../auth/not-logged-in.js';
import type { Session, SessionDeps } from '../auth/session.js';
import { type Clock, durationText, isoSeconds } from '../clock.js';
import type { ExportFormat } from '../domain.js';
import {
  HttpError,
  httpFailure,
  NetworkError,
  PrsError,
  plural,
  ServiceError,
  UsageError,
} from '../errors.js';
import { type HttpResponse, header, shortMessage, transportError } from '../http/client.js';
import { type Failed, failedOn, MAX_RETRY_AFTER_MS, waitLine, withRetries } from '../http/retry.js';
import type { IO } from '../io.js';
import { redactUrlPassword } from '../redact.js';
import { readAnswer } from '../rows/answer.js';
import type { Settings } from '../settings.js';
import { ACCEPT_ENCODING, decodedBody, decodeFailure, malformedResponse } from './decode.js';
import { fileSlots, type Limiter, limiterFile, limiterKey, limiterOver } from './limiter.js';
import { redisSlots } from './limiter-redis.js';
import type { CallHooks, LimiterState, ReportQuery, Service } from './types.js';

type ServiceDeps = Omit<SessionDeps, 'store' | 'lock'> & { session: Session };

const API_PATH = '/api/v1/report-service/report/generate/portfolio';

const ERROR_BODY_MAX = 16 * 1024;

export function createService(d: ServiceDeps): Service {
  let limiter: Limiter | undefined;

  async function call<T>(
    q: ReportQuery & { format?: ExportFormat },
    hooks: CallHooks,
    endpoint: 'report' | 'export',
    accept: string,
    onOk: (res: HttpResponse) => Promise<T>,
  ): Promise<T> {
    const { baseUrl, tenant } = target(d.settings);
    const asked = { portfolioId: q.portfolioId, tenant, baseUrl, ci: d.settings.ci };
    const signal = hooks.signal ?? d.signal;
    const limited = endpoint === 'report';
    const { reportType, date, format } = q;
    const query = new URLSearchParams(format ? { reportType, date, format } : { reportType, date });
    const url = `${baseUrl}${API_PATH}/${q.portfolioId}${limited ? '' : '/export'}?${query}`;
    const policy = {
      limit: d.settings.retries,
      rateLimitWaitMs: limited ? d.settings.rateLimit.windowMs : undefined,
    };
    const onWait: CallHooks['onWait'] = (ms, reason) => {
      d.io.debug(...waitLine(ms, reason));
      hooks.onWait?.(ms, reason);
    };
    const headers = { 'x-client-id': tenant, accept, 'accept-encoding': ACCEPT_ENCODING };
    // The token first: a refresh (or a refusal) should come before a limiter slot is taken.
    let token = await d.session.token();
    const limiter = limited ? getLimiter() : undefined;
    let renewed = false;
    // A 200 whose body broke off: retried, but in the end a corrupt response (exit 8), not exit 9.
    let cutOff = false;
    const attempt = async (retries: number): Promise<{ ok: T } | Failed> => {
      const sent = await limiter?.acquire({ onWait, signal });
      // A limiter wait can outlast the token's margin: a token that ran out meanwhile is renewed now.
      if (sent !== undefined) token = await d.session.token();
      const sentHeaders = { authorization: `Bearer ${token}`, ...headers };
      const req = { method: 'GET' as const, url, endpoint, headers: sentHeaders, signal };
      cutOff = false;
      const tried = async (): Promise<{ ok: T } | Failed | undefined> => {
        const res = await d.http.send(req).finally(() => sent !== undefined && limiter?.settle(sent));
        if (res.status === 200) {
          const body = decodedBody(res.body, header(res, 'content-encoding'));
          const ok = await onOk({ ...res, body: body as HttpResponse['body'] }).catch((err) => {
            err = decodeFailure(err);
            cutOff = !(err instanceof PrsError) || err instanceof NetworkError;
            throw err instanceof PrsError ? err : transportError(err, req, d.settings.timeoutMs);
          });
          return { ok };
        }
        if (res.status === 401 && !renewed) {
          await res.body.dump().catch(() => {});
          renewed = true;
          token = await d.session.renew(token);
          return undefined;
        }
        const said = shortMessage(await readCapped(res.body, ERROR_BODY_MAX), header(res, 'content-type'));
        return {
          error: httpFailure({ ...asked, status: res.status, said, retries }),
          outcome: { kind: 'status', status: res.status, retryAfter: header(res, 'retry-after') },
        };
      };
      // undefined: renewed after a 401, which is not one of the --retries
      return (await tried().catch(failedOn)) ?? attempt(retries);
    };
    return withRetries(
      { policy, clock: d.clock, random: d.random, signal },
      attempt,
      async (ms, reason, outcome) => {
        if (outcome.kind === 'status' && outcome.status === 429) await limiter?.block(ms);
        onWait(ms, reason);
      },
      ({ outcome, error: failure }, retryAfterMs, retries) => {
        if (retryAfterMs !== undefined && failure instanceof HttpError) {
          const at = isoSeconds(d.clock.now() + retryAfterMs);
          return new HttpError(
            `${failure.message} — the service asks to wait ${durationText(retryAfterMs)}, until ${at}; prs waits at most ${MAX_RETRY_AFTER_MS / 1000} s`,
            { status: failure.status, cause: failure, hint: `run it again after ${at}` },
          );
        }
        if (cutOff && outcome.kind === 'network' && outcome.code !== 'UND_ERR_BODY_TIMEOUT') {
          const what = `the response from ${new URL(url).host} broke off before its end (${failure!.message})`;
          const again =
            retries > 0 ? `the same happened on ${retries} ${plural(retries, 'retry', 'retries')}` : '';
          return new ServiceError(what, { cause: failure, hint: again || undefined });
        }
        return failure!;
      },
    );
  }

  const getLimiter = () => (limiter ??= openLimiter(d.settings, d).limiter);

  return {
    report: (q, hooks, use) =>
      call(q, hooks, 'report', 'application/json', (res) => {
        const contentType = header(res, 'content-type');
        let read = false;
        return use({
          read(sink) {
            read = true;
            return readAnswer(res.body, sink, (m) =>
              malformedResponse(m.why, contentType, d.settings.baseUrl!, m.broken),
            );
          },
        }).finally(() => read || res.body.destroy());
      }),
    exportReport: (q, hooks, save) =>
      call(q, hooks, 'export', `application/${q.format === 'csv' ? 'zip' : 'json'}, */*;q=0.5`, (res) => {
        // A Content-Length counts the encoded bytes.
        const length = header(res, 'content-encoding') ? NaN : Number(header(res, 'content-length') ?? NaN);
        return save({
          contentDisposition: header(res, 'content-disposition'),
          contentType: header(res, 'content-type'),
          contentLength: Number.isFinite(length) ? length : undefined,
          body: res.body,
        });
      }),
    limiterState: () => getLimiter().peek(),
    async close() {
      await limiter?.idle();
    },
  };
}

type LimiterDeps = { clock: Clock; signal?: AbortSignal; io: Pick<IO, 'warn' | 'debug'> };

function openLimiter(s: Settings, d: LimiterDeps) {
  const { baseUrl, tenant } = target(s);
  const { rateLimit: rate, limiter: url } = s;
  const { warn, debug } = d.io;
  const file = limiterFile(s.cacheDir, baseUrl, tenant, identityOf(s));
  const fallback = (seed?: LimiterState) => fileSlots({ file, clock: d.clock, warn, seed });
  const hash = limiterKey(baseUrl, tenant, identityOf(s));
  const slots = url ? redisSlots({ url, hash, rate, fallback, warn, debug }) : fallback();
  return { limiter: limiterOver(slots, rate, d.clock, d.signal), file };
}

export async function peekLimiter(s: Settings, d: LimiterDeps) {
  const { limiter, file } = openLimiter(s, d);
  try {
    const peeked = await limiter.peek();
    const place =
      s.limiter && !peeked.local
        ? { kind: 'redis' as const, where: redactUrlPassword(s.limiter) }
        : { kind: 'file' as const, where: file };
    return { ...peeked, place };
  } finally {
    await limiter.idle();
  }
}

/** Base URL and tenant, or a usage error naming where to set them (never logged in: exit 4). */
export function target(
  s: Parameters<typeof neverLoggedIn>[0] & Pick<Settings, 'baseUrl' | 'tenant' | 'ci' | 'profile'>,
): { baseUrl: string; tenant: string } {
  if ((!s.baseUrl || !s.tenant) && neverLoggedIn(s)) throw neverLoggedInError(s);
  const missing = (what: string, flag: string, env: string) =>
    new UsageError(what, { hint: s.ci ? `set ${env}` : `pass ${flag}, set ${env}, or run \`prs login\`` });
  if (!s.baseUrl) throw missing('no base URL for the report service', '--base-url', 'PRS_BASE_URL');
  if (!s.tenant) throw missing('no tenant (sent as X-CLIENT-ID)', '--tenant', 'PRS_TENANT');
  return { baseUrl: s.baseUrl, tenant: s.tenant };
}

async function readCapped(body: HttpResponse['body'], max: number): Promise<string> {
  let text = '';
  try {
    // Leaving the loop early destroys the body (and so the request).
    for await (const chunk of body.setEncoding('utf8')) {
      text += chunk;
      if (text.length >= max) break;
    }
  } catch {}
  return text.slice(0, max);
}
