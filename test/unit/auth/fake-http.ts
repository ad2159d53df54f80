/** A strict fake of the token endpoint: every request must match the next queued answer, none may be left. */
import { expect } from 'vitest';
import type { Http, HttpRequest, HttpResponse } from '../../../src/http/client.js';

export interface Answer {
  /** Checks the request's form (parsed); throw or use expect() inside. */
  expect?: (form: URLSearchParams, req: HttpRequest) => void;
  status?: number;
  body?: unknown;
  /** Raw text instead of JSON. */
  text?: string;
  contentType?: string;
  /** More response headers (Retry-After). */
  headers?: Record<string, string>;
  /** Throw this instead of answering (a transport failure). */
  error?: Error;
}

export interface FakeHttp extends Http {
  requests: { url: string; form: URLSearchParams }[];
  queue(...answers: Answer[]): void;
  /** Asserts every queued answer was used. */
  done(): void;
}

export function fakeHttp(): FakeHttp {
  const answers: Answer[] = [];
  const requests: FakeHttp['requests'] = [];
  return {
    requests,
    queue: (...a) => answers.push(...a),
    done: () => expect(answers, 'unused fake answers').toEqual([]),
    async send(req): Promise<HttpResponse> {
      const a = answers.shift();
      if (!a) throw new Error(`unexpected request: ${req.method} ${req.url} ${req.form ?? ''}`);
      const form = new URLSearchParams(req.form ?? '');
      requests.push({ url: req.url, form });
      a.expect?.(form, req);
      if (a.error) throw a.error;
      const text = a.text ?? JSON.stringify(a.body ?? {});
      return {
        status: a.status ?? 200,
        headers: {
          'content-type': a.contentType ?? (a.text === undefined ? 'application/json' : 'text/html'),
          ...a.headers,
        },
        body: { text: async () => text } as unknown as HttpResponse['body'],
      };
    },
    close: async () => {},
  };
}

/** A Keycloak-like token answer. */
export function tokens(
  n: number,
  o: { expiresIn?: number; refreshExpiresIn?: number; refresh?: boolean } = {},
) {
  return {
    access_token: `access-${n}`,
    expires_in: o.expiresIn ?? 300,
    ...(o.refresh === false
      ? {}
      : { refresh_token: `refresh-${n}`, refresh_expires_in: o.refreshExpiresIn ?? 1800 }),
    token_type: 'Bearer',
  };
}
