/**
 * The envelope of successful answers through real HTTP, on PGlite and
 * PostgreSQL: the headers of spec 4.2, the alerts of spec 2.1, the StatusResponse
 * of spec 2.10 with decisions.md's sub-objects, the audit log (spec 5.6) and
 * the access log.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS } from './helpers/store.js';
import { keyPrefixOf, startTestApi, testRoutes, type TestApi } from './helpers/http.js';
import { StatusResponse } from '../src/schemas/status.js';
import { OrgsResponse } from '../src/schemas/orgs.js';
import { createLogger } from '../src/log.js';

const DAY = 86_400_000;

describe.each(BACKENDS)('agent API envelope on %s', (kind) => {
  let api: TestApi;

  beforeAll(async () => {
    api = await startTestApi(kind, { now: '2026-11-23T09:00:00Z', extraRoutes: testRoutes, captureLogs: true });
  });
  afterAll(async () => {
    await api?.close();
  });

  it('every successful response carries the headers of spec 4.2, the RateLimit headers and Cache-Control: private, no-cache', async () => {
    // spec 4.2 "Response headers (every successful response)": X-Service-Subscription, X-Service-Plan,
    // X-Service-Reset-Minutes, X-Service-Quota-Remaining, X-Service-Quota-Reset (X-Service-Trial-Days-Remaining only when trialing).
    const o = await api.org({ name: 'Headers', plan: 'Free' });
    const k = await api.key(o.orgId);
    const res = await api.get('/api/agent/orgs', k);
    expect(res.status).toBe(200);
    expect(res.headers.get('x-service-subscription')).toBe('active');
    expect(res.headers.get('x-service-plan')).toBe('Free');
    expect(res.headers.has('x-service-trial-days-remaining')).toBe(false);
    expect(res.headers.get('x-service-reset-minutes')).toBe('0');
    // Legacy daily bucket (docs/api.md): Free = 10 credits per 5 h x 24/5 = 48 a day, this call is the first.
    expect(res.headers.get('x-service-quota-remaining')).toBe('47');
    expect(res.headers.get('x-service-quota-reset')).toBe('2026-11-24T00:00:00.000Z');
    // Issue 21: the client alone may keep a successful answer and must revalidate it (its ETag, If-None-Match: 304); never a shared cache.
    expect(res.headers.get('cache-control')).toBe('private, no-cache');
    expect(res.headers.get('etag')).toMatch(/^"[0-9a-f]{40}"$/);
    // draft-ietf-httpapi-ratelimit-headers-10 (pinned in docs/api.md): one item per policy.
    expect(res.headers.get('ratelimit-policy')).toBe('"burst";q=60;w=60, "credits";q=10;w=18000');
    expect(res.headers.get('ratelimit')).toBe('"burst";r=59;t=60, "credits";r=9;t=18000');
    expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);

    // /status is successful too (and not charged: the quota and credits stay as they were).
    const st = await api.get('/api/agent/status', k);
    for (const h of ['x-service-subscription', 'x-service-plan', 'x-service-reset-minutes', 'x-service-quota-remaining', 'x-service-quota-reset']) {
      expect(st.headers.has(h), h).toBe(true);
    }
    expect(st.headers.get('x-service-quota-remaining')).toBe('47');
    expect(st.headers.get('ratelimit')).toBe('"burst";r=59;t=60, "credits";r=9;t=18000');

    // A partner key naming no organisation: nothing is metered, the headers are still there.
    const { key: pkey } = await api.partner([o.orgId]);
    const p = await api.get('/api/agent/orgs', pkey);
    expect(p.headers.get('x-service-subscription')).toBe('active');
    expect(p.headers.get('x-service-plan')).toBe('Partner');
    expect(p.headers.get('x-service-reset-minutes')).toBe('0');
    expect(p.headers.get('x-service-quota-remaining')).toBe('0');
    expect(p.headers.get('ratelimit-policy')).toBe('"burst";q=60;w=60');
  });

  it('error answers carry Cache-Control: no-store but not the envelope headers', async () => {
    // spec 4.2 applies to successful responses; an error is never kept (docs/api.md).
    const o = await api.org({ name: 'Errors' });
    const res = await api.get('/api/agent/test-items/a', await api.key(o.orgId, ['READ_INVOICES']));
    expect(res.status).toBe(403);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.has('x-service-subscription')).toBe(false);
    const unauth = await api.get('/api/agent/status', null);
    expect(unauth.headers.get('cache-control')).toBe('no-store');
  });

  it('X-Service-Trial-Days-Remaining only while trialing; a billingAlert at 5 days or fewer, none above', async () => {
    // spec 4.2: "X-Service-Trial-Days-Remaining | integer; only when trialing"; spec 2.1: "trial has 5 days or fewer left".
    const now = api.clock.now().getTime();
    const five = await api.org({ name: 'Trial five', subscription: 'trialing', trialEndsAt: new Date(now + 5 * DAY) });
    const res = await api.get('/api/agent/status', await api.key(five.orgId));
    expect(res.headers.get('x-service-subscription')).toBe('trialing');
    expect(res.headers.get('x-service-trial-days-remaining')).toBe('5');
    const body = await res.json();
    expect(body.subscription).toEqual({ status: 'trialing', plan: 'Free', trialEndsAt: new Date(now + 5 * DAY).toISOString(), trialDaysRemaining: 5 });
    expect(body.billingAlert).toEqual({ severity: 'warn', message: expect.stringContaining('5 days'), cta: { label: expect.any(String), url: expect.stringMatching(/^https:\/\//) } });

    // 5 days and 1 ms: 6 days (rounded up): no alert.
    const six = await api.org({ name: 'Trial six', subscription: 'trialing', trialEndsAt: new Date(now + 5 * DAY + 1) });
    const r6 = await api.get('/api/agent/orgs', await api.key(six.orgId));
    expect(r6.headers.get('x-service-trial-days-remaining')).toBe('6');
    expect((await r6.json()).billingAlert).toBeUndefined();
  });

  it('past_due, canceled and trial_ended fold a critical billingAlert into bodies; a healthy organisation has none', async () => {
    // spec 2.1 BillingAlert: "subscription status is one of past_due, canceled, trial_ended"; "Absence of an alert means a healthy condition".
    for (const subscription of ['past_due', 'canceled', 'trial_ended']) {
      const o = await api.org({ name: `Sub ${subscription}`, subscription });
      const res = await api.get('/api/agent/orgs', await api.key(o.orgId));
      expect(res.headers.get('x-service-subscription'), subscription).toBe(subscription);
      const body = await res.json();
      expect(body.billingAlert, subscription).toEqual({ severity: 'critical', message: expect.any(String), cta: { label: expect.any(String), url: expect.any(String) } });
      expect(OrgsResponse.parse(body).billingAlert).toBeDefined();
    }
    const healthy = await api.org({ name: 'Healthy', plan: 'Vault' });
    const body = await (await api.get('/api/agent/orgs', await api.key(healthy.orgId))).json();
    expect(body).not.toHaveProperty('billingAlert');
  });

  it('credits used >= 90% raise a billingAlert (critical when none is left)', async () => {
    // spec 2.1: "quota use is 90% or more"; spec 4.2: "When quota remaining falls below 10% ... a billingAlert is folded into the body".
    const o = await api.org({ name: 'Busy' }); // Free: 10 credits
    const k = await api.key(o.orgId);
    for (let i = 1; i <= 8; i++) expect((await (await api.get('/api/agent/orgs', k)).json()).billingAlert, `call ${i}`).toBeUndefined();
    expect((await (await api.get('/api/agent/orgs', k)).json()).billingAlert).toMatchObject({ severity: 'warn' }); // 9 of 10
    expect((await (await api.get('/api/agent/orgs', k)).json()).billingAlert).toMatchObject({ severity: 'critical' }); // 10 of 10
    expect((await (await api.get('/api/agent/status', k)).json()).billingAlert).toMatchObject({ severity: 'critical' });
  });

  it('ledgerAlert: no_connection, reconnect_required, service_issue, and absent while healthy', async () => {
    // spec 2.1 LedgerAlert: kinds reconnect_required (critical), service_issue (warn), no_connection (warn);
    // "lastSuccessfulSync ... Null if never synced"; "Absence means a healthy connection".
    const o = await api.org({ name: 'Ledger' });
    const k = await api.key(o.orgId);
    const alert = async () => (await (await api.get('/api/agent/status', k)).json()).ledgerAlert;
    expect(await alert()).toEqual({
      severity: 'warn',
      kind: 'no_connection',
      reason: 'not_connected',
      message: expect.any(String),
      lastSuccessfulSync: null,
      cta: { label: expect.any(String), url: expect.any(String) },
    });
    const synced = new Date(api.clock.now().getTime() - 3600_000);
    await api.ledger(o.orgId, { lastSuccessfulSync: synced });
    expect(await alert()).toBeUndefined();
    await api.ledger(o.orgId, { lastErrorAt: api.clock.now() });
    expect(await alert()).toMatchObject({ severity: 'warn', kind: 'service_issue', lastSuccessfulSync: synced.toISOString() });
    await api.ledger(o.orgId, { breakerState: 'open' });
    expect(await alert()).toMatchObject({ severity: 'critical', kind: 'reconnect_required', lastSuccessfulSync: synced.toISOString() });
    await api.ledger(o.orgId, { breakerState: 'closed', tokenState: 'expired', lastErrorAt: null });
    expect(await alert()).toMatchObject({ severity: 'critical', kind: 'reconnect_required' });
    await api.ledger(o.orgId, { tokenState: 'revoked' });
    expect(await alert()).toMatchObject({ severity: 'critical', kind: 'reconnect_required' });
    expect(await alert()).toMatchObject({ reason: 'token_revoked' });
    await api.ledger(o.orgId, { tokenState: 'expired' });
    expect(await alert()).toMatchObject({ reason: 'token_expired' });
    // Folded into other bodies too (spec 2.1 "Most successful response bodies carry these optional alert fields").
    const item = await (await api.get('/api/agent/test-items/a', k)).json();
    expect(item.ledgerAlert).toMatchObject({ kind: 'reconnect_required' });
  });

  it('ledgerAlert: a connection that has never synced, and one whose last success is older than 12 hours, each raise an alert', async () => {
    const o = await api.org({ name: 'Quiet ledger' });
    const k = await api.key(o.orgId);
    const alert = async () => (await (await api.get('/api/agent/status', k)).json()).ledgerAlert;
    await api.ledger(o.orgId, { lastSuccessfulSync: null });
    expect(await alert()).toMatchObject({ severity: 'warn', kind: 'service_issue', reason: 'never_synced', lastSuccessfulSync: null });
    const hours = (h: number) => new Date(api.clock.now().getTime() - h * 3600_000);
    await api.ledger(o.orgId, { lastSuccessfulSync: hours(11.9) });
    expect(await alert()).toBeUndefined(); // healthy: 12 hours is the bound
    await api.ledger(o.orgId, { lastSuccessfulSync: hours(12.1) });
    expect(await alert()).toMatchObject({ severity: 'warn', kind: 'service_issue', reason: 'stale', lastSuccessfulSync: hours(12.1).toISOString() });
    // A failing run is reported as such, whatever the age.
    await api.ledger(o.orgId, { lastErrorAt: api.clock.now() });
    expect(await alert()).toMatchObject({ kind: 'service_issue', reason: 'sync_failing' });
  });

  it('status reports subscription, quota, usage, key and environment (spec 2.10, decisions.md sub-objects)', async () => {
    // spec 2.10 StatusResponse: subscription, quota, usage, key, environment; decisions.md:
    // subscription {status, plan, trialEndsAt, trialDaysRemaining}, quota {limit, used, remaining, resetAt},
    // key {keyPrefix, kind, name, scopes, orgId, createdAt}.
    const o = await api.org({ name: 'Status', plan: 'Pocket' });
    const k = await api.key(o.orgId, ['READ_BANK', 'READ_SENSITIVE']);
    await api.get('/api/agent/test-items/a', k); // charged
    await api.get('/api/agent/test-items/missing', k); // 404: charged
    await api.get('/api/agent/test-items/a?limit=0', k); // 400: not charged
    const res = await api.get('/api/agent/status', k);
    const body = StatusResponse.strict().parse(await res.json());
    expect(body).toMatchObject({
      subscription: { status: 'active', plan: 'Pocket', trialEndsAt: null, trialDaysRemaining: null },
      quota: { limit: 240, used: 2, remaining: 238, resetAt: '2026-11-24T00:00:00.000Z' },
      usage: { remaining: 48, nextCreditInMinutes: 0, fullResetInMinutes: 300, windowResetAt: '2026-11-23T14:00:00.000Z' },
      key: { keyPrefix: keyPrefixOf(k), kind: 'USER', name: expect.any(String), scopes: ['READ_BANK', 'READ_SENSITIVE'], orgId: o.orgId, createdAt: '2026-11-23T09:00:00.000Z' },
      environment: 'dev',
    });
    expect(res.headers.get('x-service-quota-remaining')).toBe('238');
  });

  it('the legacy daily quota counts the organisation\'s charged calls (any key) since 00:00 UTC and resets at the next 00:00 UTC', async () => {
    // spec 2.10: "quota | Legacy per-organisation daily bucket"; spec 4.2: X-Service-Quota-Remaining / X-Service-Quota-Reset
    // "legacy daily bucket"; decision in docs/api.md: limit = 5-hour credits x 24/5, used since 00:00 UTC, reset at 00:00 UTC.
    const o = await api.org({ name: 'Daily', plan: 'Wallet' }); // 250 credits per 5 h -> 1,200 a day
    const k1 = await api.key(o.orgId);
    const k2 = await api.key(o.orgId, undefined, await api.user(o.orgId));
    api.clock.set('2026-11-23T23:59:00Z');
    await api.get('/api/agent/orgs', k1);
    await api.get('/api/agent/orgs', k2);
    const last = await api.get('/api/agent/orgs', k1);
    expect(last.headers.get('x-service-quota-remaining')).toBe('1197');
    const st = await (await api.get('/api/agent/status', k2)).json();
    expect(st.quota).toEqual({ limit: 1200, used: 3, remaining: 1197, resetAt: '2026-11-24T00:00:00.000Z' });
    api.clock.set('2026-11-24T00:00:00Z');
    const next = await (await api.get('/api/agent/status', k1)).json();
    expect(next.quota).toEqual({ limit: 1200, used: 0, remaining: 1200, resetAt: '2026-11-25T00:00:00.000Z' });
    api.clock.set('2026-11-23T09:00:00Z');
  });

  it('X-Service-Tool is recorded in the audit log when it matches ^service\\.[a-z_]+$, otherwise ignored, and never changes counting', async () => {
    // spec 5.6: "The value must match the regular expression ^service\.[a-z_]+$; other values are silently ignored.
    // It does not change quota counting (one count per request either way)."
    const o = await api.org({ name: 'Tools' });
    const k = await api.key(o.orgId);
    const tools = ['service.cli_orgs', 'Service.Evil', 'service.cli-orgs', 'x.service.cli', 'service.', 'service.ok_tool; drop table'];
    for (const t of tools) expect((await api.get('/api/agent/orgs', k, { 'X-Service-Tool': t })).status).toBe(200);
    await api.get('/api/agent/orgs', k);
    const rows = await api.audit(o.orgId);
    expect(rows.map((r) => r.tool).reverse()).toEqual(['service.cli_orgs', null, null, null, null, null, null]);
    // 7 calls, 7 credits, whatever the header said.
    expect((await (await api.get('/api/agent/status', k)).json()).usage.remaining).toBe(3);
  });

  it('every authenticated request writes one audit row: organisation, key, user or partner, method, route template, status, duration', async () => {
    // Brief (audit): one audit_log row per authenticated request; spec 5.6: the audit log records the calling tool.
    const o = await api.org({ name: 'Audited', plan: 'Reserve' });
    const k = await api.key(o.orgId, ['READ_BANK']);
    const started = performance.now();
    await api.get('/api/agent/test-items/abc', k, { 'X-Service-Tool': 'service.test' });
    await api.get('/api/agent/test-items/missing', k);
    await api.get('/api/agent/test-items/abc?limit=x', k);
    await api.get('/api/agent/orgs', k, { 'X-Service-Org-Id': 'someone-else' });
    await api.get('/api/agent/status', null); // not authenticated: no row
    const elapsed = performance.now() - started;
    const rows = await api.audit(o.orgId);
    expect(rows.map((r) => [r.method, r.route, r.status])).toEqual([
      ['GET', '/api/agent/orgs', 403],
      ['GET', '/api/agent/test-items/:id', 400],
      ['GET', '/api/agent/test-items/:id', 404],
      ['GET', '/api/agent/test-items/:id', 200],
    ]);
    for (const r of rows) {
      expect(r).toMatchObject({ org_id: o.orgId, key_prefix: keyPrefixOf(k), user_id: o.userId, partner_id: null });
      expect(r.key_id).toEqual(expect.any(String));
      expect(r.request_id).toEqual(expect.any(String));
      // Whole milliseconds, within the time the four requests took together.
      expect(Number.isInteger(r.duration_ms)).toBe(true);
      expect(r.duration_ms).toBeGreaterThanOrEqual(0);
      expect(r.duration_ms).toBeLessThanOrEqual(Math.ceil(elapsed));
    }
    expect(rows[3]!.tool).toBe('service.test');
  });

  it('the access log has one JSON line per request with its request id, and never the key', async () => {
    // Brief (logging): structured pino access log; never log the Authorization header or any key.
    const o = await api.org({ name: 'Logged' });
    const k = await api.key(o.orgId);
    const res = await api.get('/api/agent/orgs', k, { 'X-Request-Id': 'req-123' });
    expect(res.headers.get('x-request-id')).toBe('req-123');
    const wrong = k.slice(0, -4) + 'AAAA';
    expect((await api.get('/api/agent/orgs', wrong)).status).toBe(401);
    const line = api.logs.find((l) => l.requestId === 'req-123');
    expect(line).toMatchObject({ msg: 'request', method: 'GET', route: '/api/agent/orgs', status: 200, keyPrefix: keyPrefixOf(k), orgId: o.orgId, durationMs: expect.any(Number) });
    expect(api.logs.some((l) => l.status === 401 && l.keyPrefix === null)).toBe(true);
    const raw = api.rawLogs();
    expect(raw).not.toContain(k.split('_')[3]);
    expect(raw).not.toContain(wrong.split('_')[3]);
    expect(raw.toLowerCase()).not.toContain('bearer');
    // The redact list censors keys and authorization headers should any code log them.
    let out = '';
    const logger = createLogger({ CASHLINE_LOG_LEVEL: 'info' }, { write: (chunk: string) => void (out += chunk) });
    logger.info({ headers: { authorization: `Bearer ${k}` }, key: k, auth: { secret: 'shh', token: 'tok' } }, 'oops');
    expect(out).not.toContain(k.split('_')[3]);
    expect(out).not.toMatch(/shh|tok"/);
    expect(JSON.parse(out)).toMatchObject({ headers: { authorization: '[redacted]' }, key: '[redacted]' });
  });
});
