/**
 * The bands and the shortfall probability of one scenario's forecast
 * (docs/forecast.md#bands): the simulated futures (simulate.ts) read at their
 * 10th, 50th and 90th percentiles per week, calibrated on the organisation's
 * replayed history when it has enough (calibrate.ts), and the probability that
 * closing cash falls below the threshold, per week and in any week.
 *
 * Bands are statistical estimates: computed in floating point and stated in
 * whole cents, never added into the exact point figures.
 */
import { canonical } from '../money.js';
import { calibratedBand, calibratedCdf, calibratedQuantiles, FIGURES, quantileOf, scaleFor, usable, type CalibrationState, type Figure, type Quantiles, type Scale } from './calibrate.js';
import type { Simulation } from './simulate.js';
import { lowerBound } from './sorted.js';
import type { Band, CalibrationSummary, Shortfall, WeekBands } from './types.js';

export interface ForecastBands {
  weeks: { bands: WeekBands; shortfallProbability: number }[];
  shortfall: Shortfall;
}

/** A float amount in whole cents, as a canonical decimal string. */
export function centsText(x: number): string {
  const c = Math.round(x * 100);
  return canonical(c === 0 ? '0' : (c / 100).toFixed(2));
}

const round4 = (x: number) => Math.round(x * 10_000) / 10_000;

/** The sorted samples of week k of one figure. */
function sortedWeek(a: Float64Array, n: number, k: number): Float64Array {
  return a.slice(k * n, (k + 1) * n).sort();
}

function simulatedQuantiles(sorted: Float64Array): Quantiles {
  const list = sorted as unknown as number[];
  return { p10: quantileOf(list, 0.1), p50: quantileOf(list, 0.5), p90: quantileOf(list, 0.9) };
}

/** The share of a forecast's mean weekly flow (inflow and outflow medians) below which no band side is scored as narrower. */
const FLOOR_SHARE = 0.05;

/** Raw (uncalibrated) quantiles of each week and figure: what the calibration scores (backtest) and calibrates. */
export function simulatedBands(sim: Simulation): Record<Figure, Quantiles>[] {
  const weeks = Array.from({ length: sim.inflow.length / sim.n }, (_, k) => {
    const out = {} as Record<Figure, Quantiles>;
    for (const f of FIGURES) out[f] = simulatedQuantiles(sortedWeek(sim[f], sim.n, k));
    return out;
  });
  const flow = weeks.reduce((a, w) => a + Math.abs(w.inflow.p50) + Math.abs(w.outflow.p50), 0) / Math.max(1, 2 * weeks.length);
  for (const w of weeks) for (const f of FIGURES) w[f].floor = FLOOR_SHARE * flow;
  return weeks;
}

/**
 * Raw quantiles of each future's lowest closing cash over the weeks (a
 * path's minimum): what the calibration scores and calibrates as `lowest`,
 * the distribution the shortfall over the weeks and the cushion are read
 * from. `floor`: the weeks' (simulatedBands).
 */
export function lowestBand(sim: Simulation, floor: number | undefined): Quantiles {
  const { n } = sim;
  const weeks = sim.closing.length / n;
  const lowest = new Float64Array(n).fill(Infinity);
  for (let k = 0; k < weeks; k++) for (let s = 0; s < n; s++) lowest[s] = Math.min(lowest[s]!, sim.closing[k * n + s]!);
  return { ...simulatedQuantiles(lowest.sort()), ...(floor !== undefined ? { floor } : {}) };
}

/**
 * The bands of every week and the shortfall below `threshold`. With a
 * calibration, each week's marginal distribution is the calibrated one. The
 * shortfall over the weeks and the cushion (the cash that keeps 9 futures in
 * 10 at or above the threshold in every week) are read from the lowest
 * closing over the weeks: calibrated on its own (the calibration's `lowest`)
 * once the organisation's history has scored it; before, from the futures,
 * each keeping its order within a week (a future's rank) at the week's
 * calibrated value, so "any week" counts the futures whose rank falls below
 * the calibrated probability in some week. Either way never less likely, nor
 * asking less, than any one week. The calibration scores the futures `sim` drawn item by item;
 * the same futures in a common level of sales and spending (`level`,
 * simulate.ts withLevel) are its prior, and the bands where it has nothing
 * yet.
 */
