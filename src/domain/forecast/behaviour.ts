/**
 * Payment behaviour (docs/forecast.md#when-customers-pay): the distribution of
 * a payment's delay (days from the due date to the payment) for the whole
 * organisation and for each customer, and from it the probability that an
 * open invoice is paid in each forecast week, given that it has not been paid
 * yet - which is how an overdue invoice's lateness so far changes where it
 * lands.
 *
 * - Organisation: a Kaplan-Meier estimate over the invoices due in the last
 *   two years (paid ones are events at their delay; open ones are censored at
 *   how overdue they are now), mixed with a small broad "late tail" (5%,
 *   exponential with a 45-day mean) so that an invoice later than anything
 *   seen still has a chance. What Kaplan-Meier leaves unpaid at the end of
 *   the grid is the "never paid" mass (at least 2%).
 * - Customer: the customer's own last 12 paid delays (each smoothed over +/-2
 *   days) plus some pseudo-invoices drawn from its prior: the distribution
 *   of the customers that pay like it (peerPriors), else the organisation's.
 *   How many is learnt from the organisation's own customers
 *   (customerPriors): the weight under which each customer's earlier
 *   payments best foretold its next one. Where customers that pay alike are
 *   alike, their pooled habit is worth more than a customer's own dozen
 *   payments; where each has its own, less. With many invoices the
 *   customer's habit dominates, with none it is its prior.
 */
import { countOf } from './history.js';
import type { Counts } from './types.js';

export const DMIN = -60;
export const DMAX = 365;
export const DN = DMAX - DMIN + 1;
/** Weight (in invoices) of the organisation's distribution in a customer's. */
export const PRIOR_WEIGHT = 2;
/** How many paid invoices make a customer's own median delay count (baselines, predicted orders). */
export const MIN_OWN_HISTORY = 3;
const TAIL_WEIGHT = 0.05;
const TAIL_MEAN = 45;
const MIN_NEVER = 0.02;
const KERNEL = [1 / 9, 2 / 9, 3 / 9, 2 / 9, 1 / 9];

export interface DelayDist {
  /** Probability of each delay DMIN..DMAX (index d - DMIN). Sums to 1 - never. */
  pmf: Float64Array;
  /** cdf[i] = pmf[0] + ... + pmf[i]. */
  cdf: Float64Array;
  /** Probability of never paying (or later than DMAX). */
  never: number;
}

const clampDelay = (d: number) => (d < DMIN ? DMIN : d > DMAX ? DMAX : d);

function finish(pmf: Float64Array, never: number): DelayDist {
  const cdf = new Float64Array(DN);
  let c = 0;
  for (let i = 0; i < DN; i++) {
    c += pmf[i]!;
    cdf[i] = c;
  }
  return { pmf, cdf, never };
}

/** Used when the organisation has fewer than 5 paid invoices: mostly on time, a late tail. */
function defaultPmf(): Float64Array {
  const pmf = new Float64Array(DN);
  for (let k = 0; k < KERNEL.length; k++) pmf[-2 + k - DMIN] = 0.75 * KERNEL[k]!;
  for (let d = 1; d <= 60; d++) pmf[d - DMIN]! += 0.2 / 60;
  return pmf; // never: 0.05
}

/**
 * The organisation's delay distribution. `paid`: delays of paid invoices (how many at each);
 * `open`: for each open invoice already due, how many days overdue it is
 * (it is known not to have been paid at a smaller delay).
 */
