/**
 * A file name made safe, and the --name-template check: small and pure, so that the settings table
 * and export's definition (both on the start-up path) check a template without loading export/.
 */

/**
 * Longest name kept, in UTF-8 bytes. File systems allow 255; the temporary file beside the target
 * adds a leading dot and `.<pid>.<8 hex>.tmp` (under 30 bytes), which must fit too.
 */
export const MAX_NAME_BYTES = 200;

// C0/C1 controls, line and paragraph separators, and every format character (Cf): the bidi
// overrides/isolates/marks that make a name display as something it is not (`\u202Enosj.exe` shows
// as "exe.json"), zero-width spaces and joiners, soft hyphens, tags.
const UNSAFE_CHARS = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu;
// Not separators on this system, but illegal on Windows or special to shells; a file copied there must work.
const RESERVED_CHARS = /[<>:"|?*]/g;

/**
 * A server-suggested name → a plain file name that stays in the target directory: the last path
 * segment only, no control or bidi characters, no `/` or `\`, no leading dot, no `..`, at most
 * MAX_NAME_BYTES. Returns undefined when nothing usable is left. Idempotent.
 */
export function sanitizeFileName(raw: string): string | undefined {
  const segments = raw.split(/[/\\]/);
  let name = '';
  // The last segment that still holds something once cleaned: `a/b/` means b, `../../x.json` means x.json.
  for (let i = segments.length - 1; i >= 0 && name === ''; i--) name = cleanSegment(segments[i]);
  if (name === '') return undefined;
  name = trimEnds(truncateUtf8(name, MAX_NAME_BYTES));
  return name === '' ? undefined : name;
}

function cleanSegment(segment: string): string {
  return trimEnds(
    segment
      .replace(UNSAFE_CHARS, '')
      .replace(RESERVED_CHARS, '_')
      // After the removals, so that "e<ctrl>\u0301" is composed as a second pass would compose it.
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
  const budget = max - Buffer.byteLength(ext);
  let out = '';
  let used = 0;
  for (const ch of s.slice(0, s.length - ext.length)) {
    const n = Buffer.byteLength(ch);
    if (used + n > budget) break;
    out += ch;
    used += n;
  }
  return trimEnds(out) + ext;
}

/** The placeholders of --name-template. */
export const TEMPLATE_FIELDS = ['date', 'name', 'type', 'portfolio'] as const;

/**
 * A --name-template checked (exit 2 before any request): only known placeholders, braces that pair,
 * a file name and not a path. Returns it unchanged.
 */
export function checkNameTemplate(template: string): string {
  const unknown = /\{([^{}]*)\}/g;
  for (const m of template.matchAll(unknown)) {
    if (!(TEMPLATE_FIELDS as readonly string[]).includes(m[1]!)) {
      throw new Error(`unknown placeholder {${m[1]}}: use ${TEMPLATE_FIELDS.map((f) => `{${f}}`).join(' ')}`);
    }
  }
  if (/[{}]/.test(template.replace(unknown, ''))) throw new Error('a brace without its pair');
  if (/[/\\]/.test(template)) throw new Error('a file name, not a path: use --dir for the directory');
  if (sanitizeFileName(template.replace(unknown, 'x')) === undefined) throw new Error('no file name left');
  return template;
}
