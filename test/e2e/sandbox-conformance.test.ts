/**
 * Conformance of the sandbox to the spec (§2, §4, §5, §7, §8) and to Keycloak's token endpoint:
 * one test per rule, against an in-process sandbox over real HTTP.
 */
import { parse as parseCsv } from 'csv-parse/sync';
import { Unzip, UnzipPassThrough, unzipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPORT_TYPES, type ReportType } from '../../src/domain.js';
import type { Sandbox, SandboxOptions } from '../../src/sandbox/index.js';
import { sandboxTokens, tokenRequest, useSandbox, useSandboxes } from '../helpers/session.js';

const PATH = '/api/v1/report-service/report/generate/portfolio/';
const T0 = Date.UTC(2024, 4, 1, 6, 0, 0);

/** The sandboxes of single tests (their own options): closed after the file's tests. */
const newSandbox = useSandboxes();

/** A sandbox whose clock the test moves. */
async function clocked(o: SandboxOptions = {}) {
  let now = T0;
  const sb = await newSandbox({ ...o, clock: () => now });
  return { sb, advance: (ms: number) => (now += ms) };
}

const passwordGrant = (sb: Sandbox, user = 'demo', password = user) => ({
  grant_type: 'password',
  client_id: sb.clientId,
  client_secret: sb.clientSecret,
  username: user,
  password,
});

interface Call {
  token?: string;
  tenant?: string | null;
}

/** GET <path> with a bearer token and X-CLIENT-ID (tenant null: no header). */
async function call(sb: Sandbox, path: string, o: Call = {}) {
  const headers: Record<string, string> = {};
  if (o.token) headers.authorization = `Bearer ${o.token}`;
  if (o.tenant !== null) headers['x-client-id'] = o.tenant ?? 'demo-tenant';
  const res = await fetch(sb.url + (path.startsWith('/') ? path : PATH + path), { headers });
  const bytes = Buffer.from(await res.arrayBuffer());
  return { status: res.status, headers: res.headers, bytes, text: bytes.toString('utf8') };
}

const q = (id: string | number, type: string, date: string, extra = '') =>
  `${id}?reportType=${type}&date=${date}${extra}`;
const qx = (id: string | number, type: string, date: string, extra = '') =>
  `${id}/export?reportType=${type}&date=${date}${extra}`;

// ---- zip helpers: the central directory's CRC must match the content -------------------------------

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
function crc32(data: Uint8Array, crc = 0): number {
  let c = ~crc >>> 0;
  for (let i = 0; i < data.length; i++) c = CRC_TABLE[(c ^ data[i]) & 0xff] ^ (c >>> 8);
  return ~c >>> 0;
}

interface ZipEntry {
  name: string;
  crc: number;
  size: number;
  method: number;
}
/** Entries of the central directory (found back from the end record, so the tail of a zip is enough). */
function centralDirectory(zip: Buffer): ZipEntry[] {
  const eocd = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  expect(eocd).toBeGreaterThan(0);
  const count = zip.readUInt16LE(eocd + 10);
  let p = eocd - zip.readUInt32LE(eocd + 12);
  const out: ZipEntry[] = [];
  for (let i = 0; i < count; i++) {
    expect(zip.readUInt32LE(p)).toBe(0x02014b50);
    const nameLen = zip.readUInt16LE(p + 28);
    out.push({
      method: zip.readUInt16LE(p + 10),
      crc: zip.readUInt32LE(p + 16),
      size: zip.readUInt32LE(p + 24),
      name: zip.subarray(p + 46, p + 46 + nameLen).toString('utf8'),
    });
    p += 46 + nameLen + zip.readUInt16LE(p + 30) + zip.readUInt16LE(p + 32);
  }
  return out;
}
/** The one member of a zip, its CRC checked. */
function zipMember(zip: Buffer): { name: string; text: string } {
  const entries = centralDirectory(zip);
  expect(entries).toHaveLength(1);
  const files = unzipSync(new Uint8Array(zip));
  const data = files[entries[0].name];
  expect(data).toBeDefined();
  expect(data.length).toBe(entries[0].size);
  expect(crc32(data)).toBe(entries[0].crc);
  return { name: entries[0].name, text: Buffer.from(data).toString('utf8') };
}

// ---- the spec's field lists ------------------------------------------------------------------------

