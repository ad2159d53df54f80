import { describe, expect, it } from 'vitest';
import { createDeps } from '../../src/deps.js';
import { createTestIO } from '../helpers/io.js';

describe('process switches', () => {
  it("entry.ts's beforeHttp runs once, before the first HTTP client, and not for commands without one", async () => {
    const calls: string[] = [];
    const deps = createDeps(
      createTestIO(),
      { PRS_CONFIG_DIR: '/nonexistent/prs-deps-test' },
      {},
      new AbortController().signal,
      {
        beforeHttp: async () => {
          calls.push('switch');
        },
      },
    );
    expect(calls).toEqual([]);
    await deps.http();
    await deps.http();
    expect(calls).toEqual(['switch']);
    await deps.close();
  });
});
