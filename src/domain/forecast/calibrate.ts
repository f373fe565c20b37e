/**
 * Calibrating the simulated bands on the organisation's own history
 * (docs/forecast.md#calibration). The simulation (simulate.ts) draws items
 * independently, so its bands are too narrow when one cause moves many
 * customers at once and too wide when its models are cautious. Replaying past
 * cut-offs (the backtest) tells by how much, per horizon week and per figure
 * (inflow, outflow, closing):
 *
 * - each past (cut-off, week) gives a score r: where the actual fell, in units
 *   of the simulated band (r = -1 at the simulated P10, 0 at its P50, +1 at
 *   its P90; linear in between and beyond);
 * - today's band at level q is the simulated band read at the q-quantile of
 *   those scores (conformal prediction: the scores' spread becomes the band's);
 * - the level itself adapts (adaptive conformal inference, Gibbs and Candès
 *   2021): after each past cut-off whose band missed, the 80% band's miss rate
 *   alpha is lowered, after each hit raised, by a step GAMMA, so the band
 *   tracks a business whose behaviour drifts;
 * - the scores are read as they fell (signed: the band moves toward where
 *   actuals fell) or symmetric about the simulation's own P50 (each score and
 *   its mirror: only the width is learnt; a common level's prior loses its
 *   skew too), whichever would have scored the lower pinball loss on the
 *   horizon's latest SCORE_WINDOW outcomes, each judged on the bands both
 *   readings of the horizon's own scale would have shown at its cut-off (a
 *   band borrowed from a shorter horizon judges nothing). A forecast whose
 *   errors shrink as its books grow (the first year's surprises, mostly one
 *   way, still in the window) is not pulled toward them; one that keeps
 *   missing one way (a business growing faster than its history says) is.
 *
 * Only what was known at a cut-off is used at that cut-off: a score joins the
 * calibration on the day its week has happened (`OnlineCalibrator`), so the
 * replay's measured coverage is honest.
 */

import { lowerBound, upperBound } from './sorted.js';

export const FIGURES = ['inflow', 'outflow', 'closing'] as const;
export type Figure = (typeof FIGURES)[number];

/** The target miss rate of the 80% band (10% below P10, 10% above P90). */
export const TARGET_ALPHA = 0.2;
/** ACI's step: how far one hit or miss moves the band's level. */
export const GAMMA = 0.04;
/** Scores a horizon week needs before its bands are calibrated (under: the simulated bands, marked uncalibrated). */
export const MIN_SCORES = 8;
/** Scores kept per horizon week and figure: the latest (a business changes; what it did two years ago says less). */
export const SCORE_WINDOW = 52;
/** The method's name, as the API states it. */
export const CALIBRATION_METHOD = 'simulation+adaptive-conformal';
/**
 * The version of the calibration's rules and of the forecast it measured,
 * stored with each state: a state of another version (or of none: stored
 * before versions) is recomputed even on the day it was made
 * (jobs/calibration.ts recalibrateIfStale). 2: ACI stepped on the shown band,
 * conformal quantile positions, step 0.04. 3: the forecast uses seasonality
 * from the first months of history, shrunk by empirical Bayes (its scores
 * measured the forecast before). 4: each customer's payment delays are
 * mixed with its peers' (customers that pay like it), not the whole
 * organisation's. 5: payments on the calendar's dates year after year
 * (quarterly taxes, yearly bills) are forecast (series.ts yearlyPoints,
 * looseQuarters), no longer left out of the payments. 6: new customers'
 * orders are paid as the recent new customers have paid (customers.ts
 * newCustomerLags), not after the business's usual terms; the run-rate of
 * the bills no series models is paid after each bill's supplier's terms
 * (series.ts), not the business's usual terms; a supplier that orders
 * before its deliveries is not expected to deliver before an order could
 * arrive (po-matching.ts orderLeadTimes). 7: payments that settle a
 * liability account (a GST return, the tax withheld, superannuation) are
 * what the account accrued over the period each settles (liabilities.ts),
 * not the median of the last three. 8: the lowest closing cash over the
 * weeks is calibrated too (its own scale, `lowest`): the shortfall over the
 * weeks and the cushion read it. 9: a bank series that moves money most
 * days is forecast as money per open day (flows.ts); new customers' later
 * orders follow the business's own customers after their first
 * (cohort.ts); new customers' payment lags leave out the ledger's opening
 * book (customers.ts newCustomerLags); each scale reads its scores as they
 * fell or symmetric about the simulated P50, whichever lost less (Scale
 * symmetric). 10: payments that settle liability accounts: a quarter of
 * refunds carried into the next, small payments between returns allowed
 * (session 26); a bank series joined by the one that succeeds it when its
 * coding changes, a series over when another pays its periods, each
 * account's own pace when several are settled together; the common level
 * (the prior, on which ACI's alpha was stepped) a random walk from today's
 * (session 27). 11: how much a customer's peers weigh in its payment
 * delays is learnt from the organisation's own customers (behaviour.ts
 * customerPriors), not two invoices' worth everywhere (session 28).
 */
