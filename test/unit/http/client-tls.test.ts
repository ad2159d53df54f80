/** NOT_TLS and TLS_FAILED (src/http/client.ts): what the HTTP client and the Redis limiter call a TLS failure. */
import { describe, expect, it } from 'vitest';
import { NOT_TLS, TLS_FAILED } from '../../../src/http/client.js';

const kindOf = (text: string) =>
  NOT_TLS.test(text) ? 'no TLS' : TLS_FAILED.test(text) ? 'TLS failed' : 'other';

describe('a TLS failure, from its code or message', () => {
  it.each([
    ['ERR_SSL_WRONG_VERSION_NUMBER', 'no TLS'],
    ['ERR_SSL_PACKET_LENGTH_TOO_LONG', 'no TLS'],
    ['C0D7:error:0A00010B:SSL routines:ssl3_get_record:wrong version number', 'no TLS'],
    ['DEPTH_ZERO_SELF_SIGNED_CERT', 'TLS failed'],
    ['SELF_SIGNED_CERT_IN_CHAIN', 'TLS failed'],
    ['UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'TLS failed'],
    ['CERT_HAS_EXPIRED', 'TLS failed'],
    ['ERR_TLS_CERT_ALTNAME_INVALID', 'TLS failed'],
    ['ERR_SSL_SSLV3_ALERT_HANDSHAKE_FAILURE', 'TLS failed'],
    ['ECONNREFUSED', 'other'],
    ['UND_ERR_SOCKET', 'other'],
    ['Connection timeout', 'other'],
  ])('%s → %s', (text, want) => expect(kindOf(text)).toBe(want));
});
