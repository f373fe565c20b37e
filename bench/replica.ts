/**
 * The read replica's effect on list pages (docs/scaling.md "Read replica"):
 * the same API server twice over the large organisation of
 * bench/gen-large-org.ts, one on the primary alone and one with a hot standby
 * of it as DATABASE_REPLICA_URL (test/helpers/standby.ts: pg_basebackup -R of
 * the local PostgreSQL, on another port), under the same load, in alternating
 * rounds.
 *
 *   npx tsx bench/replica.ts              3 rounds of 15 s at 32 connections, latency at 1 connection
 *   npx tsx bench/replica.ts --quick      2 rounds of 5 s
 *   npx tsx bench/replica.ts --rounds 5
 *
 * Besides throughput and latency it measures where the database work went:
 * the CPU time of the PostgreSQL backends serving each server (by
 * application_name, on the primary and on the standby, from /proc) and of
 * the standby's own processes (WAL replay), per request. On one machine the
 * primary and the standby share the same cores, so the throughput shows what
 * the routing costs, not what a replica gains; the CPU moved off the primary
 * is the figure that carries over to separate hosts.
 *
 * Env: BENCH_DATABASE_URL must be the local server at 127.0.0.1:5432 (the standby is a copy of it), BENCH_SCHEMA.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import autocannon from 'autocannon';
import pg from 'pg';
import { NO_LIMITS } from './no-limits.js';
import { BENCH_ORG, BENCH_SCHEMA, BENCH_URL, benchKeys, benchOrgExists, generateLargeOrg, openBenchStore } from './gen-large-org.js';
import { startStandby, type Standby } from '../test/helpers/standby.js';

type Setup = 'primary' | 'replica';
const APP = { primary: 'bench-primary-only', replica: 'bench-with-replica' } as const;
const args = process.argv.slice(2);
const role = args[0] === '--serve' ? (args[1] as Setup) : null;
const PAGE = '/api/agent/invoices?limit=200';

const withApp = (url: string, app: string) => {
  const u = new URL(url);
  u.searchParams.set('application_name', app);
  return u.toString();
};

// ---------------------------------------------------------------------------
// Child: one API server (the primary alone, or with the replica)
// ---------------------------------------------------------------------------

async function serve(setup: Setup, replicaUrl: string | undefined): Promise<void> {
  const { startServer } = await import('../src/api/server.js');
  const { loadConfig } = await import('../src/config.js');
  const { createLogger } = await import('../src/log.js');
  const { openStore } = await import('../src/store/db.js');
  const store = await openStore({
    databaseUrl: withApp(BENCH_URL, APP[setup]),
    searchPath: BENCH_SCHEMA,
    poolSize: 40,
    ...(setup === 'replica' ? { replicaUrl: withApp(replicaUrl!, APP[setup]) } : {}),
  });
  const config = loadConfig({ CASHLINE_LOG_LEVEL: 'warn', CASHLINE_CURSOR_SECRET: 'bench-cursor-secret-0123456789' });
  const server = await startServer({ store, config, logger: createLogger(config), host: '127.0.0.1', port: 0, limiter: NO_LIMITS });
  // Every state the replica went through (the parent checks that the runs were served by it).
  const states = new Set<string>();
  store.replica?.onChange((s) => states.add(s.state));
  process.send?.({ ready: server.url });
  process.on('message', (m) => {
    if (m === 'status') process.send?.({ status: store.replica?.status() ?? null, states: [...states] });
    if (m === 'stop') process.exit(0);
  });
}

if (role) await serve(role, args[2]);

// ---------------------------------------------------------------------------
// Parent
// ---------------------------------------------------------------------------

interface Child {
  url: string;
  proc: ChildProcess;
  ask(): Promise<{ status: { state: string; lagSeconds: number | null } | null; states: string[] }>;
  stop(): Promise<void>;
}

async function start(setup: Setup, standby: Standby): Promise<Child> {
  const proc = fork(new URL(import.meta.url).pathname, ['--serve', setup, standby.url('postgres')], { execArgv: ['--import', 'tsx'], stdio: 'inherit' });
  const url = await new Promise<string>((resolve, reject) => {
    proc.on('message', (m: { ready?: string }) => m.ready && resolve(m.ready));
    proc.once('exit', (code) => reject(new Error(`${setup} server exited (${code})`)));
  });
  return {
    url,
    proc,
    ask: () =>
      new Promise((resolve) => {
        const on = (m: { status?: unknown; states?: string[] }) => {
          if (!('status' in m)) return;
          proc.off('message', on);
          resolve(m as Awaited<ReturnType<Child['ask']>>);
        };
        proc.on('message', on);
        proc.send('status');
      }),
    stop: () =>
      new Promise<void>((resolve) => {
        proc.once('exit', () => resolve());
        proc.send('stop');
      }),
  };
}

const TICK_MS = 1000 / 100; // /proc times are in clock ticks of 10 ms (USER_HZ 100 on Linux)

/** CPU time (ms) of processes, by pid; a pid gone since is 0. */
function cpuMs(pids: number[]): Map<number, number> {
  const out = new Map<number, number>();
  for (const pid of pids) {
    try {
      const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
      out.set(pid, (Number(f[11]) + Number(f[12])) * TICK_MS); // utime, stime
    } catch {
      out.set(pid, 0);
    }
  }
  return out;
}

