import { once } from 'node:events';
import type { Deps } from '../deps.js';
import { UsageError } from '../errors.js';
import { wholeNumber } from '../input.js';
import type { Sandbox } from '../sandbox/index.js';
import { loginArgs, type SandboxOptions } from '../sandbox/options.js';
import { parseRateLimit } from '../settings.js';
import { asUsage, type FlagsOf } from './flags.js';
import type { SANDBOX_FLAGS } from './sandbox.flags.js';

export type SandboxCommandOptions = FlagsOf<typeof SANDBOX_FLAGS>;

const MAX_TTL = 10 * 365 * 86_400;
const MAX_BIG_ROWS = 100_000_000;

export function parseSandboxOptions(o: SandboxCommandOptions): SandboxOptions {
  const host = o.host.trim();
  if (host === '' || /\s|\/|:\/\//.test(host)) throw new UsageError(`invalid --host "${o.host}"`);
  asUsage(
    () => parseRateLimit(o.rateLimit),
    (m) => `${m} (from --rate-limit)`,
  );
  return {
    port: wholeNumber('--port', o.port, 0, 65535),
    host,
    rateLimit: o.rateLimit,
    tokenTtl: wholeNumber('--token-ttl', o.tokenTtl, 1, MAX_TTL),
    refreshTtl: wholeNumber('--refresh-ttl', o.refreshTtl, 1, MAX_TTL),
    bigExportRows: wholeNumber('--big-rows', o.bigRows, 0, MAX_BIG_ROWS),
    exportDelayMs: wholeNumber('--export-delay', o.exportDelay, 0, 600_000),
    jsonStyle: jsonStyle(o.jsonStyle),
    ...(o.gzip ? { gzip: true } : {}),
  };
}

function jsonStyle(v: string): 'compact' | 'spaced' {
  if (v === 'compact' || v === 'spaced') return v;
  throw new UsageError(`invalid --json-style "${v}": expected compact or spaced`);
}

export function startBanner(
  s: Pick<Sandbox, 'url' | 'authUrl' | 'realm' | 'clientId' | 'clientSecret' | 'users' | 'serviceClients'> &
    Pick<Sandbox, 'rateLimit' | 'tokenTtl' | 'bigExportRows'>,
): string[] {
  const [demo, other] = s.users;
  const second = other
    ? `second user for 403 tests: ${other.username} / ${other.password} (tenant ${other.tenant}). `
    : '';
  return [
    `prs sandbox: serving at ${s.url} (realm ${s.realm}; JSON endpoint limit ${s.rateLimit} per user; access tokens last ${s.tokenTtl} s)`,
    `log in as ${demo.username} (tenant ${demo.tenant}):`,
    `  printf '%s' ${shellQuote(demo.password)} | PRS_CLIENT_SECRET=${shellQuote(s.clientSecret)} prs ${loginArgs(s, demo).map(shellQuote).join(' ')}`,
    ...s.serviceClients.flatMap((c) => [
      `or as the service account ${c.clientId} (tenant ${c.tenant}; for cron, no password):`,
      `  PRS_CLIENT_SECRET=${shellQuote(c.clientSecret)} prs ${loginArgs(s, c).map(shellQuote).join(' ')}`,
    ]),
    'then try:',
    '  prs report 42 --type index --date 2023-06-29',
    '  prs export 42 --type constituent.close --date 2023-06-30 --format csv',
    `portfolios: 42 public example · 1 fifty constituents · 7 twenty thousand · 13 number fidelity · 77 a rebalance (for diff) · 101 no data · 500 always fails · 900 big export (${s.bigExportRows} rows)`,
    `${second}Ctrl-C stops the sandbox.`,
  ];
}

const shellQuote = (s: string): string =>
  /^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replaceAll("'", "'\\''")}'`;

export async function sandbox(o: SandboxCommandOptions, deps: Deps): Promise<void> {
  const options = parseSandboxOptions(o);
  const { startSandbox } = await import('../sandbox/index.js');
  if (deps.signal.aborted) return;
  let sb: Awaited<ReturnType<typeof startSandbox>>;
  try {
    sb = await startSandbox({ ...options, log: (line) => deps.io.note(`sandbox: ${line}`) });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE')
      throw new UsageError(`port ${options.port} is already in use`, { hint: 'use --port 0 for a free one' });
    if (code === 'EACCES') throw new UsageError(`not allowed to listen on port ${options.port}`);
    if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND' || code === 'EAI_AGAIN')
      throw new UsageError(`cannot listen on host "${options.host}"`);
    throw err;
  }
  try {
    deps.io.out(`${sb.url}\n`);
    for (const line of startBanner(sb)) deps.io.note(line);
    if (!deps.signal.aborted) await once(deps.signal, 'abort');
  } finally {
    await sb.close();
  }
  deps.io.note('prs sandbox: stopped');
}
