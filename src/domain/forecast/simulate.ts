/**
 * The forecast's uncertainty, simulated (docs/forecast.md#bands): SIMULATIONS
 * futures of one scenario drawn from the same item-level models the point
 * forecast takes its expectations from (engine.ts, project.ts):
 *
 * - an open invoice is paid in the week drawn from its customer's delay
 *   distribution given that it is not paid yet (behaviour.ts), or after the
 *   horizon, or never;
 * - a draft or submitted invoice is issued and paid with its pipeline
 *   probability, in the week the point forecast places it;
 * - an open bill (and an unbilled purchase order) is paid after a delay drawn
 *   from how late the organisation paid its own bills, given that it is not
 *   paid yet;
 * - a statistical series (repeat purchases, new customers, run-rates) brings
 *   a Poisson number of its typical events each week, whose expectation is
 *   the point forecast's;
 * - scheduled and recurring amounts and manual lines are as forecast.
 *
 * Draws are independent. What moves many customers at once (a bad month) is
 * drawn apart (withLevel: the same futures in a common level of sales and
 * spending, the calibration's prior) and learnt by the calibration
 * (calibrate.ts), which widens or narrows each horizon's band from the
 * organisation's own replayed history. The draws are
 * seeded by the organisation, the day and the scenario: a snapshot's bands
 * are reproducible.
 */
import { toF } from './cents.js';
import { countOf } from './history.js';
import { toDay } from './days.js';
import { owedOf, dueOf, totalOf } from './open-items.js';
import { MIN_OWN_HISTORY, paymentProbabilities, PRIOR_WEIGHT } from './behaviour.js';
import { customerDist, dailyPerWeek, orderDueDay, PIPELINE_PROBABILITY, pipelineDay, weekOf, WEEKS } from './project.js';
import type { PItem, PreparedForecast } from './prepared.js';
import { cmpStr } from './compare.js';
import { lowerBound } from './sorted.js';
import type { Scenario } from './types.js';

/** Futures drawn per scenario. */
export const SIMULATIONS = 500;

/** N futures of the 13 weeks; arrays are week-major: index k * n + s. */
export interface Simulation {
  n: number;
  opening: number;
  inflow: Float64Array;
  outflow: Float64Array;
  closing: Float64Array;
  /** The part of inflow that is the invoices open and AUTHORISED today (the backtest's diagnostics). */
  receivables: Float64Array;
  /** The part of inflow that predicted sales bring, and of outflow that predicted spending takes: what a common level scales (withLevel). */
  sales: Float64Array;
  spend: Float64Array;
  /**
   * Per week k, the variance each source (a customer, a supplier, a series,
   * by key) adds to closing cash at the end of week k - what it has brought or
   * taken by then - treating sources as independent: what the notes name as
   * the drivers of a band's width.
   */
  variance: Map<string, number>[];
}

