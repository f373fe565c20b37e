/**
 * Recompute the forecast of one organisation (docs/forecast.md#the-job): load
 * the engine's inputs with a few set-based queries, learn once, project every
 * scenario (creating BASE, BEST and WORST when missing), record the
 * purchase-order matches as suppressed_reason, and store one snapshot per
 * scenario with what makes up each of its weeks (its items). `cashline-server recompute` and the workers call it.
 */
import type { Db } from '../store/db.js';
import { runForecast } from '../domain/forecast/engine.js';
import { openDocuments } from '../domain/forecast/changes.js';
import { addDays, dateIn } from '../domain/calendar.js';
import { loadEngineInputs } from '../store/queries/forecast-input.js';
import { saveSuppression, storeSnapshots } from '../store/queries/forecast-snapshots.js';
import { orgMeta } from '../store/queries/organisation.js';
import { ensureScenarios } from '../store/queries/scenarios.js';
import { loadRawLedger } from '../store/queries/raw-ledger.js';
import { indexLedger, inputAt } from '../backtest/replay.js';

export interface RecomputeResult {
  orgId: string;
  asOfDate: string;
  computedAt: string;
  snapshots: { scenarioId: string; scenarioKind: string; id: string; endingCash: string }[];
  /** Purchase orders whose suppressed_reason changed. */
  suppressionChanged: number;
  counts: { items: number; bankTransactions: number; purchaseOrders: number };
  /** Milliseconds: loading, the engine (learning and every scenario), storing. */
  timings: { loadMs: number; computeMs: number; storeMs: number };
}

export class RecomputeError extends Error {}

export async function recomputeForecast(db: Db, orgId: string, now: Date): Promise<RecomputeResult> {
  const t0 = performance.now();
  const org = await orgMeta(db, orgId);
  if (!org) throw new RecomputeError(`no organisation ${orgId}`);
  const scenarios = await ensureScenarios(db, orgId, now);
  const { asOf, input, calibration, threshold } = await loadEngineInputs(db, org, now);
  const t1 = performance.now();
  const { prepared, payloads, items } = runForecast(input, scenarios, now, { calibration, threshold });
  const t2 = performance.now();
  const suppressionChanged = await saveSuppression(db, orgId, prepared.poReasons);
  await storeSnapshots(db, orgId, payloads, now, { items, documents: openDocuments(input) });
  const t3 = performance.now();
  return {
    orgId,
    asOfDate: asOf,
    computedAt: now.toISOString(),
    snapshots: payloads.map((p) => ({
      scenarioId: p.scenarioId,
      scenarioKind: p.scenarioKind,
      id: `${p.scenarioId}:${now.toISOString()}`,
      endingCash: p.endingCash,
    })),
    suppressionChanged,
    counts: { items: input.items.length, bankTransactions: input.bankTxns.length, purchaseOrders: input.purchaseOrders.length },
    timings: { loadMs: Math.round(t1 - t0), computeMs: Math.round(t2 - t1), storeMs: Math.round(t3 - t2) },
  };
}

/**
 * The demo's yesterday (docs/forecast.md#changes): the forecast as it would
 * have been made 24 hours before `now`, stored as a snapshot, so that GET
 * /forecast/changes has a real day to explain on the demo's first day. The
 * ledger as it stood on yesterday's morning is replayed (src/backtest/replay.ts:
 * documents, payments and bank movements before it, the balances then);
 * today's schedules, credits and operator settings stand in for yesterday's.
 * Not kept in the track record (the demo's is seeded from the calibration's
 * replay).
 */
export async function recomputeYesterday(db: Db, orgId: string, now: Date): Promise<void> {
  const org = await orgMeta(db, orgId);
  if (!org) throw new RecomputeError(`no organisation ${orgId}`);
  // 24 hours before, moved by the hour a time-zone change adds or takes away, so that it is yesterday there.
  const yesterday = addDays(dateIn(org.timezone, now), -1);
  let at = new Date(now.getTime() - 86_400_000);
  if (dateIn(org.timezone, at) < yesterday) at = new Date(at.getTime() + 3_600_000);
  else if (dateIn(org.timezone, at) > yesterday) at = new Date(at.getTime() - 3_600_000);
  const scenarios = await ensureScenarios(db, orgId, at);
  const { input: today, calibration, threshold } = await loadEngineInputs(db, org, at);
  const past = inputAt(indexLedger(await loadRawLedger(db, org)), today.asOf);
  const { history: _recomputed, ...rest } = today;
  const input = { ...rest, items: past.items, bankTxns: past.bankTxns, purchaseOrders: past.purchaseOrders, bankAccounts: past.bankAccounts, liabilityLines: past.liabilityLines };
  const { payloads, items } = runForecast(input, scenarios, at, { calibration, threshold });
  await storeSnapshots(db, orgId, payloads, at, { items, documents: openDocuments(input), track: false });
}
