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
 *   of the customers that pay like it, else the organisation's
 *   (customerPriors). How many is learnt from the organisation's own
 *   customers: a posterior over weights from how well each customer's
 *   earlier payments, with its prior, foretold its next. Where customers
 *   that pay alike are alike, their pooled habit is worth more than a
 *   customer's own dozen payments (the weight can reach 64 invoices' worth,
 *   so that its own dozen make a sixth); where each has its own, less. With
 *   none of its own, a customer's distribution is its prior.
 */
import { countOf } from './history.js';
import type { Counts } from './types.js';

export const DMIN = -60;
export const DMAX = 365;
export const DN = DMAX - DMIN + 1;
/**
 * Weight (in invoices) of a prior in a distribution where none is learnt:
 * the organisation's in a customer's peers' prior and in a supplier's
 * habit, and a customer's prior's while too few payments judge it
 * (customerPriors).
 */
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
  /** The organisation's: how many paid invoices its Kaplan-Meier estimate counts (none for a customer's or the default). */
  paid?: number;
}

const clampDelay = (d: number) => (d < DMIN ? DMIN : d > DMAX ? DMAX : d);

function finish(pmf: Float64Array, never: number, paid?: number): DelayDist {
  const cdf = new Float64Array(DN);
  let c = 0;
  for (let i = 0; i < DN; i++) {
    c += pmf[i]!;
    cdf[i] = c;
  }
  return paid === undefined ? { pmf, cdf, never } : { pmf, cdf, never, paid };
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
  return finish(pmf, never, paidCount);
}

/**
 * A customer's distribution: its own paid delays (the last 12, each
 * smoothed) with its prior's (customerPriors; the organisation's) making up
 * `priorShare` of it: PRIOR_WEIGHT invoices' worth unless told.
 */
