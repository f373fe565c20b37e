/**
 * The request path at the floor (issue 21): the pipeline's own cost, with the
 * real limiter on Redis, every answer a 200.
 *
 *   npx tsx bench/pipeline.ts [--json] [--seconds 10] [--rounds 3] [--keys 4000] [--status-keys 8000] [--only status|list]
 *   (or npm run bench -- pipeline)
 *
 * - status: `GET /api/agent/status` (nothing but the pipeline: key look-up,
 *   tenancy, limits, envelope, audit) at 32 connections, this checkout against
 *   commit 6302177 (built once into a temporary folder from `git archive`,
 *   beside this checkout's node_modules), each on its own PostgreSQL schema and
 *   the same Redis, `--rounds` interleaved rounds (old first, then new first).
 * - list: a page of 200 invoices of the large organisation
 *   (bench/gen-large-org.ts) at 32 connections, the real server (Redis
 *   limiter) against the floor of bench/lists.ts (a bare node:http server on
 *   its own pool running the same SQL), `--rounds` interleaved rounds.
 * Every server runs in a child process of its own (autocannon's CPU is not
 * counted in it) with a PostgreSQL pool of 40. Requests go round-robin over a
 * pool of keys large enough that the burst cap (60 a minute per key and
 * endpoint) refuses none (`--keys` for the list, `--status-keys` for /status,
 * which answers some 7,000 a second on a quiet machine: 1,200 keys a round
 * would allow 72,000 answers); any answer but a 200 fails the run.
 *
 * `--json` prints one JSON object on stdout:
 *   { status: { rps, p99Ms, baselineRps, ratio }, list: { ratio: { median, min, max }, p99Ms }, ... }
 * (rps: the mean over the rounds; p99Ms: the median of the rounds' p99).
 * Progress and the per-round figures go to stderr.
 */
import { execFileSync } from 'node:child_process';
import { forkServer, type ServerChild } from './child.js';
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import autocannon from 'autocannon';
import pg from 'pg';
import { BENCH_ORG, BENCH_SCHEMA, BENCH_URL, benchOrgExists, generateLargeOrg, openBenchStore } from './gen-large-org.js';

const OLD_COMMIT = '6302177';
const here = dirname(fileURLToPath(import.meta.url));
const repo = join(here, '..');
const argv = process.argv.slice(2);
const opt = (name: string, d: number) => {
  const i = argv.indexOf(name);
  const v = i >= 0 ? Number(argv[i + 1]) : NaN;
  return Number.isFinite(v) && v > 0 ? v : d;
};
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const CONNECTIONS = 32;
/** Keys of the warm-up runs (the measured rounds use the others, a slice each). */
const WARM_KEYS = 400;
const say = (msg: string) => process.stderr.write(`${msg}\n`);

/** Where a codebase's modules are: this checkout's src/ (through tsx), or the old commit's build. */
const oldDir = join(tmpdir(), `cashline-${OLD_COMMIT}`);
const codeRoot = (code: 'old' | 'new') => (code === 'old' ? pathToFileURL(join(oldDir, 'dist')).href : pathToFileURL(join(repo, 'src')).href);

// ---------------------------------------------------------------------------
// Child: one API server (`--serve <old|new> <schema>`)
// ---------------------------------------------------------------------------

interface Modules {
  openStore: (o: { databaseUrl: string; searchPath: string; poolSize: number }) => Promise<{ db: unknown; close(): Promise<void> }>;
  migrate: (db: unknown) => Promise<unknown>;
  createOrg: (db: unknown, i: { name: string; plan: string; now: Date }) => Promise<{ orgId: string }>;
  createKey: (db: unknown, i: { orgId: string; scopes: string[]; now: Date }) => Promise<{ key: string }>;
  SCOPES: readonly string[];
}

async function modules(code: 'old' | 'new'): Promise<Modules> {
  const root = codeRoot(code);
  const [db, mig, ten, scopes] = await Promise.all([
    import(`${root}/store/db.js`),
    import(`${root}/store/migrate.js`),
    import(`${root}/store/tenancy.js`),
    import(`${root}/domain/scopes.js`),
  ]);
  return { openStore: db.openStore, migrate: mig.migrate, createOrg: ten.createOrg, createKey: ten.createKey, SCOPES: scopes.SCOPES };
}

