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

/**
 * Times `n` GETs of `path` through the server, one at a time, after `warmup`
 * more that are not timed; any answer but 200 fails the run. The sorted
 * milliseconds, and the size of the answer.
 */
export async function timeGets(baseUrl: string, path: string, key: string, n: number, warmup: number): Promise<{ times: number[]; bytes: number }> {
  const times: number[] = [];
  let bytes = 0;
  for (let i = 0; i < n + warmup; i++) {
    const t = performance.now();
    const res = await fetch(`${baseUrl}${path}`, { headers: { authorization: `Bearer ${key}` } });
    const body = await res.text();
    if (res.status !== 200) throw new Error(`${path}: ${res.status} ${body.slice(0, 200)}`);
    if (i >= warmup) times.push(performance.now() - t);
    bytes = body.length;
  }
  return { times: times.sort((a, b) => a - b), bytes };
}
