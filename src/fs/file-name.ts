/** In UTF-8 bytes: 255 less room for the temporary's `.<name>.<pid>.<8 hex>.tmp`. */
export const MAX_NAME_BYTES = 200;

// Illegal on Windows or special to shells.
const RESERVED_CHARS = /[<>:"|?*]/g;

/** A server-suggested name → a plain file name in the target directory, or undefined. Idempotent. */
export function sanitizeFileName(raw: string): string | undefined {
  const segments = raw.split(/[/\\]/);
  let name = '';
  for (let i = segments.length - 1; i >= 0 && name === ''; i--) name = cleanSegment(segments[i]);
  if (name === '') return undefined;
  name = trimEnds(truncateUtf8(name, MAX_NAME_BYTES));
  return name === '' ? undefined : name;
}

function cleanSegment(segment: string): string {
  return trimEnds(
    segment
      // Controls, separators and format characters (bidi overrides make `\u202Enosj.exe` show as "exe.json"),
      // built at first use, not when every run loads this file: a Unicode property class is costly to build.
      .replace(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu, '')
      .replace(RESERVED_CHARS, '_')
      // After the removals, so that a second pass composes nothing more.
      .normalize('NFC')
      .replace(/\.{2,}/g, '.'),
  );
}

/** No leading dots or spaces (hidden files, `..`), no trailing ones (Windows drops them). */
function trimEnds(s: string): string {
  return s.replace(/^[\s.]+/u, '').replace(/[\s.]+$/u, '');
}

/** Cut to at most `max` UTF-8 bytes, keeping the extension when it is short, never splitting a character. */
export function truncateUtf8(s: string, max: number): string {
  if (Buffer.byteLength(s) <= max) return s;
  const dot = s.lastIndexOf('.');
  const ext = dot > 0 && s.length - dot <= 10 ? s.slice(dot) : '';
  const stem = s.slice(0, s.length - ext.length);
  const room = new Uint8Array(Math.max(0, max - Buffer.byteLength(ext)));
  // encodeInto stops before a character that does not fit.
  return trimEnds(stem.slice(0, new TextEncoder().encodeInto(stem, room).read)) + ext;
}

const TEMPLATE_FIELDS = ['date', 'name', 'type', 'portfolio'] as const;

export function checkNameTemplate(template: string): string {
  const unknown = /\{([^{}]*)\}/g;
  for (const m of template.matchAll(unknown)) {
    if (!(TEMPLATE_FIELDS as readonly string[]).includes(m[1]!))
      throw new Error(`unknown placeholder {${m[1]}}: use ${TEMPLATE_FIELDS.map((f) => `{${f}}`).join(' ')}`);
  }
  if (/[{}]/.test(template.replace(unknown, ''))) throw new Error('a brace without its pair');
  if (/[/\\]/.test(template)) throw new Error('a file name, not a path: use --dir for the directory');
  if (sanitizeFileName(template.replace(unknown, 'x')) === undefined) throw new Error('no file name left');
  return template;
}
