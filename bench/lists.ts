/**
 * List benchmarks (docs/lists.md, "Speed"): the real API server against a
 * floor, side by side, with autocannon on loopback, over a large
 * organisation on PostgreSQL (bench/gen-large-org.ts builds it when missing).
 *
 *   npx tsx bench/lists.ts              all scenarios, figures on stdout
 *   npx tsx bench/lists.ts --explain    the EXPLAIN (ANALYZE, BUFFERS) plans of the list queries
 *   npx tsx bench/lists.ts --quick      shorter runs
 *   npx tsx bench/lists.ts --search     only the search (q=) runs
 *   npx tsx bench/lists.ts --ratio 5    only the throughput at 32 connections, real against floor,
 *                                       5 interleaved rounds per key (real first, then floor first),
 *                                       each round's ratio and their median: one round moves by 10-20%
 *                                       on a shared 2-core machine
 *
 * Env: BENCH_DATABASE_URL, BENCH_SCHEMA (see gen-large-org.ts).
 *
 * - real: the service's own server (src/api/server.ts: auth, tenancy, scope,
 *   envelope, audit log, the list route), logging at warn, with a no-op
 *   limiter (the burst cap of 60 a minute per key would otherwise refuse the
 *   benchmark itself);
 * - floor: a bare node:http handler on its own pg pool that runs the same SQL
 *   for the same page (count, page, lines, totals; the SQL objects the store
 *   queries build) and JSON.stringify-s the raw rows.
 * Each server runs in a child process (so autocannon's own CPU is not
 * counted in it); its memory is sampled every 50 ms.
 */
import { NO_LIMITS } from './no-limits.js';
import { forkServer, type ServerChild } from './child.js';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import autocannon from 'autocannon';
import { sql, type SQL } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import pg from 'pg';
import { BENCH_ORG, BENCH_SCHEMA, BENCH_URL, benchKeys, benchOrgExists, generateLargeOrg, openBenchStore } from './gen-large-org.js';
import { rows } from '../src/store/db.js';
import { detailsSql, invoiceAggregate, invoiceKeysetSpec, keysSql, linesSql } from '../src/store/queries/cash-items.js';
import { countSql, pageSql } from '../src/store/queries/paging.js';
import { TOTALS_CAP } from '../src/domain/list-params.js';
import { InvoiceListQuery } from '../src/schemas/params.js';

const args = new Set(process.argv.slice(2));
const role = process.argv[2] === '--serve' ? process.argv[3] : null;

// ---------------------------------------------------------------------------
// Child: one server
// ---------------------------------------------------------------------------

async function serveReal(): Promise<string> {
  const { startServer } = await import('../src/api/server.js');
  const { loadConfig } = await import('../src/config.js');
  const { createLogger } = await import('../src/log.js');
  const { openStore } = await import('../src/store/db.js');
  const store = await openStore({ databaseUrl: BENCH_URL, searchPath: BENCH_SCHEMA, poolSize: 40 });
  const config = loadConfig({ CASHLINE_LOG_LEVEL: 'warn', CASHLINE_CURSOR_SECRET: 'bench-cursor-secret-0123456789' });
  const server = await startServer({
    store,
    config,
    logger: createLogger(config),
    host: '127.0.0.1',
    port: 0,
    limiter: NO_LIMITS,
  });
  return server.url;
}

const dialect = new PgDialect();

