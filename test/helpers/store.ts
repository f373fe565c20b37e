/**
 * Fresh, migrated stores for tests, on both backends:
 * - PGlite: loaded from the snapshot built by global-setup, or one a closed
 *   test gave back, emptied (see `lease`);
 * - PostgreSQL: a schema of its own in the `test` database, dropped afterwards.
 */
import { readFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';
import type { PGlite } from '@electric-sql/pglite';
import { embeddedStore, openStore, type Store, type StoreKind } from '../../src/store/db.js';
import { migrate } from '../../src/store/migrate.js';
import { PG_TEST_URL } from './env.js';

export const BACKENDS: StoreKind[] = ['pglite', 'postgres'];

/** The tests' PGlite stores: a small buffer pool, so that each opens in about 0.8 s rather than 1.3 s (the default 128 MB is zeroed at every start). */
export const TEST_PGLITE_SETTINGS = ['shared_buffers=16MB'] as const;

export interface TestStore extends Store {
  /** PostgreSQL only: the schema this store lives in. */
  schema?: string;
  /** The URL a child process can use to reach this same store (PostgreSQL only). */
  url?: string;
}

export interface FreshStoreOptions {
  poolSize?: number;
  /** PostgreSQL only: a standby of the test server (test/helpers/standby.ts) for the reads that tolerate staleness. */
  replica?: { url: string; maxLagSeconds?: number };
}

export async function freshStore(kind: StoreKind, opts: FreshStoreOptions = {}): Promise<TestStore> {
  if (kind === 'pglite') {
    const reused = idle.pop();
    if (reused) return lease(reused);
    const fresh = await openStore({ dataDir: 'memory://', loadDataDir: new Blob([readFileSync(inject('snapshotPath'))]), pgliteSettings: TEST_PGLITE_SETTINGS });
    snapshotCatalog ??= await catalogOf(fresh.pglite!);
    return lease(fresh);
  }
  const schema = `t_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: PG_TEST_URL });
  await admin.connect();
  await admin.query(`create schema ${schema}`);
  await admin.end();
  const store = await openStore({
    databaseUrl: PG_TEST_URL,
    searchPath: schema,
    poolSize: opts.poolSize ?? 10,
    replicaUrl: opts.replica?.url,
    replicaMaxLagSeconds: opts.replica?.maxLagSeconds,
  });
  await migrate(store.db);
  const url = withSearchPath(PG_TEST_URL, schema);
  return {
    ...store,
    schema,
    url,
    async close() {
      await store.close();
      const c = new pg.Client({ connectionString: PG_TEST_URL });
      await c.connect();
      await c.query(`drop schema if exists ${schema} cascade`);
      await c.end();
    },
  };
}

/** A postgres:// URL whose connections use `schema` (libpq `options`). */
export function withSearchPath(url: string, schema: string): string {
  const u = new URL(url);
  u.searchParams.set('options', `-c search_path=${schema}`);
  return u.toString();
}

// ---------------------------------------------------------------------------
// PGlite stores, reused
// ---------------------------------------------------------------------------

/**
 * Opening a PGlite store from the snapshot costs about 1.3 s and 1.6 s of CPU
 * (its 42 MB data directory unpacked and the server started), and the suite
 * opens dozens. A store a test closes is given back instead, when it is
 * still the snapshot's schema: its session reset (DISCARD ALL: settings,
 * temporary tables, LISTENs, advisory locks) and every table but the
 * migrations' emptied with its sequences restarted, which leaves it as the
 * snapshot was (the migrations seed no other table). A store whose catalog a
 * test changed, that is in a transaction, or whose PGlite the test closed
 * itself, is closed for good. Each test holds its own lease: a closed
 * lease refuses every query, so nothing left running by an earlier test
 * (a timer flushing its audit log) can write into the next one's store.
 * Per worker process (its files run one after another); at most MAX_IDLE.
 */
const idle: Store[] = [];
const MAX_IDLE = 2;
let snapshotCatalog: string | null = null;

/** The PGlite methods that reach the database: refused once the lease is closed. */
const GUARDED = new Set(['query', 'exec', 'sql', 'transaction', 'listen', 'unlisten', 'execProtocol', 'execProtocolRaw', 'execProtocolRawStream', 'describeQuery', 'runExclusive', 'dumpDataDir', 'close']);

function lease(base: Store): TestStore {
  const real = base.pglite!;
  let closed = false;
  let killed = false;
  const pglite = new Proxy(real, {
    get(target, prop) {
      const v = Reflect.get(target, prop, target) as unknown;
      if (typeof prop !== 'string' || !GUARDED.has(prop) || typeof v !== 'function') return v;
      return (...args: unknown[]) => {
        if (closed) throw new Error(`test store: ${prop} on a store its test closed`);
        if (prop === 'close') killed = true;
        return (v as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return embeddedStore(pglite, async () => {
    if (closed) return;
    closed = true;
    if (!killed && !real.closed && idle.length < MAX_IDLE && (await emptied(real))) idle.push(base);
    else if (!real.closed) await base.close();
  });
}

/** The store's own catalog (relations, functions, schemas) and its migrations: what a test must not have changed to give the store back. */
async function catalogOf(p: PGlite): Promise<string> {
  const r = await p.query<{ c: string }>(
    `select (select string_agg(n.nspname || '.' || c.relname || ':' || c.relkind::text, ',' order by n.nspname, c.relname)
               from pg_class c join pg_namespace n on n.oid = c.relnamespace
              where n.nspname not in ('pg_catalog', 'information_schema', 'pg_toast') and n.nspname not like 'pg_temp%' and n.nspname not like 'pg_toast_temp%')
        || '|' || (select string_agg(p.oid::regprocedure::text, ',' order by 1) from pg_proc p join pg_namespace n on n.oid = p.pronamespace
                    where n.nspname not in ('pg_catalog', 'information_schema'))
        || '|' || (select count(*) from cashline_migrations)::text as c`,
  );
  return r.rows[0]!.c;
}

/** Resets a store a test closed to the snapshot's state; false when it cannot be (it is then closed). */
async function emptied(p: PGlite): Promise<boolean> {
  try {
    // Refused inside a transaction block: a test that left one open does not give its store back.
    await p.exec('discard all');
    if (snapshotCatalog === null || (await catalogOf(p)) !== snapshotCatalog) return false;
    const tables = await p.query<{ t: string }>(
      `select quote_ident(c.relname) as t from pg_class c where c.relnamespace = 'public'::regnamespace and c.relkind in ('r', 'p') and c.relname <> 'cashline_migrations' order by 1`,
    );
    await p.exec(`truncate ${tables.rows.map((r) => r.t).join(', ')} restart identity cascade`);
    return true;
  } catch {
    return false;
  }
}
