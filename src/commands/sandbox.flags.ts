/** `prs sandbox`'s flags over the sandbox's own defaults (apart from flags.ts, which the fast path loads). */
import { SANDBOX_DEFAULTS as SANDBOX } from '../sandbox/options.js';
import { type FlagRow, flag } from './flags.js';

const withDefault = <F extends string>(spelling: F, help: string, value: string | number) =>
  flag(spelling, help, { default: String(value) });

export const SANDBOX_FLAGS = {
  port: withDefault('--port <n>', 'port (0 picks a free one)', SANDBOX.port),
  host: withDefault('--host <host>', 'address to listen on', SANDBOX.host),
  rateLimit: withDefault(
    '--rate-limit <n/window>',
    "the sandbox's JSON endpoint limit per user",
    SANDBOX.rateLimit,
  ),
  tokenTtl: withDefault('--token-ttl <seconds>', 'access token lifetime', SANDBOX.tokenTtl),
  refreshTtl: withDefault('--refresh-ttl <seconds>', 'refresh token lifetime', SANDBOX.refreshTtl),
  bigRows: withDefault(
    '--big-rows <n>',
    'constituent rows of portfolio 900, streamed',
    SANDBOX.bigExportRows,
  ),
  exportDelay: withDefault(
    '--export-delay <ms>',
    'milliseconds added to each export answer',
    SANDBOX.exportDelayMs,
  ),
  jsonStyle: withDefault(
    '--json-style <style>',
    'JSON bodies compact or spaced, as Python json.dumps writes them',
    SANDBOX.jsonStyle,
  ),
  gzip: flag('--gzip', 'answer gzip-compressed when the request accepts it, as a compressing gateway does'),
} satisfies Record<string, FlagRow>;