/** The backends serving `app` on a server; with `app` null, its own processes (WAL replay and receiver, checkpointer, …). */
async function backends(url: string, app: string | null): Promise<number[]> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    const r =
      app === null
        ? await c.query<{ pid: number }>("select pid from pg_stat_activity where backend_type <> 'client backend'")
        : await c.query<{ pid: number }>('select pid from pg_stat_activity where application_name = $1', [app]);
    return r.rows.map((x) => x.pid);
  } finally {
    await c.end();
  }
}

interface Run {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  requests: number;
  /** CPU ms per request: backends of this server on the primary, on the standby; the standby's other processes. */
  primaryCpu: number;
  standbyCpu: number;
  replayCpu: number;
}

async function measure(child: Child, setup: Setup, standby: Standby, key: string, connections: number, seconds: number): Promise<Run> {
  const appPids = async () => ({
    primary: await backends(BENCH_URL, APP[setup]),
    standby: await backends(standby.url('postgres'), APP[setup]),
    replay: await backends(standby.url('postgres'), null),
  });
  const before = await appPids();
  const t0 = { primary: cpuMs(before.primary), standby: cpuMs(before.standby), replay: cpuMs(before.replay) };
  const r = await autocannon({ url: child.url + PAGE, connections, duration: seconds, headers: { authorization: `Bearer ${key}` } });
  const after = await appPids();
  // Processes started during the run count whole; those present before count their difference (one gone since: nothing).
  const used = (pidsNow: number[], start: Map<number, number>) => {
    let ms = 0;
    for (const [pid, t] of cpuMs([...new Set([...pidsNow, ...start.keys()])])) if (t) ms += Math.max(0, t - (start.get(pid) ?? 0));
    return ms;
  };
  const n = Math.max(1, r.requests.total);
  return {
    rps: r.requests.average,
    p50: r.latency.p50,
    p99: r.latency.p99,
    errors: r.errors + r.non2xx,
    requests: r.requests.total,
    primaryCpu: used(after.primary, t0.primary) / n,
    standbyCpu: used(after.standby, t0.standby) / n,
    replayCpu: used(after.replay, t0.replay) / n,
  };
}

