/**
 * Limits are exact under concurrency on every backend (issue 5; spec 8):
 * the SQL store on PGlite and on PostgreSQL, and Redis (REDIS_URL). Through
 * real HTTP, with the same pipeline; the Redis limiter takes the test's clock.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { startTestApi, type TestApi } from './helpers/http.js';
import { REDIS_TEST_URL } from './helpers/env.js';
import { RedisLimiter } from '../src/store/redis-usage.js';
import { SqlLimiter } from '../src/store/usage.js';
import { CREDIT_WINDOW_MS, type Limiter, usageFrom } from '../src/domain/plans.js';

interface Backend {
  name: string;
  /** Runs of the 200-request race: 20 where concurrency is real; PGlite runs one query at a time, so 5 there. */
  runs: number;
  start(): Promise<TestApi>;
  limiter(api: TestApi): Limiter;
}

const redisLimiters: RedisLimiter[] = [];
const redisFor = () => {
  const l = new RedisLimiter(REDIS_TEST_URL, { timeSource: 'client', prefix: `cltest:${randomUUID()}` });
  redisLimiters.push(l);
  return l;
};

/** The limiter's calls the pipeline made (each test server's limiter is wrapped to record them). */
const calls: string[] = [];
const counting = (inner: Limiter): Limiter => ({
  name: inner.name,
  admit: (...a) => (calls.push('admit'), inner.admit(...a)),
  settle: (...a) => (calls.push('settle'), inner.settle(...a)),
  hitBurst: (...a) => (calls.push('hitBurst'), inner.hitBurst(...a)),
  reserveCredit: (...a) => (calls.push('reserveCredit'), inner.reserveCredit(...a)),
  releaseCredit: (...a) => (calls.push('releaseCredit'), inner.releaseCredit(...a)),
});

const BACKENDS: Backend[] = [
  { name: 'sql on pglite', runs: 5, start: () => startTestApi('pglite', { limiter: (store) => counting(new SqlLimiter(store.db)) }), limiter: (api) => new SqlLimiter(api.store.db) },
  { name: 'sql on postgres', runs: 20, start: () => startTestApi('postgres', { limiter: (store) => counting(new SqlLimiter(store.db)) }), limiter: (api) => new SqlLimiter(api.store.db) },
  // Redis counters with the PostgreSQL store, as deployed (REDIS_URL + DATABASE_URL).
  { name: 'redis', runs: 20, start: () => startTestApi('postgres', { limiter: () => counting(redisFor()) }), limiter: () => redisFor() },
];

afterAll(async () => {
  for (const l of redisLimiters) await l.close();
});

/** The brute-force model of spec 8's usage block: replay every call. */
function bruteForce(limit: number, calls: number[], nowMs: number) {
  const live = calls.filter((t) => t > nowMs - CREDIT_WINDOW_MS && t <= nowMs).sort((a, b) => a - b);
  const remaining = Math.max(0, limit - live.length);
  let next = 0;
  if (remaining === 0) {
    // step minute by minute (and to the ms) until one more call would be admitted
    const needFree = live.length - limit + 1;
    next = Math.ceil((live[needFree - 1]! + CREDIT_WINDOW_MS - nowMs) / 60_000);
  }
  const last = live[live.length - 1];
  return {
    remaining,
    nextCreditInMinutes: next,
    fullResetInMinutes: last === undefined ? 0 : Math.ceil((last + CREDIT_WINDOW_MS - nowMs) / 60_000),
    windowResetAt: last === undefined ? nowMs : last + CREDIT_WINDOW_MS,
  };
}

const schedule = fc.record({
  limit: fc.integer({ min: 1, max: 12 }),
  offsets: fc.array(fc.integer({ min: 0, max: 8 * 3600_000 }), { maxLength: 25 }),
  probe: fc.integer({ min: 0, max: 10 * 3600_000 }),
});

describe('usage block (spec 2.10) against a brute-force model', () => {
  it('matches over 1,000 random schedules (pure window arithmetic)', () => {
    fc.assert(
      fc.property(schedule, ({ limit, offsets, probe }) => {
        const t0 = Date.UTC(2026, 10, 23);
        // admitted calls: replay through the model's own admission rule
        const admitted: number[] = [];
        for (const o of [...offsets].sort((a, b) => a - b)) {
          const t = t0 + o;
          if (bruteForce(limit, admitted, t).remaining > 0) admitted.push(t);
        }
        const now = t0 + probe;
        const live = admitted.filter((t) => t > now - CREDIT_WINDOW_MS && t <= now);
        const u = usageFrom(limit, live, now);
        const m = bruteForce(limit, admitted, now);
        expect({ remaining: u.remaining, nextCreditInMinutes: u.nextCreditInMinutes, fullResetInMinutes: u.fullResetInMinutes, windowResetAt: u.windowResetAt.getTime() }).toEqual(m);
      }),
      { numRuns: 1_000 },
    );
  });
});

