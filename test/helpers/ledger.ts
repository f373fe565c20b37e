/**
 * The ledger side of the sync tests: the demo business served by the shipped
 * Xero-compatible server (src/xero-server/), an organisation connected to it,
 * fast client settings, and a snapshot of everything stored for comparisons.
 */
import { createHash } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { generateDemo, type DemoOutput } from '../../src/demo/generate.js';
import { importFiles } from '../../src/ledger/import.js';
import { connectLedger, type SyncOptions } from '../../src/ledger/sync/sync.js';
import { Keyring } from '../../src/ledger/seal.js';
import { type Db, rows } from '../../src/store/db.js';
import { createOrg } from '../../src/store/tenancy.js';
import { datasetFromFiles, startXeroServer, type XeroServer, type XeroServerOptions } from '../../src/xero-server/server.js';

export const NOW = new Date('2026-11-23T09:00:00Z');

/** The tests' CASHLINE_ENCRYPTION_KEY (a fixed key: spawned processes open what the test sealed). */
export const TEST_ENCRYPTION_KEY = createHash('sha256').update('cashline test encryption key').digest('base64');
/** The keyring of TEST_ENCRYPTION_KEY. */
export const testKeyring = Keyring.fromKeys(TEST_ENCRYPTION_KEY);

const demos = new Map<string, DemoOutput>();
/** The demo business (small by default), generated once per process. */
export function demo(scale = 0.05, seed = 99): DemoOutput {
  const k = `${scale}:${seed}`;
  if (!demos.has(k)) demos.set(k, generateDemo({ asOf: NOW, scale, seed, name: 'Sync Test Traders' }));
  return demos.get(k)!;
}

/** A Xero server over a fresh copy of the demo data. */
export async function xeroServer(opts: Partial<XeroServerOptions> & { scale?: number } = {}): Promise<XeroServer> {
  const files = structuredClone(demo(opts.scale).files);
  return startXeroServer({ data: datasetFromFiles(files), ...opts });
}

/** The environment `cashline-server` needs to sync from this server into the store at `databaseUrl` (with the test key), its clock at NOW, silent. */
export function syncEnv(server: XeroServer, databaseUrl: string): NodeJS.ProcessEnv {
  return {
    DATABASE_URL: databaseUrl,
    XERO_API_URL: server.apiUrl,
    XERO_IDENTITY_URL: server.identityUrl,
    XERO_CLIENT_ID: server.clientId,
    XERO_CLIENT_SECRET: server.clientSecret,
    CASHLINE_NOW: NOW.toISOString(),
    CASHLINE_LOG_LEVEL: 'silent',
    CASHLINE_ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
  };
}

/** A new organisation connected to the server (a fresh grant). */
export async function connectedOrg(db: Db, server: XeroServer, name = 'Sync Org'): Promise<string> {
  const { orgId } = await createOrg(db, { name, now: NOW });
  const g = server.issueGrant();
  await connectLedger(db, testKeyring, { orgId, tenantId: server.tenantId, refreshToken: g.refreshToken, now: NOW });
  return orgId;
}

/** Sync options against the server: fast retries and timeouts for tests. */
export function syncOpts(server: XeroServer, extra: Partial<SyncOptions> = {}): SyncOptions {
  return {
    apiUrl: server.apiUrl,
    identityUrl: server.identityUrl,
    clientId: server.clientId,
    clientSecret: server.clientSecret,
    keyring: testKeyring,
    now: () => NOW,
    ...extra,
    client: { baseDelayMs: 20, maxDelayMs: 100, timeoutMs: 2_000, maxAttempts: 3, ...extra.client },
  };
}

/** Imports the same demo files into a new organisation (the reference a sync must match). */
export async function importedOrg(db: Db, scale?: number): Promise<string> {
  const { orgId } = await createOrg(db, { name: 'Imported reference', now: NOW });
  await importFiles(db, orgId, demo(scale).files, { now: NOW });
  return orgId;
}

/** Every ledger table an import or a sync writes, with the order that makes its rows comparable. */
export const LEDGER_TABLES: Record<string, string> = {
  contacts: 'id',
  accounts: 'id',
  bank_balances: 'account_id',
  cash_items: 'id',
  cash_item_lines: 'item_id, line_number',
  payments: 'id',
  credit_note_allocations: 'credit_note_id, seq',
  purchase_orders: 'id',
  purchase_order_lines: 'purchase_order_id, line_number',
  bank_transactions: 'id',
  journal_lines: 'journal_id, id',
  repeating_invoices: 'id',
};

/** Every ledger row of the organisation, without org_id (so two organisations compare). */
export async function ledgerRows(db: Db, orgId: string): Promise<Record<string, unknown[]>> {
  const out: Record<string, unknown[]> = {};
  for (const [table, order] of Object.entries(LEDGER_TABLES)) {
    const list = await rows<Record<string, unknown>>(db, sql`select * from ${sql.raw(table)} where org_id = ${orgId} order by ${sql.raw(order)}`);
    out[table] = list.map(({ org_id: _o, ...rest }) => rest);
  }
  return out;
}

export async function ledgerCounts(db: Db, orgId: string): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const table of Object.keys(LEDGER_TABLES)) {
    const [r] = await rows<{ n: number }>(db, sql`select count(*)::int as n from ${sql.raw(table)} where org_id = ${orgId}`);
    out[table] = Number(r!.n);
  }
  return out;
}