export const CALIBRATION_VERSION = 11;

export interface Quantiles {
  p10: number;
  p50: number;
  p90: number;
  /**
   * The least width a side of the band counts as when scoring (money): a
   * share of the forecast's weekly flows, so that a band the simulation is
   * sure of (a week with nothing expected) does not turn a small surprise
   * into an enormous score.
   */
  floor?: number;
}

/** One horizon week's calibration of one figure: the scores seen (sorted) and the adapted miss rate. */
export interface Scale {
  scores: number[];
  alpha: number;
  /** The scores are read symmetric about the simulation's P50 (each and its mirror) rather than as they fell; absent: as they fell. */
  symmetric?: boolean;
}
/** What the nightly calibration stores (per organisation): a scale per horizon week (1-13) and figure. */
export interface CalibrationState {
  method: string;
  /** CALIBRATION_VERSION when it was computed; absent in states stored before versions. */
  version?: number;
  /** The day it was computed (the organisation's today). */
  asOf: string;
  /** Past cut-offs replayed. */
  cutoffs: number;
  /** The share of replayed (cut-off, week, figure) cells whose calibrated 80% band, as it stood then, held the actual. */
  coverage80: number | null;
  /** Cells behind coverage80. */
  cells: number;
  horizons: Record<Figure, Scale>[];
  /**
   * The lowest closing cash over the 13 weeks of each replayed cut-off (a
   * path's minimum, not any one week's): its own scale (version 8 on; absent
   * before), scored once the 13 weeks have happened.
   */
  lowest?: Scale;
}

/** The width a band side counts as: at least its floor, and a cent. */
function sideWidth(w: number, q: Quantiles): number {
  return Math.max(w, q.floor ?? 0, 0.01);
}

/** Where `y` falls in units of the simulated band. */
export function scoreOf(q: Quantiles, y: number): number {
  return y < q.p50 ? (y - q.p50) / sideWidth(q.p50 - q.p10, q) : (y - q.p50) / sideWidth(q.p90 - q.p50, q);
}

/** The value at score r of a simulated band (the inverse of scoreOf). */
export function valueAt(q: Quantiles, r: number): number {
  return r < 0 ? q.p50 + r * sideWidth(q.p50 - q.p10, q) : q.p50 + r * sideWidth(q.p90 - q.p50, q);
}

/** The q-quantile of sorted values, linearly interpolated. */
export function quantileOf(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return NaN;
  const x = q * (sorted.length - 1);
  const i = Math.floor(x);
  const f = x - i;
  return i + 1 < sorted.length ? sorted[i]! * (1 - f) + sorted[i + 1]! * f : sorted[sorted.length - 1]!;
}

/**
 * The q-quantile of past scores (or errors) as a conformal band reads it: the
 * k-th smallest of n exchangeable scores lies below the next one with
 * probability k / (n + 1), so level q sits at order statistic q (n + 1)
 * (linearly interpolated; beyond the extremes, at most one outer spacing
 * further). With few scores this reads wider than the sample quantile
 * (quantileOf), as a band that must hold the next score should.
 */
export function conformalQuantile(sorted: readonly number[], q: number): number {
  const n = sorted.length;
  if (n === 0) return NaN;
  if (n === 1) return sorted[0]!;
  const h = Math.min(Math.max(q, 0), 1) * (n + 1) - 1;
  if (h <= 0) return sorted[0]! + h * (sorted[1]! - sorted[0]!);
  if (h >= n - 1) return sorted[n - 1]! + (h - (n - 1)) * (sorted[n - 1]! - sorted[n - 2]!);
  const i = Math.floor(h);
  return sorted[i]! + (h - i) * (sorted[i + 1]! - sorted[i]!);
}