export function customerDelayDist(prior: DelayDist, delays: readonly number[], priorShare?: number): DelayDist {
  if (delays.length === 0) return prior;
  const own = delays.slice(-12);
  const n = own.length;
  const w = priorShare ?? PRIOR_WEIGHT / (n + PRIOR_WEIGHT);
  const pmf = new Float64Array(DN);
  for (let i = 0; i < DN; i++) pmf[i] = prior.pmf[i]! * w;
  smoothInto(pmf, 0, own, 1, n / (1 - w));
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
 * own delays (of one or two, between the least and the most), two days
 * wider either side; their last 12 delays each,
 * smoothed as a customer's own are, with PRIOR_WEIGHT invoices' worth of
 * the organisation's distribution (so that a delay no peer has shown, and
 * never paying, keep a chance). A prompt payer's prior is then the prompt
 * payers', not a mixture with the late payers': once its invoice is a few
 * days overdue, what is left of its distribution is no longer mostly other
 * customers' lateness. A customer's first payment already finds its
 * peers: a new customer that paid its first invoice on time is expected to
 * pay as the prompt payers do, not as the whole organisation does (which
 * forgot that evidence as soon as its invoice was a few days overdue). A
 * customer with no paid invoice, or fewer than 2 x MIN_OWN_HISTORY of its
 * peers' delays, has the organisation's.
 *
 * And how much that prior weighs in a customer's distribution, learnt from
 * the organisation's own customers (empirical Bayes): each customer's
 * payments after its first are foretold from its payments before them and
 * the prior those earlier payments give it, with the customer itself taken
 * out (out of its peers' pool exactly, out of the organisation's
 * distribution as one paid invoice's share each), under each weight of
 * PRIOR_WEIGHTS (in invoices); their log-likelihoods summed make a
 * posterior over the weights (each alike beforehand), and a customer's
 * prior share is the posterior's average of weight / (its delays + weight):
 * its own delays and its prior mixed as every weight would mix them, each
 * as likely as the payments made it. Where the customers that pay alike are
 * alike, their pooled habit foretells a customer's next payment better than
 * its own few, and the weight is high; where each has a habit of its own,
 * low. Learnt apart for the two kinds of prior (the peers', the
 * organisation's), with at least MIN_PREDICTIONS payments of MIN_CUSTOMERS
 * customers each; short of that, PRIOR_WEIGHT. Of an organisation with more
 * than MAX_JUDGED customers, an even sample of that many is judged. A
 * payment at the grid's ends (DMIN, DMAX: clamped, it tells nothing of its
 * spread) or not a number is not judged.
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
    const m = middleOf(own);
    smoothInto(sums, m * DN, own, 1, 1);
    counts[m]! += own.length;
  }
  // Cumulative over the medians: rows 0..m.
  for (let m = 1; m < DN; m++) {
    counts[m]! += counts[m - 1]!;
    for (let x = 0; x < DN; x++) sums[m * DN + x]! += sums[(m - 1) * DN + x]!;
  }
  /**
   * The peers of a customer whose delays so far are `sorted` (whole days): the rows of their medians, and how many
   * delays they hold without the customer's own; `member` is the customer's delays as the pool holds them (its last
   * 12, in the pool only from MIN_OWN_HISTORY of them on), taken out (`without`) when its median is among the rows.
   */
  const peersOf = (sorted: readonly number[], member: readonly number[], memberRow: number) => {
    const q = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
    const lo = clampDelay(q(0.25) - 2) - DMIN;
    const hi = clampDelay(q(0.75) + 2) - DMIN;
    const without = member.length >= MIN_OWN_HISTORY && memberRow >= lo && memberRow <= hi;
    return { lo, hi, without, n: counts[hi]! - (lo > 0 ? counts[lo - 1]! : 0) - (without ? member.length : 0) };
  };
  const pooledAt = (lo: number, hi: number, x: number) => sums[hi * DN + x]! - (lo > 0 ? sums[(lo - 1) * DN + x]! : 0);

  const fits = { peers: new WeightFit(), org: new WeightFit() };
  const perPaid = org.paid ? ((1 - org.never) * (1 - TAIL_WEIGHT)) / org.paid : 0;
  // Past MAX_JUDGED customers, every stride-th (in the history's order) is judged: enough to tell the weights apart, at a bounded cost.
  let judgeable = 0;
  for (const list of customerDelays.values()) if (list.length >= 2) judgeable++;
  const stride = Math.ceil(judgeable / MAX_JUDGED);
  let index = -1;
  // In the contacts' order, so that the sample does not depend on the order the books were read in.
  for (const key of [...customerDelays.keys()].sort()) {
    const list = customerDelays.get(key)!;
    const member = list.slice(-12);
    if (member.length < 2 || ++index % stride !== 0) continue;
    const memberRow = middleOf(member);
    // The organisation's distribution without this customer's paid invoices (each one paid invoice's share of its body).
    const orgLeft = 1 - perPaid * member.length;
    const orgAt = (x: number) => (orgLeft > 0.1 ? Math.max(0, org.pmf[x]! - perPaid * eventsAt(member, x)) / orgLeft : org.pmf[x]!);
    const sorted: number[] = [];
    for (let j = 1; j < member.length; j++) {
      insertSorted(sorted, Math.round(member[j - 1]!));
      const d = member[j]!;
      if (!Number.isFinite(d) || Math.round(d) <= DMIN || Math.round(d) >= DMAX) continue;
      const x = Math.round(d) - DMIN;
      const fromOwn = kernelAt(member, x, j);
      // Its peers, from its payments so far (the customer itself out of their pool), else the organisation's.
      const { lo, hi, without, n } = peersOf(sorted, member, memberRow);
      if (n >= 2 * MIN_OWN_HISTORY) {
        const pooled = Math.max(0, pooledAt(lo, hi, x) - (without ? kernelAt(member, x, member.length) : 0));
        fits.peers.add(key, j, (pooled + orgAt(x) * PRIOR_WEIGHT) / (n + PRIOR_WEIGHT), fromOwn);
      } else fits.org.add(key, j, orgAt(x), fromOwn);
    }
  }
  fits.peers.finish();
  fits.org.finish();

  return {
    fits,
    forCustomer(list) {
      const own = list.slice(-12);
      const n = own.length;
      if (n > 0) {
        const { lo, hi, without, n: peers } = peersOf(own.map((x) => Math.round(x)).sort((a, b) => a - b), own, middleOf(own));
        if (peers >= 2 * MIN_OWN_HISTORY) {
          const pooled = new Float64Array(DN);
          for (let x = 0; x < DN; x++) pooled[x] = pooledAt(lo, hi, x);
          if (without) smoothInto(pooled, 0, own, -1, 1);
          const total = peers + PRIOR_WEIGHT;
          const pmf = new Float64Array(DN);
          for (let x = 0; x < DN; x++) pmf[x] = Math.max(0, pooled[x]!) / total + (org.pmf[x]! * PRIOR_WEIGHT) / total;
          return { prior: finish(pmf, (org.never * PRIOR_WEIGHT) / total), share: fits.peers.share(n) };
        }
      }
      return { prior: org, share: fits.org.share(n) };
    },
  };
}

