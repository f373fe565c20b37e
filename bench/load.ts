/**
 * Load benchmark (issue 8, "Load"): autocannon for 60 s against the real API
 * server (a child process: `cashline-server serve --no-workers`, with its real
 * limiter) over the large benchmark organisation (bench/gen-large-org.ts:
 * 200,000 invoices + 200,000 bills, 20,000 contacts), across every GET
 * endpoint of the served OpenAPI document (drills with real ids), with 128
 * keys of 128 users so neither the burst cap (60 a minute per key and
 * endpoint) nor the credits (5,000 per 5 hours per user) are reached.
 *
 * Prints: requests, throughput, errors (non-2xx, socket errors, timeouts),
 * p50/p99 per endpoint (client side), and the server's RSS after the 10 s
 * warm-up, at its peak and at the end (the goal: end within 20% of after
 * warm-up). Exits 1 when any request failed or memory grew past that.
 *
 * With --instances N: N server processes on the same database (and Redis with
 * --redis), the connections split between them: throughput against one.
 *
 * Usage: npx tsx bench/load.ts [--duration S] [--connections N] [--instances N] [--redis]
 * Env:   BENCH_DATABASE_URL, BENCH_SCHEMA (see gen-large-org.ts); REDIS_URL with --redis.
 */
import { readFileSync } from 'node:fs';
import autocannon from 'autocannon';
import { sql } from 'drizzle-orm';
import { rows } from '../src/store/db.js';
import { createKey, createUser } from '../src/store/tenancy.js';
import { SCOPES } from '../src/domain/scopes.js';
import { recomputeBaselines } from '../src/jobs/baselines.js';
import { recomputeForecast } from '../src/jobs/forecast.js';
import { latestSnapshot } from '../src/store/queries/forecast.js';
import { generateDailyBrief } from '../src/jobs/brief.js';
import { serveProcess } from '../test/helpers/net.js';
import { BENCH_ORG, BENCH_SCHEMA, BENCH_URL, benchOrgExists, generateLargeOrg, openBenchStore } from './gen-large-org.js';

const arg = (name: string, dflt: number) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};
const DURATION = arg('--duration', 60);
const WARMUP = 10;
const CONNECTIONS = arg('--connections', 16);
const KEYS = 128;
const INSTANCES = arg('--instances', 1);
const log = (m: string) => process.stderr.write(`[load] ${m}\n`);

// ---------------------------------------------------------------------------
// The organisation, its derived data and the keys
// ---------------------------------------------------------------------------
const store = await openBenchStore(4);
const db = store.db;
if (!(await benchOrgExists(db))) await generateLargeOrg(db);
await db.execute(sql`update billing_accounts set plan = 'Reserve', subscription_status = 'active'
  where id = (select billing_account_id from organisations where id = ${BENCH_ORG})`);
if (!(await latestSnapshot(db, BENCH_ORG))) {
  log('computing baselines and the forecast once (kept for later runs)');
  const now = new Date();
  await recomputeBaselines(db, BENCH_ORG, now);
  await recomputeForecast(db, BENCH_ORG, now);
}
// Today's brief (rules tier), so the brief endpoint answers 200 like the others.
await generateDailyBrief(db, BENCH_ORG, new Date(), { llm: null });
log(`creating ${KEYS} users and keys`);
const keys: string[] = [];
for (let i = 0; i < KEYS; i++) {
  const userId = (await createUser(db, { orgId: BENCH_ORG, now: new Date() })).userId;
  keys.push((await createKey(db, { orgId: BENCH_ORG, userId, scopes: [...SCOPES], name: `load ${i}`, now: new Date() })).key);
}
const ids = async (q: ReturnType<typeof sql>) => (await rows<{ id: string }>(db, q)).map((r) => r.id);
const drillIds: Record<string, string[]> = {
  '/api/agent/contacts/{id}': await ids(sql`select id from contacts where org_id = ${BENCH_ORG} order by id limit 50`),
  '/api/agent/credit-notes/{id}': await ids(sql`select id from cash_items where org_id = ${BENCH_ORG} and source = 'LEDGER_CREDIT_NOTE' order by id limit 50`),
  '/api/agent/purchase-orders/{id}': await ids(sql`select id from purchase_orders where org_id = ${BENCH_ORG} order by id limit 50`),
};
await store.close();

