/**
 * Opens the store: embedded PGlite by default, a PostgreSQL server when a
 * `postgres://` URL is given. Both speak the same SQL and run the same
 * migrations and queries; both return the same JS types:
 * - NUMERIC as a string (exact), int8 as a number (counts), DATE as 'YYYY-MM-DD';
 * - timestamptz as a Date through drizzle's query builder, and as PostgreSQL's
 *   text form through `rows()` (drizzle keeps raw timestamps raw on both
 *   drivers): read those with `pgTimestamp()`.
 * Sessions run in UTC on both: on PostgreSQL the connections ask for it in
 * their startup packet (the `TimeZone` parameter, which PgBouncer carries
 * to every server connection a client's transactions land on), and
 * `assertUtc` refuses a store whose sessions are not in UTC.
 * Nothing here keeps state in a server session beyond one transaction, so
 * DATABASE_URL may point at a transaction pooler (docs/scaling.md
 * "PgBouncer"); LISTEN, which needs a session, goes to `listen`.
 */
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { unaccent } from '@electric-sql/pglite/contrib/unaccent';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import { type SQL, sql } from 'drizzle-orm';
import pg from 'pg';
import * as schema from './schema.js';
import { lockEmbeddedStore } from './embedded-lock.js';
import { openReplica, type ReplicaMonitor } from './replica.js';
import { parseTextArray, TEXT_ARRAY_OIDS } from './text-array.js';

export type Db = PgDatabase<PgQueryResultHKT, typeof schema>;
export type StoreKind = 'pglite' | 'postgres';

export interface Store {
  kind: StoreKind;
  db: Db;
  /**
   * The handle for reads that tolerate seconds of staleness, chosen per
   * request: the read replica's while it is up and within its lag bound
   * (each of its queries falls back to the primary if the replica fails),
   * otherwise the primary's, which is also all there is without a replica
   * (replica.ts).
   */
  readDb(): Db;
  /** The read replica's monitor, when one is configured (DATABASE_REPLICA_URL). */
  replica?: ReplicaMonitor;
  close(): Promise<void>;
  /** The PostgreSQL pool, when on a server. */
  pool?: pg.Pool;
  /**
   * Where a session of its own may LISTEN (key revocations): the pool on a
   * server reached directly, a one-connection pool to DATABASE_DIRECT_URL
   * behind a transaction pooler; absent behind a pooler without one (the
   * revocations are then polled) and on the embedded store.
   */
  listen?: pg.Pool;
  pglite?: PGlite;
}

const OID = { INT8: 20, DATE: 1082, NUMERIC: 1700 } as const;

// drizzle's node-postgres session falls back to the global parsers, so set them
// globally too: int8 as a number (counts and ids stay far below 2^53 here).
pg.types.setTypeParser(OID.INT8, (v: string) => Number(v));
// text[] read in one scan (the lists' category of every row is one): the same arrays as pg's parser (text-array.ts).
for (const oid of TEXT_ARRAY_OIDS) pg.types.setTypeParser(oid, parseTextArray);

const pgTypes = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === OID.INT8) return (v: string) => Number(v);
    if (oid === OID.DATE) return (v: string) => v;
    if (oid === OID.NUMERIC) return (v: string) => v;
    return pg.types.getTypeParser(oid, format as 'text');
  },
};

export interface OpenOptions {
  /** postgres://… selects PostgreSQL; otherwise PGlite in `dataDir`. */
  databaseUrl?: string | undefined;
  /** Folder of the embedded store, or `memory://`. */
  dataDir?: string | undefined;
  /** PGlite only: a dump (from `dumpDataDir`) to start from. */
  loadDataDir?: Blob | File | undefined;
  /**
   * PGlite only: server settings (`name=value`, as in postgresql.conf). The
   * tests give their many short-lived stores a small buffer pool
   * (`shared_buffers=16MB`): PGlite's default 128 MB is zeroed at every
   * start, about half of opening a store from a dump.
   */
  pgliteSettings?: readonly string[] | undefined;
  /** PostgreSQL only: schema to use (tests isolate themselves this way). */
  searchPath?: string | undefined;
  /** PostgreSQL pool size. */
  poolSize?: number | undefined;
  /** PostgreSQL only: `databaseUrl` is a transaction pooler (DATABASE_POOLER=transaction): no LISTEN on it. */
  pooled?: boolean | undefined;
  /** PostgreSQL only: a connection straight to the server (DATABASE_DIRECT_URL), for LISTEN. */
  directUrl?: string | undefined;
  /** PostgreSQL only: a streaming standby of the server for reads that tolerate staleness (replica.ts), with the same search path. */
  replicaUrl?: string | undefined;
  /** Above this lag, in seconds, reads leave the replica (default 10). */
  replicaMaxLagSeconds?: number | undefined;
}


/**
 * node-postgres sends only a few startup parameters of its own (`options`
 * among them, which PgBouncer refuses); the session's time zone goes in the
 * startup packet as `TimeZone` itself, a parameter PostgreSQL applies and
 * PgBouncer tracks per client (it sets it on whichever server connection the
 * client's next transaction gets). It extends pg 8's own `getStartupConf`
 * (not in its typings): were a pg upgrade to change that, `assertUtc` and
 * test/pgbouncer.test.ts would say so.
 */
class UtcClient extends pg.Client {
  getStartupConf(): Record<string, string> {
    const base = (pg.Client.prototype as unknown as { getStartupConf(this: pg.Client): Record<string, string> }).getStartupConf.call(this);
    return { ...base, TimeZone: 'UTC' };
  }
}

