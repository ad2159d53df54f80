import { describe, expect, it } from 'vitest';
import { transportError } from '../../../src/http/client.js';

/** A socket error as Node makes it: code, syscall and where it tried. */
const failed = (code: string, syscall: string, at: { address?: string; port?: number; hostname?: string }) =>
  Object.assign(new Error(`${syscall} ${code}`), { code, syscall, ...at });
const said = (err: Error, url: string) => {
  const e = transportError(err, { method: 'GET', url }, 30_000) as Error & { hint?: string };
  return [e.message, e.hint];
};
const PROXY_HINT = 'check HTTPS_PROXY / HTTP_PROXY and NO_PROXY';

describe('transportError: a SOCKS proxy (its errors unmarked) is told from the service by where it failed', () => {
  it('a refused port or an unresolved name that is not the service: the proxy', () => {
    const refused = failed('ECONNREFUSED', 'connect', { address: '10.0.0.7', port: 1080 });
    expect(said(refused, 'https://api.example.com/x')).toEqual([
      'connection refused by proxy 10.0.0.7:1080',
      PROXY_HINT,
    ]);
    const unknown = failed('ENOTFOUND', 'getaddrinfo', { hostname: 'socks.corp' });
    expect(said(unknown, 'https://api.example.com/x')).toEqual([
      'cannot resolve proxy socks.corp',
      PROXY_HINT,
    ]);
    // An IPv6 address in brackets, as a URL writes it (`::1:1080` reads as one address).
    const v6 = failed('ECONNREFUSED', 'connect', { address: '::1', port: 1080 });
    expect(said(v6, 'https://api.example.com/x')[0]).toBe('connection refused by proxy [::1]:1080');
  });

  it("the service's own port or name (default or given): the service, as before", () => {
    const at443 = failed('ECONNREFUSED', 'connect', { address: '10.0.0.8', port: 443 });
    expect(said(at443, 'https://api.example.com/x')[0]).toBe('connection refused by api.example.com');
    const at8080 = failed('ECONNREFUSED', 'connect', { address: '127.0.0.1', port: 8080 });
    expect(said(at8080, 'http://127.0.0.1:8080/x')[0]).toBe('connection refused by 127.0.0.1:8080');
    const unknown = failed('ENOTFOUND', 'getaddrinfo', { hostname: 'api.example.com' });
    expect(said(unknown, 'https://api.example.com/x')[0]).toBe('cannot resolve host api.example.com');
  });
});