// ---------------------------------------------------------------------------
// The server
// ---------------------------------------------------------------------------
const dbUrl = new URL(BENCH_URL);
dbUrl.searchParams.set('options', `-c search_path=${BENCH_SCHEMA}`);
// The real executable (test/helpers/net.ts: `serve --port 0`, its base URL read from its banner).
const servers = await Promise.all(
  Array.from({ length: INSTANCES }, () =>
    serveProcess(
      {
        DATABASE_URL: dbUrl.toString(),
        ...(process.argv.includes('--redis') ? { REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379' } : {}),
      },
      ['--no-workers'],
    ),
  ),
);
const base = servers[0]!.url;
/** The servers' resident memory, summed (MiB). */
const rssMiB = () =>
  servers.reduce((sum, { child }) => {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'));
    return sum + (m ? Number(m[1]) / 1024 : NaN);
  }, 0);

const doc = (await (await fetch(`${base}/api/agent/openapi.json`)).json()) as { paths: Record<string, { get?: unknown }> };
const paths: string[] = [];
for (const template of Object.keys(doc.paths)) {
  if (!doc.paths[template]!.get || template.endsWith('/openapi.json') || template.endsWith('/docs')) continue;
  if (template.includes('{orgId}')) paths.push(template.replace('{orgId}', BENCH_ORG));
  else if (template.includes('{id}')) {
    const list = drillIds[template] ?? [];
    if (list.length === 0) log(`skipping ${template}: the organisation has none`);
    else paths.push(template);
  } else paths.push(template);
}
log(`${paths.length} endpoints: ${paths.join(' ')}`);

// ---------------------------------------------------------------------------
// The run
// ---------------------------------------------------------------------------
let n = 0;
const perEndpoint = new Map<string, number[]>();
const statuses = new Map<number, number>();
/** One autocannon per server (the connections split between them), run together; their counts summed. */
async function run(seconds: number, record: boolean): Promise<{ total: number; average: number; errors: number; timeouts: number; non2xx: number; p50: number; p99: number }> {
  const results = await Promise.all(servers.map((srv) => runOne(srv.url, Math.max(1, Math.round(CONNECTIONS / INSTANCES)), seconds, record)));
  return {
    total: results.reduce((a, r) => a + r.requests.total, 0),
    average: results.reduce((a, r) => a + r.requests.average, 0),
    errors: results.reduce((a, r) => a + r.errors, 0),
    timeouts: results.reduce((a, r) => a + r.timeouts, 0),
    non2xx: results.reduce((a, r) => a + r.non2xx, 0),
    p50: Math.max(...results.map((r) => r.latency.p50)),
    p99: Math.max(...results.map((r) => r.latency.p99)),
  };
}

function runOne(url: string, connections: number, seconds: number, record: boolean): Promise<autocannon.Result> {
  let done!: (r: autocannon.Result) => void;
  let failed!: (e: unknown) => void;
  const finished = new Promise<autocannon.Result>((ok, fail) => ((done = ok), (failed = fail)));
  const instance = autocannon(
    {
      url,
      connections,
      duration: seconds,
      timeout: 10,
      requests: [
        {
          setupRequest(req, context) {
            const i = n++;
            const template = paths[i % paths.length]!;
            // Spread: consecutive requests change endpoint; every full round of endpoints changes key.
            const key = keys[Math.floor(i / paths.length) % KEYS]!;
            const list = drillIds[template];
            const path = list ? template.replace('{id}', encodeURIComponent(list[i % list.length]!)) : template;
            // The connection's context says which endpoint its (one, unpipelined) request in flight is.
            (context as { template?: string }).template = template;
            return { ...req, path, headers: { ...req.headers, authorization: `Bearer ${key}` } };
          },
        },
      ],
    },
    (err, result) => (err ? failed(err) : done(result)),
  );
  instance.on('response', (client: unknown, statusCode: number, _bytes: number, ms: number) => {
    if (!record) return;
    const t = (client as { requestIterator?: { context?: { template?: string } } }).requestIterator?.context?.template ?? 'unknown';
    let list = perEndpoint.get(t);
    if (!list) perEndpoint.set(t, (list = []));
    list.push(ms);
    statuses.set(statusCode, (statuses.get(statusCode) ?? 0) + 1);
  });
  if (process.stderr.isTTY && INSTANCES === 1) autocannon.track(instance, { renderProgressBar: true, renderResultsTable: false, renderLatencyTable: false });
  return finished;
}

log(`warm-up ${WARMUP} s`);
await run(WARMUP, false);
const afterWarmup = rssMiB();
let peak = afterWarmup;
const sampler = setInterval(() => (peak = Math.max(peak, rssMiB())), 1000);
log(`run ${DURATION} s, ${CONNECTIONS} connections`);
let elapsed = 0;
const ticker = setInterval(() => log(`${(elapsed += 10)} s of ${DURATION}, rss ${rssMiB().toFixed(0)} MiB`), 10_000);
const result = await run(DURATION, true);
clearInterval(sampler);
clearInterval(ticker);
const end = rssMiB();
for (const srv of servers) srv.child.kill('SIGTERM');

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? NaN;
};
const errors = result.errors + result.timeouts + result.non2xx;
console.log(`load: ${INSTANCES} instance(s), ${result.total} requests in ${DURATION} s (${result.average.toFixed(1)} req/s average), ${CONNECTIONS} connections, ${paths.length} endpoints, ${KEYS} keys`);
console.log(`errors: ${errors} (non-2xx ${result.non2xx}, socket errors ${result.errors}, timeouts ${result.timeouts}); statuses ${JSON.stringify(Object.fromEntries(statuses))}`);
console.log(`latency overall: p50 ${result.p50} ms, p99 ${result.p99} ms`);
for (const [t, xs] of [...perEndpoint].sort()) {
  console.log(`  ${t.padEnd(44)} n ${String(xs.length).padStart(6)}   p50 ${pct(xs, 50).toFixed(1).padStart(7)} ms   p99 ${pct(xs, 99).toFixed(1).padStart(7)} ms`);
}
const growth = (end - afterWarmup) / afterWarmup;
console.log(`server RSS: ${afterWarmup.toFixed(0)} MiB after warm-up, peak ${peak.toFixed(0)} MiB, end ${end.toFixed(0)} MiB (${(growth * 100).toFixed(1)}%; goal within 20%)`);
process.exit(errors > 0 || growth > 0.2 ? 1 : 0);
