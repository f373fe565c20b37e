/**
 * Issue 8, faults: "the ledger faults of the sync issue under load". While
 * clients keep reading the organisation through the API (PostgreSQL, so the
 * reads and the sync's page transactions really run side by side), a sync
 * meets each fault of the shipped Xero server. Every read is answered 200
 * (the API never fails because the ledger does), nothing stored is lost or
 * changed by a failed run, and the run ends in the ledgerAlert that
 * test/sync-faults.test.ts proves without load.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { startTestApi, type TestApi } from './helpers/http.js';
import { rows } from '../src/store/db.js';
import { connectLedger, type SyncOptions, syncOrganisation } from '../src/ledger/sync/sync.js';
import type { Fault, XeroServer } from '../src/xero-server/server.js';
import { NOW, syncOpts, testKeyring, xeroServer } from './helpers/ledger.js';

const PATHS = ['/api/agent/invoices?limit=20', '/api/agent/contacts?limit=20', '/api/agent/bank-accounts', '/api/agent/bills?totals=true', '/api/agent/status'];
const KEYS = 30;

let api: TestApi;
let server: XeroServer;
let orgId: string;
const keys: string[] = [];

beforeAll(async () => {
  api = await startTestApi('postgres', { now: NOW.toISOString() });
  server = await xeroServer({ limits: { perMinute: 100_000, concurrent: 5 } });
  ({ orgId } = await api.org({ name: 'Synced under load', plan: 'Reserve' }));
  const grant = server.issueGrant();
  await connectLedger(api.store.db, testKeyring, { orgId, tenantId: server.tenantId, refreshToken: grant.refreshToken, now: NOW });
  expect((await syncOrganisation(api.store.db, orgId, syncOpts(server))).outcome).toBe('ok');
  // Keys of distinct users: the frozen test clock never frees burst slots (60 a minute per key and endpoint).
  for (let i = 0; i < KEYS; i++) keys.push(await api.key(orgId, undefined, await api.user(orgId)));
}, 120_000);

afterAll(async () => {
  await server?.close();
  await api?.close();
});

/** Reads the organisation from 4 clients until stopped; every answer's status and ledgerAlert kind. */
function readLoad() {
  let running = true;
  let n = 0;
  let syncing = false;
  const answers: { status: number; alert?: string; duringSync: boolean }[] = [];
  const client = async () => {
    while (running) {
      const i = n++;
      const sentDuringSync = syncing;
      const res = await api.get(PATHS[i % PATHS.length]!, keys[Math.floor(i / PATHS.length) % KEYS]!);
      const body = (await res.json()) as { ledgerAlert?: { kind: string } };
      answers.push({ status: res.status, alert: body.ledgerAlert?.kind, duringSync: sentDuringSync || syncing });
      await new Promise((r) => setTimeout(r, 5));
    }
  };
  const clients = Array.from({ length: 4 }, client);
  return {
    answers,
    /** Runs `work` while the clients read; the reads go on for 300 ms before and after it. */
    async around<T>(work: () => Promise<T>): Promise<T> {
      await new Promise((r) => setTimeout(r, 300));
      syncing = true;
      try {
        return await work();
      } finally {
        syncing = false;
        await new Promise((r) => setTimeout(r, 300));
      }
    },
    async stop() {
      running = false;
      await Promise.all(clients);
      return answers;
    },
  };
}

/** What is stored for the organisation: counts and amounts of every ledger table that a sync writes. */
const stored = () =>
  rows<Record<string, string>>(
    api.store.db,
    sql`select (select count(*) from cash_items where org_id = ${orgId})::text as items,
               (select coalesce(sum(total), 0) from cash_items where org_id = ${orgId})::text as total,
               (select count(*) from contacts where org_id = ${orgId})::text as contacts,
               (select count(*) from payments where org_id = ${orgId})::text as payments,
               (select count(*) from cash_item_lines where org_id = ${orgId})::text as lines`,
  ).then((r) => r[0]!);

describe('ledger faults while the API is read (issue 8)', () => {
  it.each<[string, Fault | (() => void), Partial<SyncOptions>, 'ok' | 'failed', string | undefined]>([
    ['persistent 500s', { kind: 'server_error', match: '/Invoices' }, {}, 'failed', 'service_issue'],
    ['stalls (bounded in time)', { kind: 'stall', match: '/Invoices' }, { client: { timeoutMs: 300, maxAttempts: 2 } }, 'failed', 'service_issue'],
    ['malformed bodies', { kind: 'malformed', match: '/Invoices' }, {}, 'failed', 'service_issue'],
    ['a redirect to another host', { kind: 'redirect', match: '/Invoices' }, {}, 'failed', 'service_issue'],
    ['one 429 with Retry-After (retried away)', { kind: 'rate_limit', match: '/Invoices', times: 1, retryAfter: 1 }, {}, 'ok', undefined],
    ['a revoked grant', () => server.revokeTokens(), {}, 'failed', 'reconnect_required'],
  ])('%s: every read is a 200, nothing stored changes, the run ends in the right ledgerAlert', async (_name, fault, extra, outcome, alert) => {
    server.clearFaults();
    const before = await stored();
    if (typeof fault === 'function') fault();
    else server.addFault(fault);
    const load = readLoad();
    const run = await load.around(() => syncOrganisation(api.store.db, orgId, syncOpts(server, extra)));
    const answers = await load.stop();
    server.clearFaults();

    expect(run.outcome).toBe(outcome);
    expect(answers.length).toBeGreaterThan(20);
    expect(answers.filter((a) => a.duringSync).length, 'reads while the sync ran').toBeGreaterThan(0);
    expect(answers.filter((a) => a.status !== 200).map((a) => a.status)).toEqual([]);
    // The data served during and after the run is the data stored before it (the ledger did not change).
    expect(await stored()).toEqual(before);
    const res = await api.get('/api/agent/bank-accounts', keys[0]!);
    expect(res.status).toBe(200);
    expect(((await res.json()) as { ledgerAlert?: { kind: string } }).ledgerAlert?.kind).toBe(alert);
  }, 60_000);
});
