/** Report answers for tests: a body as the service would hand it over, and an answer read whole. */
import type { Row } from '../../src/domain.js';
import { readAnswer } from '../../src/rows/answer.js';
import { malformedResponse } from '../../src/service/decode.js';
import type { CallHooks, ReportQuery, ReportResponse, Service } from '../../src/service/types.js';

/** An answer of this body, read through the row stream (in `chunk`-byte pieces), malformed as the service says it. */
export function answerOf(body: string | Buffer, chunk = 64 * 1024): ReportResponse {
  const bytes = typeof body === 'string' ? Buffer.from(body) : body;
  async function* chunks() {
    for (let i = 0; i < bytes.length; i += chunk) yield bytes.subarray(i, i + chunk);
  }
  return {
    read: (sink) =>
      readAnswer(chunks(), sink, (m) =>
        malformedResponse(m.why, undefined, 'https://reports.example.com', m.broken),
      ),
  };
}

/** One answer read whole: its (decoded) bytes and its rows. */
export async function readWhole(
  svc: Pick<Service, 'report'>,
  q: ReportQuery,
  hooks: CallHooks = {},
): Promise<{ bytes: Buffer; rows: Row[] }> {
  return svc.report(q, hooks, async (res) => {
    const parts: Buffer[] = [];
    const rows: Row[] = [];
    await res.read({
      bytes: (c) => void parts.push(Buffer.from(c)),
      rows: (r) => void rows.push(...r.objects()),
    });
    return { bytes: Buffer.concat(parts), rows };
  });
}