export function orgDelayDist(paid: Counts, open: readonly number[]): DelayDist {
  const paidCount = countOf(paid);
  if (paidCount < 5) return finish(defaultPmf(), 0.05);
  const events = new Float64Array(DN);
  const censored = new Float64Array(DN);
  for (const [d, n] of paid) events[clampDelay(Math.round(d)) - DMIN]! += n;
  // An open invoice overdue by c days has delay >= c: censored "after c - 1".
  for (const c of open) {
    const at = Math.round(c) - 1;
    if (at >= DMIN) censored[Math.min(at, DMAX) - DMIN]! += 1;
  }
  let atRisk = paidCount + open.filter((c) => Math.round(c) - 1 >= DMIN).length;
  const km = new Float64Array(DN);
  let surv = 1;
  for (let i = 0; i < DN; i++) {
    const e = events[i]!;
    if (atRisk > 0 && e > 0) {
      const next = surv * (1 - e / atRisk);
      km[i] = surv - next;
      surv = next;
    }
    atRisk -= e + censored[i]!;
  }
  const never = Math.max(MIN_NEVER, surv);
  // Rescale so that the Kaplan-Meier part sums to 1 - never, then add the tail.
  const kmMass = 1 - surv;
  const pmf = new Float64Array(DN);
  const body = (1 - TAIL_WEIGHT) * (1 - never);
  for (let i = 0; i < DN; i++) pmf[i] = kmMass > 0 ? (km[i]! / kmMass) * body : 0;
  const tailMass = TAIL_WEIGHT * (1 - never);
  let tailNorm = 0;
  for (let d = 0; d <= DMAX; d++) tailNorm += Math.exp(-d / TAIL_MEAN);
  for (let d = 0; d <= DMAX; d++) pmf[d - DMIN]! += (tailMass * Math.exp(-d / TAIL_MEAN)) / tailNorm;
  return finish(pmf, never);
}

/**
 * A customer's distribution: own paid delays (the last 12) plus `weight`
 * invoices' worth of its prior's (peerPriors; the organisation's).
 */
export function customerDelayDist(prior: DelayDist, delays: readonly number[], weight = PRIOR_WEIGHT): DelayDist {
  if (delays.length === 0) return prior;
  const own = delays.slice(-12);
  const n = own.length;
  const total = n + weight;
  const pmf = new Float64Array(DN);
  const w = weight / total;
  for (let i = 0; i < DN; i++) pmf[i] = prior.pmf[i]! * w;
  smoothInto(pmf, 0, own, 1, total);
  return finish(pmf, prior.never * w);
}

/**
 * Adds each delay, smoothed over +/-2 days (KERNEL), to the grid of delays
 * DMIN..DMAX that starts at `target[offset]`: `sign` times the kernel's
 * weights over `divisor`.
 */
function smoothInto(target: Float64Array, offset: number, delays: readonly number[], sign: number, divisor: number): void {
  for (const d0 of delays) {
    const d = Math.round(d0);
    for (let k = 0; k < KERNEL.length; k++) target[offset + clampDelay(d - 2 + k) - DMIN]! += (sign * KERNEL[k]!) / divisor;
  }
}

/**
 * Probability that an open item due on day `due` is paid on each day from
 * `from` to `to` (inclusive), given it has not been paid before `asOf`;
 * `shift` days are added to every delay (scenarios). Returns the probability
 * of each of the ranges [starts[k], ends[k]] (clipped to >= asOf).
 */
export function paymentProbabilities(
  dist: DelayDist,
  due: number,
  asOf: number,
  shift: number,
  starts: readonly number[],
  ends: readonly number[],
): Float64Array {
  const out = new Float64Array(starts.length);
  // delay' = delay + shift; paid on due + delay'. Not paid before asOf: delay >= asOf - due - shift.
  const a = asOf - due - shift;
  const cdfAt = (d: number) => (d < DMIN ? 0 : dist.cdf[(d > DMAX ? DMAX : d) - DMIN]!);
  // Probability of not having paid before asOf: the pmf from delay a on, plus never.
  const remaining = 1 - cdfAt(a - 1);
  if (a > DMAX || remaining <= 1e-12) return out;
  for (let k = 0; k < starts.length; k++) {
    const lo = Math.max(starts[k]!, asOf) - due - shift;
    const hi = ends[k]! - due - shift;
    if (hi < lo || hi < a) continue;
    const mass = cdfAt(Math.min(hi, DMAX)) - cdfAt(Math.max(lo, a) - 1);
    if (mass > 0) out[k] = mass / remaining;
  }
  return out;
}

/**
 * The delays at which a distribution's paid part reaches each level (the
 * smallest whole day whose cumulative share of the paid mass is at least it).
 */
export function delayQuantiles(dist: DelayDist, levels: readonly number[]): number[] {
  const paid = 1 - dist.never;
  return levels.map((q) => {
    if (!(paid > 0)) return 0;
    let i = 0;
    while (i < DN - 1 && dist.cdf[i]! < q * paid) i++;
    return i + DMIN;
  });
}

