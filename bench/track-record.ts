/**
 * The forecast's track record and what changed (issue 18,
 * docs/forecast.md#accuracy, #changes) on the demo as `npm start` serves it
 * (the embedded store, the wholesaler's books: six months of stored weekly
 * forecasts, yesterday's and today's): GET /forecast/accuracy (full detail
 * and summary) and GET /forecast/changes, through the real server, one
 * request at a time. Both are computed per request from stored rows (the kept
 * forecasts and the movements since; two snapshots' items and documents).
 *
 *   npm run bench -- track-record        (or npx tsx bench/track-record.ts [--requests N])
 */
import { openStore } from '../src/store/db.js';
import { migrate } from '../src/store/migrate.js';
import { setupDemo } from '../src/server/demo.js';
import { ManualClock } from '../src/clock.js';
import { percentile as pct, startBenchServer } from './server.js';

const args = process.argv.slice(2);
const n = Number(args[args.indexOf('--requests') + 1] || 30) || 30;
const NOW = new Date('2026-11-23T09:00:00Z');

const t0 = performance.now();
const store = await openStore({ dataDir: 'memory://' });
await migrate(store.db);
const demo = await setupDemo(store.db, NOW, Object.assign(() => {}, { done: () => {} }));
console.log(`# Cashline track-record benchmark (${new Date().toISOString()})`);
console.log(`demo set up on PGlite in memory in ${((performance.now() - t0) / 1000).toFixed(1)} s; node ${process.version}`);

const server = await startBenchServer(store, new ManualClock(NOW.toISOString()));
try {
  for (const [label, path] of [
    ['accuracy, the last 13 weeks, full detail', '/api/agent/forecast/accuracy'],
    ['accuracy, detail=summary (the MCP default)', '/api/agent/forecast/accuracy?detail=summary'],
    ['accuracy, 26 weeks', '/api/agent/forecast/accuracy?from=2026-05-25&detail=summary'],
    ['changes since yesterday', '/api/agent/forecast/changes'],
  ] as const) {
    const times: number[] = [];
    let bytes = 0;
    for (let i = 0; i < n + 3; i++) {
      const t = performance.now();
      const res = await fetch(`${server.url}${path}`, { headers: { authorization: `Bearer ${demo.keys.full}` } });
      const body = await res.text();
      if (res.status !== 200) throw new Error(`${path}: ${res.status} ${body.slice(0, 200)}`);
      if (i >= 3) times.push(performance.now() - t);
      bytes = body.length;
    }
    times.sort((a, b) => a - b);
    console.log(`  ${label}: p50 ${pct(times, 0.5).toFixed(1)} ms  p99 ${pct(times, 0.99).toFixed(1)} ms over ${n} requests after 3 warm-up; ${bytes} bytes (~${Math.round(bytes / 4)} tokens)`);
  }
} finally {
  await server.close();
  await store.close();
}
