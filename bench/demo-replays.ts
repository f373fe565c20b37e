/**
 * The demo as the bands' and the oracle's benchmarks replay it (bench/bands.ts,
 * bench/oracle.ts): `npm start`'s two businesses generated as of one day and
 * imported into one PostgreSQL schema, the weeks of the last two years they
 * are scored on, and the best baseline they are measured against.
 */
import pg from 'pg';
import { openStore, type Db } from '../src/store/db.js';
import { migrate } from '../src/store/migrate.js';
import { orgMeta } from '../src/store/queries/organisation.js';
import { BENCH_URL } from './gen-large-org.js';
import type { BacktestResult } from '../src/backtest/index.js';
import { DEMO_ORGS, setupDemo } from '../src/server/demo.js';
import { generateDemo } from '../src/demo/generate.js';
import { importFiles } from '../src/ledger/import.js';
import { createOrg } from '../src/store/tenancy.js';

/** The day the demo is generated as of (as the tests' `npm start`), and its date. */
export const DEMO_NOW = new Date('2026-11-23T09:00:00Z');
export const DEMO_TODAY = DEMO_NOW.toISOString().slice(0, 10);
/** The schema both benchmarks keep the demo in (imported by whichever runs first). */
export const DEMO_SCHEMA = 'bench_bands_demo';
/** Weekly cut-offs over the demo's last two years whose 13 weeks have happened. */
export const LAST_TWO_YEARS = { from: '2024-11-25', to: '2026-08-17' } as const;

/** Generates and imports the demo (both businesses, derived as `npm start` derives them), logging its progress. */
export async function loadDemo(db: Db, log: (m: string) => void): Promise<void> {
  await setupDemo(db, DEMO_NOW, Object.assign((m: string) => log(m), { done: () => {} }));
}

/**
 * One of the demo's two businesses generated with another seed: the same
 * kind of business (its profile and size), other customers, habits and
 * luck, which no part of the engine was tuned on. Its organisation id is
 * fixed by the business and the seed; it is kept in a schema of its own.
 */
export function demoBusinessOfSeed(which: 0 | 1, seed: number) {
  const demo = DEMO_ORGS[which];
  const orgId = `00000000-0000-4000-8000-0000000c${which}${String(seed).padStart(3, '0')}`;
  const name = `${demo.name}, seed ${seed}`;
  return {
    orgId,
    name,
    schema: `bench_bands_demo${which}_s${seed}`,
    /** What to generate it from: the business's profile and size, this seed and name. */
    generate: { ...demo, id: orgId, seed, name },
    load: async (db: Db) => {
      await createOrg(db, { id: orgId, name, plan: demo.plan, now: DEMO_NOW });
      const out = generateDemo({ seed, asOf: DEMO_NOW, scale: demo.scale, name, profile: demo.profile });
      await importFiles(db, orgId, out.files, { now: DEMO_NOW });
    },
  };
}

/** The best baseline's receipts pinball: the least of the three baselines', what Cashline's is set against. */
export function bestBaselinePinball(b: BacktestResult): number {
  return Math.min(b.methods.due_date.receipts.pinball, b.methods.median_delay.receipts.pinball, b.methods.naive_run_rate.receipts.pinball);
}

/** A replayed ledger: the schema of the bench database it is kept in, its organisation, and how to import it into an empty, migrated store. */
export interface BenchLedger {
  schema: string;
  orgId: string;
  load(db: Db): Promise<void>;
}

/** The ledger's schema, migrated and imported unless it already holds the organisation (or `force`: dropped first). */
export async function readyLedger(l: BenchLedger, opts: { force?: boolean; log: (m: string) => void }): Promise<void> {
  const admin = new pg.Client(BENCH_URL);
  await admin.connect();
  try {
    if (opts.force) await admin.query(`drop schema if exists ${l.schema} cascade`);
    await admin.query(`create schema if not exists ${l.schema}`);
  } finally {
    await admin.end();
  }
  const store = await openStore({ databaseUrl: BENCH_URL, searchPath: l.schema, poolSize: 4 });
  try {
    await migrate(store.db);
    if (await orgMeta(store.db, l.orgId)) return;
    opts.log(`importing ${l.schema}`);
    const t0 = Date.now();
    await l.load(store.db);
    opts.log(`imported ${l.schema} in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  } finally {
    await store.close();
  }
}