/**
 * The 10th, 30th, 50th, 70th and 90th percentiles of numbers (the value at
 * rank floor(q n): whole days for whole-day inputs; [0 x5] when empty); with
 * `weights` (say, money), of the weighted values.
 */
export function fiveQuantiles(values: readonly number[], weights?: readonly number[]): number[] {
  if (values.length === 0) return [0, 0, 0, 0, 0];
  if (!weights) {
    const sorted = [...values].sort((a, b) => a - b);
    const n = sorted.length;
    return [0.1, 0.3, 0.5, 0.7, 0.9].map((q) => sorted[Math.min(n - 1, Math.floor(q * n))]!);
  }
  // Weighted: the first value whose cumulative weight passes q of the total (all weights 1: the same as above).
  const order = values.map((_, i) => i).sort((a, b) => values[a]! - values[b]! || a - b);
  const total = weights.reduce((a, w) => a + Math.max(0, w), 0);
  if (!(total > 0)) return fiveQuantiles(values);
  return [0.1, 0.3, 0.5, 0.7, 0.9].map((q) => {
    // Past q of the total by more than rounding (0.7 x 330 is 230.99999999999997 in floating point, not 231).
    const at = q * total * (1 + 1e-12);
    let cum = 0;
    for (const i of order) {
      cum += Math.max(0, weights[i]!);
      if (cum > at) return values[i]!;
    }
    return values[order[order.length - 1]!]!;
  });
}

/** Median of numbers (the lower middle for even counts: a whole day for whole-day inputs). */
export function median(values: readonly number[]): number {
  if (values.length === 0) return 0;
  const s = [...values].sort((x, y) => x - y);
  return s[(s.length - 1) >> 1]!;
}

/**
 * Each customer's prior (what customerDelayDist mixes its own delays with):
 * the delays of the customers that pay like it rather than of the whole
 * organisation. Its peers are the customers (with MIN_OWN_HISTORY paid
 * invoices or more) whose median delay lies within the middle half of its
 * own delays, two days wider either side; their last 12 delays each,
 * smoothed as a customer's own are, with PRIOR_WEIGHT invoices' worth of
 * the organisation's distribution (so that a delay no peer has shown, and
 * never paying, keep a chance). A prompt payer's prior is then the prompt
 * payers', not a mixture with the late payers': once its invoice is a few
 * days overdue, what is left of its distribution is no longer mostly other
 * customers' lateness. A customer with fewer invoices, or fewer than
 * 2 x MIN_OWN_HISTORY of its peers' delays, has the organisation's.
 *
 * And how much that prior weighs in a customer's distribution (`weight`, in
 * invoices): the one of PRIOR_WEIGHTS under which the customers' payments
 * were best foretold, each from the customer's payments before it and its
 * prior from those (the customer's own delays taken out of its peers'), by
 * their log-likelihood summed over every payment after a customer's first.
 * Empirical Bayes: where the customers that pay alike are alike, the pooled
 * habit of their peers foretells a customer's next payment better than its
 * own few, and the weight is high; where each customer has a habit of its
 * own, low. With fewer than MIN_PREDICTIONS payments to judge by, PRIOR_WEIGHT.
 *
 * Computed once per forecast: the smoothed delays summed by median,
 * cumulated, so that any range of medians is one subtraction.
 */
