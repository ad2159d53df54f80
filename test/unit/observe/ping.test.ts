import { describe, expect, it } from 'vitest';
import { PING_BODY_MAX, type PingRequest, pingRequest } from '../../../src/observe/index.js';
import { redactPingUrl } from '../../../src/redact.js';
import { checkSetting } from '../../../src/settings.js';

const URL = 'https://hc-ping.com/5f2c-uuid';

describe('pingRequest: Healthchecks’ protocol', () => {
  it.each<[string, Parameters<typeof pingRequest>, PingRequest]>([
    ['start', [URL, 'start'], { method: 'GET', url: `${URL}/start` }],
    ['success: the summary', [URL, 'success', 0, 'done'], { method: 'POST', url: URL, body: 'done' }],
    [
      'failure: /<exit code>',
      [URL, 'failure', 8, 'prs: x'],
      { method: 'POST', url: `${URL}/8`, body: 'prs: x' },
    ],
    [
      'no data is a failure',
      [URL, 'failure', 3, 'prs: no data'],
      { method: 'POST', url: `${URL}/3`, body: 'prs: no data' },
    ],
    [
      'a trailing slash is not doubled (the setting drops it)',
      [checkSetting('ping-url', `${URL}//`), 'start'],
      { method: 'GET', url: `${URL}/start` },
    ],
  ])('%s', (_name, args, want) => expect(pingRequest(...args)).toEqual(want));

  it('a long body is cut', () => {
    const body = pingRequest(URL, 'failure', 8, 'x'.repeat(PING_BODY_MAX * 2)).body!;
    expect(body.length).toBe(PING_BODY_MAX + 2);
  });
});

describe('redactPingUrl', () => {
  it.each([
    [URL, 'https://hc-ping.com/***'],
    ['https://user:pw@mon.example.com:8443/ping/key/start', 'https://mon.example.com:8443/***'],
    ['not a url', '***'],
  ])('%s → %s', (url, want) => expect(redactPingUrl(url)).toBe(want));
});
