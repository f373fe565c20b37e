/**
 * Every fault mode of the shipped Xero server, and the ledgerAlert it ends in
 * (spec 2.1; docs/sync.md "Faults"): transient faults are retried away (no
 * alert); persistent ones leave service_issue with the last good sync; a
 * revoked or expired grant, or a tripped breaker, is reconnect_required; no
 * connection is no_connection. Redirects to another host are never followed;
 * bodies are bounded in size and time. The alert is read through the API.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { startTestApi, type TestApi } from './helpers/http.js';
import * as s from '../src/store/schema.js';
import { BREAKER_COOLDOWN_MS, BREAKER_THRESHOLD, type SyncOptions, syncOrganisation } from '../src/ledger/sync/sync.js';
import type { Fault, XeroServer } from '../src/xero-server/server.js';
import { connectedOrg, NOW, syncOpts, xeroServer } from './helpers/ledger.js';

let api: TestApi;
let server: XeroServer;

beforeAll(async () => {
  api = await startTestApi('pglite', { now: NOW.toISOString() });
  // Many short runs against one server: its per-minute allowance is raised (test/sync.test.ts covers the limits).
  server = await xeroServer({ limits: { perMinute: 100_000, concurrent: 5 } });
});
afterAll(async () => {
  await server?.close();
  await api?.close();
});

const alertOf = async (orgId: string) => {
  const key = await api.key(orgId, ['READ_BANK']);
  const res = await api.get('/api/agent/bank-accounts', key);
  expect(res.status).toBe(200);
  return (await res.json()).ledgerAlert;
};

/** An organisation synced once successfully (so lastSuccessfulSync is set), then the fault, then one run. */
async function afterFault(fault: Fault | (() => void), extra: Partial<SyncOptions> = {}) {
  server.clearFaults();
  const orgId = await connectedOrg(api.store.db, server, `Faults ${Math.random()}`);
  const ok = await syncOrganisation(api.store.db, orgId, syncOpts(server, { resources: ['Contacts'] }));
  expect(ok.outcome).toBe('ok');
  if (typeof fault === 'function') fault();
  else server.addFault(fault);
  const started = Date.now();
  const run = await syncOrganisation(api.store.db, orgId, syncOpts(server, { resources: ['Contacts'], ...extra }));
  server.clearFaults();
  return { orgId, run, ms: Date.now() - started };
}

describe('transient faults are retried away', () => {
  it.each<[string, Fault]>([
    ['429 with Retry-After', { kind: 'rate_limit', match: '/Contacts', times: 1, retryAfter: 1 }],
    ['503 with Retry-After', { kind: 'unavailable', match: '/Contacts', times: 1, retryAfter: 1 }],
    ['500s', { kind: 'server_error', match: '/Contacts', times: 2 }],
    ['a stalled answer', { kind: 'stall', match: '/Contacts', times: 1 }],
    ['a truncated body', { kind: 'truncate', match: '/Contacts', times: 1 }],
    ['a malformed body', { kind: 'malformed', match: '/Contacts', times: 1 }],
    ['a 401 (token expired early)', { kind: 'unauthorized', match: '/Contacts', times: 1 }],
  ])('%s: the run succeeds and no ledgerAlert shows', async (_name, fault) => {
    const { orgId, run, ms } = await afterFault(fault, { client: { timeoutMs: 400 } });
    expect(run.outcome).toBe('ok');
    expect(run.retries + run.refreshes).toBeGreaterThanOrEqual(1);
    if (fault.retryAfter) expect(ms).toBeGreaterThanOrEqual(950); // Retry-After honoured
    expect(await alertOf(orgId)).toBeUndefined();
  });
});

