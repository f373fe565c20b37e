/**
 * The organisation's calibration (docs/forecast.md#calibration): its
 * history replayed at weekly cut-offs over the last two years, each cut-off's
 * simulated bands scored against what then happened, fed in the order the
 * outcomes arrived (calibrate.ts, OnlineCalibrator). The nightly job stores
 * the result; every forecast recompute reads it.
 */
import { addDays } from '../domain/calendar.js';
import { WEEKS } from '../domain/forecast/project.js';
import { FIGURES, OnlineCalibrator, type CalibrationState, type Figure, type Quantiles } from '../domain/forecast/calibrate.js';
import { trackWeeksOfReplay, type TrackEntry } from '../domain/forecast/accuracy.js';
import { toDay } from '../domain/forecast/days.js';
import type { RawLedger } from '../store/queries/raw-ledger.js';
import { FIGURE_OF, forecastAt, indexLedger, MEASURES, type ReplayedCutoff } from './replay.js';
import { lowestBand } from '../domain/forecast/bands.js';

/** How far back the calibration replays, and how often at most (a large ledger replays fewer cut-offs: calibrationEvery). */
export const CALIBRATION_DAYS = 728;
export const CALIBRATION_EVERY = 7;
/** The replay's budget in documents times cut-offs: a ledger of 400,000 documents replays every 28 days, one of 20,000 every week. */
const REPLAY_BUDGET = 5_000_000;

/** Days between the calibration's cut-offs: weekly, or every 2, 3 or 4 weeks for a ledger too large to replay 104 times a night. */
export function calibrationEvery(documents: number): number {
  const affordable = Math.floor(REPLAY_BUDGET / Math.max(1, documents));
  const wanted = Math.min(CALIBRATION_DAYS / CALIBRATION_EVERY, Math.max(CALIBRATION_DAYS / 28, affordable));
  return Math.min(28, CALIBRATION_EVERY * Math.ceil(CALIBRATION_DAYS / CALIBRATION_EVERY / wanted));
}
/** A cut-off in the first 13 weeks of a ledger's history is not replayed: the forecast had nothing to learn from yet. */
export const MIN_HISTORY_DAYS = 91;

export interface LedgerCalibration {
  state: CalibrationState;
  /**
   * Each replayed cut-off as a track entry (docs/forecast.md#accuracy): its
   * point forecast and the bands the calibration would have given it then
   * (the simulated ones before it had learnt enough), the fallback track
   * record while too few forecasts are stored.
   */
  track: TrackEntry[];
}

/** The calibration as of `today` (the organisation's today); the weeks not yet over are left out. */
export function calibrateLedger(raw: RawLedger, today: string, onProgress?: (done: number, total: number) => void): LedgerCalibration {
  const ix = indexLedger(raw);
  const end = toDay(today);
  const cutoffs: string[] = [];
  const every = calibrationEvery(raw.items.length);
  for (let c = addDays(today, -CALIBRATION_DAYS); c <= addDays(today, -CALIBRATION_EVERY); c = addDays(c, every)) {
    if (toDay(c) >= ix.firstDay + MIN_HISTORY_DAYS) cutoffs.push(c);
  }
  const cal = new OnlineCalibrator(WEEKS);
  const base = { id: 'calibration', name: 'Calibration', kind: 'BASE' as const, adjustments: {} };
  const track: TrackEntry[] = [];
  const computedAt = new Date(`${today}T00:00:00Z`);
  cutoffs.forEach((cutoff, i) => {
    const r = forecastAt(ix, cutoff, base);
    // What the calibration knew by this cut-off (the same final state as advancing once at the end: every later observation is known later).
    cal.advance(toDay(cutoff));
    const bands = r.raw.map((q, k) => Object.fromEntries(FIGURES.map((f) => [f, cal.band(k, f, q[f], r.level?.[k]![f])])) as Record<Figure, Quantiles>);
    track.push({ kind: 'replayed', asOfDate: cutoff, snapshotId: null, computedAt, seeded: false, startingCash: r.payload.startingCash, weeks: trackWeeksOfReplay(r.payload, bands) });
    cal.countCutoff();
    for (let k = 0; k < WEEKS; k++) {
      const known = r.known(k);
      if (known > end) break;
      for (const m of MEASURES) cal.observe(known, k, FIGURE_OF[m], r.raw[k]![FIGURE_OF[m]], r.actual[k]![m].toNumber(), r.level?.[k]![FIGURE_OF[m]]);
    }
    if (r.known(WEEKS - 1) <= end) observeLowest(cal, r);
    onProgress?.(i + 1, cutoffs.length);
  });
  cal.advance();
  return { state: cal.state(today), track };
}

/** The lowest closing over a replayed cut-off's weeks, against its simulated band (and its common level's), known the day after the last week. */
export function observeLowest(cal: OnlineCalibrator, r: ReplayedCutoff): void {
  const y = Math.min(...r.actual.map((a) => a.closing.toNumber()));
  const prior = r.levelSim && r.level ? lowestBand(r.levelSim, r.level[0]?.closing.floor) : undefined;
  cal.observeLowest(r.known(WEEKS - 1), lowestBand(r.sim, r.raw[0]?.closing.floor), y, prior);
}
