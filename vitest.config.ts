import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

// The suite's servers are on loopback, and the tests of trust name their own CA. A bundle the machine
// sets (a CI image's whole system store, say) is parsed at every Node 20 start, in each of the suite's
// thousands of processes: it is deleted here, before the workers fork, so no child inherits it.
delete process.env.NODE_EXTRA_CA_CERTS;

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // A hang detector, not a speed budget: a machine busy with other work runs a heavy end-to-end test
    // (a 100 MB body through a paused reader, a tmux session) several times slower than an idle one.
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // The end-to-end files mostly wait (on the binary they spawn, servers, windows): vitest's default
    // of one worker per core but one leaves a 2-core machine running a single file at a time.
    maxWorkers: Math.max(3, availableParallelism() - 1),
  },
});