describe('persistent faults end in service_issue with the last good sync', () => {
  it.each<[string, Fault, Partial<SyncOptions>, string]>([
    ['500s', { kind: 'server_error', match: '/Contacts' }, {}, 'server'],
    ['stalls (bounded in time)', { kind: 'stall', match: '/Contacts' }, { client: { timeoutMs: 300, maxAttempts: 2 } }, 'timeout'],
    ['truncated bodies', { kind: 'truncate', match: '/Contacts' }, {}, 'network'],
    ['malformed bodies', { kind: 'malformed', match: '/Contacts' }, {}, 'malformed'],
    ['a Retry-After too long to wait', { kind: 'rate_limit', match: '/Contacts', retryAfter: 3600 }, {}, 'rate_limited'],
    ['a body over the size bound', { kind: 'huge', match: '/Contacts', bytes: 2_000_000 }, { client: { maxBytes: 1_000_000 } }, 'too_large'],
    ['a redirect to another host (never followed)', { kind: 'redirect', match: '/Contacts' }, {}, 'redirect'],
  ])('%s', async (_name, fault, extra, kind) => {
    const hitsBefore = server.redirectHits();
    const { orgId, run, ms } = await afterFault(fault, extra);
    expect(run.outcome).toBe('failed');
    expect(run.errorKind).toBe(kind);
    expect(ms).toBeLessThan(5_000);
    expect(server.redirectHits()).toBe(hitsBefore);
    const alert = await alertOf(orgId);
    expect(alert).toMatchObject({ kind: 'service_issue', severity: 'warn', lastSuccessfulSync: NOW.toISOString() });
  });
});

describe('the grant and the breaker: reconnect_required', () => {
  it('a revoked grant (refresh refused): reconnect_required, and later runs do not call the ledger', async () => {
    const { orgId, run } = await afterFault(() => {
      server.revokeTokens();
    });
    expect(run.outcome).toBe('failed');
    expect(run.errorKind).toBe('token_revoked');
    expect(await alertOf(orgId)).toMatchObject({ kind: 'reconnect_required', severity: 'critical', lastSuccessfulSync: NOW.toISOString() });
    const calls = server.requests.length;
    const next = await syncOrganisation(api.store.db, orgId, syncOpts(server));
    expect(next.outcome).toBe('skipped');
    expect(server.requests.length).toBe(calls);
  });

  it('an expired refresh token: reconnect_required (token expired)', async () => {
    const { orgId, run } = await afterFault(() => {
      server.expireAccessTokens();
      server.expireRefreshTokens();
    });
    expect(run.errorKind).toBe('token_expired');
    const [c] = await api.store.db.select().from(s.ledgerConnections).where(eq(s.ledgerConnections.orgId, orgId));
    expect(c!.tokenState).toBe('expired');
    expect(await alertOf(orgId)).toMatchObject({ kind: 'reconnect_required' });
  });

  it(`${BREAKER_THRESHOLD} failed runs in a row open the breaker; a trial after the cool-down closes it`, async () => {
    server.clearFaults();
    const db = api.store.db;
    const orgId = await connectedOrg(db, server, 'Breaker');
    const opts = syncOpts(server, { resources: ['Contacts'], client: { maxAttempts: 1 } });
    expect((await syncOrganisation(db, orgId, opts)).outcome).toBe('ok');
    server.addFault({ kind: 'server_error', match: '/Organisation' });
    for (let i = 1; i < BREAKER_THRESHOLD; i++) {
      expect((await syncOrganisation(db, orgId, opts)).outcome).toBe('failed');
      expect(await alertOf(orgId)).toMatchObject({ kind: 'service_issue' });
    }
    const tripped = await syncOrganisation(db, orgId, opts);
    expect(tripped.connection.breakerState).toBe('open');
    expect(await alertOf(orgId)).toMatchObject({ kind: 'reconnect_required', severity: 'critical' });
    // While open and cooling down, the scheduled sync does not call the ledger.
    const calls = server.requests.length;
    expect((await syncOrganisation(db, orgId, opts)).outcome).toBe('skipped');
    expect(server.requests.length).toBe(calls);
    // After the cool-down the ledger is back: the trial run closes the breaker.
    server.clearFaults();
    const later = new Date(NOW.getTime() + BREAKER_COOLDOWN_MS + 1000);
    const trial = await syncOrganisation(db, orgId, { ...opts, now: () => later });
    expect(trial.outcome).toBe('ok');
    expect(trial.connection.breakerState).toBe('closed');
    api.clock.set(later);
    expect(await alertOf(orgId)).toBeUndefined();
    api.clock.set(NOW);
  });

  it('an organisation without a connection: no_connection', async () => {
    const { orgId } = await api.org({ name: 'Unconnected' });
    expect(await alertOf(orgId)).toMatchObject({ kind: 'no_connection', lastSuccessfulSync: null });
  });
});
