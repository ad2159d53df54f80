const SECRET_FIELDS = new Set(['password', 'client_secret', 'refresh_token', 'access_token', 'id_token']);
const MASK = '***';

export function redactHeaders(headers: Record<string, string>): Record<string, string> {
  const out = { ...headers };
  for (const k of Object.keys(out)) {
    const name = k.toLowerCase();
    if (name === 'authorization' || name === 'proxy-authorization')
      out[k] = out[k]!.replace(/^(\S+ )?.*/s, `$1${MASK}`);
    else if (name === 'cookie') out[k] = MASK;
  }
  return out;
}

export function redactForm(body: string): string {
  const params = new URLSearchParams(body);
  for (const key of [...params.keys()]) if (SECRET_FIELDS.has(key)) params.set(key, MASK);
  return params.toString().replaceAll(encodeURIComponent(MASK), MASK);
}

/** JWT-looking tokens and URL passwords that slipped into free text (error messages). */
export function redactText(text: string): string {
  return text
    .replace(/eyJ[\w-]+\.[\w-]+\.[\w-]*/g, MASK)
    .replace(/(\w+:\/\/[^:/@\s[\]]*:)[^@\s]*@/g, `$1${MASK}@`);
}

export function redactUrlPassword(url: string): string {
  const u = URL.canParse(url) ? new URL(url) : undefined;
  if (u?.password) u.password = MASK;
  if (u?.host) return u.toString().replace(/\/$/, '');
  // Not a URL with a host (`user:pw@proxy:3128` parses as the scheme `user:`): all before the last @.
  return url.replace(/^([a-z][\w+.-]*:\/\/)?.*@/i, `$1${MASK}@`);
}

/** Whoever has a ping URL's path can ping: only the host is kept. */
export function redactPingUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}/${MASK}`;
  } catch {
    return MASK;
  }
}
