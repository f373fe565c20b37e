/**
 * Limits of spec 8 through real HTTP with the SQL store's limiter, on PGlite
 * and PostgreSQL: the burst cap (a sliding window per key and endpoint
 * template) and the query credits (a rolling 5-hour window per user and
 * billing account), what is charged (decisions.md), the usage block of spec
 * 2.10, and exactness under concurrency. Time is driven with the ManualClock.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { BACKENDS } from './helpers/store.js';
import { startTestApi, testRoutes, type TestApi } from './helpers/http.js';
import { rows } from '../src/store/db.js';

const T0 = Date.parse('2026-11-23T09:00:00Z');
const MIN = 60_000;
const HOUR = 3_600_000;

describe.each(BACKENDS)('agent API limits on %s', (kind) => {
  let api: TestApi;
  const at = (ms: number) => api.clock.set(new Date(ms));

  beforeAll(async () => {
    api = await startTestApi(kind, { now: new Date(T0).toISOString(), extraRoutes: testRoutes });
  });
  afterEach(() => at(T0));
  afterAll(async () => {
    await api?.close();
  });

  const usage = async (key: string, headers: Record<string, string> = {}) => (await (await api.get('/api/agent/status', key, headers)).json()).usage;

  it('burst: the 61st request within a minute is 429 rate_limited with Retry-After, in a sliding (not fixed) window per endpoint template', async () => {
    // spec 8: "Burst cap | 60 requests per minute per key per endpoint"; decisions.md: "rate_limited 429 (burst) ... with Retry-After seconds".
    const o = await api.org({ name: 'Burst', plan: 'Reserve' });
    const k = await api.key(o.orgId, ['READ_BANK']);
    const start = T0 + 30_000; // 09:00:30, half-way through a clock minute
    at(start);
    // /test-items/a and /test-items/b share the bucket of /test-items/{id}.
    for (let i = 0; i < 30; i++) expect((await api.get('/api/agent/test-items/a', k)).status).toBe(200);
    at(start + 20_000);
    for (let i = 0; i < 30; i++) expect((await api.get('/api/agent/test-items/b', k)).status).toBe(200);
    const limited = await api.get('/api/agent/test-items/c', k);
    expect(limited.status).toBe(429);
    expect(await limited.json()).toEqual({ error: 'rate_limited', message: expect.any(String) });
    expect(limited.headers.get('retry-after')).toBe('40'); // the first 30 leave the window at start + 60 s
    expect(limited.headers.get('ratelimit')).toContain('"burst";r=0;t=40');
    // Another endpoint has a bucket of its own.
    expect((await api.get('/api/agent/orgs', k)).status).toBe(200);
    // 09:01:00: a fixed per-minute window would have reset here; the sliding one has not.
    at(start + 30_000);
    expect((await api.get('/api/agent/test-items/a', k)).status).toBe(429);
    at(start + 59_999);
    const last = await api.get('/api/agent/test-items/a', k);
    expect([last.status, last.headers.get('retry-after')]).toEqual([429, '1']);
    // At start + 60 s the first 30 requests have aged out: 30 more, not 60.
    at(start + 60_000);
    for (let i = 0; i < 30; i++) expect((await api.get('/api/agent/test-items/a', k)).status).toBe(200);
    const again = await api.get('/api/agent/test-items/a', k);
    expect([again.status, again.headers.get('retry-after')]).toEqual([429, '20']);
  });

  it('burst counts every authenticated request, refused ones included; unauthenticated ones do not count', async () => {
    // decisions.md: "The burst cap counts every authenticated request."
    const o = await api.org({ name: 'Burst refused', plan: 'Reserve' });
    const k = await api.key(o.orgId);
    for (let i = 0; i < 5; i++) expect((await api.get('/api/agent/orgs', null)).status).toBe(401);
    for (let i = 0; i < 60; i++) {
      expect((await api.get('/api/agent/orgs', k, { 'X-Service-Org-Id': 'another-org' })).status).toBe(403);
    }
    const res = await api.get('/api/agent/orgs', k);
    expect(res.status).toBe(429);
    expect(await res.json()).toMatchObject({ error: 'rate_limited' });
    // The scope check comes before the limits: a key without the scope is told so, not throttled.
    const noScope = await api.key(o.orgId, ['READ_INVOICES']);
    for (let i = 0; i < 61; i++) expect((await api.get('/api/agent/test-items/a', noScope)).status).toBe(403);
  });

  it("credits: a Free plan's 11th charged call is 429 quota_exhausted; status is never charged; a credit frees exactly 5 hours after its call", async () => {
    // spec 8: "Query credits | Rolling 5-hour window per (user, billing account): Free 10"; "Status endpoint | Exempt from
    // query-credit counting"; "Credit release | Each credit frees continuously as its call ages past 5 hours".
    const o = await api.org({ name: 'Free plan' });
    const k = await api.key(o.orgId);
    for (let i = 0; i < 10; i++) {
      at(T0 + i * MIN);
      expect((await api.get('/api/agent/orgs', k)).status).toBe(200);
      expect((await api.get('/api/agent/status', k)).status).toBe(200);
    }
    at(T0 + 10 * MIN);
    const out = await api.get('/api/agent/orgs', k);
    expect(out.status).toBe(429);
    expect(await out.json()).toEqual({ error: 'quota_exhausted', message: expect.any(String) });
    // decisions.md: Retry-After = seconds until the oldest credit of the window frees (t0 + 5 h).
    expect(out.headers.get('retry-after')).toBe(String(5 * 3600 - 600));
    expect(out.headers.get('ratelimit')).toContain(`"credits";r=0;t=${5 * 3600 - 600}`);
    // Status still answers, never charged, even with no credit left.
    const st = await api.get('/api/agent/status', k);
    expect(st.status).toBe(200);
    expect(st.headers.get('x-service-reset-minutes')).toBe('290'); // spec 4.2: mirrors usage.nextCreditInMinutes
    expect((await st.json()).usage).toEqual({
      remaining: 0,
      nextCreditInMinutes: 290,
      fullResetInMinutes: 299,
      windowResetAt: new Date(T0 + 9 * MIN + 5 * HOUR).toISOString(),
    });
    at(T0 + 5 * HOUR - 1);
    const early = await api.get('/api/agent/orgs', k);
    expect([early.status, early.headers.get('retry-after')]).toEqual([429, '1']);
    at(T0 + 5 * HOUR);
    expect((await api.get('/api/agent/orgs', k)).status).toBe(200);
    const next = await api.get('/api/agent/orgs', k);
    expect([next.status, next.headers.get('retry-after')]).toEqual([429, '60']); // the second call frees at t0 + 1 min + 5 h
  });

  it('the usage block: remaining, nextCreditInMinutes, fullResetInMinutes, windowResetAt', async () => {
    // spec 2.10 usage: "remaining", "nextCreditInMinutes (0 when a credit is available now)", "fullResetInMinutes (0 for an
    // empty window)", "windowResetAt (ISO instant the window fully empties)".
    const o = await api.org({ name: 'Usage' });
    const k = await api.key(o.orgId);
    expect(await usage(k)).toEqual({ remaining: 10, nextCreditInMinutes: 0, fullResetInMinutes: 0, windowResetAt: new Date(T0).toISOString() });
    for (const offset of [0, 30_000, 90_000]) {
      at(T0 + offset);
      await api.get('/api/agent/orgs', k);
    }
    at(T0 + 2 * MIN);
    expect(await usage(k)).toEqual({
      remaining: 7,
      nextCreditInMinutes: 0,
      fullResetInMinutes: 300, // 299.5 minutes, rounded up
      windowResetAt: new Date(T0 + 90_000 + 5 * HOUR).toISOString(),
    });
    at(T0 + 5 * HOUR + 90_000);
    expect(await usage(k)).toEqual({ remaining: 10, nextCreditInMinutes: 0, fullResetInMinutes: 0, windowResetAt: new Date(T0 + 5 * HOUR + 90_000).toISOString() });
  });

  it('only answers that passed auth and scope and are 2xx or 404 are charged (400, 403, 429 and 5xx are not)', async () => {
    // decisions.md: "Credits are charged for requests that passed authentication and scope checks and were answered 2xx or 404;
    // 400/401/403/429/5xx are not charged".
    const o = await api.org({ name: 'Charging' });
    const k = await api.key(o.orgId, ['READ_BANK']);
    const noScope = await api.key(o.orgId, ['READ_INVOICES']);
    expect((await api.get('/api/agent/test-items/a?limit=0', k)).status).toBe(400);
    expect((await api.get('/api/agent/test-items/a?limit=abc', k)).status).toBe(400);
    expect((await api.get('/api/agent/test-items/a', noScope)).status).toBe(403);
    expect((await api.get('/api/agent/test-items/a', k, { 'X-Service-Org-Id': 'elsewhere' })).status).toBe(403);
    expect((await api.get('/api/agent/test-boom', k)).status).toBe(500);
    expect((await api.get('/api/agent/test-down', k)).status).toBe(503);
    expect((await api.get('/api/agent/nope', k)).status).toBe(404); // no such endpoint: not a call of any endpoint
    expect(await usage(k)).toMatchObject({ remaining: 10 });
    expect((await api.get('/api/agent/test-items/a', k)).status).toBe(200);
    expect((await api.get('/api/agent/test-items/missing', k)).status).toBe(404);
    expect(await usage(k)).toMatchObject({ remaining: 8 });
    const [n] = await rows<{ n: number }>(api.store.db, sql`select count(*)::int8 as n from credit_events where org_id = ${o.orgId}`);
    expect(n!.n).toBe(2);
  });

  it('credits are per (user, billing account): another member has their own; a partner key is metered to the client as partner:<id>', async () => {
    // spec 8: "Rolling 5-hour window per (user, billing account)"; brief: partner keys are metered to the client
    // organisation's billing account as the user `partner:<partnerId>`.
    const o = await api.org({ name: 'Seats' });
    const owner = await api.key(o.orgId);
    const member = await api.key(o.orgId, undefined, await api.user(o.orgId));
    const { key: pkey, partnerId } = await api.partner([o.orgId]);
    const org = { 'X-Service-Org-Id': o.orgId };
    for (let i = 0; i < 10; i++) expect((await api.get('/api/agent/orgs', pkey, org)).status).toBe(200);
    expect((await api.get('/api/agent/orgs', pkey, org)).status).toBe(429);
    // Without an organisation a partner's /orgs is not metered at all.
    expect((await api.get('/api/agent/orgs', pkey)).status).toBe(200);
    expect(await usage(owner)).toMatchObject({ remaining: 10 });
    expect(await usage(pkey, org)).toMatchObject({ remaining: 0 });
    for (let i = 0; i < 10; i++) expect((await api.get('/api/agent/orgs', owner)).status).toBe(200);
    expect((await api.get('/api/agent/orgs', owner)).status).toBe(429);
    expect((await api.get('/api/agent/orgs', member)).status).toBe(200);
    const users = await rows<{ user_id: string; n: number }>(
      api.store.db,
      sql`select user_id, count(*)::int8 as n from credit_events where org_id = ${o.orgId} group by user_id order by n desc, user_id`,
    );
    expect(users).toContainEqual({ user_id: `partner:${partnerId}`, n: 10 });
    expect(users).toContainEqual({ user_id: o.userId, n: 10 });
  });
});

describe.each(BACKENDS)('limits are exact under concurrency on %s (pool of 10 connections)', (kind) => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi(kind, { poolSize: 10 });
  });
  afterAll(async () => {
    await api?.close();
  });

  it('200 concurrent requests on a Free plan: exactly 10 succeed, the rest are quota_exhausted', async () => {
    // spec 8: "Free 10 ... credits per window"; brief: "200 concurrent requests on a Free plan -> exactly 10 succeed".
    // Three runs on PostgreSQL (where transactions really interleave); PGlite runs one transaction at a time.
    for (let run = 0; run < (kind === 'postgres' ? 3 : 1); run++) {
      const o = await api.org({ name: `Concurrent ${run}` });
      // Five keys of the same user share the credits but not the burst buckets (40 requests each).
      const keys = await Promise.all(Array.from({ length: 5 }, () => api.key(o.orgId)));
      const answers = await Promise.all(
        Array.from({ length: 200 }, (_, i) => api.get('/api/agent/orgs', keys[i % 5]).then(async (r) => [r.status, (await r.json()).error])),
      );
      expect(answers.filter(([s]) => s === 200), `run ${run}`).toHaveLength(10);
      expect(answers.filter(([s, e]) => s === 429 && e === 'quota_exhausted'), `run ${run}`).toHaveLength(190);
    }
  });

  it('100 concurrent requests on one key and endpoint: exactly 60 pass the burst cap', async () => {
    // spec 8: "Burst cap | 60 requests per minute per key per endpoint".
    const o = await api.org({ name: 'Concurrent burst', plan: 'Reserve' });
    const k = await api.key(o.orgId);
    const answers = await Promise.all(Array.from({ length: 100 }, () => api.get('/api/agent/status', k).then(async (r) => [r.status, (await r.json()).error])));
    expect(answers.filter(([s]) => s === 200)).toHaveLength(60);
    expect(answers.filter(([s, e]) => s === 429 && e === 'rate_limited')).toHaveLength(40);
  });
});
