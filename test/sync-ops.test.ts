/**
 * The operations side of the sync (docs/sync.md): `cashline-server ledger
 * connect`, `sync --org` (JSON result, progress on stderr, ledgerAlert, exit
 * codes), `ledger status`, and the workers' sync cadence (a due connection is
 * synced once per bucket, whichever worker gets the claim).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshStore, type TestStore } from './helpers/store.js';
import { ops } from './helpers/ops.js';
import { createOrg } from '../src/store/tenancy.js';
import { fixedClock } from '../src/clock.js';
import { workerTick } from '../src/jobs/worker.js';
import type { XeroServer } from '../src/xero-server/server.js';
import { connectedOrg, NOW, syncEnv, testKeyring, xeroServer } from './helpers/ledger.js';

describe('sync operations (PostgreSQL)', () => {
  let store: TestStore;
  let server: XeroServer;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    store = await freshStore('postgres');
    server = await xeroServer({ limits: { perMinute: 100_000, concurrent: 5 } });
    env = syncEnv(server, store.url!);
  });
  afterAll(async () => {
    await server?.close();
    await store?.close();
  });

  it('ledger connect, sync (progress on stderr, JSON on stdout), ledger status', async () => {
    const { orgId } = await createOrg(store.db, { name: 'Ops Sync', now: NOW });
    const noConn = await ops(['sync', '--org', orgId], env);
    expect(noConn.code).toBe(1);
    expect(noConn.stderr).toMatch(/^error: .*no ledger connection/);

    const missing = await ops(['sync', '--org', orgId], { ...env, XERO_CLIENT_ID: '' });
    expect(missing.stderr).toMatch(/XERO_CLIENT_ID/);

    const grant = server.issueGrant();
    const conn = await ops(['ledger', 'connect', '--org', orgId, '--tenant-id', server.tenantId, '--refresh-token', grant.refreshToken], env);
    expect(conn.code).toBe(0);
    expect(conn.json).toEqual({ orgId, tenantId: server.tenantId, connected: true });

    const before = await ops(['ledger', 'status', '--org', orgId], env);
    expect(before.json).toMatchObject({ connected: true, tokenState: 'ok', lastSuccessfulSync: null });

    const run = await ops(['sync', '--org', orgId], env);
    expect(run.code, run.stderr).toBe(0);
    expect(run.json).toMatchObject({ orgId, outcome: 'ok', connection: { tokenState: 'ok', breakerState: 'closed', lastSuccessfulSync: NOW.toISOString() } });
    expect(run.json.records.Invoices).toBeGreaterThan(100);
    expect(run.stderr).toMatch(/sync: Invoices [\d,]+\/[\d,]+ \(\d+%\)/);

    const bad = await ops(['sync', '--org', orgId, '--page-size', '0'], env);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toMatch(/--page-size/);

    server.revokeTokens();
    server.expireAccessTokens();
    const revoked = await ops(['sync', '--org', orgId], env);
    expect(revoked.code).toBe(1);
    expect(revoked.json).toMatchObject({ outcome: 'failed', errorKind: 'token_revoked', ledgerAlert: { kind: 'reconnect_required' } });
    const after = await ops(['ledger', 'status', '--org', orgId], env);
    expect(after.json).toMatchObject({ tokenState: 'revoked', ledgerAlert: { kind: 'reconnect_required', severity: 'critical' } });
  });

  it('the workers sync a due connection once per cadence bucket, two workers or not', async () => {
    const orgId = await connectedOrg(store.db, server, 'Worker Sync');
    const ledger = { apiUrl: server.apiUrl, identityUrl: server.identityUrl, clientId: server.clientId, clientSecret: server.clientSecret, keyring: testKeyring };
    const base = { db: store.db, ledger, llm: null, syncEveryMs: 30 * 60_000, jobs: ['sync'] as const };
    const t1 = fixedClock('2026-11-23T10:00:00Z');
    const [a, b] = await Promise.all([workerTick({ ...base, clock: t1, owner: 'a' }), workerTick({ ...base, clock: t1, owner: 'b' })]);
    const mine = [...a.syncs, ...b.syncs].filter((x) => x.orgId === orgId);
    expect(mine).toEqual([{ orgId, outcome: 'ok' }]);
    // Not due again within the cadence; due after it.
    const soon = await workerTick({ ...base, clock: fixedClock('2026-11-23T10:10:00Z'), owner: 'a' });
    expect(soon.syncs.filter((x) => x.orgId === orgId)).toEqual([]);
    const later = await workerTick({ ...base, clock: fixedClock('2026-11-23T10:31:00Z'), owner: 'a' });
    expect(later.syncs.filter((x) => x.orgId === orgId)).toEqual([{ orgId, outcome: 'ok' }]);
  });
});
