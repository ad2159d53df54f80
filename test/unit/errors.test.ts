import { describe, expect, it } from 'vitest';
import { errnoCode } from '../../src/errors.js';

const coded = (code: string, cause?: unknown) => Object.assign(new Error(code), { code, cause });

describe('errnoCode', () => {
  it.each<[string, unknown, string]>([
    ['a socket error', coded('ECONNREFUSED'), 'ECONNREFUSED'],
    [
      "fetch's wrapper: the cause's",
      new TypeError('fetch failed', { cause: coded('ENOTFOUND') }),
      'ENOTFOUND',
    ],
    [
      'its own before the cause',
      coded('UND_ERR_PRX_TLS', coded('ERR_TLS_CERT_ALTNAME_INVALID')),
      'UND_ERR_PRX_TLS',
    ],
    ['only one level down', new Error('x', { cause: new Error('y', { cause: coded('EPIPE') }) }), ''],
    ['no code', new Error('plain'), ''],
    ['not an error', undefined, ''],
    ['null', null, ''],
  ])('%s', (_name, err, want) => expect(errnoCode(err)).toBe(want));
});
