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
 * warm-up), and the CPU used during the run by the servers, PostgreSQL,
 * Redis and the load generator. Exits 1 when any request failed or memory
 * grew past that.
 *
 * With --instances N: N server processes on the same database (and Redis with
 * --redis), the connections split between them: throughput against one.
 *
 * With --cpu-quota F: each server process in a cgroup of its own (v1 cpu
 * controller) limited to F of one core (bench/cpu.ts; root only; the cgroups
 * are removed on exit), so that on this 2-core machine every instance has the
 * same CPU budget and the rest is left to PostgreSQL, Redis and autocannon.
 *
 * The warm-up is 10 s (30 s with --cpu-quota; --warmup S to choose).
 *
 * With --scaling 1,2,3: one run per instance count, one after another, with
 * the same keys and endpoint mix, and --connections connections PER INSTANCE
 * (each instance sees the load a single one sees; the total grows with the
 * instances); then a table: instances, req/s, ratio to the first run, p99,
 * errors, CPU. Meant with --cpu-quota.
 *
 * Usage: npx tsx bench/load.ts [--duration S] [--connections N] [--instances N] [--redis]
 *                              [--cpu-quota F] [--scaling 1,2,3] [--warmup S]
 * Env:   BENCH_DATABASE_URL, BENCH_SCHEMA (see gen-large-org.ts); REDIS_URL with --redis.
 */
import { readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import autocannon from 'autocannon';
import { sql } from 'drizzle-orm';
import { rows } from '../src/store/db.js';
import { createKey, createUser } from '../src/store/tenancy.js';
import { SCOPES } from '../src/domain/scopes.js';
import { recomputeBaselines } from '../src/jobs/baselines.js';
import { recomputeForecast } from '../src/jobs/forecast.js';
import { latestSnapshot } from '../src/store/queries/forecast-snapshots.js';
import { generateDailyBrief } from '../src/jobs/brief.js';
import { serveProcess, type ServedProcess } from '../test/helpers/net.js';
import { confine, CpuMeter, cpuQuotaProblem, release, throttling, type CpuFigures, type CpuGroup } from './cpu.js';
import { BENCH_ORG, BENCH_SCHEMA, BENCH_URL, benchOrgExists, generateLargeOrg, openBenchStore } from './gen-large-org.js';

const arg = (name: string, dflt: number) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};
const option = (name: string) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? (process.argv[i + 1] ?? '') : null;
};
const DURATION = arg('--duration', 60);
const CONNECTIONS = arg('--connections', 16);
const KEYS = 128;
const INSTANCES = arg('--instances', 1);
const REDIS = process.argv.includes('--redis');
const CPU_QUOTA = option('--cpu-quota') === null ? null : Number(option('--cpu-quota'));
const SCALING = option('--scaling')?.split(',').map(Number) ?? null;
const log = (m: string) => process.stderr.write(`[load] ${m}\n`);
const fail = (m: string) => {
  console.error(`error: ${m}`);
  process.exit(2);
};
if (SCALING && (SCALING.length === 0 || SCALING.some((k) => !Number.isInteger(k) || k < 1))) fail(`--scaling takes instance counts such as 1,2,3, not ${option('--scaling')}`);
if (SCALING && process.argv.includes('--instances')) fail('--scaling and --instances go separately');
if (CPU_QUOTA !== null) {
  const problem = cpuQuotaProblem(CPU_QUOTA);
  if (problem) fail(problem);
}
// A server held to a fraction of a core serves fewer requests in its warm-up (its heap and JIT settle later): 30 s then.
const WARMUP = arg('--warmup', CPU_QUOTA === null ? 10 : 30);

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
// The servers
// ---------------------------------------------------------------------------
const dbUrl = new URL(BENCH_URL);
dbUrl.searchParams.set('options', `-c search_path=${BENCH_SCHEMA}`);
const running = new Set<ServedProcess>();
const groups = new Set<CpuGroup>();
// Never leave a server behind (an error, Ctrl-C); bench/cpu.ts removes the cgroups after this.
process.on('exit', () => {
  for (const srv of running) srv.child.kill('SIGKILL');
});
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    log(`${signal}: stopping the servers${groups.size ? ' and removing their cgroups' : ''}`);
    process.exit(130);
  });
}

/**
 * `count` servers: the real executable (test/helpers/net.ts: `node
 * dist/bin/cashline-server.js serve --port 0`, so child.pid is the server's
 * own node process), each in a cgroup of its own with --cpu-quota.
 */
