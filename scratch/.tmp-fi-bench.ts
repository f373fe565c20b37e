// One-off A/B timing (not committed): recompute with items vs the same work without storing items, alternating, same process.
import { sql } from 'drizzle-orm';
import { openStore, rows } from './src/store/db.js';
import { migrate } from './src/store/migrate.js';
import { recomputeForecast } from './src/jobs/forecast.js';
import { runForecast } from './src/domain/forecast/engine.js';
import { canonical } from './src/domain/money.js';
import { cashBuffer, loadCalibration } from './src/store/queries/calibration.js';
import { loadForecastInput } from './src/store/queries/forecast-input.js';
import { saveSuppression, storeSnapshots } from './src/store/queries/forecast-snapshots.js';
import { orgMeta } from './src/store/queries/organisation.js';
import { ensureScenarios } from './src/store/queries/scenarios.js';
import { dateIn } from './src/domain/calendar.js';
const store = await openStore({ databaseUrl: 'postgres://postgres@127.0.0.1:5432/postgres', searchPath: 'cashline_bench_forecast', poolSize: 8 });
await migrate(store.db);
const db = store.db; const ORG = 'bench-forecast-org';
const NOW = new Date('2026-03-02T01:00:00Z');
async function without(now: Date) {
  const t0 = performance.now();
  const org = (await orgMeta(db, ORG))!;
  const asOf = dateIn(org.timezone, now);
  const scenarios = await ensureScenarios(db, ORG, now);
  const input = await loadForecastInput(db, org, asOf);
  const calibration = await loadCalibration(db, ORG);
  const threshold = canonical((await cashBuffer(db, ORG)) ?? '0');
  const t1 = performance.now();
  const { prepared, payloads } = runForecast(input, scenarios, now, { calibration, threshold });
  const t2 = performance.now();
  await saveSuppression(db, ORG, prepared.poReasons);
  await storeSnapshots(db, ORG, payloads, now);
  const t3 = performance.now();
  return { total: Math.round(t3 - t0), loadMs: Math.round(t1 - t0), computeMs: Math.round(t2 - t1), storeMs: Math.round(t3 - t2) };
}
const runs = Number(process.argv[2] ?? 4);
for (let i = 0; i < runs; i++) {
  const a = performance.now();
  const r = await recomputeForecast(db, ORG, new Date(NOW.getTime() + i * 2000));
  const ta = Math.round(performance.now() - a);
  const b = await without(new Date(NOW.getTime() + i * 2000 + 1000));
  const [load] = await rows<{ l: string }>(db, sql`select (select string_agg(x::text, ' ') from (select round(l::numeric,2) as x from unnest(array[0]) l) q) as l`);
  void load;
  console.log(`run ${i + 1}: WITH items total ${ta} ms (load ${r.timings.loadMs} + engine ${r.timings.computeMs} + store ${r.timings.storeMs}) | WITHOUT items total ${b.total} ms (load ${b.loadMs} + engine ${b.computeMs} + store ${b.storeMs})`);
}
const [n] = await rows<{ n: string; s: string }>(db, sql`select count(*) n, count(distinct snapshot_id) s from forecast_snapshot_items where org_id = ${ORG}`);
const per = await rows<{ snapshot_id: string; item_count: number }>(db, sql`select id as snapshot_id, item_count from forecast_snapshots where org_id = ${ORG} and item_count is not null order by computed_at desc limit 3`);
console.log(`items stored: ${n!.n} rows over ${n!.s} snapshots; latest: ${per.map((p) => `${p.snapshot_id.split(':')[0]} ${p.item_count}`).join(', ')}`);
const { execSync } = await import('node:child_process');
console.log('loadavg', execSync('cat /proc/loadavg').toString().trim());
await store.close();
