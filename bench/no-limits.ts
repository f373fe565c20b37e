/**
 * A limiter that admits everything, for benchmarks of the API's own work: the
 * burst cap (60 a minute per key and endpoint) and the credits would refuse
 * the benchmark itself. `bench/limits.ts` measures the real limiters.
 */
import { usageFrom, type Limiter } from '../src/domain/plans.js';

const OPEN = { allowed: true, limit: 1e9, remaining: 1e9, retryAfterSeconds: 0, resetSeconds: 0 } as const;

export const NO_LIMITS: Limiter = {
  name: 'none',
  admit: async (req, now) => {
    const usage = req.subject ? usageFrom(req.subject.limit, [], now.getTime()) : null;
    const credit = usage && req.credit === 'reserve' ? { allowed: true as const, reservation: 'bench', usage } : null;
    return { burst: OPEN, credit, usage, dailyUsed: req.subject ? 0 : null, taken: null };
  },
  settle: async () => {},
  hitBurst: async () => OPEN,
  reserveCredit: async (s, now) => ({ allowed: true, reservation: 'bench', usage: usageFrom(s.limit, [], now.getTime()) }),
  releaseCredit: async () => {},
};
