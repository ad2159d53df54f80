import { join } from 'node:path';
import { clearAnswers, createCacheStore } from '../cache/store.js';
import { isoSeconds } from '../clock.js';
import type { Deps } from '../deps.js';
import { resolveDirs } from '../dirs.js';
import { fileError, plural } from '../errors.js';

const iso = (ms: number | undefined) => (ms === undefined ? null : isoSeconds(ms));

/** 1536 → "1.5 KiB": the units `cache-size` is written in (and export's progress). */
export function sizeText(n: number): string {
  const u = n < 1024 ? 0 : Math.min(4, Math.floor(Math.log2(n) / 10));
  return u === 0 ? `${n} B` : `${Number((n / 1024 ** u).toFixed(1))} ${['KiB', 'MiB', 'GiB', 'TiB'][u - 1]}`;
}

/** The profile's (`all`: every profile's) cached answers removed, and a line saying so (clear, logout). */
export function clearCache(deps: Deps, all: boolean) {
  const { cacheDir } = resolveDirs(deps.env);
  const whose = all ? undefined : deps.profileName();
  try {
    const { entries, bytes } = clearAnswers(cacheDir, whose);
    const said = `✓ Removed ${entries} cached ${plural(entries, 'answer')} (${sizeText(bytes)}; ${whose ? `profile ${whose}` : 'every profile'})`;
    return { entries, bytes, said };
  } catch (err) {
    throw fileError(err, join(cacheDir, 'answers'), 'cannot clear the answer cache in');
  }
}

export async function cache(
  o: { action: 'info' | 'clear'; json?: boolean; all?: boolean },
  deps: Deps,
): Promise<unknown> {
  const { io } = deps;
  const name = deps.profileName();
  if (o.action === 'clear') {
    const { said, ...removed } = clearCache(deps, !!o.all);
    io.note(said);
    return removed;
  }
  const s = await deps.settings();
  const store = createCacheStore({ cacheDir: s.cacheDir, maxBytes: s.cacheMaxBytes, clock: deps.clock });
  let info: ReturnType<typeof store.info>;
  try {
    info = store.info();
  } catch (err) {
    throw fileError(err, store.root, 'cannot read the answer cache in');
  }
  const mine = info.profiles[name] ?? { entries: 0, bytes: 0 };
  const result = {
    directory: info.directory,
    entries: info.entries,
    bytes: info.bytes,
    oldest: iso(info.oldest),
    newest: iso(info.newest),
    maxBytes: s.cacheMaxBytes,
    maxAge: s.cacheMaxAgeMs === undefined ? 'off' : ageText(s.cacheMaxAgeMs),
    profile: { name, entries: mine.entries, bytes: mine.bytes },
  };
  if (o.json) {
    io.out(`${JSON.stringify(result, null, 2)}\n`);
    return result;
  }
  const lines = [
    ['directory', result.directory],
    ['entries', `${result.entries} (${mine.entries} in profile ${name})`],
    ['size', `${sizeText(result.bytes)} of ${sizeText(result.maxBytes)} (cache-size)`],
    ['oldest', result.oldest ?? '-'],
    ['newest', result.newest ?? '-'],
    [
      'max-age',
      result.maxAge === 'off' ? 'off (answers are neither kept nor reused; see --cache)' : result.maxAge,
    ],
  ];
  io.out(lines.map(([k, v]) => `${`${k}:`.padEnd(11)}${v}`).join('\n') + '\n');
  return result;
}

/** 604800000 → "7d": the largest unit that divides the max-age exactly (as --cache takes it). */
function ageText(ms: number): string {
  const units = { d: 86_400_000, h: 3_600_000, m: 60_000 };
  const [unit, size] = Object.entries(units).find(([, size]) => ms % size === 0) ?? ['s', 1000];
  return `${Math.round(ms / size)}${unit}`;
}