async function serveFloor(): Promise<string> {
  const pool = new pg.Pool({
    connectionString: BENCH_URL,
    max: 40,
    options: `-c TimeZone=UTC -c search_path=${BENCH_SCHEMA}`,
  });
  const q = async (s: SQL) => {
    const { sql: text, params } = dialect.sqlToQuery(s);
    return (await pool.query(text, params as unknown[])).rows as Record<string, unknown>[];
  };
  const server = createServer(async (req, res) => {
    try {
      const url = new URL(req.url ?? '/', 'http://x');
      const p = InvoiceListQuery.parse(Object.fromEntries(url.searchParams));
      const gate = url.searchParams.get('gate') === 'true';
      const input = { orgId: BENCH_ORG, kind: 'invoices' as const, filters: p.filters, gate };
      const spec = invoiceKeysetSpec(input);
      const agg = invoiceAggregate(input);
      const chunk = gate ? p.limit + 1 + Math.ceil(p.limit / 8) + 8 : p.limit + 1;
      let page: Record<string, unknown>[];
      let lines: Record<string, unknown>[] = [];
      let count: Record<string, unknown>[];
      if (p.lines) {
        // The same SQL as the service's lines=true walk: keys, then rows and lines concurrently.
        const keys = await q(keysSql(spec, null, chunk));
        const ids = keys.map((r) => String(r.id));
        [page, lines, count] = await Promise.all([q(detailsSql(spec, BENCH_ORG, ids)), q(linesSql(BENCH_ORG, ids)), q(countSql(agg))]);
      } else {
        [page, count] = await Promise.all([q(pageSql(spec, null, chunk)), q(countSql(agg))]);
      }
      const n = Number(count[0]?.n ?? 0);
      const totals =
        p.totals && n <= TOTALS_CAP
          ? await q(sql`select ${agg.status} as status, ${agg.currency} as currency, ${agg.n}::int8 as n, ${agg.amount} as amount
              ${agg.from} where ${agg.where} group by 1, 2 having ${agg.n} > 0`)
          : [];
      const body = JSON.stringify({ rows: page.slice(0, p.limit), lines, count: n, totals });
      res.writeHead(200, { 'content-type': 'application/json' }).end(body);
    } catch (err) {
      res.writeHead(500).end(String(err));
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

if (role) {
  const url = role === 'real' ? await serveReal() : await serveFloor();
  setInterval(() => process.send?.({ rss: process.memoryUsage().rss, heap: process.memoryUsage().heapUsed }), 50).unref();
  process.send?.({ ready: url });
  process.on('message', (m) => {
    if (m === 'stop') process.exit(0);
  });
}

// ---------------------------------------------------------------------------
// Parent: the scenarios
// ---------------------------------------------------------------------------

interface Child extends ServerChild {
  peakRss: number;
  resetPeak(): void;
}

async function start(kind: 'real' | 'floor'): Promise<Child> {
  let peak = 0;
  const server = await forkServer(new URL(import.meta.url).pathname, ['--serve', kind], {
    onMessage: (m) => {
      if (typeof m.rss === 'number') peak = Math.max(peak, m.rss);
    },
  });
  return {
    ...server,
    get peakRss() {
      return peak;
    },
    resetPeak() {
      peak = 0;
    },
  };
}

interface Figures {
  p50: number;
  p99: number;
  rps: number;
  non2xx: number;
  errors: number;
  bytes: number;
}

async function cannon(url: string, connections: number, seconds: number, headers: Record<string, string> = {}): Promise<Figures> {
  const r = await autocannon({ url, connections, duration: seconds, headers, pipelining: 1 });
  return {
    p50: r.latency.p50,
    p99: r.latency.p99,
    rps: r.requests.average,
    non2xx: r.non2xx,
    errors: r.errors,
    bytes: Math.round(r.throughput.average / Math.max(1, r.requests.average)),
  };
}

const fmt = (f: Figures) =>
  `p50 ${f.p50.toFixed(1)} ms  p99 ${f.p99.toFixed(1)} ms  ${f.rps.toFixed(1)} req/s  ~${(f.bytes / 1024).toFixed(0)} KiB/resp` +
  (f.non2xx || f.errors ? `  NON-2XX ${f.non2xx} ERRORS ${f.errors}` : '');

/**
 * The foundation's envelope counts the organisation's charged calls of the
 * UTC day in audit_log on every request (the legacy daily bucket), so each
 * request costs more than the one before; a benchmark sends tens of
 * thousands in minutes. Runs start from an empty day for the bench
 * organisation so that figures do not depend on the order of the scenarios.
 */
async function resetAudit(): Promise<void> {
  const c = new pg.Client({ connectionString: BENCH_URL, options: `-c search_path=${BENCH_SCHEMA}` });
  await c.connect();
  await c.query(`delete from audit_log where org_id = $1`, [BENCH_ORG]);
  await c.query('vacuum analyze audit_log');
  await c.end();
}

async function explainAll(): Promise<void> {
  const store = await openBenchStore(4);
  const db = store.db;
  const show = async (title: string, q: SQL) => {
    const plan = await rows<{ 'QUERY PLAN': string }>(db, sql`explain (analyze, buffers, costs off) ${q}`);
    console.log(`\n### ${title}\n\n\`\`\`\n${plan.map((r) => r['QUERY PLAN']).join('\n')}\n\`\`\``);
  };
  const base = { orgId: BENCH_ORG, kind: 'invoices' as const, filters: { statuses: [] as string[] }, gate: false };
  const page = invoiceKeysetSpec(base);
  await show('Page of 200 invoices (first page)', pageSql(page, null, 201));
  const first = await rows<{ sort_key: string; id: string }>(db, pageSql(page, null, 201));
  const last = first[199]!;
  await show('Next page (keyset after the cursor position)', pageSql(page, [last.sort_key, last.id], 201));
  const draft = invoiceKeysetSpec({ ...base, filters: { statuses: ['DRAFT', 'SUBMITTED'] } });
  await show('Page with a status filter (keys first: index-only filter, then the rows by primary key)', pageSql(draft, null, 201));
  await show('Gated page (key without READ_SENSITIVE): the contact flag per row', pageSql(invoiceKeysetSpec({ ...base, gate: true }), null, 234));
  await show('totalCount, no filter or status/date filters (summary cash_item_counts)', countSql(invoiceAggregate(base)));
  const dated = { ...base, filters: { statuses: ['AUTHORISED', 'PAID'], dateFrom: '2025-01-01', dateTo: '2025-12-31' } };
  await show('totalCount with dates (summary cash_item_day_counts)', countSql(invoiceAggregate(dated)));
  const agg = invoiceAggregate({ ...base, filters: { statuses: ['AUTHORISED'] } });
  await show(
    'Totals, status=AUTHORISED (40,000 rows, from the summary)',
    sql`select ${agg.status} as status, ${agg.currency} as currency, ${agg.n}::int8 as n, ${agg.amount} as amount ${agg.from} where ${agg.where} group by 1, 2 having ${agg.n} > 0`,
  );
  const [contact] = await rows<{ contact_id: string }>(db, sql`select contact_id from cash_items where org_id = ${BENCH_ORG} and source = 'LEDGER_INVOICE' limit 1`);
  const byContact = { ...base, filters: { statuses: [], contactId: contact!.contact_id } };
  await show('Page filtered by contactId (cash_items_contact_idx)', pageSql(invoiceKeysetSpec(byContact), null, 201));
  await show('totalCount with contactId (counted on the rows)', countSql(invoiceAggregate(byContact)));
  await show('lines=true, step 1: the keys of the next chunk (index-only; autoPaginate: 5,634 keys)', keysSql(page, null, 5634));
  const auto = await rows<{ id: string }>(db, keysSql(page, null, 5634));
  const ids = auto.map((r) => r.id);
  await show('lines=true, step 2a: the rows of those keys (PK look-ups)', detailsSql(page, BENCH_ORG, ids));
  await show('lines=true, step 2b (concurrently): their lines (PK look-ups)', linesSql(BENCH_ORG, ids));
  await store.close();
}

async function main(): Promise<void> {
  if (args.has('--explain')) return explainAll();
  const quick = args.has('--quick');
  const secs = quick ? 5 : 15;
  const store = await openBenchStore(4);
  if (!(await benchOrgExists(store.db))) await generateLargeOrg(store.db);
  const keys = await benchKeys(store.db);
  const [counts] = await rows<{ inv: number; bills: number; lines: number; contacts: number }>(
    store.db,
    sql`select (select count(*) from cash_items where org_id = ${BENCH_ORG} and source = 'LEDGER_INVOICE')::int8 as inv,
      (select count(*) from cash_items where org_id = ${BENCH_ORG} and source = 'LEDGER_BILL')::int8 as bills,
      (select count(*) from cash_item_lines where org_id = ${BENCH_ORG})::int8 as lines,
      (select count(*) from contacts where org_id = ${BENCH_ORG})::int8 as contacts`,
  );
  await store.close();
  console.log(`# Cashline list benchmark (${new Date().toISOString()})`);
  console.log(`organisation: ${counts!.inv} invoices, ${counts!.bills} bills, ${counts!.lines} lines, ${counts!.contacts} contacts (PostgreSQL, schema ${BENCH_SCHEMA})`);
  console.log(`node ${process.version}, ${(await import('node:os')).cpus().length} CPUs; autocannon on loopback, ${secs} s per run after a 3 s warm-up\n`);

  const scenarios: { name: string; real: string; floor: string; key: 'full' | 'gated' }[] = [
    { name: 'page of 200 invoices (READ_SENSITIVE key)', real: '/api/agent/invoices?limit=200', floor: '/?limit=200', key: 'full' },
    { name: 'page of 200 invoices (key without READ_SENSITIVE)', real: '/api/agent/invoices?limit=200', floor: '/?limit=200&gate=true', key: 'gated' },
  ];

  const real = await start('real');
  const floor = await start('floor');
  const auth = (k: 'full' | 'gated') => ({ authorization: `Bearer ${keys[k]}` });
  /** Search (issue 19, docs/lists.md#q): the real server only (the floor has no search). */
  const searchRuns = async (summary: string[]) => {
    for (const [name, path] of [
      ['q= one invoice number (INV-123456: the trigram index)', '/api/agent/invoices?limit=200&q=INV-123456'],
      ['q= a contact name (Contact 4217: the contact index, then its invoices)', '/api/agent/invoices?limit=200&q=Contact%204217'],
      ['q= a word in most numbers (inv: a scan that stops after a page)', '/api/agent/invoices?limit=200&q=inv'],
      ['q= a word in most numbers, with totals (inv: the whole count, the worst case)', '/api/agent/invoices?limit=200&q=inv&totals=true'],
    ] as const) {
      console.log(`## ${name}`);
      await resetAudit();
      await cannon(real.url + path, 1, 2, auth('full'));
      const r = await cannon(real.url + path, 1, secs, auth('full'));
      console.log(`  real:  ${fmt(r)}\n`);
      summary.push(`${name}: p50 ${r.p50.toFixed(1)} ms, p99 ${r.p99.toFixed(1)} ms`);
    }
  };
  try {
    const summary: string[] = [];
    if (args.has('--search')) {
      await searchRuns(summary);
      for (const line of summary) console.log(`- ${line}`);
      return;
    }
    {
      console.log('## reference: the API pipeline alone (GET /api/agent/status: auth, tenancy, envelope, audit; no list)');
      await resetAudit();
      await cannon(real.url + '/api/agent/status', 1, 3, auth('full'));
      const s1 = await cannon(real.url + '/api/agent/status', 1, secs, auth('full'));
      await resetAudit();
      const s32 = await cannon(real.url + '/api/agent/status', 32, secs, auth('full'));
      console.log(`  1 connection:   ${fmt(s1)}`);
      console.log(`  32 connections: ${fmt(s32)}\n`);
      summary.push(`pipeline alone (/status): p99@1 ${s1.p99.toFixed(1)} ms, rps@32 ${s32.rps.toFixed(0)}`);
    }
    const rounds = Number(process.argv[process.argv.indexOf('--ratio') + 1]);
    if (args.has('--ratio') && rounds > 0) {
      for (const s of scenarios) {
        console.log(`## ${s.name}: throughput at 32 connections, ${rounds} rounds`);
        await cannon(real.url + s.real, 32, 3, auth(s.key));
        await cannon(floor.url + s.floor, 32, 3);
        const ratios: number[] = [];
        for (let k = 0; k < rounds; k++) {
          await resetAudit();
          const runReal = () => cannon(real.url + s.real, 32, secs, auth(s.key));
          const runFloor = () => cannon(floor.url + s.floor, 32, secs);
          let r32: Figures;
          let f32: Figures;
          if (k % 2 === 0) {
            r32 = await runReal();
            f32 = await runFloor();
          } else {
            f32 = await runFloor();
            r32 = await runReal();
          }
          ratios.push(r32.rps / f32.rps);
          console.log(`  round ${k + 1}: real ${r32.rps.toFixed(0)} req/s, floor ${f32.rps.toFixed(0)} req/s, ratio ${(r32.rps / f32.rps).toFixed(2)}`);
        }
        const sorted = [...ratios].sort((a, b) => a - b);
        const med = sorted[(sorted.length - 1) >> 1]!;
        console.log(`  median ratio ${med.toFixed(2)} (min ${sorted[0]!.toFixed(2)}, max ${sorted[sorted.length - 1]!.toFixed(2)}; target >= 0.6)\n`);
        summary.push(`${s.name}: median real/floor at 32 connections ${med.toFixed(2)} over ${rounds} rounds (${sorted.map((r) => r.toFixed(2)).join(', ')})`);
      }
      return;
    }
    for (const s of scenarios) {
      console.log(`## ${s.name}`);
      await resetAudit();
      await cannon(real.url + s.real, 1, 3, auth(s.key));
      await cannon(floor.url + s.floor, 1, 3);
      const r1 = await cannon(real.url + s.real, 1, secs, auth(s.key));
      const f1 = await cannon(floor.url + s.floor, 1, secs);
      console.log(`  1 connection   real:  ${fmt(r1)}`);
      console.log(`  1 connection   floor: ${fmt(f1)}`);
      await resetAudit();
      const r32 = await cannon(real.url + s.real, 32, secs, auth(s.key));
      const f32 = await cannon(floor.url + s.floor, 32, secs);
      console.log(`  32 connections real:  ${fmt(r32)}`);
      console.log(`  32 connections floor: ${fmt(f32)}`);
      const ratio = r32.rps / f32.rps;
      console.log(`  throughput real/floor at 32 connections: ${ratio.toFixed(2)} (target >= 0.6); p99 at 1 connection ${r1.p99.toFixed(1)} ms (target <= 25)\n`);
      summary.push(`${s.name}: p99@1 ${r1.p99.toFixed(1)} ms, rps@32 ${r32.rps.toFixed(0)} vs floor ${f32.rps.toFixed(0)} (${ratio.toFixed(2)})`);
    }

    for (const [name, path, floorPath] of [
      ['totals=true over all 200,000 invoices (over the 100,000 cap: totalsTruncated)', '/api/agent/invoices?limit=200&totals=true', '/?limit=200&totals=true'],
      ['totals=true, status=AUTHORISED (40,000 rows)', '/api/agent/invoices?limit=200&totals=true&status=AUTHORISED', '/?limit=200&totals=true&status=AUTHORISED'],
      ['totals=true, dateFrom/dateTo over 2025 (~66,700 rows)', '/api/agent/invoices?limit=200&totals=true&dateFrom=2025-01-01&dateTo=2025-12-31', '/?limit=200&totals=true&dateFrom=2025-01-01&dateTo=2025-12-31'],
    ] as const) {
      console.log(`## ${name}`);
      await resetAudit();
      await cannon(real.url + path, 1, 2, auth('full'));
      const r = await cannon(real.url + path, 1, secs, auth('full'));
      const f = await cannon(floor.url + floorPath, 1, secs);
      console.log(`  real:  ${fmt(r)}  (target p50 <= 150 ms)`);
      console.log(`  floor: ${fmt(f)}\n`);
      summary.push(`${name}: p50 ${r.p50.toFixed(1)} ms`);
    }

    await searchRuns(summary);

    for (const k of ['full', 'gated'] as const) {
      const name = `autoPaginate=true&lines=true, 5,000 invoices with 3 lines each (${k === 'full' ? 'READ_SENSITIVE key' : 'key without READ_SENSITIVE'})`;
      console.log(`## ${name}`);
      const path = '/api/agent/invoices?autoPaginate=true&lines=true';
      await resetAudit();
      await cannon(real.url + path, 1, 3, auth(k));
      real.resetPeak();
      const before = real.peakRss;
      const r = await cannon(real.url + path, 1, secs, auth(k));
      const r4 = await cannon(real.url + path, 4, secs, auth(k));
      const f = await cannon(floor.url + `/?autoPaginate=true&lines=true${k === 'gated' ? '&gate=true' : ''}`, 1, secs);
      console.log(`  1 connection   real:  ${fmt(r)}  (target p50 <= 400 ms)`);
      console.log(`  4 connections  real:  ${fmt(r4)}`);
      console.log(`  1 connection   floor: ${fmt(f)}`);
      console.log(`  real server peak RSS during these runs: ${(real.peakRss / 2 ** 20).toFixed(0)} MiB${before ? '' : ''}\n`);
      summary.push(`${name}: p50 ${r.p50.toFixed(1)} ms, peak RSS ${(real.peakRss / 2 ** 20).toFixed(0)} MiB`);
    }
    console.log('## summary');
    for (const line of summary) console.log(`- ${line}`);
  } finally {
    await real.stop();
    await floor.stop();
  }
}

if (!role) {
  await main();
  process.exit(0);
}