async function serve(code: 'old' | 'new', schema: string): Promise<string> {
  const root = codeRoot(code);
  const [{ openStore }, { startServer }, { loadConfig }, { createLogger }, { RedisLimiter }] = await Promise.all([
    import(`${root}/store/db.js`),
    import(`${root}/api/server.js`),
    import(`${root}/config.js`),
    import(`${root}/log.js`),
    import(`${root}/store/redis-usage.js`),
  ]);
  const store = await openStore({ databaseUrl: BENCH_URL, searchPath: schema, poolSize: 40 });
  const config = loadConfig({ CASHLINE_LOG_LEVEL: 'warn', CASHLINE_CURSOR_SECRET: 'bench-cursor-secret-0123456789' });
  const server = await startServer({ store, config, logger: createLogger(config), host: '127.0.0.1', port: 0, limiter: new RedisLimiter(REDIS_URL) });
  return server.url as string;
}

if (argv[0] === '--serve') {
  const url = await serve(argv[1] as 'old' | 'new', argv[2]!);
  process.send?.({ ready: url });
  process.on('message', (m) => {
    if (m === 'stop') process.exit(0);
  });
}

// ---------------------------------------------------------------------------
// Parent
// ---------------------------------------------------------------------------

type Child = ServerChild;
const start = (script: string, args: string[]) => forkServer(script, args, { quiet: true });