async function main(): Promise<void> {
  const quick = args.includes('--quick');
  const secs = quick ? 5 : 15;
  const roundsAt = args.indexOf('--rounds');
  const rounds = roundsAt >= 0 ? Number(args[roundsAt + 1]) : quick ? 2 : 3;
  const store = await openBenchStore(4);
  if (!(await benchOrgExists(store.db))) await generateLargeOrg(store.db);
  const keys = await benchKeys(store.db);
  await store.close();

  console.log(`# Cashline read-replica benchmark (${new Date().toISOString()})`);
  console.log(`node ${process.version}, ${cpus().length} CPUs, load average ${loadavg().map((l) => l.toFixed(1)).join(' ')}; page of 200 invoices of ${BENCH_ORG} (schema ${BENCH_SCHEMA})`);
  process.stderr.write('starting the standby (pg_basebackup of 127.0.0.1:5432)…\n');
  const t0 = performance.now();
  const standby = await startStandby();
  console.log(`standby: pg_basebackup and start in ${((performance.now() - t0) / 1000).toFixed(1)} s, port ${standby.port}`);
  const children: Child[] = [];
  try {
    const primary = await start('primary', standby);
    children.push(primary);
    const replica = await start('replica', standby);
    children.push(replica);
    for (let i = 0; (await replica.ask()).status?.state !== 'up'; i++) {
      if (i > 100) throw new Error(`the replica is not up: ${JSON.stringify(await replica.ask())}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    const setups: [Setup, Child][] = [
      ['primary', primary],
      ['replica', replica],
    ];
    const results: Record<Setup, { at1: Run[]; at32: Run[] }> = { primary: { at1: [], at32: [] }, replica: { at1: [], at32: [] } };
    // Warm-up: both pools filled, plans cached.
    for (const [, child] of setups) await autocannon({ url: child.url + PAGE, connections: 32, duration: 3, headers: { authorization: `Bearer ${keys.full}` } });
    for (let k = 0; k < rounds; k++) {
      const order = k % 2 === 0 ? setups : [...setups].reverse();
      for (const [setup, child] of order) {
        const at32 = await measure(child, setup, standby, keys.full, 32, secs);
        const at1 = await measure(child, setup, standby, keys.full, 1, Math.max(3, Math.round(secs / 3)));
        results[setup].at32.push(at32);
        results[setup].at1.push(at1);
        console.log(
          `round ${k + 1} ${setup.padEnd(7)}: 32 conn ${at32.rps.toFixed(0)} req/s (p99 ${at32.p99} ms), 1 conn p50 ${at1.p50} ms p99 ${at1.p99} ms; ` +
            `DB CPU per request: primary ${at32.primaryCpu.toFixed(2)} ms, standby ${at32.standbyCpu.toFixed(2)} ms, replay ${at32.replayCpu.toFixed(2)} ms` +
            (at32.errors || at1.errors ? `; ERRORS ${at32.errors + at1.errors}` : ''),
        );
      }
    }
    const seen = await replica.ask();
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    console.log('\n## summary (mean of the rounds)');
    console.log('| setup | req/s at 32 connections | p50 / p99 at 1 connection | primary CPU per request | standby CPU per request: its queries + WAL replay |');
    console.log('|---|---|---|---|---|');
    for (const setup of ['primary', 'replica'] as const) {
      const r = results[setup];
      console.log(
        `| ${setup === 'primary' ? 'primary only' : 'with the replica'} | ${mean(r.at32.map((x) => x.rps)).toFixed(0)} (${r.at32.map((x) => x.rps.toFixed(0)).join(', ')}) | ` +
          `${mean(r.at1.map((x) => x.p50)).toFixed(1)} / ${mean(r.at1.map((x) => x.p99)).toFixed(1)} ms | ${mean(r.at32.map((x) => x.primaryCpu)).toFixed(2)} ms | ` +
          `${mean(r.at32.map((x) => x.standbyCpu)).toFixed(2)} + ${mean(r.at32.map((x) => x.replayCpu)).toFixed(2)} ms |`,
      );
    }
    const p = mean(results.primary.at32.map((x) => x.rps));
    const q = mean(results.replica.at32.map((x) => x.rps));
    console.log(`\nwith the replica / primary only, throughput at 32 connections: ${(q / p).toFixed(2)}`);
    const cpu = (setup: Setup) => mean(results[setup].at32.map((x) => x.primaryCpu));
    console.log(`the primary's CPU per list request, primary only / with the replica: ${(cpu('primary') / cpu('replica')).toFixed(1)}x`);
    console.log(`the replica's states during the runs: ${seen.states.length ? seen.states.join(', ') : 'up throughout'} (now ${seen.status?.state}, lag ${seen.status?.lagSeconds} s)`);
    console.log(`load average at the end ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
  } finally {
    for (const c of children) await c.stop();
    standby.destroy();
  }
}

if (!role) {
  await main();
  process.exit(0);
}