/** The level at which conformalQuantile reads x: the calibrated share of scores below x (its inverse; 0 and 1 beyond its ends). */
export function conformalCdf(sorted: readonly number[], x: number): number {
  const n = sorted.length;
  if (n === 0) return NaN;
  if (n === 1) return x < sorted[0]! ? 0 : x > sorted[0]! ? 1 : 0.5;
  let h: number;
  if (x < sorted[0]!) {
    const gap = sorted[1]! - sorted[0]!;
    h = gap > 0 ? Math.max(-1, (x - sorted[0]!) / gap) : -1;
  } else if (x >= sorted[n - 1]!) {
    const gap = sorted[n - 1]! - sorted[n - 2]!;
    h = n - 1 + (gap > 0 ? Math.min(1, (x - sorted[n - 1]!) / gap) : x > sorted[n - 1]! ? 1 : 0);
  } else {
    // Inside the scores: the last at or below x (the last of equal ones, at either end as in between) and the next one.
    const lo = upperBound(sorted, x) - 1;
    const a = sorted[lo]!;
    const b = sorted[lo + 1]!;
    h = lo + (x - a) / (b - a);
  }
  return (h + 1) / (n + 1);
}

/**
 * The level of the scores the band's quantile q is read at: ACI's miss rate
 * alpha moves the tails (0.1 -> alpha/2, 0.9 -> 1 - alpha/2) and keeps the
 * median; linear in between, so the calibrated distribution stays monotone.
 */
export function warp(q: number, alpha: number): number {
  const lo = TARGET_ALPHA / 2;
  const a = Math.min(Math.max(alpha, 0.001), 0.999) / 2;
  if (q <= lo) return (q / lo) * a;
  if (q <= 0.5) return a + ((q - lo) / (0.5 - lo)) * (0.5 - a);
  if (q <= 1 - lo) return 0.5 + ((q - 0.5) / (0.5 - lo)) * (0.5 - a);
  return 1 - a + ((q - (1 - lo)) / lo) * a;
}

/** The inverse of warp. */
export function unwarp(level: number, alpha: number): number {
  const lo = TARGET_ALPHA / 2;
  const a = Math.min(Math.max(alpha, 0.001), 0.999) / 2;
  if (level <= a) return (level / a) * lo;
  if (level <= 0.5) return lo + ((level - a) / (0.5 - a)) * (0.5 - lo);
  if (level <= 1 - a) return 0.5 + ((level - 0.5) / (0.5 - a)) * (0.5 - lo);
  return 1 - lo + ((level - (1 - a)) / a) * lo;
}

/** Whether a scale has enough scores to calibrate. */
export const usable = (s: Scale | undefined): s is Scale => s !== undefined && s.scores.length >= MIN_SCORES;

/**
 * The scale that calibrates horizon week h: its own once it has MIN_SCORES,
 * else the nearest shorter horizon's that has (a later week's outcomes take
 * longer to arrive); null when none has.
 */
export function scaleFor(horizons: readonly Record<Figure, Scale>[], h: number, figure: Figure): Scale | null {
  for (let j = Math.min(h, horizons.length - 1); j >= 0; j--) {
    const s = horizons[j]![figure];
    if (usable(s)) return s;
  }
  return null;
}

/**
 * The simulation's own word, as PRIOR_SCORES pseudo-scores: where actuals
 * would fall if the simulated band were right (evenly spread quantiles of a
 * normal scaled so its 10th and 90th percentiles are -1 and +1). They join the
 * real scores, so that a few early (and, week after week, correlated)
 * surprises move the band part of the way, not all of it.
 */
const PRIOR_SCORES = MIN_SCORES;
const Z90 = 1.2815515655446004;
const PRIOR: number[] = Array.from({ length: PRIOR_SCORES }, (_, i) => normalQuantile((i + 0.5) / PRIOR_SCORES) / Z90);
/** The same prior for a scale read symmetric: as many pseudo-scores as the mirrored real ones weigh against (twice PRIOR_SCORES), each its own (PRIOR is symmetric already: mirrored, each would stand twice, and ties would make the cdf no longer the quantile function's inverse). */
const PRIOR_SYMMETRIC: number[] = Array.from({ length: 2 * PRIOR_SCORES }, (_, i) => normalQuantile((i + 0.5) / (2 * PRIOR_SCORES)) / Z90);