const INDEX_FIELDS = [
  'effectiveDate',
  'indexId',
  'indexName',
  'indexValue',
  'currency',
  'closeMarketValue',
  'openMarketValue',
  'closeDivisor',
  'openDivisor',
];
const CONSTITUENT_FIELDS = [
  'effectiveDate',
  'isin',
  'securityName',
  'securityTicker',
  'closingPrice',
  'currency',
  'closingFx',
  'indexShares',
  'indexWeighting',
];
const CA_FIELDS = [
  'indexId',
  'indexName',
  'isin',
  'sedol',
  'securityTicker',
  'securityRic',
  'currency',
  'eventId',
  'eventType',
  'eventSubType',
  'mandVol',
  'status',
  'announceDate',
  'exDate',
  'recordDate',
  'payDate',
  'effectiveDate',
  'rebalanceDate',
  'oldShares',
  'newShares',
  'oldPrice',
  'newPrice',
  'paf',
  'saf',
  'cashFlowPerShare',
  'cashFlowPerShareCurrency',
];
const CA_NULLABLE = [
  'sedol',
  'securityRic',
  'eventSubType',
  'announceDate',
  'recordDate',
  'payDate',
  'rebalanceDate',
];
const FIELDS: Record<ReportType, string[]> = {
  index: INDEX_FIELDS,
  'constituent.close': CONSTITUENT_FIELDS,
  'constituent.open': CONSTITUENT_FIELDS,
  'constituent.proforma': CONSTITUENT_FIELDS,
  'constituent.corporateactions': CA_FIELDS,
  'constituent.proformacorporateactions': CA_FIELDS,
};
const TYPES_OF: Record<string, 'string' | 'number' | 'object' | 'date'> = {
  effectiveDate: 'date',
  exDate: 'date',
  indexValue: 'number',
  closeMarketValue: 'number',
  openMarketValue: 'number',
  closeDivisor: 'number',
  openDivisor: 'number',
  closingPrice: 'number',
  closingFx: 'number',
  indexShares: 'number',
  indexWeighting: 'number',
  oldPrice: 'number',
  newPrice: 'number',
  paf: 'number',
  saf: 'number',
  cashFlowPerShare: 'number',
  oldShares: 'object',
  newShares: 'object',
};

const CSV_CONSTITUENT_HEADER =
  'Effective Date,ISIN,Security Name,Security Ticker,Exchange Code,Closing Price,Currency,Closing Fx,Index Shares,Index Weighting';

// -----------------------------------------------------------------------------------------------------

const sb = useSandbox({ rateLimit: '100000/60s' });
let token: string;
beforeAll(async () => {
  token = (await sandboxTokens(sb)).access_token;
});

describe('token endpoint (Keycloak)', () => {
  it('password grant: Keycloak-shaped answer, a signed JWT carrying user, tenant and expiry', async () => {
    const res = await tokenRequest(sb, passwordGrant(sb));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json');
    const body = (await res.json()) as Record<string, unknown>;
    expect(body).toMatchObject({ expires_in: 300, refresh_expires_in: 1800, token_type: 'Bearer' });
    const [head, payload, sig] = String(body.access_token).split('.');
    expect(JSON.parse(Buffer.from(head, 'base64url').toString())).toMatchObject({ alg: 'HS256', typ: 'JWT' });
    expect(sig.length).toBeGreaterThan(20);
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString());
    expect(claims).toMatchObject({ preferred_username: 'demo', tenant: 'demo-tenant', azp: 'prs-cli' });
    expect(claims.exp - claims.iat).toBeGreaterThanOrEqual(300);
    expect(typeof body.refresh_token).toBe('string');
  });

  it.each([
    ['wrong password', { password: 'nope' }, 401, 'invalid_grant', 'Invalid user credentials'],
    ['unknown user', { username: 'ghost' }, 401, 'invalid_grant', 'Invalid user credentials'],
    [
      'wrong client secret',
      { client_secret: 'x' },
      401,
      'unauthorized_client',
      'Invalid client or Invalid client credentials',
    ],
    [
      'unknown client',
      { client_id: 'x' },
      401,
      'unauthorized_client',
      'Invalid client or Invalid client credentials',
    ],
    [
      'unsupported grant',
      { grant_type: 'implicit' },
      400,
      'unsupported_grant_type',
      'Unsupported grant_type',
    ],
    [
      'client_credentials for the user client (no service account)',
      { grant_type: 'client_credentials' },
      400,
      'unauthorized_client',
      'Client not enabled to retrieve service account',
    ],
    [
      'password grant for the service-account client',
      { client_id: 'prs-robot', client_secret: 'robot-secret' },
      400,
      'unauthorized_client',
      'Client not allowed for direct access grants',
    ],
    ['missing grant_type', { grant_type: '' }, 400, 'invalid_request', 'Missing form parameter: grant_type'],
    ['missing username', { username: '' }, 400, 'invalid_request', 'Missing parameter: username'],
  ])('%s → %i %s', async (_name, change, status, error, description) => {
    const fields = { ...passwordGrant(sb), ...change };
    for (const [k, v] of Object.entries(fields)) if (v === '') delete (fields as Record<string, string>)[k];
    const res = await tokenRequest(sb, fields);
    expect(res.status).toBe(status);
    expect(await res.json()).toEqual({ error, error_description: description });
  });

  it('reads only form fields: a JSON body is a request without grant_type', async () => {
    const res = await fetch(`${sb.authUrl}/realms/${sb.realm}/protocol/openid-connect/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(passwordGrant(sb)),
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: 'invalid_request' });
  });

  it('a form past 64 KiB → 413 (read, never held whole); the next request is answered', async () => {
    const res = await fetch(`${sb.authUrl}/realms/${sb.realm}/protocol/openid-connect/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ ...passwordGrant(sb), pad: 'x'.repeat(65 * 1024) }),
    });
    expect(res.status).toBe(413);
    expect(await res.json()).toEqual({
      error: 'server_error',
      error_description: 'Request Entity Too Large',
    });
    expect((await tokenRequest(sb, passwordGrant(sb))).status).toBe(200);
  });

  it('another realm in the token URL → 404', async () => {
    const res = await tokenRequest(sb, passwordGrant(sb), 'nope');
    expect(res.status).toBe(404);
    const malformed = await tokenRequest(sb, passwordGrant(sb), '%E0%A4%A');
    expect(malformed.status).toBe(404);
  });

  it('refresh grant: new working tokens; expired after refresh-ttl: 400 "Token is not active"; garbage: "Invalid refresh token"', async () => {
    const { sb: s, advance } = await clocked({ tokenTtl: 60, refreshTtl: 120 });
    try {
      const first = await sandboxTokens(s);
      const refresh = (rt: string) =>
        tokenRequest(s, {
          grant_type: 'refresh_token',
          client_id: s.clientId,
          client_secret: s.clientSecret,
          refresh_token: rt,
        });
      advance(119_000);
      const ok = await refresh(first.refresh_token);
      expect(ok.status).toBe(200);
      const second = (await ok.json()) as { access_token: string };
      expect((await call(s, q(42, 'index', '2024-05-01'), { token: second.access_token })).status).toBe(200);
      advance(1000);
      const late = await refresh(first.refresh_token);
      expect(late.status).toBe(400);
      expect(await late.json()).toEqual({ error: 'invalid_grant', error_description: 'Token is not active' });
      const junk = await refresh('not-a-token');
      expect(junk.status).toBe(400);
      expect(await junk.json()).toEqual({
        error: 'invalid_grant',
        error_description: 'Invalid refresh token',
      });
    } finally {
      await s.close();
    }
  });
});

