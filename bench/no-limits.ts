/**
 * A limiter that admits everything, for benchmarks of the API's own work: the
 * burst cap (60 a minute per key and endpoint) and the credits would refuse
 * the benchmark itself. `bench/limits.ts` measures the real limiters.
 */
import { usageFrom, type Limiter } from '../src/domain/plans.js';

export const NO_LIMITS: Limiter = {
  name: 'none',
  hitBurst: async () => ({ allowed: true, limit: 1e9, remaining: 1e9, retryAfterSeconds: 0, resetSeconds: 0 }),
  reserveCredit: async (s, now) => ({ allowed: true, reservation: 'bench', usage: usageFrom(s.limit, [], now.getTime()) }),
  releaseCredit: async () => {},
  usage: async (s, now) => usageFrom(s.limit, [], now.getTime()),
};
