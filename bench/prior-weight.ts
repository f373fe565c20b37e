/**
 * Does learning how much a customer's prior weighs (behaviour.ts
 * customerPriors; docs/forecast.md#when-customers-pay) foretell a customer's
 * next payment better than the fixed PRIOR_WEIGHT it replaced, on books
 * whose habits are known and unlike the demo's? For each kind of habit and
 * size of business, many simulated businesses: each customer has 1-12 paid
 * invoices (the history the weight is learnt from) and one more payment, not
 * seen, that each distribution is judged on by its log-likelihood.
 *
 * Printed per row: how many businesses had enough payments to judge a weight
 * by (else the default), the learnt weight (the peers' kind, in invoices, for
 * a customer of 12 payments: median and 10th-90th percentiles), the learnt
 * distributions' log-likelihood of the held-out payments (per payment,
 * higher is better) and their gain over the fixed weight in nats per payment
 * (positive is better), and what the best single weight in hindsight would have added
 * (the most any one weight could gain on those businesses).
 *
 *   npm run bench -- prior-weight        (or npx tsx bench/prior-weight.ts [--quick])
 */
import { customerDelayDist, customerPriors, DMAX, DMIN, orgDelayDist, PRIOR_WEIGHT, PRIOR_WEIGHTS } from '../src/domain/forecast/behaviour.js';
import { Rng } from '../src/domain/random.js';

const QUICK = process.argv.includes('--quick');
const gridDay = (d: number) => Math.max(DMIN, Math.min(DMAX, d)) - DMIN;

/** A kind of habit: for each customer, a function drawing its payments' delays (days after the due date). */
type Habit = (rng: Rng) => () => number;
const HABITS: Record<string, Habit> = {
  'two habits, one each (prompt 1 +/- 3 days, or late 32 +/- 12; as the demo)': (rng) => {
    const late = rng.chance(0.2);
    return () => (late ? Math.max(12, Math.round(rng.normal(32, 12))) : Math.max(-5, Math.min(9, Math.round(rng.normal(1, 3)))));
  },
  'a day of its own (-5 to 60 days late, +/- 2)': (rng) => {
    const centre = rng.int(-5, 60);
    return () => Math.round(rng.normal(centre, 2));
  },
  'two classes, each customer off its class by +/- 5 days, +/- 4': (rng) => {
    const centre = (rng.chance(0.25) ? 30 : 2) + rng.normal(0, 5);
    return () => Math.round(rng.normal(centre, 4));
  },
  'two classes, off by +/- 10 days, one payment in ten 10-90 days later': (rng) => {
    const centre = (rng.chance(0.25) ? 30 : 2) + rng.normal(0, 10);
    return () => Math.round(rng.chance(0.1) ? centre + rng.int(10, 90) : rng.normal(centre, 4));
  },
};
const SIZES = QUICK ? [5, 20, 50] : [3, 5, 10, 20, 50, 200];

const q = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))]!;

console.log(`# The learnt weight of a customer's prior against the fixed ${PRIOR_WEIGHT} (${new Date().toISOString()})`);
console.log('| habits | customers | businesses judged | learnt weight: median (10th-90th) | log-likelihood per payment, learnt | gain over the fixed weight, nats per payment | the best single weight would add |');
console.log('|---|---|---|---|---|---|---|');
for (const [name, habit] of Object.entries(HABITS)) {
  for (const size of SIZES) {
    const businesses = size <= 20 ? (QUICK ? 100 : 300) : QUICK ? 20 : 60;
    let gain = 0;
    let total = 0;
    let hindsight = 0;
    let judged = 0;
    let payments = 0;
    const weights: number[] = [];
    for (let b = 0; b < businesses; b++) {
      const rng = new Rng(1000 * size + b);
      const lists: number[][] = [];
      const next: number[] = [];
      for (let c = 0; c < size; c++) {
        const draw = habit(rng);
        lists.push(Array.from({ length: rng.int(1, 12) }, draw));
        next.push(draw());
      }
      const counts = new Map<number, number>();
      for (const l of lists) for (const d of l) counts.set(d, (counts.get(d) ?? 0) + 1);
      const priors = customerPriors(orgDelayDist(counts, []), new Map(lists.map((l, i) => [`c${i}`, l])));
      if (priors.fits.peers.posterior || priors.fits.org.posterior) judged++;
      weights.push(priors.fits.peers.weight());
      let learnt = 0;
      const fixed = PRIOR_WEIGHTS.map(() => 0);
      for (let i = 0; i < size; i++) {
        const { prior, share } = priors.forCustomer(lists[i]!);
        const n = lists[i]!.slice(-12).length;
        const logLik = (s: number) => Math.log(Math.max(1e-12, customerDelayDist(prior, lists[i]!, s).pmf[gridDay(next[i]!)]!));
        learnt += logLik(share);
        PRIOR_WEIGHTS.forEach((w, k) => (fixed[k]! += logLik(w / (n + w))));
      }
      gain += learnt - fixed[PRIOR_WEIGHTS.indexOf(PRIOR_WEIGHT)]!;
      total += learnt;
      hindsight += Math.max(...fixed) - learnt;
      payments += size;
    }
    const w = (x: number) => x.toFixed(x < 10 ? 1 : 0);
    console.log(`| ${name} | ${size} | ${judged}/${businesses} | ${w(q(weights, 0.5))} (${w(q(weights, 0.1))}-${w(q(weights, 0.9))}) | ${(total / payments).toFixed(3)} | ${(gain / payments).toFixed(3)} | ${(hindsight / payments).toFixed(3)} |`);
  }
}