/** The standard normal quantile (Acklam's rational approximation, relative error under 1.2e-9). */
export function normalQuantile(p: number): number {
  const a = [-39.6968302866538, 220.946098424521, -275.928510446969, 138.357751867269, -30.6647980661472, 2.50662827745924];
  const b = [-54.4760987982241, 161.585836858041, -155.698979859887, 66.8013118877197, -13.2806815528857];
  const c = [-0.00778489400243029, -0.322396458041136, -2.40075827716184, -2.54973253934373, 4.37466414146497, 2.93816398269878];
  const d = [0.00778469570904146, 0.32246712907004, 2.445134137143, 3.75440866190742];
  const lo = 0.02425;
  if (p < lo) {
    const q = Math.sqrt(-2 * Math.log(p));
    return (((((c[0]! * q + c[1]!) * q + c[2]!) * q + c[3]!) * q + c[4]!) * q + c[5]!) / ((((d[0]! * q + d[1]!) * q + d[2]!) * q + d[3]!) * q + 1);
  }
  if (p > 1 - lo) return -normalQuantile(1 - p);
  const q = p - 0.5;
  const r = q * q;
  return ((((((a[0]! * r + a[1]!) * r + a[2]!) * r + a[3]!) * r + a[4]!) * r + a[5]!) * q) / (((((b[0]! * r + b[1]!) * r + b[2]!) * r + b[3]!) * r + b[4]!) * r + 1);
}

/**
 * The prior's pseudo-scores: the simulation's own word, or, given `prior`
 * (the band of the same futures in a common level of sales and spending,
 * simulate.ts withLevel), where actuals would fall were that band right, in
 * units of the simulated one.
 */
function priorScores(sim: Quantiles, prior: Quantiles | undefined): readonly number[] {
  if (!prior) return PRIOR;
  return PRIOR.map((z) => scoreOf(sim, valueAt(prior, z))).sort((a, b) => a - b);
}

/** Sorted scores with each one's mirror about 0 (the simulation's P50), sorted. */
function mirrored(sorted: readonly number[]): number[] {
  return mergeSorted(sorted.map((x) => -x).reverse(), sorted);
}

/** The scores a scale reads: the real ones with the prior's pseudo-scores, sorted; both mirrored when `symmetric`. */
function scaleScores(scores: readonly number[], prior: readonly number[], symmetric: boolean): number[] {
  return symmetric ? mergeSorted(mirrored(scores), prior === PRIOR ? PRIOR_SYMMETRIC : mirrored(prior)) : mergeSorted(scores, prior);
}

/** Two sorted lists merged into one. */
function mergeSorted(a: readonly number[], b: readonly number[]): number[] {
  const out: number[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (j >= b.length || (i < a.length && a[i]! <= b[j]!)) out.push(a[i++]!);
    else out.push(b[j++]!);
  }
  return out;
}

/** The calibrated probability that the figure is below x. */
export function calibratedCdf(sim: Quantiles, scale: Scale, x: number, prior?: Quantiles): number {
  return unwarp(conformalCdf(scaleScores(scale.scores, priorScores(sim, prior), scale.symmetric ?? false), scoreOf(sim, x)), scale.alpha);
}

/** The calibrated quantile function of a simulated band: the figure at any level q (0..1); `symmetric` (the scale's own choice by default) reads its scores mirrored. */
export function calibratedQuantiles(sim: Quantiles, scale: Scale, prior?: Quantiles, symmetric = scale.symmetric ?? false): (q: number) => number {
  const scores = scaleScores(scale.scores, priorScores(sim, prior), symmetric);
  return (q) => valueAt(sim, conformalQuantile(scores, warp(q, scale.alpha)));
}

/** The calibrated 80% band of a simulated one (`symmetric`: as calibratedQuantiles). */
export function calibratedBand(sim: Quantiles, scale: Scale, prior?: Quantiles, symmetric = scale.symmetric ?? false): Quantiles {
  const at = calibratedQuantiles(sim, scale, prior, symmetric);
  return { p10: at(0.1), p50: at(0.5), p90: at(0.9), ...(sim.floor !== undefined ? { floor: sim.floor } : {}) };
}