describe('report endpoints: statuses and their conditions', () => {
  const both = [['JSON', q] as const, ['export', qx] as const];

  it.each(both)(
    '%s: 401 without a token, with WWW-Authenticate and a Spring-style body',
    async (_n, path) => {
      const r = await call(sb, path(42, 'index', '2024-05-01'));
      expect(r.status).toBe(401);
      expect(r.headers.get('www-authenticate')).toBe('Bearer realm="prs-sandbox"');
      expect(JSON.parse(r.text)).toMatchObject({ status: 401, error: 'Unauthorized' });
    },
  );

  it.each(both)('%s: 401 with a bad token, error="invalid_token"', async (_n, path) => {
    for (const bad of ['garbage', `${token}x`, (await sandboxTokens(sb)).refresh_token]) {
      const r = await call(sb, path(42, 'index', '2024-05-01'), { token: bad });
      expect(r.status).toBe(401);
      expect(r.headers.get('www-authenticate')).toMatch(/^Bearer realm="prs-sandbox", error="invalid_token"/);
    }
  });

  it('401 with an expired token (clock)', async () => {
    const { sb: s, advance } = await clocked({ tokenTtl: 5 });
    try {
      const t = (await sandboxTokens(s)).access_token;
      expect((await call(s, q(42, 'index', '2024-05-01'), { token: t })).status).toBe(200);
      advance(5000);
      const r = await call(s, qx(42, 'index', '2024-05-01'), { token: t });
      expect(r.status).toBe(401);
      expect(r.headers.get('www-authenticate')).toContain('error_description="Token expired"');
    } finally {
      await s.close();
    }
  });

  it('without a clock option the sandbox keeps real time: a token expires token-ttl after it was issued', async () => {
    // Read from the token rather than slept past: the clock test above shows what expiry does.
    const s = await newSandbox({ tokenTtl: 7 });
    const before = Math.floor(Date.now() / 1000);
    const t = (await sandboxTokens(s)).access_token;
    const claims = JSON.parse(Buffer.from(t.split('.')[1]!, 'base64url').toString());
    expect(claims.iat).toBeGreaterThanOrEqual(before);
    expect(claims.iat).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000));
    expect(claims.exp - claims.iat).toBeGreaterThanOrEqual(7);
    expect(claims.exp - claims.iat).toBeLessThanOrEqual(8);
  });

  it('revokeTokens(): current access tokens answer 401; refresh and new logins still work', async () => {
    const s = await newSandbox();
    try {
      const tokens = await sandboxTokens(s);
      s.revokeTokens();
      expect((await call(s, qx(42, 'index', '2024-05-01'), { token: tokens.access_token })).status).toBe(401);
      const refreshed = await tokenRequest(s, {
        grant_type: 'refresh_token',
        client_id: s.clientId,
        client_secret: s.clientSecret,
        refresh_token: tokens.refresh_token,
      });
      const fresh = ((await refreshed.json()) as { access_token: string }).access_token;
      expect((await call(s, qx(42, 'index', '2024-05-01'), { token: fresh })).status).toBe(200);
      s.revokeTokens({ refresh: true });
      const again = await tokenRequest(s, {
        grant_type: 'refresh_token',
        client_id: s.clientId,
        client_secret: s.clientSecret,
        refresh_token: tokens.refresh_token,
      });
      expect(again.status).toBe(400);
    } finally {
      await s.close();
    }
  });

  it.each(both)(
    '%s: 403 without X-CLIENT-ID or with another tenant; the other user is fine in its own',
    async (_n, path) => {
      const p = path(42, 'index', '2024-05-01');
      expect((await call(sb, p, { token, tenant: null })).status).toBe(403);
      const wrong = await call(sb, p, { token, tenant: 'other-tenant' });
      expect(wrong.status).toBe(403);
      expect(JSON.parse(wrong.text)).toMatchObject({ status: 403, error: 'Forbidden' });
      const other = (await sandboxTokens(sb, 'other')).access_token;
      expect((await call(sb, p, { token: other, tenant: 'other-tenant' })).status).toBe(200);
      expect((await call(sb, p, { token: other, tenant: 'demo-tenant' })).status).toBe(403);
    },
  );

  const badRequests: [string, string][] = [
    ['non-integer id', 'abc?reportType=index&date=2024-05-01'],
    ['decimal id', '4.2?reportType=index&date=2024-05-01'],
    ['id beyond 32 bits', '99999999999?reportType=index&date=2024-05-01'],
    ['missing reportType', '42?date=2024-05-01'],
    ['unknown reportType', '42?reportType=constituent&date=2024-05-01'],
    ['reportType in the wrong case', '42?reportType=INDEX&date=2024-05-01'],
    ['missing date', '42?reportType=index'],
    ['impossible date', '42?reportType=index&date=2024-02-30'],
    ['date in another format', '42?reportType=index&date=01.05.2024'],
    ['date word', '42?reportType=index&date=today'],
  ];
  it.each(badRequests)('JSON: 400 for %s', async (_n, p) => {
    const r = await call(sb, p, { token });
    expect(r.status).toBe(400);
    expect(JSON.parse(r.text)).toMatchObject({ status: 400, error: 'Bad Request' });
  });
  it.each(badRequests)('export: 400 for %s', async (_n, p) => {
    const [id, query] = p.split('?');
    expect((await call(sb, `${id}/export?${query}`, { token })).status).toBe(400);
  });
  it('export: 400 for a bad format; the JSON endpoint ignores format', async () => {
    expect((await call(sb, qx(42, 'index', '2024-05-01', '&format=xml'), { token })).status).toBe(400);
    expect((await call(sb, qx(42, 'index', '2024-05-01', '&format=CSV'), { token })).status).toBe(400);
    expect((await call(sb, q(42, 'index', '2024-05-01', '&format=xml'), { token })).status).toBe(200);
  });

  it.each(both)('%s: 404 for an unknown portfolio', async (_n, path) => {
    const r = await call(sb, path(999, 'index', '2024-05-01'), { token });
    expect(r.status).toBe(404);
    expect(JSON.parse(r.text)).toMatchObject({ status: 404, error: 'Not Found' });
  });

  it('404 for unknown paths, with or without a token', async () => {
    for (const p of [
      '/',
      '/api/v1/report-service/report/generate/portfolio',
      `${PATH}42/export/x`,
      '/api/v2/x',
    ]) {
      expect((await call(sb, p)).status).toBe(404);
      expect((await call(sb, p, { token })).status).toBe(404);
    }
  });

  it('405 for a method other than GET (the spec: both endpoints are GET); POST only on the token endpoint', async () => {
    for (const path of [q(42, 'index', '2024-05-01'), qx(42, 'index', '2024-05-01')]) {
      const res = await fetch(sb.url + PATH + path, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'x-client-id': 'demo-tenant' },
      });
      expect([res.status, res.headers.get('allow')]).toEqual([405, 'GET']);
    }
    const get = await fetch(`${sb.authUrl}/realms/${sb.realm}/protocol/openid-connect/token`);
    expect([get.status, get.headers.get('allow')]).toEqual([405, 'POST']);
  });

  it('checks in order: 401, then 403, then 400, then 404', async () => {
    const bad = '7x?reportType=nope';
    expect((await call(sb, bad, { tenant: 'other-tenant' })).status).toBe(401);
    expect((await call(sb, bad, { token, tenant: 'other-tenant' })).status).toBe(403);
    expect((await call(sb, '999?reportType=nope&date=2024-05-01', { token })).status).toBe(400);
    expect((await call(sb, q(999, 'index', '2024-05-01'), { token })).status).toBe(404);
  });

  it('429 with Retry-After past the JSON limit (sliding window, per user); invalid requests do not count', async () => {
    const { sb: s, advance } = await clocked({ rateLimit: '2/10s' });
    try {
      const t = (await sandboxTokens(s)).access_token;
      const other = (await sandboxTokens(s, 'other')).access_token;
      const ask = (tk = t, tenant = 'demo-tenant') =>
        call(s, q(42, 'index', '2024-05-01'), { token: tk, tenant });
      expect((await call(s, q(999, 'index', '2024-05-01'), { token: t })).status).toBe(404);
      expect((await ask()).status).toBe(200); // t=0
      advance(3000);
      expect((await ask()).status).toBe(200); // t=3 s
      advance(1000);
      const limited = await ask(); // t=4 s: the first slot frees at 10 s
      expect(limited.status).toBe(429);
      expect(limited.headers.get('retry-after')).toBe('6');
      expect(JSON.parse(limited.text)).toMatchObject({ status: 429, error: 'Too Many Requests' });
      // 429 beats nothing but 200: a 404 stays a 404 while limited.
      expect((await call(s, q(999, 'index', '2024-05-01'), { token: t })).status).toBe(404);
      expect((await ask(other, 'other-tenant')).status).toBe(200); // another user, another window
      advance(5999);
      expect((await ask()).headers.get('retry-after')).toBe('1');
      advance(1);
      expect((await ask()).status).toBe(200); // t=10 s
      expect(s.stats.count({ endpoint: 'report', status: 429 })).toBe(2);
    } finally {
      await s.close();
    }
  });

  it("by default the spec's limit: 4 requests per 60 seconds, then 429 until the first slot frees", async () => {
    const { sb: s, advance } = await clocked();
    const t = (await sandboxTokens(s)).access_token;
    const ask = () => call(s, q(42, 'index', '2024-05-01'), { token: t });
    for (let i = 0; i < 4; i++) expect((await ask()).status).toBe(200);
    const limited = await ask();
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('60');
    advance(60_000);
    expect((await ask()).status).toBe(200);
  });

  it('429 in real time with a short window (2/1s), and the export endpoint is never limited', async () => {
    const s = await newSandbox({ rateLimit: '2/1s' });
    try {
      const t = (await sandboxTokens(s)).access_token;
      const statuses: number[] = [];
      for (let i = 0; i < 3; i++)
        statuses.push((await call(s, q(42, 'index', '2024-05-01'), { token: t })).status);
      expect(statuses.slice(0, 2)).toEqual([200, 200]);
      // The third is limited unless a whole second passed (a very slow machine): either way the rule held.
      if (statuses[2] === 429) expect(s.stats.count({ status: 429 })).toBe(1);
      for (let i = 0; i < 10; i++)
        expect((await call(s, qx(42, 'index', '2024-05-01'), { token: t })).status).toBe(200);
      expect(s.stats.count({ endpoint: 'export', status: 429 })).toBe(0);
    } finally {
      await s.close();
    }
  });

  it('500 from the broken portfolio, with a Spring-style body', async () => {
    const r = await call(sb, q(500, 'index', '2024-05-01'), { token });
    expect(r.status).toBe(500);
    expect(JSON.parse(r.text)).toMatchObject({ status: 500, error: 'Internal Server Error' });
  });
});

