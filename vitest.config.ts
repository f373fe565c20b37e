import { defineConfig } from 'vitest/config';
import LongestFirst from './test/helpers/sequencer.js';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/helpers/global-setup.ts'],
    setupFiles: ['test/helpers/matchers.ts'],
    sequence: { sequencer: LongestFirst },
    pool: 'forks',
    // Three workers on the project's two cores: much of a test's time is spent waiting on PostgreSQL, Redis and the
    // processes it starts (about 1.3 of the 2 cores were busy with two workers), so a third overlaps that waiting.
    maxWorkers: 3,
    testTimeout: 60_000,
    hookTimeout: 120_000,
    reporters: ['default'],
  },
});