async function startServers(count: number): Promise<ServedProcess[]> {
  const servers = await Promise.all(
    Array.from({ length: count }, async () => {
      const srv = await serveProcess({ DATABASE_URL: dbUrl.toString(), ...(REDIS ? { REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379' } : {}) }, ['--no-workers']);
      running.add(srv);
      return srv;
    }),
  );
  if (CPU_QUOTA !== null) {
    for (const [i, { child }] of servers.entries()) {
      const cmd = readFileSync(`/proc/${child.pid}/cmdline`, 'utf8').split('\0');
      if (!cmd.some((a) => a.endsWith('cashline-server.js'))) throw new Error(`pid ${child.pid} is not the server: ${cmd.join(' ')}`);
      groups.add(confine(child.pid!, CPU_QUOTA, `${count}-${i}`));
    }
    log(`${count} server(s), each limited to ${CPU_QUOTA} of a core (cgroups ${[...groups].map((g) => g.name).join(', ')})`);
  }
  return servers;
}

/** SIGTERM, wait for the exits (SIGKILL after 10 s), then remove the cgroups. */
async function stopServers(servers: ServedProcess[]): Promise<void> {
  await Promise.all(
    servers.map(
      (srv) =>
        new Promise<void>((done) => {
          running.delete(srv);
          if (srv.child.exitCode !== null || srv.child.signalCode !== null) return done();
          const kill = setTimeout(() => srv.child.kill('SIGKILL'), 10_000);
          srv.child.once('exit', () => (clearTimeout(kill), done()));
          srv.child.kill('SIGTERM');
        }),
    ),
  );
  for (const g of groups) release(g);
  groups.clear();
}

/** The servers' resident memory, summed (MiB). */
const rssMiB = (servers: ServedProcess[]) =>
  servers.reduce((sum, { child }) => {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'));
    return sum + (m ? Number(m[1]) / 1024 : NaN);
  }, 0);

/** Every GET endpoint of the served document (drills with real ids). */
async function endpoints(base: string): Promise<string[]> {
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
  return paths;
}

// ---------------------------------------------------------------------------
// A run
// ---------------------------------------------------------------------------
let paths: string[] = [];
let n = 0;
let perEndpoint = new Map<string, number[]>();
let statuses = new Map<number, number>();

/** One autocannon per server (`perServer` connections each), run together; their counts summed. */
async function run(servers: ServedProcess[], perServer: number, seconds: number, record: boolean): Promise<{ total: number; average: number; errors: number; timeouts: number; non2xx: number; p50: number; p99: number }> {
  const results = await Promise.all(servers.map((srv) => runOne(srv.url, perServer, seconds, record, servers.length === 1)));
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

function runOne(url: string, connections: number, seconds: number, record: boolean, track: boolean): Promise<autocannon.Result> {
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
  if (process.stderr.isTTY && track) autocannon.track(instance, { renderProgressBar: true, renderResultsTable: false, renderLatencyTable: false });
  return finished;
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? NaN;
};
const fmtCore = (x: number) => `${(x * 100).toFixed(0)}%`;
/** What the machine spent on anything but this benchmark (the servers, their backends, Redis, the generator), in cores. */
const otherWork = (c: CpuFigures) => Math.max(0, c.machineBusy * cpus().length - c.servers.reduce((a, b) => a + b, 0) - c.postgresOurs - c.redis - c.generator);

interface Row {
  instances: number;
  connections: number;
  reqPerSec: number;
  p50: number;
  p99: number;
  errors: number;
  growth: number;
  cpu: CpuFigures;
  throttled: number;
  loadBefore: number;
  loadAfter: number;
}

/** `instances` servers, `perServer` connections each: warm-up, the run, the figures (printed), the servers stopped. */
async function measure(instances: number, perServer: number): Promise<Row> {
  const servers = await startServers(instances);
  try {
    if (paths.length === 0) paths = await endpoints(servers[0]!.url);
    perEndpoint = new Map();
    statuses = new Map();
    const connections = perServer * instances;
    log(`warm-up ${WARMUP} s`);
    await run(servers, perServer, WARMUP, false);
    const afterWarmup = rssMiB(servers);
    let peak = afterWarmup;
    const sampler = setInterval(() => (peak = Math.max(peak, rssMiB(servers))), 1000);
    const loadBefore = loadavg()[0]!;
    log(`run ${DURATION} s, ${connections} connections, ${instances} instance(s); load average ${loadavg().map((x) => x.toFixed(2)).join(' ')}`);
    let elapsed = 0;
    const ticker = setInterval(() => log(`${(elapsed += 10)} s of ${DURATION}, rss ${rssMiB(servers).toFixed(0)} MiB`), 10_000);
    const pids = servers.map((s) => s.child.pid!);
    const throttledBefore = [...groups].map(throttling);
    const meter = new CpuMeter(pids);
    const result = await run(servers, perServer, DURATION, true);
    const cpu = meter.stop();
    const throttledAfter = [...groups].map(throttling);
    const loadAfter = loadavg()[0]!;
    clearInterval(sampler);
    clearInterval(ticker);
    const end = rssMiB(servers);

    const errors = result.errors + result.timeouts + result.non2xx;
    console.log(`load: ${instances} instance(s), ${result.total} requests in ${DURATION} s (${result.average.toFixed(1)} req/s average), ${connections} connections, ${paths.length} endpoints, ${KEYS} keys`);
    console.log(`errors: ${errors} (non-2xx ${result.non2xx}, socket errors ${result.errors}, timeouts ${result.timeouts}); statuses ${JSON.stringify(Object.fromEntries(statuses))}`);
    console.log(`latency overall: p50 ${result.p50} ms, p99 ${result.p99} ms`);
    for (const [t, xs] of [...perEndpoint].sort()) {
      console.log(`  ${t.padEnd(44)} n ${String(xs.length).padStart(6)}   p50 ${pct(xs, 50).toFixed(1).padStart(7)} ms   p99 ${pct(xs, 99).toFixed(1).padStart(7)} ms`);
    }
    const growth = (end - afterWarmup) / afterWarmup;
    console.log(`server RSS: ${afterWarmup.toFixed(0)} MiB after warm-up, peak ${peak.toFixed(0)} MiB, end ${end.toFixed(0)} MiB (${(growth * 100).toFixed(1)}%; goal within 20%)`);
    // Throttled: the share of the quota periods in which a server used up its budget.
    const periods = throttledAfter.reduce((a, t, i) => a + t.periods - throttledBefore[i]!.periods, 0);
    const throttled = periods ? throttledAfter.reduce((a, t, i) => a + t.throttled - throttledBefore[i]!.throttled, 0) / periods : NaN;
    console.log(
      `cpu during the run (of one core): servers ${cpu.servers.map(fmtCore).join(' + ')}${CPU_QUOTA !== null ? ` (quota ${fmtCore(CPU_QUOTA)} each, throttled in ${fmtCore(throttled)} of periods)` : ''}, ` +
        `postgres ${fmtCore(cpu.postgresOurs)} for the servers (${fmtCore(cpu.postgres)} in all), redis ${fmtCore(cpu.redis)}, load generator ${fmtCore(cpu.generator)}; ` +
        `machine ${fmtCore(cpu.machineBusy)} busy (of ${cpus().length} cores; other work ${fmtCore(otherWork(cpu))} of a core); load average ${loadBefore.toFixed(2)} -> ${loadAfter.toFixed(2)}`,
    );
    const all = [...perEndpoint.values()].flat();
    return { instances, connections, reqPerSec: result.average, p50: pct(all, 50), p99: pct(all, 99), errors, growth, cpu, throttled, loadBefore, loadAfter };
  } finally {
    await stopServers(servers);
  }
}

// ---------------------------------------------------------------------------
// One run, or the scaling series
// ---------------------------------------------------------------------------
const ok = (r: Row) => r.errors === 0 && r.growth <= 0.2;
if (!SCALING) {
  const row = await measure(INSTANCES, Math.max(1, Math.round(CONNECTIONS / INSTANCES)));
  process.exit(ok(row) ? 0 : 1);
}
const table: Row[] = [];
for (const count of SCALING) {
  log(`--- ${count} instance(s) ---`);
  table.push(await measure(count, CONNECTIONS));
}
const first = table[0]!;
console.log(
  `\nscaling: ${DURATION} s runs after ${WARMUP} s warm-ups, ${CONNECTIONS} connections per instance, ${paths.length} endpoints, ${KEYS} keys, ` +
    `${REDIS ? 'Redis' : 'SQL (PostgreSQL)'} counters, ${CPU_QUOTA !== null ? `each instance limited to ${CPU_QUOTA} of a core` : 'no CPU quota'}; p50/p99 over every request`,
);
const header = ['instances', 'connections', 'req/s', `ratio to ${first.instances}`, 'p50 ms', 'p99 ms', 'errors', 'RSS growth', 'API cpu each', 'throttled', 'pg cpu (all)', 'redis cpu', 'generator cpu', 'machine busy', 'other work', 'load avg'];
const cells = table.map((r) => [
  String(r.instances),
  String(r.connections),
  r.reqPerSec.toFixed(1),
  (r.reqPerSec / first.reqPerSec).toFixed(2),
  r.p50.toFixed(0),
  r.p99.toFixed(0),
  String(r.errors),
  `${(r.growth * 100).toFixed(1)}%`,
  r.cpu.servers.map(fmtCore).join('/'),
  Number.isNaN(r.throttled) ? '-' : fmtCore(r.throttled),
  `${fmtCore(r.cpu.postgresOurs)} (${fmtCore(r.cpu.postgres)})`,
  fmtCore(r.cpu.redis),
  fmtCore(r.cpu.generator),
  fmtCore(r.cpu.machineBusy),
  fmtCore(otherWork(r.cpu)),
  `${r.loadBefore.toFixed(2)}-${r.loadAfter.toFixed(2)}`,
]);
const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]!.length)));
for (const line of [header, ...cells]) console.log(line.map((c, i) => c.padStart(widths[i]!)).join('  '));
process.exit(table.every(ok) ? 0 : 1);