export interface CustomerPriors {
  /** A customer's prior, from its delays (its last 12 are read), and the share of it in the customer's distribution. */
  forCustomer(own: readonly number[]): { prior: DelayDist; share: number };
  /** How the weight was learnt, for each kind of prior. */
  fits: { peers: WeightFit; org: WeightFit };
}

/** The weights customerPriors averages over, in invoices. */
export const PRIOR_WEIGHTS = [0.5, 1, 2, 4, 8, 16, 32, 64];
/** Payments (after a customer's first) a kind of prior's weight must be judged on, and of how many customers; short of either, PRIOR_WEIGHT. */
const MIN_PREDICTIONS = 20;
const MIN_CUSTOMERS = 3;
/** Customers judged at most (up to 11 payments each); of more, an even sample. */
const MAX_JUDGED = 2000;

/** The posterior over PRIOR_WEIGHTS of one kind of prior, from the payments it foretold. */
export class WeightFit {
  readonly logLikelihood = new Float64Array(PRIOR_WEIGHTS.length);
  predictions = 0;
  /** Each weight's posterior probability; null: too few payments judged (PRIOR_WEIGHT). */
  posterior: Float64Array | null = null;
  private readonly seen = new Set<unknown>();

  /** How many customers' payments were judged. */
  get customers(): number {
    return this.seen.size;
  }

  /** A customer's payment, foretold from `j` payments before it: `fromPrior` and `fromOwn` its prior's and its own smoothed delays' probability of it. */
  add(customer: unknown, j: number, fromPrior: number, fromOwn: number): void {
    for (let w = 0; w < PRIOR_WEIGHTS.length; w++) {
      const weight = PRIOR_WEIGHTS[w]!;
      this.logLikelihood[w]! += Math.log(Math.max(1e-12, (weight * fromPrior + fromOwn) / (j + weight)));
    }
    this.predictions++;
    this.seen.add(customer);
  }

  finish(): void {
    if (this.predictions < MIN_PREDICTIONS || this.customers < MIN_CUSTOMERS) return;
    const top = Math.max(...this.logLikelihood);
    const p = this.logLikelihood.map((l) => Math.exp(l - top));
    const total = p.reduce((a, b) => a + b, 0);
    this.posterior = p.map((x) => x / total);
  }

  /** The prior's share in the distribution of a customer with `n` delays of its own. */
  share(n: number): number {
    if (n === 0) return 1;
    if (!this.posterior) return PRIOR_WEIGHT / (n + PRIOR_WEIGHT);
    let share = 0;
    for (let w = 0; w < PRIOR_WEIGHTS.length; w++) share += (this.posterior[w]! * PRIOR_WEIGHTS[w]!) / (n + PRIOR_WEIGHTS[w]!);
    return share;
  }

  /** The weight the posterior's share amounts to for a customer with `n` delays, in invoices (PRIOR_WEIGHT when unjudged). */
  weight(n = 12): number {
    const share = this.share(n);
    return (share * n) / (1 - share);
  }
}

/** The grid index of a list's median delay (the lower middle, as median() reads it). */
const middleOf = (own: readonly number[]) => clampDelay(Math.round(median(own))) - DMIN;

function insertSorted(sorted: number[], v: number): void {
  let i = sorted.length;
  while (i > 0 && sorted[i - 1]! > v) i--;
  sorted.splice(i, 0, v);
}

/** What the first `count` delays, each smoothed as smoothInto smooths it, put at grid index x. */
function kernelAt(delays: readonly number[], x: number, count: number): number {
  let sum = 0;
  for (let i = 0; i < count; i++) {
    const d = Math.round(delays[i]!);
    for (let k = 0; k < KERNEL.length; k++) if (clampDelay(d - 2 + k) - DMIN === x) sum += KERNEL[k]!;
  }
  return sum;
}

/** How many of the delays the organisation's Kaplan-Meier estimate counts at grid index x (each at its whole day, clamped). */
function eventsAt(delays: readonly number[], x: number): number {
  let n = 0;
  for (const d of delays) if (clampDelay(Math.round(d)) - DMIN === x) n++;
  return n;
}