/** A small, fast, seedable generator (mulberry32): uniform in [0, 1). */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A 32-bit hash of a text (FNV-1a): the seed of an organisation's day and scenario. */
export function seedOf(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/**
 * A sampler of Poisson counts of mean `mean`: inversion of the cumulative
 * probabilities (one uniform per draw) below 30, the normal approximation
 * above.
 */
export function poissonSampler(mean: number): (u: () => number) => number {
  if (!(mean > 0)) return () => 0;
  if (mean >= 30) {
    const sd = Math.sqrt(mean);
    return (u) => Math.max(0, Math.round(mean + sd * gaussian(u)));
  }
  const cdf: number[] = [];
  let p = Math.exp(-mean);
  let c = p;
  cdf.push(c);
  for (let k = 1; c < 1 - 1e-12 && k < 200; k++) {
    p *= mean / k;
    c += p;
    cdf.push(c);
  }
  return (u) => {
    const x = u();
    let k = 0;
    while (k < cdf.length - 1 && x >= cdf[k]!) k++;
    return k;
  };
}

interface Draws {
  n: number;
  u: () => number;
  inflow: Float64Array;
  outflow: Float64Array;
  receivables: Float64Array;
  /** Amounts every future shares (week k). */
  fixedIn: Float64Array;
  fixedOut: Float64Array;
  variance: Map<string, number>[];
  inF: number;
  outF: number;
  excluded: ReadonlySet<string>;
  /** Week-major, what predicted sales and predicted spending bring to each future (Simulation.sales, .spend). */
  sales: Float64Array;
  spend: Float64Array;
}

export function simulateForecast(p: PreparedForecast, scenario: Scenario, n: number = SIMULATIONS): Simulation {
  const adj = scenario.adjustments ?? {};
  const shift = Math.trunc(adj.paymentDelayShiftDays ?? 0);
  const d: Draws = {
    n,
    u: rng(seedOf(`${p.input.orgId}|${p.input.asOf}|${scenario.id}`)),
    inflow: new Float64Array(WEEKS * n),
    outflow: new Float64Array(WEEKS * n),
    receivables: new Float64Array(WEEKS * n),
    fixedIn: new Float64Array(WEEKS),
    fixedOut: new Float64Array(WEEKS),
    variance: Array.from({ length: WEEKS }, () => new Map()),
    inF: adj.inflowFactor === undefined ? 1 : Number(adj.inflowFactor),
    outF: adj.outflowFactor === undefined ? 1 : Number(adj.outflowFactor),
    excluded: new Set(adj.excludedItemIds ?? []),
    sales: new Float64Array(WEEKS * n),
    spend: new Float64Array(WEEKS * n),
  };
  // In id order, so that the futures do not depend on the order the store returned the documents in.
  const open = [...p.openItems].sort((a, b) => cmpStr(a.src.id, b.src.id));
  drawReceivables(p, open, shift, d);
  drawPipeline(p, open, shift, d);
  drawBills(p, open, d);
  drawFixed(p, shift, [...p.input.manualItems, ...(adj.manualItems ?? [])], d);
  drawSeries(p, shift, d);
  return finishPaths(p, d);
}

/**
 * The common level a future's predicted sales and spending live in
 * (docs/forecast.md#level): the business's quarter-on-quarter spread
 * (prepared.levelSpread), or, while it is under a year old, the spread of its
 * four-week totals (prepared.youngSpread). None: no level to draw.
 */
export function levelSpreads(p: PreparedForecast): { sales: number; spend: number } {
  return { sales: p.youngSpread.sales || p.levelSpread.sales, spend: p.youngSpread.spend || p.levelSpread.spend };
}

/** The weeks a level spread is measured over (levelSpreads): a quarter's totals against the quarter before; a young business's four weeks against the four before. */
const LEVEL_WEEKS = { grown: 13, young: 4 } as const;

/**
 * The same futures living in a common level: each future's level of sales
 * and of spending wanders from today's, a random walk week by week (median
 * 1, lognormal), its spread after LEVEL_WEEKS weeks the business's own
 * (levelSpreads): near weeks close to the level the forecast reads today,
 * far ones as far as the business's level has moved over as many weeks.
 * Each week's level scales what its predicted sales bring and its predicted
 * spending takes, seeded apart from the futures' own draws. What one cause
 * moving many customers at once adds: the prior of the calibrated bands and
 * the bands while they cannot be calibrated (bands.ts). Null when the
 * business has no level spread.
 */
export function withLevel(p: PreparedForecast, scenario: Scenario, sim: Simulation): Simulation | null {
  const { sales, spend } = levelSpreads(p);
  if (!(sales > 0 || spend > 0)) return null;
  const { n } = sim;
  const u = rng(seedOf(`${p.input.orgId}|${p.input.asOf}|${scenario.id}|level`));
  const inflow = sim.inflow.slice();
  const outflow = sim.outflow.slice();
  // Each week's step: the spread over LEVEL_WEEKS weeks, shared out as a random walk's (variances add).
  const stepS = sales / Math.sqrt(LEVEL_WEEKS[p.youngSpread.sales > 0 ? 'young' : 'grown']);
  const stepO = spend / Math.sqrt(LEVEL_WEEKS[p.youngSpread.spend > 0 ? 'young' : 'grown']);
  for (let s = 0; s < n; s++) {
    let a = 0;
    let b = 0;
    for (let k = 0; k < WEEKS; k++) {
      a += stepS * gaussian(u);
      b += stepO * gaussian(u);
      const i = k * n + s;
      inflow[i]! += (Math.exp(a) - 1) * sim.sales[i]!;
      outflow[i]! += (Math.exp(b) - 1) * sim.spend[i]!;
    }
  }
  return { ...sim, inflow, outflow, closing: closingCash(sim.opening, inflow, outflow, n) };
}

/** Each future's closing cash, week after week: the opening plus its inflows less its outflows so far (arrays week-major). */
function closingCash(opening: number, inflow: Float64Array, outflow: Float64Array, n: number): Float64Array {
  const closing = new Float64Array(WEEKS * n);
  for (let s = 0; s < n; s++) {
    let c = opening;
    for (let k = 0; k < WEEKS; k++) {
      const i = k * n + s;
      c += inflow[i]! - outflow[i]!;
      closing[i] = c;
    }
  }
  return closing;
}

/** Adds `amount` to week k of future s. */
function put(d: Draws, k: number, s: number, amount: number, inflow: boolean): void {
  if (k < 0) return;
  if (inflow) d.inflow[k * d.n + s]! += amount * d.inF;
  else d.outflow[k * d.n + s]! += amount * d.outF;
}

/** Records a source's variance in week k (amount^2 p (1 - p) for an all-or-nothing amount). */
function addVariance(d: Draws, k: number, key: string, v: number): void {
  if (k < 0 || !(v > 0)) return;
  const m = d.variance[k]!;
  m.set(key, (m.get(key) ?? 0) + v);
}

/** Draws the week a cumulative distribution (cum[k] = P(paid by the end of week k)) lands in, or -1 (later or never). */
function drawWeek(cum: Float64Array, u: number): number {
  for (let k = 0; k < cum.length; k++) if (u < cum[k]!) return k;
  return -1;
}

/** Open AUTHORISED invoices: the week each is paid in, from its customer's delays given it is unpaid so far. */
function drawReceivables(p: PreparedForecast, open: readonly PItem[], shift: number, d: Draws): void {
  for (const it of open) {
    if (!it.ar || it.src.status !== 'AUTHORISED' || d.excluded.has(it.src.id)) continue;
    const amount = toF(owedOf(it));
    if (!(amount > 0)) continue;
    const due = it.due ?? it.issue ?? p.asOf;
    const probs = paymentProbabilities(customerDist(p, it.src.contactId), due, p.asOf, shift, p.starts, p.ends);
    const cum = new Float64Array(WEEKS);
    const key = `customer:${it.src.contactId ?? ''}`;
    let c = 0;
    for (let k = 0; k < WEEKS; k++) {
      c += probs[k]!;
      cum[k] = c;
      // Paid by the end of week k or not: a Bernoulli of probability cum[k].
      addVariance(d, k, key, (amount * d.inF) ** 2 * c * (1 - c));
    }
    if (c <= 0) continue;
    for (let s = 0; s < d.n; s++) {
      const k = drawWeek(cum, d.u());
      put(d, k, s, amount, true);
      if (k >= 0) d.receivables[k * d.n + s]! += amount * d.inF;
    }
  }
}

/** Draft and submitted invoices: issued and paid with their pipeline probability, in the point forecast's week. */
function drawPipeline(p: PreparedForecast, open: readonly PItem[], shift: number, d: Draws): void {
  for (const it of open) {
    const st = it.src.status;
    if (!it.ar || (st !== 'DRAFT' && st !== 'SUBMITTED') || d.excluded.has(it.src.id)) continue;
    const amount = toF(dueOf(it)) > 0 ? toF(dueOf(it)) : toF(totalOf(it));
    if (!(amount > 0)) continue;
    const prob = Number(PIPELINE_PROBABILITY[st]);
    const k = weekOf(p, pipelineDay(p, it) + shift);
    if (k < 0) continue;
    for (let j = k; j < WEEKS; j++) addVariance(d, j, `customer:${it.src.contactId ?? ''}`, (amount * d.inF) ** 2 * prob * (1 - prob));
    for (let s = 0; s < d.n; s++) if (d.u() < prob) put(d, k, s, amount, true);
  }
}

/**
 * The organisation's bill delays as a sorted list of days (one entry per
 * paid bill), or null under five: then bills are paid when the point
 * forecast says.
 */
function billDelaySample(p: PreparedForecast): number[] | null {
  if (countOf(p.billDelays) < 5) return null;
  const out: number[] = [];
  for (const [days, n] of [...p.billDelays].sort((a, b) => a[0] - b[0])) for (let i = 0; i < n; i++) out.push(days);
  return out;
}

/**
 * Open bills and unbilled purchase orders: paid after a delay drawn, given
 * unpaid so far, from how late the organisation paid this supplier (its last
 * paid bills, with PRIOR_WEIGHT bills' worth of the organisation's habit: a
 * supplier with few bills is paid as the business pays anyone), else from
 * the organisation's own.
 */
function drawBills(p: PreparedForecast, open: readonly PItem[], d: Draws): void {
  const sample = billDelaySample(p);
  const place = (key: string, id: string, supplier: string | null, due: number, amount: number) => {
    if (d.excluded.has(id) || !(amount > 0)) return;
    // Only the delays not already behind us: a bill 20 days overdue is not paid 5 days late.
    const from = sample ? lowerBound(sample, p.asOf - due) : 0;
    if (!sample || from >= sample.length) {
      // No delay left to draw (later than any bill before): paid now, as the point forecast has it.
      const k = weekOf(p, due + (sample ? p.asOf - due : p.orgBillDelay));
      if (k >= 0) d.fixedOut[k]! += amount * d.outF;
      return;
    }
    const own = (supplier ? (p.supplierDelays.get(supplier) ?? []) : []).filter((x) => x >= p.asOf - due);
    const ownShare = own.length >= MIN_OWN_HISTORY ? own.length / (own.length + PRIOR_WEIGHT) : 0;
    const counts = new Float64Array(WEEKS);
    for (let s = 0; s < d.n; s++) {
      const delay = ownShare > 0 && d.u() < ownShare ? own[Math.floor(d.u() * own.length)]! : sample[from + Math.floor(d.u() * (sample.length - from))]!;
      const k = weekOf(p, due + delay);
      put(d, k, s, amount, false);
      if (k >= 0) counts[k]!++;
    }
    let paid = 0;
    for (let k = 0; k < WEEKS; k++) {
      paid += counts[k]! / d.n;
      addVariance(d, k, key, (amount * d.outF) ** 2 * paid * (1 - paid));
    }
  };
  for (const it of open) {
    const st = it.src.status;
    if (it.ar || (st !== 'AUTHORISED' && st !== 'DRAFT' && st !== 'SUBMITTED')) continue;
    const owed = toF(st === 'AUTHORISED' ? owedOf(it) : dueOf(it));
    const amount = owed > 0 ? owed : st === 'AUTHORISED' ? 0 : toF(totalOf(it));
    place(`supplier:${it.src.contactId ?? ''}`, it.src.id, it.src.contactId, it.due ?? it.issue ?? p.asOf, amount);
  }
  for (const po of [...p.input.purchaseOrders].sort((a, b) => cmpStr(a.id, b.id))) {
    if (po.status !== 'AUTHORISED' || p.poReasons.get(po.id)) continue;
    place(`supplier:${po.contactId ?? ''}`, po.id, po.contactId, orderDueDay(p, po), Number(po.total));
  }
}

/** Scheduled and recurring points and manual lines: the same in every future. */
function drawFixed(p: PreparedForecast, shift: number, manual: readonly { id: string; date: string; amount: string; exact?: boolean }[], d: Draws): void {
  for (const pt of p.points) {
    if (d.excluded.has(pt.id)) continue;
    const k = weekOf(p, pt.day + (pt.customer ? shift : 0));
    if (k < 0) continue;
    const amount = toF(pt.amount);
    if (pt.spread) {
      // A recurring amount varies as it has varied: lognormal around it with its recent spread (mean kept).
      const sigma = Math.sqrt(Math.log(1 + pt.spread * pt.spread));
      for (let s = 0; s < d.n; s++) put(d, k, s, amount * Math.exp(sigma * gaussian(d.u) - (sigma * sigma) / 2), pt.inflow);
      addVariance(d, k, `series:${pt.id}`, (amount * pt.spread * (pt.inflow ? d.inF : d.outF)) ** 2);
      continue;
    }
    if (pt.inflow) d.fixedIn[k]! += amount * d.inF;
    else d.fixedOut[k]! += amount * d.outF;
  }
  for (const m of manual) {
    if (d.excluded.has(m.id)) continue;
    const a = Number(m.amount);
    const k = weekOf(p, toDay(m.date));
    if (k < 0 || a === 0) continue;
    if (a > 0) d.fixedIn[k]! += a * (m.exact ? 1 : d.inF);
    else d.fixedOut[k]! += -a * (m.exact ? 1 : d.outF);
  }
}

/** A standard normal draw (Box-Muller). */
function gaussian(u: () => number): number {
  return Math.sqrt(-2 * Math.log(1 - u())) * Math.cos(2 * Math.PI * u());
}

/** Statistical series: a Poisson number of typical events per week, with the point forecast's expectation. */
function drawSeries(p: PreparedForecast, shift: number, d: Draws): void {
  for (const dp of p.daily) {
    if (d.excluded.has(dp.id)) continue;
    const perWeek = dailyPerWeek(p, dp, shift);
    const unit = dp.unit > 0 ? dp.unit : 0;
    const key = `series:${dp.id}`;
    for (let k = 0; k < WEEKS; k++) {
      const e = perWeek[k]!;
      if (!(e > 0)) continue;
      if (unit === 0) {
        if (dp.inflow) d.fixedIn[k]! += e * d.inF;
        else d.fixedOut[k]! += e * d.outF;
        continue;
      }
      const mean = e / unit;
      const scale = unit * (dp.inflow ? d.inF : d.outF);
      const v2 = mean * scale ** 2 * (1 + (dp.unitSpread ?? 0) ** 2);
      for (let j = k; j < WEEKS; j++) addVariance(d, j, key, v2);
      // A common level of sales (customers' purchases) or of spending (bills' and spending series) scales what it brings (withLevel).
      const levelled = dp.customer ? d.sales : dp.inflow ? null : d.spend;
      // c events of varying size: their sum's spread is the events' over the square root of c (lognormal, mean kept).
      const v = dp.unitSpread ?? 0;
      forEachPoissonCount(mean, d.n, d.u, (s, c) => {
        const sigma = v > 0 ? Math.sqrt(Math.log(1 + (v * v) / c)) : 0;
        const size = sigma > 0 ? Math.exp(sigma * gaussian(d.u) - (sigma * sigma) / 2) : 1;
        const amount = c * unit * size;
        put(d, k, s, amount, dp.inflow);
        if (levelled) levelled[k * d.n + s]! += amount * (dp.inflow ? d.inF : d.outF);
      });
    }
  }
}

/**
 * Draws a Poisson count of mean `mean` for each of n futures and calls `put`
 * for the non-zero ones. When most counts are 0 it skips to the next non-zero
 * one (the gap is geometric) and draws that count given it is not 0, so a
 * rare series costs as many draws as it has events.
 */
function forEachPoissonCount(mean: number, n: number, u: () => number, put: (s: number, count: number) => void): void {
  const p0 = Math.exp(-mean);
  if (mean >= 30 || p0 < 0.5) {
    const draw = poissonSampler(mean);
    for (let s = 0; s < n; s++) {
      const c = draw(u);
      if (c > 0) put(s, c);
    }
    return;
  }
  const logP0 = Math.log(p0);
  for (let s = Math.floor(Math.log(1 - u()) / logP0); s < n; s += 1 + Math.floor(Math.log(1 - u()) / logP0)) {
    // A count of at least 1: invert the cumulative probabilities from 1 on.
    const x = p0 + u() * (1 - p0);
    let p = p0;
    let c = p0;
    let k = 0;
    while (x >= c && k < 200) {
      k++;
      p *= mean / k;
      c += p;
    }
    put(s, Math.max(1, k));
  }
}

/** Adds what every future shares and runs each future's closing cash from the opening. */
function finishPaths(p: PreparedForecast, d: Draws): Simulation {
  const { n } = d;
  const opening = Number(p.cash.effectiveStartingCash);
  for (let k = 0; k < WEEKS; k++) {
    for (let s = 0; s < n; s++) {
      d.inflow[k * n + s]! += d.fixedIn[k]!;
      d.outflow[k * n + s]! += d.fixedOut[k]!;
    }
  }
  const closing = closingCash(opening, d.inflow, d.outflow, n);
  return { n, opening, inflow: d.inflow, outflow: d.outflow, closing, receivables: d.receivables, sales: d.sales, spend: d.spend, variance: d.variance };
}
