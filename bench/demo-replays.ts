/**
 * The demo as the bands' and the oracle's benchmarks replay it (bench/bands.ts,
 * bench/oracle.ts): `npm start`'s two businesses generated as of one day and
 * imported into one PostgreSQL schema, the weeks of the last two years they
 * are scored on, and the best baseline they are measured against.
 */
import type { Db } from '../src/store/db.js';
import type { BacktestResult } from '../src/backtest/index.js';
import { setupDemo } from '../src/server/demo.js';

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

/** The best baseline's receipts pinball: the least of the three baselines', what Cashline's is set against. */
export function bestBaselinePinball(b: BacktestResult): number {
  return Math.min(b.methods.due_date.receipts.pinball, b.methods.median_delay.receipts.pinball, b.methods.naive_run_rate.receipts.pinball);
}
