/**
 * The ledger sync's throughput (issue 6): a large organisation — the demo
 * business at BENCH_SYNC_SCALE times its size (default 10: 3,772 contacts,
 * 28,120 invoices, 5,200 bills, 31,450 payments, 65,811 journals; 312,662
 * stored rows)
 * — served by the shipped Xero-compatible server on loopback and synced in
 * full into a fresh store (PostgreSQL at 127.0.0.1:5432/test in a schema of
 * its own, then PGlite in memory), then re-synced (incremental, nothing new).
 * Prints records and stored rows per second. Xero's own limit of 60 calls a
 * minute is turned off on both sides here (it would dominate: the figure
 * printed as "at Xero's limits" is the calls needed, one a second).
 * Run: npm run bench -- sync   (BENCH_SYNC_SCALE=2 for a quick run)
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { sql } from 'drizzle-orm';
import { generateDemo } from '../src/demo/generate.js';
import { datasetFromFiles, startXeroServer } from '../src/xero-server/server.js';
import { openStore, rows, type Store } from '../src/store/db.js';
import { migrate } from '../src/store/migrate.js';
import { createOrg } from '../src/store/tenancy.js';
import { connectLedger, syncOrganisation } from '../src/ledger/sync/sync.js';
import { Keyring } from '../src/ledger/seal.js';

const SCALE = Number(process.env.BENCH_SYNC_SCALE ?? 10);
const PG_URL = process.env.CASHLINE_BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const NOW = new Date('2026-11-23T09:00:00Z');
const TABLES = ['contacts', 'accounts', 'bank_balances', 'cash_items', 'cash_item_lines', 'payments', 'credit_note_allocations', 'purchase_orders', 'purchase_order_lines', 'bank_transactions', 'journal_lines'];

const t0 = performance.now();
const demo = generateDemo({ asOf: NOW, scale: SCALE, seed: 4242, name: 'Bench Sync Wholesale' });
console.log(`organisation: demo business x${SCALE}, generated in ${Math.round(performance.now() - t0)} ms:`, JSON.stringify(demo.counts));

async function run(label: string, store: Store): Promise<string> {
  const server = await startXeroServer({ data: datasetFromFiles(demo.files), limits: false });
  try {
    const { orgId } = await createOrg(store.db, { name: 'Bench Sync', now: NOW });
    // A key of the run's own: the tokens are sealed as in production (the cost is a few seals per run).
    const keyring = Keyring.fromKeys(randomBytes(32));
    await connectLedger(store.db, keyring, { orgId, tenantId: server.tenantId, refreshToken: server.issueGrant().refreshToken, now: NOW });
    const opts = { apiUrl: server.apiUrl, identityUrl: server.identityUrl, clientId: server.clientId, clientSecret: server.clientSecret, keyring, now: () => NOW, client: { perMinute: 1_000_000 } };
    const full = await syncOrganisation(store.db, orgId, opts);
    if (full.outcome !== 'ok') throw new Error(`sync failed: ${full.error}`);
    let stored = 0;
    for (const t of TABLES) {
      const [r] = await rows<{ n: number }>(store.db, sql`select count(*)::int as n from ${sql.raw(t)} where org_id = ${orgId}`);
      stored += Number(r!.n);
    }
    const records = Object.values(full.records).reduce((a, b) => a + (b ?? 0), 0);
    const secs = full.durationMs / 1000;
    const again = await syncOrganisation(store.db, orgId, opts);
    return [
      `${label}: full sync ${secs.toFixed(1)} s, ${full.calls} calls, ${(full.bytes / 1e6).toFixed(0)} MB`,
      `  ${records.toLocaleString('en')} records -> ${Math.round(records / secs).toLocaleString('en')} records/s`,
      `  ${stored.toLocaleString('en')} stored rows -> ${Math.round(stored / secs).toLocaleString('en')} rows/s`,
      `  incremental re-sync (nothing new): ${again.durationMs} ms, ${again.calls} calls`,
      `  at Xero's limits (60 calls a minute) the full sync's ${full.calls} calls take at least ${Math.ceil(full.calls / 60)} min`,
    ].join('\n');
  } finally {
    await server.close();
  }
}

const schema = `bench_sync_${randomBytes(4).toString('hex')}`;
const admin = new pg.Client({ connectionString: PG_URL });
await admin.connect();
await admin.query(`create schema ${schema}`);
try {
  const pgStore = await openStore({ databaseUrl: PG_URL, searchPath: schema });
  await migrate(pgStore.db);
  console.log(await run('PostgreSQL', pgStore));
  await pgStore.close();
} finally {
  await admin.query(`drop schema if exists ${schema} cascade`);
  await admin.end();
}
const lite = await openStore({ dataDir: 'memory://' });
await migrate(lite.db);
console.log(await run('PGlite', lite));
await lite.close();