/** Builds commit OLD_COMMIT into the temporary folder once (git archive + tsc), with this checkout's node_modules. */
function buildOld(): void {
  if (existsSync(join(oldDir, 'dist', 'api', 'server.js'))) return;
  say(`building ${OLD_COMMIT} into ${oldDir} (once) ...`);
  rmSync(oldDir, { recursive: true, force: true });
  mkdirSync(oldDir, { recursive: true });
  const archive = execFileSync('git', ['-C', repo, 'archive', OLD_COMMIT], { maxBuffer: 1 << 28 });
  execFileSync('tar', ['-x', '-C', oldDir], { input: archive });
  symlinkSync(join(repo, 'node_modules'), join(oldDir, 'node_modules'));
  execFileSync(process.execPath, [join(repo, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json'], { cwd: oldDir, stdio: 'inherit' });
}

/** A fresh schema with one Reserve organisation and `n` keys, made by that codebase's own code. */
async function prepareStatus(code: 'old' | 'new', n: number): Promise<{ schema: string; keys: string[] }> {
  const schema = `bench_pipeline_${code}`;
  const admin = new pg.Client({ connectionString: BENCH_URL });
  await admin.connect();
  await admin.query(`drop schema if exists ${schema} cascade`);
  await admin.query(`create schema ${schema}`);
  await admin.end();
  const m = await modules(code);
  const store = await m.openStore({ databaseUrl: BENCH_URL, searchPath: schema, poolSize: 4 });
  try {
    await m.migrate(store.db);
    const now = new Date();
    const { orgId } = await m.createOrg(store.db, { name: `Pipeline bench (${code})`, plan: 'Reserve', now });
    const keys: string[] = [];
    for (let i = 0; i < n; i++) keys.push((await m.createKey(store.db, { orgId, scopes: [...m.SCOPES], now })).key);
    return { schema, keys };
  } finally {
    await store.close();
  }
}

const LIST_USER = 'bench: pipeline member';

/**
 * `n` keys of the large organisation, each of its own member (so each its own
 * credit meter: Reserve, 5,000 credits per 5 hours), the previous run's first removed.
 */
async function prepareList(n: number): Promise<string[]> {
  const store = await openBenchStore(4);
  try {
    if (!(await benchOrgExists(store.db))) await generateLargeOrg(store.db);
    const { createKey, createUser } = await import('../src/store/tenancy.js');
    const { SCOPES } = await import('../src/domain/scopes.js');
    const { sql } = await import('drizzle-orm');
    await store.db.execute(sql`update billing_accounts set plan = 'Reserve' where id = (select billing_account_id from organisations where id = ${BENCH_ORG})`);
    const gone = sql`(select id from users where name = ${LIST_USER})`;
    await store.db.execute(sql`delete from api_keys where user_id in ${gone}`);
    await store.db.execute(sql`delete from memberships where user_id in ${gone}`);
    await store.db.execute(sql`delete from users where name = ${LIST_USER}`);
    const keys: string[] = [];
    for (let i = 0; i < n; i++) {
      const { userId } = await createUser(store.db, { orgId: BENCH_ORG, name: LIST_USER, now: new Date() });
      keys.push((await createKey(store.db, { orgId: BENCH_ORG, userId, scopes: [...SCOPES], now: new Date() })).key);
    }
    return keys;
  } finally {
    await store.close();
  }
}

interface Run {
  rps: number;
  p99: number;
  p50: number;
  total: number;
  /** The server process's CPU per answer (ms; /proc: user + system), null when unknown. */
  cpuMs: number | null;
}

/** CPU seconds a process has used (Linux /proc; clock ticks of 1/100 s), or null. */
function cpuSeconds(pid: number | undefined): number | null {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return null;
  }
}

/** autocannon at 32 connections, keys round-robin (none when `keys` is empty); throws on any answer but a 200. */
async function cannon(label: string, url: string, seconds: number, keys: string[], server?: Child): Promise<Run> {
  const cpu0 = cpuSeconds(server?.proc.pid);
  let n = 0;
  const requests = keys.length
    ? [{ setupRequest: (req: autocannon.Request) => ({ ...req, headers: { ...(req.headers ?? {}), authorization: `Bearer ${keys[n++ % keys.length]}` } }) }]
    : undefined;
  const out = await autocannon({ url, connections: CONNECTIONS, duration: seconds, ...(requests ? { requests } : {}) });
  const bad = out.non2xx + out.errors + out.timeouts;
  if (bad > 0) {
    const codes = Object.entries(out.statusCodeStats ?? {}).map(([code, s]) => `${code}: ${(s as { count: number }).count}`).join(', ');
    throw new Error(`${label}: ${bad} of ${out.requests.total} answers were not 200 (${codes}; errors ${out.errors}, timeouts ${out.timeouts})`);
  }
  const cpu1 = cpuSeconds(server?.proc.pid);
  const cpuMs = cpu0 !== null && cpu1 !== null ? ((cpu1 - cpu0) * 1000) / out.requests.total : null;
  return { rps: out.requests.average, p99: out.latency.p99, p50: out.latency.p50, total: out.requests.total, cpuMs };
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
const cpu = (r: Run) => (r.cpuMs === null ? '?' : `${r.cpuMs.toFixed(2)} ms`);
const mean = (xs: number[]) => xs.reduce((a, x) => a + x, 0) / xs.length;
const r2 = (x: number) => Math.round(x * 100) / 100;

async function main(): Promise<void> {
  const seconds = opt('--seconds', 10);
  const rounds = opt('--rounds', 3);
  const nKeys = opt('--keys', 4000);
  const nStatusKeys = opt('--status-keys', 8000);
  const json = argv.includes('--json');
  const onlyAt = argv.indexOf('--only');
  const only = onlyAt >= 0 ? argv[onlyAt + 1] : null;
  if (only !== null && only !== 'status' && only !== 'list') throw new Error('--only: status or list');
  const doStatus = only !== 'list';
  const doList = only !== 'status';
  const self = fileURLToPath(import.meta.url);
  if (doStatus) buildOld();
  say(`# Cashline pipeline benchmark (${new Date().toISOString()}); node ${process.version}, ${cpus().length} CPUs; ${CONNECTIONS} connections, ${seconds} s per run, ${rounds} rounds`);
  say(`preparing ${nStatusKeys} keys per codebase for /status and ${nKeys} for the list ...`);
  const oldStatus = doStatus ? await prepareStatus('old', nStatusKeys) : null;
  const newStatus = doStatus ? await prepareStatus('new', nStatusKeys) : null;
  const listKeys = doList ? await prepareList(nKeys) : [];
  // Each round uses its own slice of the keys (a key is used at most once in a minute's rounds).
  const slice = (keys: string[], r: number) => keys.slice(WARM_KEYS + Math.floor(((keys.length - WARM_KEYS) * r) / rounds), WARM_KEYS + Math.floor(((keys.length - WARM_KEYS) * (r + 1)) / rounds));
  const status = { old: [] as Run[], new: [] as Run[] };
  const ratios: number[] = [];
  const listP99: number[] = [];
  const listCpu = { real: [] as number[], floor: [] as number[] };

  const children: Child[] = [];
  try {
    // /status: commit 6302177 against this checkout, interleaved.
    if (oldStatus && newStatus) {
      const old = await start(self, ['--serve', 'old', oldStatus.schema]);
      children.push(old);
      const cur = await start(self, ['--serve', 'new', newStatus.schema]);
      children.push(cur);
      // Warm-up on keys of their own, so that each key's 60 a minute stay for the measured rounds.
      await cannon('warm-up old', `${old.url}/api/agent/status`, 3, oldStatus.keys.slice(0, WARM_KEYS));
      await cannon('warm-up new', `${cur.url}/api/agent/status`, 3, newStatus.keys.slice(0, WARM_KEYS));
      for (let r = 0; r < rounds; r++) {
        const order = r % 2 === 0 ? (['old', 'new'] as const) : (['new', 'old'] as const);
        for (const code of order) {
          const child = code === 'old' ? old : cur;
          const keys = slice(code === 'old' ? oldStatus.keys : newStatus.keys, r);
          const run = await cannon(`/status ${code} round ${r + 1}`, `${child.url}/api/agent/status`, seconds, keys, child);
          status[code].push(run);
          say(`  /status round ${r + 1} ${code === 'old' ? OLD_COMMIT : 'this checkout'}: ${run.rps.toFixed(0)} req/s, p50 ${run.p50} ms, p99 ${run.p99} ms, server CPU ${cpu(run)} per answer (${run.total} answers, all 200)`);
        }
    }
    await old.stop();
    await cur.stop();
    }

    // The page of 200 against the floor, interleaved.
    if (doList) {
      const real = await start(self, ['--serve', 'new', BENCH_SCHEMA]);
      children.push(real);
      const floor = await start(join(here, 'lists.ts'), ['--serve', 'floor']);
      children.push(floor);
      const page = '/api/agent/invoices?limit=200';
      await cannon('warm-up list', real.url + page, 3, listKeys.slice(0, WARM_KEYS));
      await cannon('warm-up floor', `${floor.url}/?limit=200`, 3, []);
      for (let r = 0; r < rounds; r++) {
        const runReal = () => cannon(`list round ${r + 1}`, real.url + page, seconds, slice(listKeys, r), real);
        const runFloor = () => cannon(`floor round ${r + 1}`, `${floor.url}/?limit=200`, seconds, [], floor);
        let a: Run;
        let f: Run;
        if (r % 2 === 0) {
          a = await runReal();
          f = await runFloor();
        } else {
          f = await runFloor();
          a = await runReal();
        }
        ratios.push(a.rps / f.rps);
        listP99.push(a.p99);
        if (a.cpuMs !== null && f.cpuMs !== null) {
          listCpu.real.push(a.cpuMs);
          listCpu.floor.push(f.cpuMs);
        }
        say(`  page of 200 round ${r + 1}: real ${a.rps.toFixed(0)} req/s (p99 ${a.p99} ms, server CPU ${cpu(a)} per answer), floor ${f.rps.toFixed(0)} req/s (p99 ${f.p99} ms, ${cpu(f)}), ratio ${(a.rps / f.rps).toFixed(2)}`);
    }
    }

    const rps = mean(status.new.map((x) => x.rps));
    const baselineRps = mean(status.old.map((x) => x.rps));
    const result = {
      ...(doStatus
        ? {
            status: { rps: Math.round(rps), p99Ms: median(status.new.map((x) => x.p99)), baselineRps: Math.round(baselineRps), ratio: r2(rps / baselineRps) },
            baseline: { commit: OLD_COMMIT, p99Ms: median(status.old.map((x) => x.p99)) },
          }
        : {}),
      ...(doList
        ? {
            list: {
              ratio: { median: r2(median(ratios)), min: r2(Math.min(...ratios)), max: r2(Math.max(...ratios)) },
              p99Ms: median(listP99),
              ...(listCpu.real.length ? { serverCpuMsPerAnswer: { real: r2(median(listCpu.real)), floor: r2(median(listCpu.floor)) } } : {}),
            },
          }
        : {}),
      setup: { connections: CONNECTIONS, seconds, rounds, keys: nKeys, statusKeys: nStatusKeys, limiter: 'redis', store: 'postgres', cpus: cpus().length, at: new Date().toISOString() },
    };
    if (json) process.stdout.write(`${JSON.stringify(result)}\n`);
    else {
      if (result.status && result.baseline) {
        console.log(`/status: ${result.status.rps} req/s (p99 ${result.status.p99Ms} ms) against ${result.status.baselineRps} req/s at ${OLD_COMMIT} (p99 ${result.baseline.p99Ms} ms): ${result.status.ratio}x (goal >= 2.5x, p99 <= 30 ms)`);
      }
      if (result.list) console.log(`page of 200 / floor: median ${result.list.ratio.median} (min ${result.list.ratio.min}, max ${result.list.ratio.max}), p99 ${result.list.p99Ms} ms (goal >= 0.85)`);
    }
  } finally {
    for (const c of children) if (c.proc.exitCode === null) await c.stop().catch(() => {});
  }
}

if (argv[0] !== '--serve') {
  main().then(
    () => process.exit(0),
    (err) => {
      say(`pipeline bench failed: ${(err as Error).message}`);
      process.exit(1);
    },
  );
}
