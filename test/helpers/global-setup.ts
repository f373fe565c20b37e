/**
 * Once per `npm test`: build one migrated PGlite data dir and dump it, so each
 * test store loads it (~1 s) instead of starting and migrating afresh (~5 s);
 * and check that the PostgreSQL server the suite needs answers. A missing
 * server fails the run: store tests never skip a backend. The run's fixtures
 * (helpers/fixtures.ts: stores built once, copied into each file that wants
 * them) live in a folder and schemas of the run, removed afterwards.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { openStore } from '../../src/store/db.js';
import { migrate } from '../../src/store/migrate.js';
import { PG_TEST_URL, SNAPSHOT_PATH } from './env.js';
import { fixtureRun, removeFixtures, removeFixturesOfDeadRuns } from './fixtures.js';

export default async function setup(project: TestProject) {
  const client = new pg.Client({ connectionString: PG_TEST_URL, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    await client.query('select 1');
  } catch (err) {
    throw new Error(
      `PostgreSQL is needed by the tests at ${PG_TEST_URL} and did not answer (${(err as Error).message}). ` +
        `Start it (see README, "Tests") or set CASHLINE_TEST_DATABASE_URL.`,
    );
  } finally {
    await client.end().catch(() => {});
  }
  await vacuumTestDatabase();
  const store = await openStore({ dataDir: 'memory://' });
  await migrate(store.db);
  const dump = await store.pglite!.dumpDataDir('none');
  await store.close();
  mkdirSync(join(SNAPSHOT_PATH, '..'), { recursive: true });
  writeFileSync(SNAPSHOT_PATH, Buffer.from(await dump.arrayBuffer()));
  project.provide('snapshotPath', SNAPSHOT_PATH);
  const run = fixtureRun(join(SNAPSHOT_PATH, '..', 'fixtures'));
  await removeFixturesOfDeadRuns();
  project.provide('fixtureRun', run);
  return () => removeFixtures(run);
}

/**
 * Every run creates and drops a few hundred schemas in the test database (a
 * store per test file and backend, each migrated: some forty tables), which
 * leaves their catalog rows dead. A server with autovacuum off (as this
 * project's machines run it: conf.d/90-ci.conf) never reclaims them: after
 * six runs pg_attribute held 2,652 live rows and 607,690 dead. So each run
 * starts by vacuuming the test database (about 2 s after those six runs,
 * well under one on a fresh server).
 */
async function vacuumTestDatabase(): Promise<void> {
  const client = new pg.Client({ connectionString: PG_TEST_URL });
  await client.connect();
  try {
    await client.query('vacuum');
  } finally {
    await client.end().catch(() => {});
  }
}

declare module 'vitest' {
  export interface ProvidedContext {
    snapshotPath: string;
    fixtureRun: import('./fixtures.js').FixtureRun;
  }
}