export function customerPriors(org: DelayDist, customerDelays: ReadonlyMap<string, readonly number[]>): CustomerPriors {
  const sums = new Float64Array(DN * DN);
  const counts = new Float64Array(DN);
  for (const list of customerDelays.values()) {
    const own = list.slice(-12);
    if (own.length < MIN_OWN_HISTORY) continue;
    smoothInto(sums, middleOf(own) * DN, own, 1, 1);
    counts[middleOf(own)]! += own.length;
  }
  // Cumulative over the medians: rows 0..m.
  for (let m = 1; m < DN; m++) {
    counts[m]! += counts[m - 1]!;
    for (let x = 0; x < DN; x++) sums[m * DN + x]! += sums[(m - 1) * DN + x]!;
  }
  /**
   * The peers of a customer whose delays are `own` (null: it has the
   * organisation's prior), without `member`, the delays it is pooled with
   * (its own, or all of them when `own` is the first few).
   */
  const peersOf = (own: readonly number[], member: readonly number[]) => {
    if (own.length < MIN_OWN_HISTORY) return null;
    const sorted = own.map((x) => Math.round(x)).sort((a, b) => a - b);
    const q = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
    const lo = clampDelay(q(0.25) - 2) - DMIN;
    const hi = clampDelay(q(0.75) + 2) - DMIN;
    const m = member.length >= MIN_OWN_HISTORY ? middleOf(member) : -1;
    const without = m >= lo && m <= hi;
    const n = counts[hi]! - (lo > 0 ? counts[lo - 1]! : 0) - (without ? member.length : 0);
    if (n < 2 * MIN_OWN_HISTORY) return null;
    /** The pooled smoothed delays at grid index x. */
    const at = (x: number) => Math.max(0, sums[hi * DN + x]! - (lo > 0 ? sums[(lo - 1) * DN + x]! : 0) - (without ? kernelAt(member, x) : 0));
    return { n, at };
  };
  const prior = (list: readonly number[]): DelayDist => {
    const own = list.slice(-12);
    const peers = peersOf(own, own);
    if (!peers) return org;
    const total = peers.n + PRIOR_WEIGHT;
    const pmf = new Float64Array(DN);
    for (let x = 0; x < DN; x++) pmf[x] = peers.at(x) / total + (org.pmf[x]! * PRIOR_WEIGHT) / total;
    return finish(pmf, (org.never * PRIOR_WEIGHT) / total);
  };
  // Each customer's payments after its first, foretold from those before it, under each weight.
  const logLikelihood = new Float64Array(PRIOR_WEIGHTS.length);
  let predictions = 0;
  for (const list of customerDelays.values()) {
    const member = list.slice(-12);
    for (let j = 1; j < member.length; j++) {
      const x = clampDelay(Math.round(member[j]!)) - DMIN;
      const before = member.slice(0, j);
      const peers = peersOf(before, member);
      const fromPrior = peers ? (peers.at(x) + org.pmf[x]! * PRIOR_WEIGHT) / (peers.n + PRIOR_WEIGHT) : org.pmf[x]!;
      const fromOwn = kernelAt(before, x);
      for (let w = 0; w < PRIOR_WEIGHTS.length; w++) {
        const weight = PRIOR_WEIGHTS[w]!;
        logLikelihood[w]! += Math.log(Math.max(1e-12, (weight * fromPrior + fromOwn) / (j + weight)));
      }
      predictions++;
    }
  }
  let best = PRIOR_WEIGHTS.indexOf(PRIOR_WEIGHT);
  if (predictions >= MIN_PREDICTIONS) for (let w = 0; w < PRIOR_WEIGHTS.length; w++) if (logLikelihood[w]! > logLikelihood[best]!) best = w;
  return { prior, weight: PRIOR_WEIGHTS[best]!, predictions };
}

export interface CustomerPriors {
  /** A customer's prior, from its delays (its last 12 are read). */
  prior: (own: readonly number[]) => DelayDist;
  /** How many invoices' worth of its prior a customer's distribution holds (customerDelayDist's weight). */
  weight: number;
  /** How many payments the weight was judged on (fewer than MIN_PREDICTIONS: PRIOR_WEIGHT, unjudged). */
  predictions: number;
}

/** The weights customerPriors chooses among, in invoices. */
const PRIOR_WEIGHTS = [0.5, 1, 2, 4, 8, 16, 32, 64];
/** Payments after a customer's first the weight must be judged on; with fewer, PRIOR_WEIGHT. */
const MIN_PREDICTIONS = 30;

/** The grid index of a list's median delay (the lower middle, as median() reads it). */
const middleOf = (own: readonly number[]) => clampDelay(Math.round(median(own))) - DMIN;

/** What delays, each smoothed as smoothInto smooths it, put at grid index x. */
function kernelAt(delays: readonly number[], x: number): number {
  let sum = 0;
  for (const d0 of delays) {
    const d = Math.round(d0);
    for (let k = 0; k < KERNEL.length; k++) if (clampDelay(d - 2 + k) - DMIN === x) sum += KERNEL[k]!;
  }
  return sum;
}