describe('report bodies', () => {
  it('JSON endpoint: {"report":[...]} as application/json', async () => {
    const r = await call(sb, q(42, 'index', '2023-06-29'), { token });
    expect(r.headers.get('content-type')).toBe('application/json');
    expect(r.text.startsWith('{"report":[{')).toBe(true);
    expect(JSON.parse(r.text).report).toHaveLength(2);
  });

  it('portfolio 42 carries the public example values', async () => {
    const index = JSON.parse((await call(sb, q(42, 'index', '2023-06-29'), { token })).text).report;
    expect(index.map((r: { indexName: string }) => r.indexName)).toEqual([
      'Example 600 OG EUR',
      'Example 600 OG JPY',
    ]);
    expect(index[0]).toMatchObject({
      effectiveDate: '2023-06-29',
      indexValue: 1302.917413,
      currency: 'EUR',
      closeMarketValue: 13029174,
    });
    expect(index[1]).toMatchObject({ closeDivisor: 1366099.984339 });
    const close = JSON.parse(
      (await call(sb, q(42, 'constituent.close', '2023-06-29'), { token })).text,
    ).report;
    expect(close[0]).toEqual({
      effectiveDate: '2023-06-29',
      isin: 'EU0009654569',
      securityName: 'STOXX Example 600 OIL & GAS NET EUR',
      securityTicker: 'SXER Index',
      closingPrice: 996.57944,
      currency: 'EUR',
      closingFx: 1,
      indexShares: 6549.996509,
      indexWeighting: 0.500998,
    });
  });

  it.each(REPORT_TYPES.map((t) => [t]))(
    '%s: every row has the spec fields, in spec order, first',
    async (type) => {
      for (const id of [1, 7, 13, 42, 900]) {
        const rows = JSON.parse((await call(sb, q(id, type, '2024-05-02'), { token })).text).report as Record<
          string,
          unknown
        >[];
        expect(rows.length).toBeGreaterThan(0);
        // Every row is checked, its faults collected and compared once: an expect per field of
        // 20,000 rows (portfolio 7) cost more than the sandbox's answers.
        const faults: string[] = [];
        const fault = (i: number, what: string) => faults.push(`${id} row ${i}: ${what}`);
        const keysOf = (v: unknown) => JSON.stringify(Object.keys(v as object));
        rows.forEach((row, i) => {
          const head = Object.keys(row).slice(0, FIELDS[type].length);
          if (JSON.stringify(head) !== JSON.stringify(FIELDS[type])) fault(i, `fields ${head}`);
          for (const f of FIELDS[type]) {
            const v = row[f];
            if (v === null) {
              if (!CA_NULLABLE.includes(f)) fault(i, `${f} is null`);
              continue;
            }
            const want =
              TYPES_OF[f] ??
              (f === 'indexId' || f === 'indexName' ? (type === 'index' ? 'string' : 'object') : 'string');
            if (want === 'date') {
              if (typeof v !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(v)) fault(i, `${f} ${v} is no date`);
            } else if (typeof v !== want) fault(i, `${f} is a ${typeof v}, not a ${want}`);
          }
          if (FIELDS[type] === CA_FIELDS) {
            for (const f of ['indexId', 'indexName'])
              if (keysOf(row[f]) !== '["Net","Price","Total"]') fault(i, `${f} keys ${keysOf(row[f])}`);
            for (const f of ['oldShares', 'newShares'])
              if (keysOf(row[f]) !== '["Price","Total","Net"]') fault(i, `${f} keys ${keysOf(row[f])}`);
            for (const v of Object.values(row.oldShares as object))
              if (typeof v !== 'number') fault(i, `oldShares holds a ${typeof v}`);
          }
        });
        expect({ faults: faults.length, first: faults.slice(0, 10) }).toEqual({ faults: 0, first: [] });
      }
    },
  );

  it('corporate actions show null in each field the spec marks nullable', async () => {
    const seenNull = new Set<string>();
    for (const date of ['2024-05-01', '2024-05-02', '2024-05-03']) {
      for (const type of ['constituent.corporateactions', 'constituent.proformacorporateactions']) {
        const rows = JSON.parse((await call(sb, q(7, type, date), { token })).text).report as Record<
          string,
          unknown
        >[];
        for (const row of rows) for (const f of CA_NULLABLE) if (row[f] === null) seenNull.add(f);
      }
    }
    expect([...seenNull].sort()).toEqual([...CA_NULLABLE].sort());
  });

  it('rows may carry extra fields after the spec ones (7 does, 42 does not)', async () => {
    const wide = JSON.parse((await call(sb, q(7, 'constituent.close', '2024-05-02'), { token })).text)
      .report[0];
    expect(Object.keys(wide).slice(CONSTITUENT_FIELDS.length)).toEqual([
      'exchangeCode',
      'sedol',
      'country',
      'sector',
    ]);
    const plain = JSON.parse((await call(sb, q(42, 'constituent.close', '2024-05-02'), { token })).text)
      .report[0];
    expect(Object.keys(plain)).toEqual(CONSTITUENT_FIELDS);
  });

  it('export json: the bare array of the JSON endpoint, application/json, named after the rows', async () => {
    const json = await call(sb, q(42, 'index', '2023-06-29'), { token });
    const file = await call(sb, qx(42, 'index', '2023-06-29'), { token });
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toBe('application/json');
    expect(file.headers.get('content-disposition')).toBe(
      'attachment; filename="2023-06-29_Example_600_OG_index.json"',
    );
    expect(`{"report":${file.text}}`).toBe(json.text);
    // format=json is the default.
    expect((await call(sb, qx(42, 'index', '2023-06-29', '&format=json'), { token })).text).toBe(file.text);
  });

  it('export csv: a valid zip (CRC checked) with one CSV member, the spec columns and the public line', async () => {
    const r = await call(sb, qx(42, 'constituent.close', '2023-06-30', '&format=csv'), { token });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('application/zip');
    expect(r.headers.get('content-disposition')).toBe(
      'attachment; filename="2023-06-30_Example_600_OG_index.zip"',
    );
    const { name, text } = zipMember(r.bytes);
    expect(name).toBe('2023-06-30_Example_600_OG_index.csv');
    const lines = text.split('\n');
    expect(lines[0]).toBe(CSV_CONSTITUENT_HEADER);
    expect(lines).toContain(
      '2023-06-30,CH0102878927,STOXX EXAMPLE 600 OIL & GAS GROSS EUR,SXEGR Index,,242.76633,EUR,1,13417.402222,0.25',
    );
    expect(lines.at(-1)).toBe('');
    expect(lines).toHaveLength(1 + 4 + 1);
  });

  it.each([
    ['constituent.open', CSV_CONSTITUENT_HEADER],
    ['constituent.proforma', CSV_CONSTITUENT_HEADER],
    [
      'index',
      'Effective Date,Index ID,Index Name,Index Value,Currency,Close Market Value,Open Market Value,Close Divisor,Open Divisor',
    ],
    [
      'constituent.corporateactions',
      'Index ID Net,Index ID Price,Index ID Total,Index Name Net,Index Name Price,Index Name Total,ISIN,SEDOL,Security Ticker,Security RIC,Currency,Event ID,Event Type,Event Sub Type,Mand Vol,Status,Announce Date,Ex Date,Record Date,Pay Date,Effective Date,Rebalance Date,Old Shares Price,Old Shares Total,Old Shares Net,New Shares Price,New Shares Total,New Shares Net,Old Price,New Price,PAF,SAF,Cash Flow Per Share,Cash Flow Per Share Currency',
    ],
  ])('export csv of %s: documented header, one line per row', async (type, header) => {
    const rows = JSON.parse((await call(sb, q(7, type, '2024-05-02'), { token })).text).report;
    const zip = await call(sb, qx(7, type, '2024-05-02', '&format=csv'), { token });
    const { text } = zipMember(zip.bytes);
    const records = parseCsv(text) as string[][];
    expect(records[0].join(',')).toBe(header);
    expect(records).toHaveLength(rows.length + 1);
  });

  it('csv quoting round-trips names with commas, quotes and non-ASCII; Exchange Code comes from the row', async () => {
    const zip = await call(sb, qx(13, 'constituent.close', '2024-05-02', '&format=csv'), { token });
    const records = parseCsv(zipMember(zip.bytes).text) as string[][];
    expect(records.slice(1).map((r) => r[2])).toEqual([
      'Société Générale, "A" Shares',
      'トヨタ自動車 (Toyota Motor)',
      'Zero & Tiny; "Quoted" Co',
    ]);
    expect(records.slice(1).map((r) => r[4])).toEqual(['XPAR', 'XTKS', '']);
  });

  it('non-ASCII names get filename* as well as an ASCII filename', async () => {
    const r = await call(sb, qx(13, 'index', '2024-05-02'), { token });
    expect(r.headers.get('content-disposition')).toBe(
      `attachment; filename="2024-05-02_Precision_Stress_index.json"; filename*=UTF-8''2024-05-02_Pr%C3%A9cision_Stress_index.json`,
    );
  });

  it.each([
    ['a Saturday', 42, 'constituent.close', '2024-05-04'],
    ['a Sunday', 42, 'index', '2024-05-05'],
    ['a date before inception', 42, 'index', '2017-12-29'],
    ['a portfolio without data', 101, 'index', '2024-05-02'],
    ['a portfolio without data (csv)', 101, 'constituent.close', '2024-05-02'],
  ])('no data on %s: export 200 with an empty body, JSON {"report":[]}', async (_n, id, type, date) => {
    for (const fmt of ['json', 'csv']) {
      const file = await call(sb, qx(id, type, date, `&format=${fmt}`), { token });
      expect(file.status).toBe(200);
      expect(file.bytes.length).toBe(0);
      expect(file.headers.get('content-disposition')).toBeNull();
    }
    const json = await call(sb, q(id, type, date), { token });
    expect(json.status).toBe(200);
    expect(json.text).toBe('{"report":[]}');
  });

  it('portfolio 101 has no data for any type', async () => {
    for (const type of REPORT_TYPES)
      expect((await call(sb, qx(101, type, '2024-05-02'), { token })).bytes.length).toBe(0);
  });

  it("on a holiday the rows' effectiveDate (and the file name) is the business day before", async () => {
    const r = await call(sb, qx(42, 'index', '2024-12-25'), { token });
    expect(JSON.parse(r.text)[0].effectiveDate).toBe('2024-12-24');
    expect(r.headers.get('content-disposition')).toContain('2024-12-24_Example_600_OG_index.json');
  });

  it('deterministic: the same request gives the same bytes, in one sandbox and across sandboxes', async () => {
    const other = await newSandbox();
    try {
      const otherToken = (await sandboxTokens(other)).access_token;
      for (const p of [
        q(7, 'constituent.open', '2024-05-02'),
        qx(42, 'constituent.corporateactions', '2024-05-02'),
        qx(1, 'constituent.proforma', '2024-05-02', '&format=csv'),
        qx(13, 'constituent.proformacorporateactions', '2024-05-02', '&format=csv'),
      ]) {
        const a = await call(sb, p, { token });
        const b = await call(sb, p, { token });
        const c = await call(other, p, { token: otherToken });
        expect(a.bytes.length).toBeGreaterThan(0);
        expect(b.bytes.equals(a.bytes)).toBe(true);
        expect(c.bytes.equals(a.bytes)).toBe(true);
      }
    } finally {
      await other.close();
    }
  });

  it('portfolio 13 writes number literals verbatim (JSON endpoint, export json and csv)', async () => {
    const index = (await call(sb, q(13, 'index', '2024-05-02'), { token })).text;
    for (const lit of [
      '"indexValue":1234567.123456789012',
      '"closeMarketValue":12345678901234567890',
      '"closeDivisor":0.000000000000000001',
      '"openDivisor":6.02214076E+23',
      '"dailyReturn":-0.0001234567890123456789',
    ])
      expect(index).toContain(lit);
    const file = (await call(sb, qx(13, 'constituent.close', '2024-05-02'), { token })).text;
    for (const lit of [
      '"closingPrice":1234567.123456789012',
      '"indexShares":12345678901234567890',
      '"closingFx":1.0,',
      '"closingPrice":9007199254740993',
      '"indexShares":1E-7',
      '"indexWeighting":0.333333333333333333334',
    ])
      expect(file).toContain(lit);
    const csv = zipMember(
      (await call(sb, qx(13, 'constituent.close', '2024-05-02', '&format=csv'), { token })).bytes,
    ).text;
    expect(csv).toContain(',1234567.123456789012,EUR,1.0,12345678901234567890,0.333333333333333333333\n');
    const ca = (await call(sb, q(13, 'constituent.corporateactions', '2024-05-02'), { token })).text;
    expect(ca).toContain(
      '"oldShares":{"Price":12345678901234567890,"Total":12345678901234567890.000001,"Net":1E+20}',
    );
  });

  it('portfolio 7 has 20,000 constituents, streamed (chunked, no Content-Length)', async () => {
    const res = await fetch(sb.url + PATH + q(7, 'constituent.close', '2024-05-02'), {
      headers: { authorization: `Bearer ${token}`, 'x-client-id': 'demo-tenant' },
    });
    expect(res.headers.get('content-length')).toBeNull();
    expect(res.headers.get('transfer-encoding')).toBe('chunked');
    const rows = JSON.parse(await res.text()).report;
    expect(rows).toHaveLength(20_000);
    expect(new Set(rows.map((r: { isin: string }) => r.isin)).size).toBeGreaterThan(19_900);
  });
});

