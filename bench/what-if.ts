/**
 * What-if forecasts on the demo (issue 18, docs/forecast.md#what-if): GET
 * /api/agent/forecast with what-if parameters is computed per request (load
 * the books, learn, one scenario with its bands); nothing is stored. This
 * times it on the demo as `npm start` serves it (the embedded store, the
 * wholesaler's books), through the real server, one request at a time; the
 * 400,000-document organisation's figure is printed by bench/forecast.ts.
 * Repeated what-ifs reuse the model learned after the latest recompute; the
 * first one after a recompute reads the books and learns it: both printed.
 *
 *   npm run bench -- what-if        (or npx tsx bench/what-if.ts [--requests N])
 */
import { openStore } from '../src/store/db.js';
import { migrate } from '../src/store/migrate.js';
import { setupDemo } from '../src/server/demo.js';
import { ManualClock } from '../src/clock.js';
import { percentile as pct, startBenchServer, timeGets } from './server.js';
import { recomputeForecast } from '../src/jobs/forecast.js';

const args = process.argv.slice(2);
const n = Number(args[args.indexOf('--requests') + 1] || 30) || 30;
const NOW = new Date('2026-11-23T09:00:00Z');

const t0 = performance.now();
const store = await openStore({ dataDir: 'memory://' });
await migrate(store.db);
const demo = await setupDemo(store.db, NOW, Object.assign(() => {}, { done: () => {} }));
console.log(`# Cashline what-if benchmark (${new Date().toISOString()})`);
console.log(`demo set up on PGlite in memory in ${((performance.now() - t0) / 1000).toFixed(1)} s; node ${process.version}`);

const server = await startBenchServer(store, new ManualClock(NOW.toISOString()));
try {
  for (const [label, query, target] of [
    ['plain forecast (the stored snapshot)', 'detail=summary', ''],
    ['what-if: receipts 14 days later', 'detail=summary&receiptsDelayDays=14', ' (target p50 <= 300 ms)'],
    ['what-if: every parameter', 'detail=summary&receiptsDelayDays=14&inflowPercent=90&outflowPercent=105&oneOff=-25000@2026-12-15&excludeContact=none', ' (target p50 <= 300 ms)'],
  ] as const) {
    const { times } = await timeGets(server.url, `/api/agent/forecast?${query}`, demo.keys.full, n, 3);
    console.log(`  ${label}: p50 ${pct(times, 0.5).toFixed(1)} ms  p99 ${pct(times, 0.99).toFixed(1)} ms over ${n} requests after 3 warm-up${target}`);
  }
  // Cold: the first what-if after a recompute reads the books and learns the model again.
  const cold: number[] = [];
  for (let i = 1; i <= 8; i++) {
    await recomputeForecast(store.db, demo.orgId, new Date(NOW.getTime() + i * 1000));
    const t = performance.now();
    const res = await fetch(`${server.url}/api/agent/forecast?detail=summary&receiptsDelayDays=14`, { headers: { authorization: `Bearer ${demo.keys.full}` } });
    await res.text();
    cold.push(performance.now() - t);
  }
  cold.sort((a, b) => a - b);
  console.log(`  what-if, the first after a recompute (reads the books, learns the model): p50 ${pct(cold, 0.5).toFixed(1)} ms  max ${cold[cold.length - 1]!.toFixed(1)} ms over ${cold.length}`);
} finally {
  await server.close();
  await store.close();
}
