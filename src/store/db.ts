/**
 * Opens the store: embedded PGlite by default, a PostgreSQL server when a
 * `postgres://` URL is given. Both speak the same SQL and run the same
 * migrations and queries; both return the same JS types:
 * - NUMERIC as a string (exact), int8 as a number (counts), DATE as 'YYYY-MM-DD';
 * - timestamptz as a Date through drizzle's query builder, and as PostgreSQL's
 *   text form through `rows()` (drizzle keeps raw timestamps raw on both
 *   drivers): read those with `pgTimestamp()`.
 * Sessions run in UTC on both.
 */
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { unaccent } from '@electric-sql/pglite/contrib/unaccent';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import type { SQL } from 'drizzle-orm';
import pg from 'pg';
import * as schema from './schema.js';
import { lockEmbeddedStore } from './embedded-lock.js';
import { openReplica, type ReplicaMonitor } from './replica.js';

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
  /** The PostgreSQL pool, when on a server (for LISTEN, advisory locks on one session…). */
  pool?: pg.Pool;
  pglite?: PGlite;
}

const OID = { INT8: 20, DATE: 1082, NUMERIC: 1700 } as const;

// drizzle's node-postgres session falls back to the global parsers, so set them
// globally too: int8 as a number (counts and ids stay far below 2^53 here).
pg.types.setTypeParser(OID.INT8, (v: string) => Number(v));

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
  /** PostgreSQL only: schema to use (tests isolate themselves this way). */
  searchPath?: string | undefined;
  /** PostgreSQL pool size. */
  poolSize?: number | undefined;
  /** PostgreSQL only: a streaming standby of the server for reads that tolerate staleness (replica.ts), with the same search path. */
  replicaUrl?: string | undefined;
  /** Above this lag, in seconds, reads leave the replica (default 10). */
  replicaMaxLagSeconds?: number | undefined;
}

export async function openStore(opts: OpenOptions): Promise<Store> {
  if (opts.databaseUrl) {
    const config = (connectionString: string): pg.PoolConfig => ({
      connectionString,
      max: opts.poolSize ?? 10,
      types: pgTypes,
      // Waiting for a free client under a burst of requests is not an outage:
      // a refused or lost server fails at once anyway (503 within milliseconds).
      connectionTimeoutMillis: 10_000,
      options: [`-c TimeZone=UTC`, opts.searchPath ? `-c search_path=${opts.searchPath}` : ''].join(' ').trim(),
    });
    const pool = new pg.Pool(config(opts.databaseUrl));
    // An idle client losing its server must not crash the process.
    pool.on('error', () => {});
    const db = drizzlePg(pool, { schema }) as unknown as Db;
    if (!opts.replicaUrl) return { kind: 'postgres', db, readDb: () => db, pool, close: () => pool.end() };
    const replica = openReplica(pool, config(opts.replicaUrl), opts.replicaMaxLagSeconds ?? 10);
    const replicaDb = drizzlePg(replica.reads as unknown as pg.Pool, { schema }) as unknown as Db;
    return {
      kind: 'postgres',
      db,
      readDb: () => (replica.monitor.usable ? replicaDb : db),
      replica: replica.monitor,
      pool,
      close: async () => {
        await replica.close();
        await pool.end();
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
      // The lists' search (migration 0012_search): trigram indexes over unaccented text.
      extensions: { pg_trgm, unaccent },
      parsers: { [OID.DATE]: (v: string) => v, [OID.NUMERIC]: (v: string) => v, [OID.INT8]: (v: string) => Number(v) },
    });
  } catch (err) {
    unlock();
    throw err;
  }
  const db = drizzlePglite(pglite, { schema }) as unknown as Db;
  return {
    kind: 'pglite',
    db,
    readDb: () => db,
    pglite,
    close: async () => {
      try {
        await pglite.close();
      } finally {
        unlock();
      }
    },
  };
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
