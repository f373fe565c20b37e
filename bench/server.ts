/**
 * The real API server as the benchmarks run it: logging at warn, a fixed
 * cursor secret, the given service clock, and no limiter (NO_LIMITS: the
 * burst cap and the credits would refuse the benchmark itself).
 */
import { startServer, type RunningServer } from '../src/api/server.js';
import type { ManualClock } from '../src/clock.js';
import { loadConfig } from '../src/config.js';
import { createLogger } from '../src/log.js';
import type { Store } from '../src/store/db.js';
import { NO_LIMITS } from './no-limits.js';

export function startBenchServer(store: Store, clock: ManualClock): Promise<RunningServer> {
  const config = { ...loadConfig({ CASHLINE_LOG_LEVEL: 'warn', CASHLINE_CURSOR_SECRET: 'bench-cursor-secret-0123456789' }), clock };
  return startServer({ store, config, logger: createLogger(config), host: '127.0.0.1', port: 0, limiter: NO_LIMITS });
}

/** The q-quantile of sorted times (nearest rank). */
export const percentile = (sorted: readonly number[], q: number): number => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;
