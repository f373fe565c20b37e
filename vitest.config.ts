import { defineConfig } from 'vitest/config';
import LongestFirst from './test/helpers/sequencer.js';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/helpers/global-setup.ts'],
    setupFiles: ['test/helpers/matchers.ts'],
    sequence: { sequencer: LongestFirst },
    pool: 'forks',
    // Two workers on the project's two cores (the default leaves one idle); the services the tests start run beside them.
    // Three were tried (2026-11-25): 10m55s, no faster than two (10m54s): the machine is CPU-bound with PostgreSQL.
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 120_000,
    reporters: ['default'],
  },
});
