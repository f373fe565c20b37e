/**
 * The key cache's effect on the request path (issue 21; docs/api.md#key-cache):
 * `/api/agent/status` (nothing but the pipeline: key look-up, tenancy,
 * envelope, audit) on PostgreSQL, 64 keys in turn, 16 connections, with the
 * key cache off (CASHLINE_KEY_CACHE_SECONDS=0: one look-up per request) and
 * on (5 s), alternating, `--rounds` each (default 2) of `--seconds` (default
 * 10). No limiter (NO_LIMITS), so that the figure is the look-up's and not
 * the counters'. Every answer must be 200.
 *
 *   npm run bench -- key-cache        (or npx tsx bench/key-cache.ts [--rounds N] [--seconds S])
 */
import autocannon from 'autocannon';
import pg from 'pg';
import { randomBytes } from 'node:crypto';
import { openStore } from '../src/store/db.js';
import { migrate } from '../src/store/migrate.js';
import { startServer } from '../src/api/server.js';
import { loadConfig } from '../src/config.js';
import { createLogger } from '../src/log.js';
import { createKey, createOrg } from '../src/store/tenancy.js';
import { SCOPES } from '../src/domain/scopes.js';
import { NO_LIMITS } from './no-limits.js';

const args = process.argv.slice(2);
const opt = (name: string, d: number) => Number(args[args.indexOf(name) + 1] || d) || d;
const rounds = opt('--rounds', 2);
const seconds = opt('--seconds', 10);
const PG = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

const schema = `bench_keys_${randomBytes(4).toString('hex')}`;
const admin = new pg.Client({ connectionString: PG });
await admin.connect();
await admin.query(`create schema ${schema}`);
const store = await openStore({ databaseUrl: PG, searchPath: schema });
try {
  await migrate(store.db);
  const { orgId } = await createOrg(store.db, { name: 'Key cache bench', plan: 'Reserve', now: new Date() });
  const keys: string[] = [];
  for (let i = 0; i < 64; i++) keys.push((await createKey(store.db, { orgId, scopes: [...SCOPES], now: new Date() })).key);
  console.log(`# Cashline key-cache benchmark (${new Date().toISOString()}); node ${process.version}; /api/agent/status, 64 keys, 16 connections, ${seconds} s per run`);
  const results: Record<'off' | 'on', { rps: number; p99: number }[]> = { off: [], on: [] };
  for (let r = 0; r < rounds; r++) {
    for (const mode of ['off', 'on'] as const) {
      const config = loadConfig({ CASHLINE_LOG_LEVEL: 'warn', CASHLINE_CURSOR_SECRET: 'bench-cursor-secret-0123456789', CASHLINE_KEY_CACHE_SECONDS: mode === 'on' ? '5' : '0' });
      const server = await startServer({ store, config, logger: createLogger(config), host: '127.0.0.1', port: 0, limiter: NO_LIMITS });
      let n = 0;
      const out = await autocannon({
        url: `${server.url}/api/agent/status`,
        connections: 16,
        duration: seconds,
        requests: [{ setupRequest: (req: autocannon.Request) => ({ ...req, headers: { ...(req.headers ?? {}), authorization: `Bearer ${keys[n++ % keys.length]}` } }) }],
      });
      await server.close();
      const other = out.non2xx + out.errors + out.timeouts;
      if (other > 0) throw new Error(`${mode}: ${other} answers were not 200`);
      results[mode].push({ rps: out.requests.average, p99: out.latency.p99 });
      console.log(`  round ${r + 1}, cache ${mode}: ${out.requests.average.toFixed(0)} req/s, p50 ${out.latency.p50} ms, p99 ${out.latency.p99} ms (${out.requests.total} requests, all 200)`);
    }
  }
  const mean = (xs: { rps: number }[]) => xs.reduce((a, x) => a + x.rps, 0) / xs.length;
  console.log(`  mean: cache off ${mean(results.off).toFixed(0)} req/s, on ${mean(results.on).toFixed(0)} req/s (${(mean(results.on) / mean(results.off)).toFixed(2)}x)`);
} finally {
  await store.close();
  await admin.query(`drop schema ${schema} cascade`);
  await admin.end();
}