export function forecastBands(sim: Simulation, calibration: CalibrationState | null, threshold: number, level: Simulation | null = null): ForecastBands {
  const { n } = sim;
  const raw = simulatedBands(sim);
  const prior = level ? simulatedBands(level) : null;
  const paths = level ?? sim;
  const short = new Uint8Array(n);
  const first = new Int16Array(n).fill(-1);
  // Each future's lowest closing cash over the weeks, at the calibrated value of its rank in each week.
  const lowest = new Float64Array(n).fill(Infinity);
  const weeks = raw.map((rawWeek, k) => {
    const scales = Object.fromEntries(FIGURES.map((f) => [f, calibration ? scaleFor(calibration.horizons, k, f) : null])) as Record<Figure, Scale | null>;
    const calibrated = FIGURES.every((f) => scales[f] !== null);
    const band = {} as Record<Figure, Band>;
    for (const f of FIGURES) {
      const q = calibrated ? calibratedBand(rawWeek[f], scales[f]!, prior?.[k]![f]) : (prior?.[k]![f] ?? rawWeek[f]);
      // Ordered whatever floating point does to quantiles of very large amounts (beyond 2^53 cents an interpolation can step back).
      const p10 = Math.max(f === 'closing' ? -Infinity : 0, q.p10);
      const p50 = Math.max(p10, q.p50);
      band[f] = { p10: centsText(p10), p50: centsText(p50), p90: centsText(Math.max(p50, q.p90)) };
    }
    const pShort = probabilityBelow(paths, k, rawWeek.closing, calibrated ? scales.closing : null, threshold, prior?.[k]!.closing);
    const order = futuresByClosing(paths, k);
    markShortFutures(order, k, pShort, short, first);
    const valueAt = calibrated ? calibratedQuantiles(rawWeek.closing, scales.closing!, prior?.[k]!.closing) : null;
    for (let i = 0; i < n; i++) {
      const s = order[i]!;
      lowest[s] = Math.min(lowest[s]!, valueAt ? valueAt((i + 0.5) / n) : paths.closing[k * n + s]!);
    }
    return { bands: { ...band, calibrated }, shortfallProbability: round4(pShort) };
  });
  // Never less than what one week's band alone asks for (the lowest closing P10 below the threshold), nor less likely than any one week.
  const weekGap = Math.max(0, ...weeks.map((w) => threshold - Number(w.bands.closing.p10)));
  const weekP = Math.max(0, ...weeks.map((w) => w.shortfallProbability));
  const byFutures = shortfallOf(short, first, threshold);
  const byRanks = { weeks, shortfall: { ...byFutures, cushion90: centsText(Math.max(weekGap, centsUp(cushionOf(lowest, threshold, 0.9)))) } };
  const scale = calibration?.lowest && usable(calibration.lowest) ? calibration.lowest : null;
  if (!scale) return byRanks;
  // Calibrated: the lowest closing over the weeks as the organisation's history has it (its own scale), whatever the weeks' ranks say;
  // unless that says more than the weeks can (short in some week is at most as likely as the weeks' chances added up).
  const simLow = lowestBand(sim, raw[0]?.closing.floor);
  const priorLow = level && prior ? lowestBand(level, prior[0]?.closing.floor) : undefined;
  const pLow = calibratedCdf(simLow, scale, threshold, priorLow);
  if (pLow > weeks.reduce((a, w) => a + w.shortfallProbability, 0)) return byRanks;
  const probability = round4(Math.max(weekP, pLow));
  const p10 = calibratedQuantiles(simLow, scale, priorLow)(0.1);
  // The week it most often starts in, among the futures short; when none is (each week's chance under half a future), the week lowest at its P10.
  const lowWeek = weeks.reduce((best, w, k) => (Number(w.bands.closing.p10) < Number(weeks[best]!.bands.closing.p10) ? k : best), 0);
  const firstLikelyWeekIndex = probability === 0 ? null : (byFutures.firstLikelyWeekIndex ?? lowWeek);
  return { weeks, shortfall: { threshold: byFutures.threshold, probability, firstLikelyWeekIndex, cushion90: centsText(Math.max(weekGap, centsUp(threshold - p10), 0)) } };
}

