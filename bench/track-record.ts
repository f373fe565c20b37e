/**
 * The forecast's track record and what changed (issue 18,
 * docs/forecast.md#accuracy, #changes) on the demo as `npm start` serves it
 * (the embedded store, the wholesaler's books: six months of stored weekly
 * forecasts, yesterday's and today's): GET /forecast/accuracy (full detail
 * and summary) and GET /forecast/changes, through the real server, one
 * request at a time. Both are computed per request from stored rows (the kept
 * forecasts and the movements since; two snapshots' items and documents).
 *
 * With --large: the 400,000-document organisation of bench/forecast.ts
 * (run that first: it generates the organisation, calibrates it and stores
 * a recompute), its replayed track record seeded as stored (as the demo
 * does), and a second recompute of the same books compared with the latest
 * one before it.
 *
 *   npm run bench -- track-record        (or npx tsx bench/track-record.ts [--requests N] [--large])
 */
import { openStore } from '../src/store/db.js';
import { migrate } from '../src/store/migrate.js';
import { setupDemo } from '../src/server/demo.js';
import { ManualClock } from '../src/clock.js';
import { percentile as pct, startBenchServer, timeGets } from './server.js';
import type { Store } from '../src/store/db.js';
import { seedTrackRecord } from '../src/jobs/calibration.js';
import { recomputeForecast } from '../src/jobs/forecast.js';
import { createKey } from '../src/store/tenancy.js';
import { SCOPES } from '../src/domain/scopes.js';
import { addDays } from '../src/domain/calendar.js';

const args = process.argv.slice(2);
const n = Number(args[args.indexOf('--requests') + 1] || 30) || 30;
const NOW = new Date('2026-11-23T09:00:00Z');

const large = args.includes('--large');
const LARGE_ORG = 'bench-forecast-org';
const LARGE_NOW = new Date('2026-03-02T01:00:00Z');

const t0 = performance.now();
console.log(`# Cashline track-record benchmark (${new Date().toISOString()}); node ${process.version}`);
let store: Store;
let key: string;
let now = NOW;
if (large) {
  store = await openStore({ databaseUrl: process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres', searchPath: process.env.BENCH_FORECAST_SCHEMA ?? 'cashline_bench_forecast' });
  now = LARGE_NOW;
  const seeded = await seedTrackRecord(store.db, LARGE_ORG, now, 182);
  key = (await createKey(store.db, { orgId: LARGE_ORG, scopes: [...SCOPES], now })).key;
  // A second forecast an hour later (the same books), so that /forecast/changes compares two.
  const t = performance.now();
  await recomputeForecast(store.db, LARGE_ORG, new Date(now.getTime() + 3_600_000 * (1 + Math.floor(Math.random() * 20))));
  console.log(`a second recompute: ${Math.round(performance.now() - t)} ms`);
  console.log(`the 400,000-document organisation (PostgreSQL, bench/forecast.ts's); ${seeded} replayed forecasts seeded as stored`);
} else {
  store = await openStore({ dataDir: 'memory://' });
  await migrate(store.db);
  const demo = await setupDemo(store.db, NOW, Object.assign(() => {}, { done: () => {} }));
  key = demo.keys.full;
  console.log(`demo set up on PGlite in memory in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
}

const server = await startBenchServer(store, new ManualClock(now.toISOString()));
try {
  for (const [label, path] of [
    ['accuracy, the last 13 weeks, full detail', '/api/agent/forecast/accuracy'],
    ['accuracy, detail=summary (the MCP default)', '/api/agent/forecast/accuracy?detail=summary'],
    ['accuracy, 26 weeks', `/api/agent/forecast/accuracy?from=${addDays(now.toISOString().slice(0, 10), -182)}&detail=summary`],
    ['changes since yesterday', '/api/agent/forecast/changes'],
  ] as const) {
    const { times, bytes } = await timeGets(server.url, path, key, n, 3);
    console.log(`  ${label}: p50 ${pct(times, 0.5).toFixed(1)} ms  p99 ${pct(times, 0.99).toFixed(1)} ms over ${n} requests after 3 warm-up; ${bytes} bytes (~${Math.round(bytes / 4)} tokens)`);
  }
} finally {
  await server.close();
  await store.close();
}
