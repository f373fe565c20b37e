/**
 * Analytics benchmark (docs/analytics.md, "Speed"): the nightly baseline job
 * and the latency of every summary endpoint, through the real API server, on
 * PostgreSQL, for two organisations:
 * - the large benchmark organisation (bench/gen-large-org.ts: 200,000
 *   invoices, 200,000 bills, 20,000 contacts; built when missing);
 * - the UCI Online Retail organisation (../shared/data/online-retail.csv.gz,
 *   ~20,000 invoices of ~4,300 customers; imported when missing).
 * The baselines are computed first (timed), then each endpoint is requested
 * sequentially (5 warm-up, then N timed requests) and p50/p95 printed; the
 * target is p50 <= 100 ms from stored baselines.
 *
 *   npx tsx bench/analytics.ts [--quick]
 * Env: BENCH_DATABASE_URL, BENCH_SCHEMA (see gen-large-org.ts).
 */
import { startBenchServer } from './server.js';
import { resolve } from 'node:path';
import { sql } from 'drizzle-orm';
import { BENCH_ORG, benchOrgExists, generateLargeOrg, openBenchStore } from './gen-large-org.js';
import { rows } from '../src/store/db.js';
import { computeBaselines } from '../src/jobs/baselines.js';
import { createKey, createOrg } from '../src/store/tenancy.js';
import { SCOPES } from '../src/domain/scopes.js';
import { convertOnlineRetail } from '../src/demo/online-retail.js';
import { importFiles } from '../src/ledger/import.js';
import { ManualClock } from '../src/clock.js';

const RETAIL_ORG = 'bench-retail';
const CSV = resolve(import.meta.dirname, '..', '..', 'shared', 'data', 'online-retail.csv.gz');
const N = process.argv.includes('--quick') ? 20 : 60;
const log = (msg: string) => process.stderr.write(`[analytics] ${msg}\n`);

const store = await openBenchStore(20);
if (!(await benchOrgExists(store.db))) await generateLargeOrg(store.db);
const [retail] = await rows<{ n: number }>(store.db, sql`select count(*)::int8 as n from cash_items where org_id = ${RETAIL_ORG}`);
if (!retail || Number(retail.n) === 0) {
  log('importing Online Retail');
  // The analytics read documents' totals, not their lines: left out to keep the import short.
  const out = await convertOnlineRetail(CSV, { lines: false });
  const exists = await rows(store.db, sql`select 1 from organisations where id = ${RETAIL_ORG}`);
  if (exists.length === 0) await createOrg(store.db, { id: RETAIL_ORG, name: 'Online Retail', plan: 'Reserve', baseCurrency: 'GBP', timezone: 'Europe/London', now: new Date('2011-12-10T12:00:00Z') });
  await importFiles(store.db, RETAIL_ORG, out.files, { now: new Date('2011-12-10T12:00:00Z') });
  await store.db.execute(sql`update organisations set gross_margin_override = '0.4' where id = ${RETAIL_ORG}`);
}

const ORGS = [
  { orgId: BENCH_ORG, now: new Date('2026-03-01T00:00:00Z'), range: 'dateFrom=2023-03-01&dateTo=2026-03-01' },
  { orgId: RETAIL_ORG, now: new Date('2011-12-10T12:00:00Z'), range: 'dateFrom=2010-12-01&dateTo=2011-12-09' },
];

// The service clock is each organisation's "now" while it is measured (the default window is its financial year to date).
const clock = new ManualClock(ORGS[0]!.now);
// No burst cap or credits: they would refuse the benchmark itself (bench/limits.ts measures them).
const server = await startBenchServer(store, clock);

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
};

let over = 0;
for (const o of ORGS) {
  clock.set(o.now);
  const t = performance.now();
  const run = await computeBaselines(store.db, o.orgId, o.now);
  console.log(
    `${o.orgId}: baselines for ${run.invoices} invoices, ${run.contacts} contacts in ${Math.round(performance.now() - t)} ms ` +
      `(load ${run.timings.loadMs}, compute ${run.timings.computeMs}, write ${run.timings.writeMs})`,
  );
  const keys = {
    full: (await createKey(store.db, { orgId: o.orgId, scopes: [...SCOPES], name: 'bench analytics', now: new Date() })).key,
    gated: (await createKey(store.db, { orgId: o.orgId, scopes: SCOPES.filter((x) => x !== 'READ_SENSITIVE'), name: 'bench analytics gated', now: new Date() })).key,
  };
  const [top] = await rows<{ id: string }>(store.db, sql`select contact_id as id from contact_baselines where org_id = ${o.orgId} and abc_class = 'A' order by contact_id limit 1`);
  const paths = [
    `/api/agent/revenue/summary`,
    `/api/agent/revenue/summary?${o.range}&topN=100`,
    `/api/agent/expenses/summary?${o.range}`,
    `/api/agent/contacts/summary?topN=100`,
    `/api/agent/cohorts/summary`,
    `/api/agent/cohorts/retention?periods=24`,
    `/api/agent/cohorts/retention?metric=revenue&periods=24`,
    `/api/agent/contacts/${top!.id}`,
  ];
  for (const path of paths) {
    for (const [kind, key] of Object.entries(keys)) {
      const times: number[] = [];
      for (let k = 0; k < N + 5; k++) {
        const t0 = performance.now();
        const res = await fetch(`${server.url}${path}`, { headers: { authorization: `Bearer ${key}` } });
        await res.arrayBuffer();
        if (res.status !== 200) throw new Error(`${path}: ${res.status}`);
        if (k >= 5) times.push(performance.now() - t0);
      }
      const p50 = pct(times, 50);
      if (p50 > 100) over++;
      console.log(`  ${path.padEnd(72)} ${kind.padEnd(5)} p50 ${p50.toFixed(1).padStart(7)} ms  p95 ${pct(times, 95).toFixed(1).padStart(7)} ms${p50 > 100 ? '  OVER 100 ms' : ''}`);
    }
  }
}
console.log(over ? `${over} endpoint(s) over p50 100 ms` : 'every endpoint p50 <= 100 ms');
await server.close();
await store.close();