/**
 * A cushion in whole cents, rounded up: cash that covers a gap of a fraction
 * of a cent is a cent (rounded to the nearest, a likely shortfall of less
 * than half a cent would ask for nothing). Read to a ten-thousandth of a cent
 * first, so that a float's noise does not add a cent.
 */
function centsUp(x: number): number {
  return x > 0 ? Math.ceil(Math.round(x * 1e6) / 1e4) / 100 : x;
}

/**
 * The cash that, had the business it today, keeps closing cash at or above
 * the threshold in every week in a share `level` of the futures: the least
 * largest shortfall that covers that many of them (an order statistic, so
 * 0 when that many never go below).
 */
function cushionOf(lowest: Float64Array, threshold: number, level: number): number {
  if (lowest.length === 0) return 0;
  const gaps = Float64Array.from(lowest, (x) => (Number.isFinite(x) ? Math.max(0, threshold - x) : 0)).sort();
  return gaps[Math.max(0, Math.ceil(level * gaps.length) - 1)]!;
}

/**
 * The probability that closing cash in week k is below x: calibrated with a
 * scale (`raw`: the simulated band the scale calibrates; `prior`: the band
 * of the futures in a common level), else the share of the futures `paths` below it.
 */
export function probabilityBelow(paths: Simulation, k: number, raw: Quantiles, scale: Scale | null, x: number, prior?: Quantiles): number {
  return scale ? calibratedCdf(raw, scale, x, prior) : shareBelow(sortedWeek(paths.closing, paths.n, k), x);
}

/** The share of sorted samples strictly below x. */
function shareBelow(sorted: Float64Array, x: number): number {
  return lowerBound(sorted, x) / sorted.length;
}

/** The futures in order of their closing cash in week k (lowest first; ties by index). */
function futuresByClosing(sim: Simulation, k: number): number[] {
  const { n } = sim;
  return Array.from({ length: n }, (_, s) => s).sort((a, b) => sim.closing[k * n + a]! - sim.closing[k * n + b]! || a - b);
}

/** Marks the futures short in week k: the lowest pShort share of them by closing cash (`order`: futuresByClosing). */
function markShortFutures(order: readonly number[], k: number, pShort: number, short: Uint8Array, first: Int16Array): void {
  const m = Math.round(pShort * order.length);
  for (let i = 0; i < m; i++) {
    const s = order[i]!;
    if (!short[s]) {
      short[s] = 1;
      first[s] = k;
    }
  }
}

function shortfallOf(short: Uint8Array, first: Int16Array, threshold: number): Shortfall {
  let count = 0;
  const starts = new Map<number, number>();
  for (let s = 0; s < short.length; s++) {
    if (!short[s]) continue;
    count++;
    starts.set(first[s]!, (starts.get(first[s]!) ?? 0) + 1);
  }
  let firstLikely: number | null = null;
  let best = 0;
  for (const [k, c] of [...starts].sort((a, b) => a[0] - b[0])) {
    if (c > best) {
      best = c;
      firstLikely = k;
    }
  }
  return { threshold: centsText(threshold), probability: round4(count / short.length), firstLikelyWeekIndex: firstLikely };
}

/** The calibration as the API states it; null when no horizon week could be calibrated. */
export function calibrationSummary(c: CalibrationState | null): CalibrationSummary | null {
  if (!c || !c.horizons.some((h) => FIGURES.every((f) => usable(h[f])))) return null;
  return { method: c.method, cutoffs: c.cutoffs, coverage80: c.coverage80 === null ? null : round4(c.coverage80), asOf: c.asOf };
}