function poolConfig(url: string, max: number, searchPath?: string): pg.PoolConfig {
  return {
    connectionString: url,
    Client: UtcClient,
    max,
    types: pgTypes,
    // Waiting for a free client under a burst of requests is not an outage:
    // a refused or lost server fails at once anyway (503 within milliseconds).
    connectionTimeoutMillis: 10_000,
    // Tests isolate themselves in a schema (PostgreSQL reached directly; a pooler refuses `options`).
    ...(searchPath ? { options: `-c search_path=${searchPath}` } : {}),
  };
}

function serverPool(url: string, max: number, searchPath?: string): pg.Pool {
  const pool = new pg.Pool(poolConfig(url, max, searchPath));
  // An idle client losing its server must not crash the process.
  pool.on('error', () => {});
  return pool;
}

export async function openStore(opts: OpenOptions): Promise<Store> {
  if (opts.databaseUrl) {
    const pool = serverPool(opts.databaseUrl, opts.poolSize ?? 10, opts.searchPath);
    const direct = opts.directUrl ? serverPool(opts.directUrl, 1, opts.searchPath) : undefined;
    const listen = direct ?? (opts.pooled ? undefined : pool);
    const db = drizzlePg(pool, { schema }) as unknown as Db;
    const replica = opts.replicaUrl
      ? openReplica(pool, poolConfig(opts.replicaUrl, opts.poolSize ?? 10, opts.searchPath), opts.replicaMaxLagSeconds ?? 10)
      : null;
    const replicaDb = replica ? (drizzlePg(replica.reads as unknown as pg.Pool, { schema }) as unknown as Db) : null;
    return {
      kind: 'postgres',
      db,
      readDb: () => (replica?.monitor.usable ? replicaDb! : db),
      ...(replica ? { replica: replica.monitor } : {}),
      pool,
      ...(listen ? { listen } : {}),
      close: async () => {
        await replica?.close();
        await Promise.all([pool.end(), direct?.end()]);
      },
    };
  }
  const dir = opts.dataDir && opts.dataDir !== 'memory://' ? opts.dataDir : undefined;
  const unlock = dir ? lockEmbeddedStore(dir) : () => {};
  let pglite: PGlite;
  try {
    pglite = await PGlite.create({
      ...(dir ? { dataDir: dir } : {}),
      ...(opts.loadDataDir ? { loadDataDir: opts.loadDataDir } : {}),
      ...(opts.pgliteSettings?.length ? { postgresqlconf: [...opts.pgliteSettings] } : {}),
      // The lists' search (migration 0012_search): trigram indexes over unaccented text.
      extensions: { pg_trgm, unaccent },
      parsers: { [OID.DATE]: (v: string) => v, [OID.NUMERIC]: (v: string) => v, [OID.INT8]: (v: string) => Number(v) },
    });
  } catch (err) {
    unlock();
    throw err;
  }
  return embeddedStore(pglite, async () => {
    try {
      await pglite.close();
    } finally {
      unlock();
    }
  });
}

/** A store on a PGlite instance (opened by openStore, or lent by the tests' pool), closed by `close`. */
export function embeddedStore(pglite: PGlite, close: () => Promise<void>): Store {
  const db = drizzlePglite(pglite, { schema }) as unknown as Db;
  return { kind: 'pglite', db, readDb: () => db, pglite, close };
}

/** The names PostgreSQL accepts for UTC. */
const UTC_NAMES = new Set(['utc', 'etc/utc', 'uct', 'etc/uct', 'universal', 'etc/universal', 'zulu', 'etc/zulu', 'gmt', 'etc/gmt', 'gmt0', 'etc/gmt0', 'gmt+0', 'etc/gmt+0', 'gmt-0', 'etc/gmt-0', 'greenwich', 'etc/greenwich']);

/**
 * Refuses a session whose time zone is not UTC: the connections ask for it
 * (`UtcClient`), but a pooler that drops startup parameters would leave the
 * server's own, and dates read from instants would then shift. The store's
 * every opening runs it (src/store/migrate.ts).
 */
export async function assertUtc(db: Db): Promise<void> {
  const [r] = await rows<{ tz: string }>(db, sql`select current_setting('TimeZone') as tz`);
  const tz = r?.tz ?? '';
  if (!UTC_NAMES.has(tz.toLowerCase())) {
    throw new Error(
      `the database session's time zone is ${tz}, not UTC: a pooler between Cashline and PostgreSQL dropped the TimeZone it asks for; ` +
        `set timezone=UTC on the pooler's database entry (PgBouncer: [databases] cashline = … timezone=UTC) or ALTER DATABASE … SET timezone = 'UTC' (docs/scaling.md "PgBouncer")`,
    );
  }
}

/** Runs raw SQL and returns its rows (both drivers put them in `.rows`). */
export async function rows<T extends Record<string, unknown>>(db: Db, query: SQL): Promise<T[]> {
  const res = (await db.execute(query)) as unknown as { rows: T[] };
  return res.rows;
}

/** Reads a timestamptz from a raw row: PostgreSQL text ('2026-01-01 00:00:00+00'), a Date, or null. */
export function pgTimestamp(v: unknown): Date | null {
  if (v === null || v === undefined) return null;
  if (v instanceof Date) return v;
  const text = String(v).replace(' ', 'T').replace(/([+-]\d\d)$/, '$1:00');
  const d = new Date(text);
  if (Number.isNaN(d.getTime())) throw new Error(`not a timestamp: ${String(v)}`);
  return d;
}
