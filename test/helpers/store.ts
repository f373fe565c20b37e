/**
 * Fresh, migrated stores for tests, on both backends:
 * - PGlite: loaded from the snapshot built by global-setup;
 * - PostgreSQL: a schema of its own in the `test` database, dropped afterwards.
 */
import { readFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';
import { openStore, type Store, type StoreKind } from '../../src/store/db.js';
import { migrate } from '../../src/store/migrate.js';
import { PG_TEST_URL } from './env.js';

export const BACKENDS: StoreKind[] = ['pglite', 'postgres'];

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
    const blob = new Blob([readFileSync(inject('snapshotPath'))]);
    return openStore({ dataDir: 'memory://', loadDataDir: blob });
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
