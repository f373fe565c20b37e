/**
 * Expensive store contents built once per `npm test` run and copied into the
 * stores of every test file that wants them (the suite's time budget): the
 * first file to ask builds the fixture in a store of its own, publishes a
 * copy, and goes on with its store; a file asking while it is built waits for
 * it; later files load the copy (seconds, not the minute the build takes).
 *
 * - PGlite: the data dir after the build, dumped (dumpDataDir) into the run's
 *   folder and loaded into a fresh in-memory store (loadDataDir), as the
 *   migrated snapshot of global-setup is;
 * - PostgreSQL: a schema of the run (`fx_<run>_<name>`), copied table by table
 *   into a fresh migrated schema by the server (insert … select, triggers and
 *   foreign-key checks off for the copy, the sequences set after).
 *
 * A fixture is built by the code under test on the backend it is for, so each
 * backend's build is still exercised once per run. Every copy is the build's
 * state, whatever file built it: a fixture's build must be deterministic
 * (setupDemo is: seeded generators, the given `now`). The run's folder and
 * schemas are removed by global-setup's teardown.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { inject } from 'vitest';
import { openStore, type StoreKind } from '../../src/store/db.js';
import { migrate } from '../../src/store/migrate.js';
import { freshStore, TEST_PGLITE_SETTINGS, type TestStore } from './store.js';
import { PG_TEST_URL } from './env.js';

export interface FixtureRun {
  /** The run's folder for fixture files. */
  dir: string;
  /** Prefix of the run's fixture schemas on PostgreSQL. */
  schemaPrefix: string;
}

/** A fixture: its name (unique per backend within a run; letters, digits, _), its build, and what the build returns (JSON, kept beside the copy). */
export interface Fixture<T> {
  name: string;
  build(store: TestStore): Promise<T>;
}

/** How long a file waits for another to build a fixture (a builder that fails releases the lock, and the waiter builds). */
const WAIT_MS = 600_000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function paths(kind: StoreKind, name: string) {
  const run = inject('fixtureRun');
  if (!/^[a-z0-9_]+$/.test(name)) throw new Error(`fixture name ${name}: letters, digits and _ only`);
  mkdirSync(run.dir, { recursive: true });
  const base = join(run.dir, `${kind}-${name}`);
  return { lock: `${base}.lock`, meta: `${base}.json`, dump: `${base}.tar`, schema: `${run.schemaPrefix}${name}` };
}

/** A store holding `fixture` (built here if no file of this run built it yet) and what its build returned. */
export async function storeWith<T>(kind: StoreKind, fixture: Fixture<T>): Promise<{ store: TestStore; value: T }> {
  const p = paths(kind, fixture.name);
  for (const deadline = Date.now() + WAIT_MS; ; ) {
    if (existsSync(p.meta)) return { store: await copyOf(kind, p), value: JSON.parse(readFileSync(p.meta, 'utf8')) as T };
    if (takeLock(p.lock)) break;
    if (Date.now() > deadline) throw new Error(`fixture ${kind} ${fixture.name}: not built within ${WAIT_MS / 1000} s by another test file (${p.lock})`);
    await sleep(250);
  }
  try {
    // Built (and published meanwhile) by another file between our look and our lock.
    if (existsSync(p.meta)) return { store: await copyOf(kind, p), value: JSON.parse(readFileSync(p.meta, 'utf8')) as T };
    const store = await freshStore(kind);
    const value = await fixture.build(store);
    await publish(kind, store, p);
    writeFileSync(`${p.meta}.tmp`, JSON.stringify(value));
    renameSync(`${p.meta}.tmp`, p.meta);
    return { store, value };
  } finally {
    rmSync(p.lock, { recursive: true, force: true });
  }
}

function takeLock(lock: string): boolean {
  try {
    mkdirSync(lock);
    return true;
  } catch {
    return false;
  }
}