/** The pinball loss of a band's P10, P50 and P90 for the outcome y: the sum over q of rho_q(y - F_q), rho_q(u) = max(q u, (q - 1) u) (metrics.ts). */
export function pinballLoss(band: Quantiles, y: number): number {
  const rho = (q: number, u: number) => Math.max(q * u, (q - 1) * u);
  return rho(0.1, y - band.p10) + rho(0.5, y - band.p50) + rho(0.9, y - band.p90);
}

/** pinballLoss in units of the simulated band's width (floored as scores are). */
function bandLoss(band: Quantiles, sim: Quantiles, y: number): number {
  return pinballLoss(band, y) / (sideWidth(sim.p50 - sim.p10, sim) + sideWidth(sim.p90 - sim.p50, sim));
}

interface Pending {
  day: number;
  /** The horizon week (0-based), or LOWEST: the lowest closing over the weeks. */
  horizon: number;
  figure: Figure;
  sim: Quantiles;
  /** The calibrated band the forecast showed at its cut-off; null when the week could not be calibrated then. */
  shown: Quantiles | null;
  /** The bands it would have shown reading the scores as they fell and symmetric (`shown` is one of them); null as `shown`, and when the band was the nearest shorter horizon's (its readings judge that horizon's scale, not this one's). */
  readings: Readings | null;
  y: number;
}

/** A calibrated band read both ways: its scores as they fell, and symmetric. */
interface Readings {
  signed: Quantiles;
  symmetric: Quantiles;
}

/** A score in a scale's window, in the order scores arrived, with the pinball losses the bands read as they fell and symmetric would have had (when the week was calibrated then). */
interface Arrival {
  score: number;
  losses: { signed: number; symmetric: number } | null;
}

/**
 * The calibration as it stood on each day of a replay: `observe` a past
 * cut-off's simulated band and the actual (known from `day` on); `advance` to
 * a later cut-off lets in everything known by then, scoring each band as it
 * was calibrated when it was made and stepping alpha.
 */
/** The pending horizon of the lowest closing over the weeks. */
const LOWEST = -1;

export class OnlineCalibrator {
  private readonly pending: Pending[] = [];
  /** The scores of each horizon and figure in the order they arrived (the window's queue). */
  private readonly arrivals: Partial<Record<Figure, Arrival[]>>[];
  readonly horizons: Record<Figure, Scale>[];
  /** The lowest closing over the weeks: its scale and its scores in the order they arrived. */
  readonly lowest: Scale = { scores: [], alpha: TARGET_ALPHA };
  private readonly lowestArrivals: Arrival[] = [];
  private hits = 0;
  private cells = 0;
  private cutoffs = 0;

  constructor(weeks: number) {
    this.arrivals = Array.from({ length: weeks }, () => ({}));
    this.horizons = Array.from({ length: weeks }, () => ({
      inflow: { scores: [], alpha: TARGET_ALPHA },
      outflow: { scores: [], alpha: TARGET_ALPHA },
      closing: { scores: [], alpha: TARGET_ALPHA },
    }));
  }

  /**
   * The band a forecast shows for horizon week h (0-based) of a figure, as
   * things stand: calibrated once the week can be, else the prior's (a
   * common level's futures), else the simulation's own.
   */
  band(h: number, figure: Figure, sim: Quantiles, prior?: Quantiles): Quantiles {
    return this.calibrated(h, figure, sim, prior) ?? prior ?? sim;
  }

  /** The calibrated band of horizon week h as things stand; null while the week cannot be calibrated. */
  private calibrated(h: number, figure: Figure, sim: Quantiles, prior?: Quantiles): Quantiles | null {
    const s = scaleFor(this.horizons, h, figure);
    return s ? calibratedBand(sim, s, prior) : null;
  }

  /** The band shown by scale `s` (as calibrated) and the bands of both its readings; nulls while it cannot be calibrated. */
  private shownAndReadings(s: Scale | null, sim: Quantiles, prior?: Quantiles): { shown: Quantiles | null; readings: Readings | null } {
    if (!s) return { shown: null, readings: null };
    const readings = { signed: calibratedBand(sim, s, prior, false), symmetric: calibratedBand(sim, s, prior, true) };
    return { shown: s.symmetric ? readings.symmetric : readings.signed, readings };
  }

