import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../../src/cli.js';

/** What `prs ...argv` hands to the sandbox runner. */
async function parse(argv: string[]) {
  let got: { name: string; options: Record<string, unknown> } | undefined;
  const program = buildProgram({
    version: '0.0.0',
    run: async (command, options) => {
      got = { name: command.name, options: options as Record<string, unknown> };
    },
  });
  program.exitOverride();
  await program.parseAsync(['node', 'prs', ...argv]);
  return got;
}

describe('prs sandbox options', () => {
  it.each([
    [['sandbox'], { port: '0', host: '127.0.0.1', rateLimit: '4/60s', tokenTtl: '300', refreshTtl: '1800' }],
    // The global --rate-limit shares the name; the sandbox must still get the value.
    [['sandbox', '--rate-limit', '4/2s'], { rateLimit: '4/2s' }],
    [['--rate-limit', '2/1s', 'sandbox'], { rateLimit: '2/1s' }],
    [
      ['sandbox', '--port', '8080', '--token-ttl', '1', '--refresh-ttl', '2', '--big-rows', '9'],
      { port: '8080', tokenTtl: '1', refreshTtl: '2', bigRows: '9' },
    ],
  ])('%j', async (argv, want) => {
    const got = await parse(argv);
    expect(got?.name).toBe('sandbox');
    expect(got?.options).toMatchObject(want);
  });
});