async function publish(kind: StoreKind, store: TestStore, p: ReturnType<typeof paths>): Promise<void> {
  if (kind === 'pglite') {
    const dump = await store.pglite!.dumpDataDir('none');
    writeFileSync(`${p.dump}.tmp`, Buffer.from(await dump.arrayBuffer()));
    renameSync(`${p.dump}.tmp`, p.dump);
    return;
  }
  await withAdmin(async (c) => {
    await c.query(`drop schema if exists ${p.schema} cascade`);
    await c.query(`create schema ${p.schema}`);
  });
  const copy = await openStore({ databaseUrl: PG_TEST_URL, searchPath: p.schema, poolSize: 1 });
  try {
    await migrate(copy.db);
  } finally {
    await copy.close();
  }
  await copySchema(store.schema!, p.schema);
}

async function copyOf(kind: StoreKind, p: ReturnType<typeof paths>): Promise<TestStore> {
  if (kind === 'pglite') return openStore({ dataDir: 'memory://', loadDataDir: new Blob([readFileSync(p.dump)]), pgliteSettings: TEST_PGLITE_SETTINGS });
  const store = await freshStore('postgres');
  await copySchema(p.schema, store.schema!);
  return store;
}

async function withAdmin<T>(fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: PG_TEST_URL });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

/**
 * Copies every table's rows and every sequence's position from schema `from`
 * into `to` (migrated alike, so the columns line up), in one transaction, with
 * triggers and foreign-key checks off (session_replication_role = replica):
 * the counts the triggers keep are copied like any table.
 */
async function copySchema(from: string, to: string): Promise<void> {
  await withAdmin(async (c) => {
    await c.query('begin');
    try {
      await c.query('set local session_replication_role = replica');
      const tables = await c.query<{ t: string }>(
        `select table_name as t from information_schema.tables where table_schema = $1 and table_type = 'BASE TABLE' and table_name <> 'cashline_migrations' order by 1`,
        [from],
      );
      for (const { t } of tables.rows) await c.query(`insert into "${to}"."${t}" select * from "${from}"."${t}"`);
      const seqs = await c.query<{ s: string }>(`select sequence_name as s from information_schema.sequences where sequence_schema = $1 order by 1`, [from]);
      for (const { s } of seqs.rows) {
        const [pos] = (await c.query<{ last_value: string; is_called: boolean }>(`select last_value, is_called from "${from}"."${s}"`)).rows;
        await c.query(`select setval('"${to}"."${s}"', $1, $2)`, [pos!.last_value, pos!.is_called]);
      }
      await c.query('commit');
    } catch (err) {
      await c.query('rollback');
      throw err;
    }
  });
}

/** This machine, in the names of its runs' schemas (the test database may serve several machines). */
const host = createHash('sha256').update(hostname()).digest('hex').slice(0, 6);

/** The fixtures of this run (global-setup, once per run): its folder, and its schemas named after the machine and the run's process. */
export const fixtureRun = (dir: string): FixtureRun => ({ dir, schemaPrefix: `fx_${host}_${process.pid}_` });

/** The fixture schemas this machine's runs left behind when they were killed before their teardown (their process is gone). */
export async function removeFixturesOfDeadRuns(): Promise<void> {
  await withAdmin(async (c) => {
    const schemas = await c.query<{ s: string }>(`select nspname as s from pg_namespace where starts_with(nspname, $1)`, [`fx_${host}_`]);
    for (const { s } of schemas.rows) {
      const pid = Number(s.split('_')[2]);
      try {
        process.kill(pid, 0);
        continue; // a run still going
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ESRCH') continue;
      }
      await c.query(`drop schema if exists "${s}" cascade`);
    }
  });
}

/** Global-setup's teardown: the run's fixture schemas and folder. */
export async function removeFixtures(run: FixtureRun): Promise<void> {
  await withAdmin(async (c) => {
    const schemas = await c.query<{ s: string }>(`select nspname as s from pg_namespace where starts_with(nspname, $1)`, [run.schemaPrefix]);
    for (const { s } of schemas.rows) await c.query(`drop schema if exists "${s}" cascade`);
  });
  rmSync(run.dir, { recursive: true, force: true });
}