  /**
   * A cut-off's simulated band of week h (and its common level's, the prior,
   * when it had one) and what actually happened, known from `day` on. Called
   * at the cut-off (after `advance` to it): the band the forecast shows then
   * is kept, and ACI is stepped on it when the outcome arrives.
   */
  observe(day: number, h: number, figure: Figure, sim: Quantiles, y: number, prior?: Quantiles): void {
    const s = scaleFor(this.horizons, h, figure);
    const { shown, readings } = this.shownAndReadings(s, sim, prior);
    this.pending.push({ day, horizon: h, figure, sim, y, shown, readings: s === this.horizons[h]![figure] ? readings : null });
  }

  /**
   * A cut-off's simulated band of the lowest closing over its weeks (and its
   * common level's) and the lowest that happened, known from `day` on (the
   * day after the last week).
   */
  observeLowest(day: number, sim: Quantiles, y: number, prior?: Quantiles): void {
    this.pending.push({ day, horizon: LOWEST, figure: 'closing', sim, y, ...this.shownAndReadings(usable(this.lowest) ? this.lowest : null, sim, prior) });
  }

  /** A replayed cut-off was forecast. */
  countCutoff(): void {
    this.cutoffs++;
  }

  /** Lets in every observation known by `day` (all of them without one), oldest first. */
  advance(day = Infinity): void {
    this.pending.sort((a, b) => a.day - b.day || a.horizon - b.horizon);
    let i = 0;
    for (; i < this.pending.length && this.pending[i]!.day <= day; i++) {
      const o = this.pending[i]!;
      const lowest = o.horizon === LOWEST;
      const scale = lowest ? this.lowest : this.horizons[o.horizon]![o.figure];
      if (o.shown) {
        // ACI judges the band the forecast showed at its cut-off (Gibbs and Candès: err_t of the set built with alpha_t).
        const hit = o.y >= o.shown.p10 && o.y <= o.shown.p90;
        // coverage80 is the weeks' (the lowest over them is a figure of its own).
        if (!lowest) {
          this.cells++;
          if (hit) this.hits++;
        }
        // alpha_{t+1} = alpha_t + gamma (target - err_t), on the horizon's own level.
        scale.alpha = Math.min(0.95, Math.max(0.01, scale.alpha + GAMMA * (TARGET_ALPHA - (hit ? 0 : 1))));
      }
      const order = lowest ? this.lowestArrivals : (this.arrivals[o.horizon]![o.figure] ??= []);
      const score = scoreOf(o.sim, o.y);
      // What each reading of the scores would have lost on this outcome, judged on the band it would have shown.
      let losses: Arrival['losses'] = null;
      if (o.readings) losses = { signed: bandLoss(o.readings.signed, o.sim, o.y), symmetric: bandLoss(o.readings.symmetric, o.sim, o.y) };
      order.push({ score, losses });
      insertSorted(scale.scores, score);
      // Only the latest SCORE_WINDOW count: the oldest leaves as a new one arrives.
      if (order.length > SCORE_WINDOW) removeSorted(scale.scores, order.shift()!.score);
      // The reading that would have lost less on the window's outcomes (as they fell until MIN_SCORES have been judged).
      let signed = 0;
      let symmetric = 0;
      let judged = 0;
      for (const a of order) {
        if (!a.losses) continue;
        signed += a.losses.signed;
        symmetric += a.losses.symmetric;
        judged++;
      }
      if (judged >= MIN_SCORES) scale.symmetric = symmetric < signed;
    }
    this.pending.splice(0, i);
  }

  state(asOf: string): CalibrationState {
    return {
      method: CALIBRATION_METHOD,
      version: CALIBRATION_VERSION,
      asOf,
      cutoffs: this.cutoffs,
      coverage80: this.cells ? this.hits / this.cells : null,
      cells: this.cells,
      horizons: this.horizons,
      lowest: this.lowest,
    };
  }
}

function insertSorted(list: number[], x: number): void {
  list.splice(upperBound(list, x), 0, x);
}

function removeSorted(list: number[], x: number): void {
  const i = lowerBound(list, x);
  if (list[i] === x) list.splice(i, 1);
}
