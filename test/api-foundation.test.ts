/**
 * The foundation of the agent API through real HTTP, on PGlite and PostgreSQL:
 * authentication and tenancy (spec 5, decisions.md), the envelope (spec 2.1,
 * 4.2), limits (spec 8), errors (spec 7, decisions.md), status and orgs (spec
 * 2.10), the OpenAPI document (spec 9).
 */
import type { JsonResponse } from './helpers/http.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq, sql } from 'drizzle-orm';
import { BACKENDS } from './helpers/store.js';
import { startTestApi, type TestApi } from './helpers/http.js';
import { generateKey } from '../src/domain/keys.js';
import { revokeKey } from '../src/store/tenancy.js';
import { rows } from '../src/store/db.js';
import * as s from '../src/store/schema.js';


const fetchJson = (url: string, init?: RequestInit) => fetch(url, init) as Promise<JsonResponse>;

describe.each(BACKENDS)('agent API foundation on %s', (kind) => {
  let api: TestApi;
  let org: { orgId: string; userId: string; billingAccountId: string };
  let key: string;

  beforeAll(async () => {
    api = await startTestApi(kind);
    org = await api.org({ name: 'Acme', plan: 'Reserve' });
    key = await api.key(org.orgId);
  });
  afterAll(async () => {
    await api?.close();
  });

  describe('authentication (spec 5; spec 4.7 "causes are not differentiated")', () => {
    it('missing, malformed, unknown, wrong-secret and revoked keys get byte-identical 401 bodies', async () => {
      const revoked = await api.key(org.orgId);
      await revokeKey(api.store.db, revoked.split('_')[2]!, api.clock.now());
      const wrongSecret = key.replace(/_[A-Za-z0-9]{40}$/, `_${'A'.repeat(40)}`);
      const unknownPrefix = generateKey('USER').key;
      const tokens: (string | null)[] = [
        null,
        'not-a-key',
        'x'.repeat(10_000),
        // multi-byte input, sent as its raw UTF-8 bytes (a header value is bytes on the wire)
        Buffer.from('cl_user_é漢字_🙂', 'utf8').toString('latin1'),
        unknownPrefix,
        wrongSecret,
        revoked,
        key.replace('cl_user_', 'cl_partner_'),
      ];
      const bodies = new Set<string>();
      for (const t of tokens) {
        const res = await api.get('/api/agent/status', t);
        expect(res.status, String(t).slice(0, 40)).toBe(401);
        bodies.add(await res.text());
      }
      const raw = await fetch(`${api.url}/api/agent/status`, { headers: { authorization: `Basic ${key}` } });
      expect(raw.status).toBe(401);
      bodies.add(await raw.text());
      expect(bodies.size).toBe(1);
      expect(JSON.parse([...bodies][0]!)).toMatchObject({ error: 'unauthorized' });
    });

    it('a revoked key is refused at once (decisions.md key revoke)', async () => {
      const k = await api.key(org.orgId);
      expect((await api.get('/api/agent/orgs', k)).status).toBe(200);
      await revokeKey(api.store.db, k.split('_')[2]!, api.clock.now());
      expect((await api.get('/api/agent/orgs', k)).status).toBe(401);
    });
  });

  describe('tenancy (decisions.md: partner keys and X-Service-Org-Id)', () => {
    it('a user key may name only its own organisation', async () => {
      const other = await api.org({ name: 'Other' });
      expect((await api.get('/api/agent/orgs', key, { 'X-Service-Org-Id': org.orgId })).status).toBe(200);
      const res = await api.get('/api/agent/orgs', key, { 'X-Service-Org-Id': other.orgId });
      expect(res.status).toBe(403);
      expect(await res.json()).toMatchObject({ error: 'forbidden' });
    });

    it('partner keys: /orgs lists linked organisations sorted by name; org_required; forbidden outside the practice', async () => {
      const b = await api.org({ name: 'Bravo Pty' });
      const a = await api.org({ name: 'Alpha Pty' });
      const outside = await api.org({ name: 'Outside' });
      const { key: pkey } = await api.partner([b.orgId, a.orgId]);
      const orgs = await (await api.get('/api/agent/orgs', pkey)).json();
      // spec 2.10: OrgsResponse keyKind and orgs sorted by name; decisions.md orgs[] {id, name, slug}
      expect(orgs).toMatchObject({ keyKind: 'PARTNER' });
      expect(orgs.orgs).toEqual([
        { id: a.orgId, name: 'Alpha Pty', slug: 'alpha-pty' },
        { id: b.orgId, name: 'Bravo Pty', slug: 'bravo-pty' },
      ]);
      // /status needs no organisation; its usage is null then (decisions.md)
      const st = await (await api.get('/api/agent/status', pkey)).json();
      expect(st.usage).toBeNull();
      expect(st.key).toMatchObject({ kind: 'PARTNER', orgId: null });
      // with a linked organisation, usage is metered to it
      const st2 = await (await api.get('/api/agent/status', pkey, { 'X-Service-Org-Id': a.orgId })).json();
      expect(st2.usage).toMatchObject({ remaining: 10 });
      expect(st2.key.orgId).toBe(a.orgId);
      const viaQuery = await api.get(`/api/agent/status?orgId=${b.orgId}`, pkey);
      expect((await viaQuery.json()).key.orgId).toBe(b.orgId);
      const forbidden = await api.get('/api/agent/status', pkey, { 'X-Service-Org-Id': outside.orgId });
      expect(forbidden.status).toBe(403);
      expect(await forbidden.json()).toMatchObject({ error: 'forbidden' });
    });

    it('a user key lists the organisations its user belongs to', async () => {
      const body = await (await api.get('/api/agent/orgs', key)).json();
      expect(body).toMatchObject({ keyKind: 'USER', orgs: [{ id: org.orgId, name: 'Acme', slug: 'acme' }] });
    });
  });

  describe('envelope (spec 4.2, 2.1)', () => {
    it('every successful response carries the X-Service-* headers, RateLimit headers and Cache-Control: no-store', async () => {
      const res = await api.get('/api/agent/orgs', key);
      expect(res.status).toBe(200);
      expect(res.headers.get('x-service-subscription')).toBe('active');
      expect(res.headers.get('x-service-plan')).toBe('Reserve');
      expect(res.headers.get('x-service-trial-days-remaining')).toBeNull(); // only when trialing
      expect(res.headers.get('x-service-reset-minutes')).toBe('0');
      expect(Number(res.headers.get('x-service-quota-remaining'))).toBeGreaterThan(0);
      expect(res.headers.get('x-service-quota-reset')).toBe('2026-11-24T00:00:00.000Z');
      expect(res.headers.get('cache-control')).toBe('no-store');
      expect(res.headers.get('ratelimit-policy')).toMatch(/"burst";q=60;w=60, "credits";q=5000;w=18000/);
      expect(res.headers.get('ratelimit')).toMatch(/"burst";r=\d+;t=\d+, "credits";r=\d+;t=0/);
    });

    it('a trialing organisation gets X-Service-Trial-Days-Remaining and, at 5 days or fewer, a billingAlert', async () => {
      const t = await api.org({ name: 'Trial', subscription: 'trialing', trialEndsAt: new Date('2026-11-26T00:00:00Z') });
      const k = await api.key(t.orgId);
      const res = await api.get('/api/agent/status', k);
      expect(res.headers.get('x-service-subscription')).toBe('trialing');
      expect(res.headers.get('x-service-trial-days-remaining')).toBe('3');
      const body = await res.json();
      expect(body.subscription).toEqual({ status: 'trialing', plan: 'Free', trialEndsAt: '2026-11-26T00:00:00.000Z', trialDaysRemaining: 3 });
      expect(body.billingAlert).toMatchObject({ severity: 'warn', cta: { label: expect.any(String), url: expect.any(String) } });

      const far = await api.org({ name: 'Far', subscription: 'trialing', trialEndsAt: new Date('2026-12-20T00:00:00Z') });
      const farBody = await (await api.get('/api/agent/status', await api.key(far.orgId))).json();
      expect(farBody.billingAlert).toBeUndefined();
    });

    it('past_due, canceled and trial_ended fold a critical billingAlert into bodies; a healthy one has none', async () => {
      for (const subscription of ['past_due', 'canceled', 'trial_ended']) {
        const o = await api.org({ name: subscription, subscription });
        const body = await (await api.get('/api/agent/orgs', await api.key(o.orgId))).json();
        expect(body.billingAlert, subscription).toMatchObject({ severity: 'critical' });
      }
      const body = await (await api.get('/api/agent/orgs', key)).json();
      expect(body.billingAlert).toBeUndefined();
    });

    it('credits used >= 90% raise a billingAlert', async () => {
      const o = await api.org({ name: 'Busy' }); // Free: 10 credits
      const k = await api.key(o.orgId);
      for (let i = 0; i < 8; i++) expect((await api.get('/api/agent/orgs', k)).status).toBe(200);
      expect((await (await api.get('/api/agent/orgs', k)).json()).billingAlert).toMatchObject({ severity: 'warn' }); // 9 of 10
    });

    it('ledgerAlert no_connection until a ledger is connected, then absent while healthy', async () => {
      const body = await (await api.get('/api/agent/orgs', key)).json();
      expect(body.ledgerAlert).toMatchObject({ severity: 'warn', kind: 'no_connection', lastSuccessfulSync: null });
      const o = await api.org({ name: 'Connected' });
      await api.store.db.insert(s.ledgerConnections).values({ orgId: o.orgId, tenantId: 't', lastSuccessfulSync: api.clock.now() });
      const ok = await (await api.get('/api/agent/orgs', await api.key(o.orgId))).json();
      expect(ok.ledgerAlert).toBeUndefined();
      await api.store.db.update(s.ledgerConnections).set({ tokenState: 'revoked' }).where(eq(s.ledgerConnections.orgId, o.orgId));
      const bad = await (await api.get('/api/agent/orgs', await api.key(o.orgId))).json();
      expect(bad.ledgerAlert).toMatchObject({ severity: 'critical', kind: 'reconnect_required' });
    });

    it('X-Service-Tool is recorded in the audit log when it matches ^service\\.[a-z_]+$, otherwise ignored (spec 5.6)', async () => {
      await api.get('/api/agent/orgs', key, { 'X-Service-Tool': 'service.cli_orgs' });
      await api.get('/api/agent/orgs', key, { 'X-Service-Tool': 'Service.Evil; drop table' });
      const audit = await rows<{ tool: string | null }>(
        api.store.db,
        sql`select tool from audit_log where org_id = ${org.orgId} and route = '/api/agent/orgs' order by id desc limit 2`,
      );
      expect(audit.map((a) => a.tool)).toEqual([null, 'service.cli_orgs']);
    });
  });

  describe('limits (spec 8)', () => {
    it('burst: 60 requests a minute per key and endpoint, as a sliding window; the 61st is 429 rate_limited with Retry-After', async () => {
      const o = await api.org({ name: 'Burst', plan: 'Reserve' });
      const k = await api.key(o.orgId);
      const start = api.clock.now().getTime();
      for (let i = 0; i < 30; i++) expect((await api.get('/api/agent/status', k)).status).toBe(200);
      api.clock.set(new Date(start + 30_000));
      for (let i = 0; i < 30; i++) expect((await api.get('/api/agent/status', k)).status).toBe(200);
      const limited = await api.get('/api/agent/status', k);
      expect(limited.status).toBe(429);
      expect(await limited.json()).toMatchObject({ error: 'rate_limited' });
      expect(limited.headers.get('retry-after')).toBe('30');
      // another endpoint has its own bucket
      expect((await api.get('/api/agent/orgs', k)).status).toBe(200);
      // a fixed window would reset at the minute boundary; the sliding one frees the first 30 only after 60 s
      api.clock.set(new Date(start + 59_999));
      expect((await api.get('/api/agent/status', k)).status).toBe(429);
      api.clock.set(new Date(start + 60_000));
      for (let i = 0; i < 30; i++) expect((await api.get('/api/agent/status', k)).status).toBe(200);
      expect((await api.get('/api/agent/status', k)).status).toBe(429);
      api.clock.set(new Date(start));
    });

    it('credits: Free has 10 per rolling 5 hours; status is never charged; a credit frees exactly 5 hours after its call', async () => {
      const o = await api.org({ name: 'Free plan' });
      const k = await api.key(o.orgId);
      const t0 = api.clock.now().getTime();
      for (let i = 0; i < 10; i++) {
        api.clock.set(new Date(t0 + i * 60_000));
        expect((await api.get('/api/agent/orgs', k)).status).toBe(200);
        expect((await api.get('/api/agent/status', k)).status).toBe(200);
      }
      api.clock.set(new Date(t0 + 10 * 60_000));
      const out = await api.get('/api/agent/orgs', k);
      expect(out.status).toBe(429);
      expect(await out.json()).toMatchObject({ error: 'quota_exhausted' });
      // the first credit was spent at t0 and frees at t0 + 5 h
      expect(Number(out.headers.get('retry-after'))).toBe(5 * 3600 - 600);
      const st = await (await api.get('/api/agent/status', k)).json();
      expect(st.usage).toEqual({
        remaining: 0,
        nextCreditInMinutes: 290,
        fullResetInMinutes: 5 * 60 - 1,
        windowResetAt: new Date(t0 + 9 * 60_000 + 5 * 3600_000).toISOString(),
      });
      api.clock.set(new Date(t0 + 5 * 3600_000 - 1));
      expect((await api.get('/api/agent/orgs', k)).status).toBe(429);
      api.clock.set(new Date(t0 + 5 * 3600_000));
      expect((await api.get('/api/agent/orgs', k)).status).toBe(200);
      expect((await api.get('/api/agent/orgs', k)).status).toBe(429);
      api.clock.set(new Date(t0));
    });

    it('429s and other errors are not charged; another member of the organisation has credits of their own', async () => {
      const o = await api.org({ name: 'Members' });
      const k = await api.key(o.orgId);
      for (let i = 0; i < 10; i++) await api.get('/api/agent/orgs', k);
      for (let i = 0; i < 5; i++) expect((await api.get('/api/agent/orgs', k)).status).toBe(429);
      const second = await api.user(o.orgId);
      const k2 = await api.key(o.orgId, undefined, second);
      expect((await api.get('/api/agent/orgs', k2)).status).toBe(200);
      const [n] = await rows<{ n: number }>(api.store.db, sql`select count(*)::int8 as n from credit_events where org_id = ${o.orgId}`);
      expect(n!.n).toBe(11);
    });
  });

  describe('errors and documents', () => {
    it('non-GET methods are never 2xx (405), unknown endpoints are a JSON 404', async () => {
      for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) {
        const res = await fetch(`${api.url}/api/agent/status`, { method, headers: { authorization: `Bearer ${key}` } });
        expect(res.status, method).toBe(405);
      }
      const res = await api.get('/api/agent/nope', key);
      expect(res.status).toBe(404);
      expect(await res.json()).toMatchObject({ error: 'not_found' });
    });

    it('/api/agent/openapi.json is an OpenAPI 3.1 document generated from the schemas', async () => {
      const res = await fetchJson(`${api.url}/api/agent/openapi.json`);
      expect(res.status).toBe(200);
      const doc = await res.json();
      expect(doc.openapi).toBe('3.1.0');
      expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/api/agent/status', '/api/agent/orgs']));
      expect(doc.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
      expect(doc.components.schemas.StatusResponse).toBeDefined();
      const docs = await fetch(`${api.url}/api/agent/docs`);
      expect(docs.headers.get('content-type')).toMatch(/text\/html/);
      expect(await docs.text()).toContain('/api/agent/status');
    });

    it('status reports the key, the subscription, the legacy quota and the environment (spec 2.10)', async () => {
      const body = await (await api.get('/api/agent/status', key)).json();
      expect(body.key).toMatchObject({ keyPrefix: key.split('_')[2], kind: 'USER', orgId: org.orgId, scopes: expect.arrayContaining(['READ_SENSITIVE']) });
      expect(body.subscription).toMatchObject({ status: 'active', plan: 'Reserve', trialEndsAt: null, trialDaysRemaining: null });
      expect(body.quota).toMatchObject({ limit: 24_000, resetAt: '2026-11-24T00:00:00.000Z' });
      expect(body.environment).toBe('dev');
    });
  });
});

// Exactness under concurrency, on every backend: test/limits-backends.test.ts.
