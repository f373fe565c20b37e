/**
 * Cashline behind PgBouncer in transaction mode (issue 21, "past one
 * database"; docs/scaling.md "PgBouncer"): Debian's PgBouncer 1.18 (no
 * prepared statements in transaction mode) with two server connections, so
 * that consecutive statements of one client land on different sessions.
 * Through it: the migrations, a `serve` process (dist/, run `npm run build`
 * first) with its workers (a sync from the Xero-compatible server, the
 * nightly jobs under their claims, the sync under its lease), the API
 * (authenticated requests, exact limits in the SQL counters under
 * concurrency, the audit log), key revocations without LISTEN (polled), and
 * the leases themselves. The database's own time zone is not UTC: the
 * sessions still are (they ask in their startup packet). Fails, never skips,
 * without pgbouncer.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { sql } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/node-postgres';
import { assertUtc, type Db, openStore, rows, type Store } from '../src/store/db.js';
import { migrate } from '../src/store/migrate.js';
import { createKey, createOrg } from '../src/store/tenancy.js';
import { connectLedger } from '../src/ledger/sync/sync.js';
import { LeaseLostError, syncLockKey, withLease } from '../src/store/claims.js';
import { watchRevocations } from '../src/store/key-revocations.js';
import { SCOPES } from '../src/domain/scopes.js';
import type { XeroServer } from '../src/xero-server/server.js';
import { NOW, syncEnv, testKeyring, xeroServer } from './helpers/ledger.js';
import { serveProcess, type ServedProcess } from './helpers/net.js';
import { ops } from './helpers/ops.js';
import { startPgBouncer, type PgBouncer } from './helpers/pgbouncer.js';
import { PG_TEST_URL } from './helpers/env.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until<T>(what: string, ms: number, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = performance.now() + ms;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (performance.now() > deadline) throw new Error(`${what}: not within ${ms} ms`);
    await sleep(100);
  }
}

describe('behind PgBouncer in transaction mode (two server connections)', () => {
  const database = `cashline_pgb_${randomBytes(4).toString('hex')}`;
  let admin: pg.Client;
  let bouncer: PgBouncer;
  let store: Store;
  let xs: XeroServer;
  let serve: ServedProcess;
  let env: NodeJS.ProcessEnv;
  let orgId: string;
  let key: string;
  /** The database itself, past the pooler (as another process would reach it). */
  let directUrl: string;

  beforeAll(async () => {
    admin = new pg.Client({ connectionString: PG_TEST_URL });
    await admin.connect();
    await admin.query(`create database ${database}`);
    // Not UTC: every session must still be (the time zone travels in the startup packet, which PgBouncer carries).
    await admin.query(`alter database ${database} set timezone to 'Australia/Sydney'`);
    const u = new URL(PG_TEST_URL);
    u.pathname = `/${database}`;
    directUrl = u.toString();
    bouncer = await startPgBouncer(PG_TEST_URL, database, { poolSize: 2 });
    store = await openStore({ databaseUrl: bouncer.url, pooled: true, poolSize: 8 });
    expect((await migrate(store.db)).applied.length).toBeGreaterThan(10);

    xs = await xeroServer({ limits: { perMinute: 100_000, concurrent: 5 } });
    ({ orgId } = await createOrg(store.db, { name: 'Pooled Traders', plan: 'Reserve', now: NOW }));
    await connectLedger(store.db, testKeyring, { orgId, tenantId: xs.tenantId, refreshToken: xs.issueGrant().refreshToken, now: NOW });
    key = (await createKey(store.db, { orgId, scopes: [...SCOPES], now: NOW })).key;
    env = { ...syncEnv(xs, bouncer.url), DATABASE_POOLER: 'transaction' };
    serve = await serveProcess({
      ...(env as Record<string, string>),
      CASHLINE_LOG_LEVEL: 'warn',
      CASHLINE_KEY_CACHE_SECONDS: '60',
      CASHLINE_WORKER_TICK_SECONDS: '1',
    });
  }, 90_000);

  afterAll(async () => {
    if (serve) {
      const gone = new Promise((r) => serve.child.once('exit', r));
      serve.child.kill('SIGTERM');
      await gone;
    }
    await store?.close();
    await xs?.close();
    await bouncer?.stop();
    await admin?.query(`drop database if exists ${database} with (force)`).catch(() => {});
    await admin?.end();
  }, 30_000);

  const get = (path: string, k = key) => fetch(`${serve.url}${path}`, { headers: { authorization: `Bearer ${k}` } });

  it('every statement runs in UTC, on whichever of the two server sessions it lands; a client that does not ask for UTC is refused', async () => {
    const seen = await Promise.all(
      Array.from({ length: 24 }, () => rows<{ tz: string; pid: number }>(store.db, sql`select current_setting('TimeZone') as tz, pg_backend_pid() as pid, pg_sleep(0.02)`)),
    );
    expect(new Set(seen.map((r) => r[0]!.tz))).toEqual(new Set(['UTC']));
    expect(new Set(seen.map((r) => r[0]!.pid)).size).toBe(2);
    const plain = new pg.Pool({ connectionString: bouncer.url, max: 1 });
    try {
      await expect(assertUtc(drizzle(plain) as unknown as Db)).rejects.toThrow(/time zone is Australia\/Sydney, not UTC.*timezone=UTC/);
    } finally {
      await plain.end();
    }
  });

  it('the workers sync the ledger and run the nightly jobs, each under its claim, the sync under its lease', async () => {
    const claims = await until('the worker jobs', 45_000, async () => {
      const r = await rows<{ job: string; done: boolean; error: string | null }>(store.db, sql`select job, done, error from worker_claims where org_id = ${orgId} order by job`);
      return r.length === 3 && r.every((c) => c.done) ? r : undefined;
    });
    expect(claims).toEqual(['brief', 'forecast', 'sync'].map((job) => ({ job, done: true, error: null })));
    const [run] = await rows<{ outcome: string }>(store.db, sql`select outcome from import_runs where org_id = ${orgId} and kind = 'sync'`);
    expect(run?.outcome).toBe('ok');
    expect(await rows(store.db, sql`select name from leases`)).toEqual([]);
    const invoices = await get('/api/agent/invoices?limit=5');
    expect(invoices.status).toBe(200);
    expect(((await invoices.json()) as { invoices: unknown[] }).invoices).toHaveLength(5);
    expect((await get('/api/agent/forecast')).status).toBe(200);
  }, 60_000);

  it('the API counts its limits exactly in SQL under concurrency, and audits every call', async () => {
    const statuses = await Promise.all(Array.from({ length: 80 }, () => get('/api/agent/status').then((r) => r.status)));
    expect(statuses.filter((s) => s === 200)).toHaveLength(60);
    expect(statuses.filter((s) => s === 429)).toHaveLength(20);
    const free = await createOrg(store.db, { name: 'Pooled Free', plan: 'Free', now: NOW });
    const freeKey = (await createKey(store.db, { orgId: free.orgId, scopes: [...SCOPES], now: NOW })).key;
    const paths = ['/api/agent/orgs', '/api/agent/bank-accounts', '/api/agent/invoices'];
    const charged = await Promise.all(Array.from({ length: 30 }, (_, i) => get(paths[i % 3]!, freeKey).then((r) => r.status)));
    expect(charged.filter((s) => s === 200)).toHaveLength(10);
    expect(charged.filter((s) => s !== 200).every((s) => s === 429)).toBe(true);
    // One audit row per authenticated call (written after each answer).
    const audited = await until('the audit rows', 5_000, async () => {
      const [r] = await rows<{ n: number }>(store.db, sql`select count(*)::int as n from audit_log where org_id = ${free.orgId}`);
      return r!.n === 30 ? r!.n : undefined;
    });
    expect(audited).toBe(30);
  });

  it('a key revoked by another process is refused within a second and a half: polled, as nothing LISTENs through the pooler', async () => {
    const { orgId: other } = await createOrg(store.db, { name: 'Pooled Revoked', plan: 'Reserve', now: NOW });
    const k = await createKey(store.db, { orgId: other, scopes: [...SCOPES], now: NOW });
    expect((await get('/api/agent/status', k.key)).status).toBe(200); // now cached for a minute
    // Revoked straight in the database, as another process would (no notification this process could hear anyway).
    const direct = new pg.Client({ connectionString: directUrl });
    await direct.connect();
    await direct.query('update api_keys set revoked_at = now() where key_prefix = $1', [k.keyPrefix]);
    await direct.end();
    const revokedAt = performance.now();
    await until('the refusal', 5_000, async () => ((await get('/api/agent/status', k.key)).status === 401 ? true : undefined));
    const ms = performance.now() - revokedAt;
    console.log(`revoked key refused after ${Math.round(ms)} ms behind PgBouncer (poll every second, cache time-to-live 60 s)`);
    expect(ms).toBeLessThan(1_500);

    // With DATABASE_DIRECT_URL, the LISTEN goes past the pooler and hears what is sent through it.
    const withDirect = await openStore({ databaseUrl: bouncer.url, pooled: true, directUrl, poolSize: 2 });
    const heard: string[] = [];
    const watch = watchRevocations({ listen: withDirect.listen, onRevoked: (p) => heard.push(p), onLost: () => {} });
    try {
      expect(withDirect.listen).toBeDefined();
      await until('the LISTEN', 5_000, async () => {
        await withDirect.db.execute(sql`select pg_notify('cashline_key_revoked', 'probe')`);
        return heard.includes('probe') ? true : undefined;
      });
    } finally {
      await watch.close();
      await withDirect.close();
    }
  });

  it('the sync lease through the pooler: one holder at a time (the operator’s sync refused meanwhile), a lapsed one taken over, a stolen one noticed', async () => {
    const name = syncLockKey(orgId);
    const held = await withLease(store.db, name, async () => {
      expect(await withLease(store.db, name, async () => 'twice')).toBeNull();
      return ops(['sync', '--org', orgId], env);
    });
    expect(held!.value.code).toBe(1);
    expect(held!.value.stderr).toMatch(/already running in another process/);
    const run = await ops(['sync', '--org', orgId], env);
    expect(run.code, run.stderr).toBe(0);
    expect(run.json.outcome).toBe('ok');

    // A holder elsewhere: refused while its lease runs, taken over once it lapsed.
    await store.db.execute(
      sql`insert into leases (name, owner, host, pid, lease_until, acquired_at) values ('test:elsewhere', 'other', 'another-host/pid:[1]', 1, now() + interval '1 minute', now())`,
    );
    expect(await withLease(store.db, 'test:elsewhere', async () => 'taken')).toBeNull();
    await store.db.execute(sql`update leases set lease_until = now() - interval '1 second' where name = 'test:elsewhere'`);
    expect(await withLease(store.db, 'test:elsewhere', async () => 'taken')).toEqual({ value: 'taken' });

    // Taken over while held (this holder stalled past its lease): the holder's next check throws.
    const lost = withLease(
      store.db,
      'test:stolen',
      async (check) => {
        await store.db.execute(sql`update leases set owner = 'thief' where name = 'test:stolen'`);
        await sleep(400);
        check();
      },
      { ttlMs: 300 },
    );
    await expect(lost).rejects.toBeInstanceOf(LeaseLostError);
    expect(await rows(store.db, sql`select owner from leases`)).toEqual([{ owner: 'thief' }]);
  });
});
