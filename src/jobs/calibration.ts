/**
 * Recalibrate an organisation's forecast bands (docs/forecast.md#calibration):
 * replay its history (src/backtest/calibrate.ts) and store the result, which
 * every later forecast recompute reads, with the replayed cut-offs as the
 * replayed track record (docs/forecast.md#accuracy). The nightly worker runs it before the
 * forecast; so does `cashline-server recompute`.
 */
import type { Db } from '../store/db.js';
import { addDays, dateIn } from '../domain/calendar.js';
import { orgMeta } from '../store/queries/organisation.js';
import { loadRawLedger } from '../store/queries/raw-ledger.js';
import { loadCalibration, saveCalibration } from '../store/queries/calibration.js';
import { calibrateLedger } from '../backtest/calibrate.js';
import { CALIBRATION_VERSION } from '../domain/forecast/calibrate.js';
import { replaceReplayedTrack, seedStoredTrack } from '../store/queries/track-record.js';

export interface RecalibrateResult {
  orgId: string;
  asOf: string;
  cutoffs: number;
  coverage80: number | null;
  ms: number;
}

/**
 * Recalibrates unless today's calibration, made by today's rules
 * (CALIBRATION_VERSION), is already stored (the demo's later starts: its
 * books have not changed since, so the replay would give the same state);
 * null when it was current.
 */
export async function recalibrateIfStale(db: Db, orgId: string, now: Date): Promise<RecalibrateResult | null> {
  const org = await orgMeta(db, orgId);
  const stored = org ? await loadCalibration(db, orgId) : null;
  if (org && stored?.asOf === dateIn(org.timezone, now) && stored.version === CALIBRATION_VERSION) return null;
  return recalibrate(db, orgId, now);
}

export async function recalibrate(db: Db, orgId: string, now: Date, onProgress?: (done: number, total: number) => void): Promise<RecalibrateResult> {
  const t0 = performance.now();
  const org = await orgMeta(db, orgId);
  if (!org) throw new Error(`no organisation ${orgId}`);
  const today = dateIn(org.timezone, now);
  const { state, track } = calibrateLedger(await loadRawLedger(db, org), today, onProgress);
  await saveCalibration(db, orgId, state, now);
  await replaceReplayedTrack(db, orgId, track);
  return { orgId, asOf: today, cutoffs: state.cutoffs, coverage80: state.coverage80, ms: Math.round(performance.now() - t0) };
}

/**
 * Seeds the stored track record with the replayed forecasts of the `days`
 * before today (docs/forecast.md#accuracy): what the demo would have stored
 * had it been running, so that GET /forecast/accuracy has a record on its
 * first day. Weeks a recompute already stored keep theirs. Returns how many.
 */
export async function seedTrackRecord(db: Db, orgId: string, now: Date, days: number): Promise<number> {
  const org = await orgMeta(db, orgId);
  if (!org) throw new Error(`no organisation ${orgId}`);
  return seedStoredTrack(db, orgId, addDays(dateIn(org.timezone, now), -days));
}
