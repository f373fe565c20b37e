import { defineConfig } from 'vitest/config';
import LongestFirst from './test/helpers/sequencer.js';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/helpers/global-setup.ts'],
    setupFiles: ['test/helpers/matchers.ts'],
    sequence: { sequencer: LongestFirst },
    pool: 'forks',
    // Each worker imports src once for all its files, not once per file (the import, PGlite's WebAssembly and the
    // JIT's warm-up were about a third of a small file's time): on 42 of the suite's files (2026-11-27, load 4-5)
    // 142.7 s against 182.9 s, CPU 218 s against 298 s. Files share no state through modules: the API's
    // process-wide caches (forecast answers and models) are keyed by organisation and snapshot (named by its
    // computation time), organisations have random ids but the demo's, which the API serves only from copies of
    // one fixture per day (helpers/fixtures.ts), and every file closes what it opens.
    isolate: false,
    // Two workers on the project's two cores (the default leaves one idle); the services the tests start run beside them.
    // Three were tried (2026-11-25): 10m55s, no faster than two (10m54s): the machine is CPU-bound with PostgreSQL.
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 120_000,
    reporters: ['default'],
  },
});