describe('big streaming export (portfolio 900)', () => {
  const ROWS = 500_000;
  let big: Sandbox;
  let bigToken: string;
  beforeAll(async () => {
    big = await newSandbox({ bigExportRows: ROWS });
    bigToken = (await sandboxTokens(big)).access_token;
  });
  afterAll(() => big.close());

  /** Most a paused reader may let the server send: socket buffers and a first batch, not the body. */
  const PAUSED_MAX = 16 * 1024 * 1024;

  /**
   * Reads a body chunk by chunk. After the first chunk it stops reading for a while: a server that
   * streams with backpressure stops too (it never generates the whole body ahead of its reader).
   */
  async function streamBody(path: string, onChunk: (c: Uint8Array) => void) {
    const res = await fetch(big.url + PATH + path, {
      headers: { authorization: `Bearer ${bigToken}`, 'x-client-id': 'demo-tenant' },
    });
    expect(res.status).toBe(200);
    const record = big.stats.requests.at(-1)!;
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    let bytes = 0;
    let chunk = await reader.read();
    await new Promise((r) => setTimeout(r, 300));
    const sentWhilePaused = record.bytes;
    for (; !chunk.done; chunk = await reader.read()) {
      bytes += chunk.value.length;
      onChunk(chunk.value);
    }
    expect(record.bytes).toBe(bytes);
    return { res, bytes, sentWhilePaused };
  }

  it('export json: n rows, streamed with backpressure', async () => {
    let rows = 0;
    let carry = '';
    let first = '';
    let last = '';
    const decoder = new TextDecoder();
    const { res, bytes, sentWhilePaused } = await streamBody(
      qx(900, 'constituent.close', '2024-05-02'),
      (c) => {
        const s = carry + decoder.decode(c, { stream: true });
        if (!first) first = s.slice(0, 1);
        rows += s.split('{"effectiveDate"').length - 1;
        carry = s.slice(-20); // a marker split across chunks is counted once, in the next chunk
        rows -= carry.split('{"effectiveDate"').length - 1;
        last = s.slice(-2);
      },
    );
    rows += carry.split('{"effectiveDate"').length - 1;
    expect(res.headers.get('content-length')).toBeNull();
    expect(res.headers.get('content-disposition')).toBe(
      'attachment; filename="2024-05-02_Big_Export_index.json"',
    );
    expect(first).toBe('[');
    expect(last).toBe('}]');
    expect(rows).toBe(ROWS);
    expect(bytes).toBeGreaterThan(100_000_000);
    expect(sentWhilePaused).toBeLessThan(PAUSED_MAX);
  });

  it('export csv: a streamed zip (stored member) whose CRC verifies, n lines', async () => {
    let lines = 0;
    let crc = 0;
    let size = 0;
    let name = '';
    const unzip = new Unzip((file) => {
      name = file.name;
      file.ondata = (err, data) => {
        if (err) throw err;
        crc = crc32(data, crc);
        size += data.length;
        for (let i = 0; i < data.length; i++) if (data[i] === 10) lines++;
      };
      file.start();
    });
    unzip.register(UnzipPassThrough);
    let tail = Buffer.alloc(0);
    const { res, sentWhilePaused, bytes } = await streamBody(
      qx(900, 'constituent.close', '2024-05-02', '&format=csv'),
      (c) => {
        unzip.push(c);
        tail = Buffer.concat([tail, Buffer.from(c)]).subarray(-4096); // keep the central directory only
      },
    );
    unzip.push(new Uint8Array(0), true);
    expect(res.headers.get('content-type')).toBe('application/zip');
    expect(name).toBe('2024-05-02_Big_Export_index.csv');
    expect(lines).toBe(ROWS + 1);
    const [entry] = centralDirectory(tail);
    expect(entry).toMatchObject({ name, method: 0, size, crc });
    expect(bytes).toBeGreaterThan(2 * PAUSED_MAX);
    expect(sentWhilePaused).toBeLessThan(PAUSED_MAX);
  });
});

