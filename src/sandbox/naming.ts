/** File names and Content-Disposition of the export endpoint, and the JSON endpoint's rate limiter. */

/** "<date>_<name words joined by _>_index.<ext>" — e.g. 2023-06-29_Example_600_OG_index.json. */
export function exportFileName(date: string, name: string, ext: string): string {
  const words = name.split(/\s+/).filter(Boolean);
  return `${date}_${words.join('_')}_index.${ext}`;
}

/** The name with accents dropped and anything else outside printable ASCII replaced by "_". */
export const asciiFallback = (name: string): string =>
  name
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^\x20-\x7e]|["\\]/g, '_');

/** RFC 6266: a plain quoted filename, plus filename* (RFC 5987) when the name is not plain ASCII. */
export function contentDisposition(fileName: string): string {
  const ascii = asciiFallback(fileName);
  if (ascii === fileName) return `attachment; filename="${fileName}"`;
  const encoded = encodeURIComponent(fileName).replace(
    /['()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}

/** A sliding-window limit per key: at most `limit` accepted requests in any `windowMs`. */
export class SlidingWindow {
  private readonly hits = new Map<string, number[]>();
  constructor(
    readonly limit: number,
    readonly windowMs: number,
  ) {}

  /** Accepts (and records) a request, or says how long until a slot frees. Rejected requests don't count. */
  take(key: string, now: number): { ok: true } | { ok: false; retryAfterMs: number } {
    const recent = (this.hits.get(key) ?? []).filter((t) => t > now - this.windowMs);
    if (recent.length >= this.limit) {
      this.hits.set(key, recent);
      return { ok: false, retryAfterMs: recent[0] + this.windowMs - now };
    }
    recent.push(now);
    this.hits.set(key, recent);
    return { ok: true };
  }
}

/** Retry-After in whole seconds, rounded up, at least 1. */
export const retryAfterSeconds = (ms: number): number => Math.max(1, Math.ceil(ms / 1000));