describe.each(BACKENDS)('limits on $name', (backend) => {
  let api: TestApi;
  beforeAll(async () => {
    api = await backend.start();
  });
  afterAll(async () => {
    await api?.close();
  });

  it('200 concurrent requests against a Free plan: exactly 10 succeed, in every run', async () => {
    for (let run = 0; run < backend.runs; run++) {
      const o = await api.org({ name: `Free ${run}` });
      const k = await api.key(o.orgId);
      const statuses = await Promise.all(Array.from({ length: 200 }, () => api.get('/api/agent/orgs', k).then((r) => r.status)));
      expect(statuses.filter((s) => s !== 200 && s !== 429), `run ${run}: only 200 and 429`).toEqual([]);
      expect(statuses.filter((s) => s === 200).length, `run ${run}`).toBe(10);
      expect(statuses.filter((s) => s === 429).length, `run ${run}`).toBe(190);
    }
  }, 180_000);

  it('with an injected clock a credit frees exactly 5 hours after its call', async () => {
    const o = await api.org({ name: 'Clocked' });
    const k = await api.key(o.orgId);
    const t0 = Date.UTC(2026, 10, 23, 9);
    for (let i = 0; i < 10; i++) {
      api.clock.set(new Date(t0 + i * 1000));
      expect((await api.get('/api/agent/orgs', k)).status).toBe(200);
    }
    api.clock.set(new Date(t0 + CREDIT_WINDOW_MS - 1));
    const refused = await api.get('/api/agent/orgs', k);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('1');
    api.clock.set(new Date(t0 + CREDIT_WINDOW_MS));
    expect((await api.get('/api/agent/orgs', k)).status).toBe(200);
    expect((await api.get('/api/agent/orgs', k)).status).toBe(429);
    api.clock.set(new Date(t0 + CREDIT_WINDOW_MS + 1000));
    expect((await api.get('/api/agent/orgs', k)).status).toBe(200);
    api.clock.set(new Date(t0));
  });

  it('one admission (burst, credit and daily bucket in one call) agrees with the model; settle gives back what it took', async () => {
    const limiter = backend.limiter(api);
    await fc.assert(
      fc.asyncProperty(schedule, async ({ limit, offsets, probe }) => {
        const subject = { billingAccountId: randomUUID(), meterId: randomUUID(), orgId: (await api.org()).orgId, limit };
        const keyId = randomUUID();
        const t0 = Date.UTC(2026, 10, 23);
        const admitted: number[] = [];
        const burst: number[] = [];
        let daily = 0;
        for (const o of [...offsets].sort((a, b) => a - b)) {
          const now = t0 + o;
          const burstOk = burst.filter((t) => t > now - 60_000).length < 60;
          const creditOk = bruteForce(limit, admitted, now).remaining > 0;
          const a = await limiter.admit({ keyId, route: '/api/agent/invoices', subject, credit: 'reserve', daily: 'count', day: '2026-11-23' }, new Date(now));
          expect(a.burst.allowed).toBe(burstOk);
          if (!burstOk) {
            expect([a.credit, a.usage, a.dailyUsed, a.taken]).toEqual([null, null, null, null]);
            continue;
          }
          burst.push(now);
          expect(a.credit?.allowed).toBe(creditOk);
          if (!creditOk) {
            expect([a.dailyUsed, a.taken]).toEqual([null, null]);
            continue;
          }
          admitted.push(now);
          daily++;
          expect(a.dailyUsed).toBe(daily);
          expect(a.usage!.remaining).toBe(bruteForce(limit, admitted, now).remaining);
          // Every third call turns out not chargeable: its credit and its daily count come back.
          if (admitted.length % 3 === 0) {
            await limiter.settle(a.taken!);
            admitted.pop();
            daily--;
          }
        }
        const last = t0 + Math.max(probe, ...offsets);
        const read = await limiter.admit({ keyId: randomUUID(), route: '/api/agent/status', subject, credit: 'read', daily: 'read', day: '2026-11-23' }, new Date(last));
        expect([read.credit, read.taken, read.dailyUsed, read.usage!.remaining]).toEqual([null, null, daily, bruteForce(limit, admitted, last).remaining]);
      }),
      { numRuns: 15 },
    );
  }, 120_000);

  it('a request costs one call of the limiter; a refusal before admission one burst count; an uncharged answer one more to settle', async () => {
    const o = await api.org({ name: 'Counted', plan: 'Reserve' });
    const k = await api.key(o.orgId, ['READ_CONTACTS']);
    const cases: [string, number, string[]][] = [
      ['/api/agent/contacts?limit=1', 200, ['admit']],
      ['/api/agent/status', 200, ['admit']],
      ['/api/agent/invoices', 403, ['hitBurst']],
      ['/api/agent/contacts?limit=0', 400, ['admit', 'settle']],
    ];
    for (const [path, status, expected] of cases) {
      calls.length = 0;
      expect((await api.get(path, k)).status).toBe(status);
      expect([path, calls]).toEqual([path, expected]);
    }
  });

  it('usage from the backend matches the brute-force model over random schedules', async () => {
    const limiter = backend.limiter(api);
    await fc.assert(
      fc.asyncProperty(schedule, async ({ limit, offsets, probe }) => {
        const subject = { billingAccountId: randomUUID(), meterId: randomUUID(), orgId: (await api.org()).orgId, limit };
        const t0 = Date.UTC(2026, 10, 23);
        const admitted: number[] = [];
        for (const o of [...offsets].sort((a, b) => a - b)) {
          // The model's verdict from the calls admitted before this one (same-millisecond calls included).
          const expected = bruteForce(limit, admitted, t0 + o).remaining > 0;
          const r = await limiter.reserveCredit(subject, new Date(t0 + o));
          expect(r.allowed).toBe(expected);
          if (r.allowed) admitted.push(t0 + o);
        }
        const now = t0 + Math.max(probe, ...offsets);
        // The window as /status reads it: an admission that only reads (a key of its own, so its burst is free).
        const u = (await limiter.admit({ keyId: randomUUID(), route: '/api/agent/status', subject, credit: 'read', daily: 'read', day: '2026-11-23' }, new Date(now))).usage!;
        const m = bruteForce(limit, admitted, now);
        expect({ remaining: u.remaining, nextCreditInMinutes: u.nextCreditInMinutes, fullResetInMinutes: u.fullResetInMinutes, windowResetAt: u.windowResetAt.getTime() }).toEqual(m);
      }),
      { numRuns: 25 },
    );
  }, 120_000);
});