describe('test hooks', () => {
  it('stats record when each request arrived, by the sandbox clock', async () => {
    let now = Date.UTC(2024, 4, 2, 9);
    const s = await newSandbox({ clock: () => now });
    try {
      const t = (await sandboxTokens(s)).access_token;
      now += 1234;
      await call(s, q(42, 'index', '2024-05-02'), { token: t });
      expect(s.stats.requests.map((r) => r.at - Date.UTC(2024, 4, 2, 9))).toEqual([0, 1234]);
    } finally {
      await s.close();
    }
  });

  it('stats count requests by endpoint, status and user', async () => {
    const s = await newSandbox();
    try {
      expect(s.stats.count()).toBe(0);
      const t = (await sandboxTokens(s)).access_token;
      await call(s, q(42, 'index', '2024-05-02'), { token: t });
      await call(s, qx(42, 'index', '2024-05-02'));
      expect(s.stats.count({ endpoint: 'token', status: 200 })).toBe(1);
      expect(s.stats.count({ endpoint: 'report', status: 200, user: 'demo' })).toBe(1);
      expect(s.stats.count({ endpoint: 'export', status: 401 })).toBe(1);
      expect(s.stats.requests.at(-1)).toMatchObject({ method: 'GET', endpoint: 'export', status: 401 });
      s.stats.reset();
      expect(s.stats.count()).toBe(0);
    } finally {
      await s.close();
    }
  });

  it('injectFault: a status (with Retry-After) once, then normal answers; a truncated body', async () => {
    const s = await newSandbox();
    try {
      const t = (await sandboxTokens(s)).access_token;
      s.injectFault({ status: 503, retryAfter: 2, count: 2 });
      const first = await call(s, qx(42, 'index', '2024-05-02'), { token: t });
      expect(first.status).toBe(503);
      expect(first.headers.get('retry-after')).toBe('2');
      expect((await call(s, q(42, 'index', '2024-05-02'), { token: t })).status).toBe(503);
      expect((await call(s, q(42, 'index', '2024-05-02'), { token: t })).status).toBe(200);
      s.injectFault({ truncate: true, endpoint: 'export' });
      await expect(call(s, qx(42, 'constituent.close', '2024-05-02'), { token: t })).rejects.toThrow();
      expect((await call(s, qx(42, 'constituent.close', '2024-05-02'), { token: t })).status).toBe(200);
    } finally {
      await s.close();
    }
  });
});
