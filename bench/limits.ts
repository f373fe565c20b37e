/**
 * What the limiter adds to a request (issue 5: "the limiter adds <= 1 ms p50
 * per request on each backend"): the burst admission plus the credit
 * reservation of one request, timed one request at a time, on PGlite,
 * PostgreSQL (127.0.0.1:5432/test) and Redis (127.0.0.1:6379).
 * Run: npm run bench -- limits
 */
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { openStore, type Store } from '../src/store/db.js';
import { migrate } from '../src/store/migrate.js';
import { SqlLimiter } from '../src/store/usage.js';
import { RedisLimiter } from '../src/store/redis-usage.js';
import type { Limiter } from '../src/domain/plans.js';
import { createOrg } from '../src/store/tenancy.js';

const N = Number(process.env.BENCH_N ?? 2000);
const PG_URL = process.env.CASHLINE_BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const REDIS_URL = process.env.CASHLINE_BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]!;

async function measure(name: string, limiter: Limiter, orgId: string): Promise<string> {
  const samples: number[] = [];
  // A Reserve-sized allowance so every call is admitted; 40 keys and meters
  // keep each key under the burst cap (2,000 / 40 = 50 a minute).
  for (let i = 0; i < N; i++) {
    const keyId = `k${i % 40}`;
    const subject = { billingAccountId: 'bench', meterId: `m${i % 40}`, orgId, limit: 5_000 };
    const now = new Date();
    const t = performance.now();
    const burst = await limiter.hitBurst(keyId, '/api/agent/invoices', now);
    const credit = await limiter.reserveCredit(subject, now);
    samples.push(performance.now() - t);
    if (!burst.allowed || !credit.allowed) throw new Error(`${name}: refused at ${i}`);
    if (i % 500 === 0) process.stderr.write(`\r${name}: ${i}/${N}`);
  }
  process.stderr.write(`\r${name}: ${N}/${N}\n`);
  const line = `${name.padEnd(22)} p50 ${pct(samples, 50).toFixed(3)} ms   p99 ${pct(samples, 99).toFixed(3)} ms   (${N} requests)`;
  console.log(line);
  return line;
}

async function withSchema<T>(fn: (store: Store) => Promise<T>): Promise<T> {
  const schema = `bench_${randomUUID().slice(0, 8)}`;
  const admin = new pg.Client({ connectionString: PG_URL });
  await admin.connect();
  await admin.query(`create schema ${schema}`);
  const store = await openStore({ databaseUrl: PG_URL, searchPath: schema });
  try {
    await migrate(store.db);
    return await fn(store);
  } finally {
    await store.close();
    await admin.query(`drop schema ${schema} cascade`);
    await admin.end();
  }
}

export async function main(): Promise<void> {
  console.log('limiter cost per request (burst admission + credit reservation)');
  const pglite = await openStore({ dataDir: 'memory://' });
  await migrate(pglite.db);
  const org1 = await createOrg(pglite.db, { name: 'Bench', now: new Date() });
  await measure('sql on pglite', new SqlLimiter(pglite.db), org1.orgId);
  await pglite.close();
  await withSchema(async (store) => {
    const org = await createOrg(store.db, { name: 'Bench', now: new Date() });
    await measure('sql on postgres', new SqlLimiter(store.db), org.orgId);
  });
  const redis = new RedisLimiter(REDIS_URL, { prefix: `bench:${randomUUID()}` });
  await measure('redis', redis, 'org');
  await redis.close();
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
