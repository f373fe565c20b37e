/**
 * Customers' repeat purchases (docs/forecast.md, "What goes into the weeks"):
 * per customer, a renewal (hazard) model of the time between its orders, times
 * its recent seasonally-adjusted order value, paid after its terms plus its
 * delay quantiles; and the run-rate of first and second orders (new
 * customers). Also learns the seasonality of order sizes.
 */
import { fiveQuantiles, median, MIN_OWN_HISTORY } from './behaviour.js';
import { churnPerGap, estimateChurnRate } from './churn.js';
import { cmpStr } from './compare.js';
import { fromDay, monthOf } from './days.js';
import { countsQuantiles } from './history.js';
import type { DailyPrediction } from './prepared.js';
import { gapModel, renewalDensity } from './renewal.js';
import { LONG_RUN_WINDOW, newCustomersPrediction, RUN_RATE_WINDOW, type NewCustomerLags } from './run-rate.js';
import { orderSeasonality } from './seasonality.js';
import { cohortSupport, laterOrderCurve, MIN_COHORT, type FirstOrder } from './cohort.js';
import { relativeSpread } from './spread.js';
import type { Terms } from './terms.js';
import type { LedgerHistory } from './types.js';

interface OrderEv {
  day: number;
  value: number;
  accountId: string | null;
}

/** What every customer's model shares. */
interface CustomerContext {
  asOf: number;
  end: number;
  churnRate: number;
  season: number[];
  terms: Terms;
  /** Quantiles of the organisation's delays (0 without five paid invoices). */
  orgQuantiles: number[];
}

/**
 * Adds the customers' predicted purchases (all but the `scheduled` ones) and
 * the new customers' run-rate to `daily`; returns the seasonal index per
 * calendar month (orderSeasonality: near 1 while the history is short).
 */
export function predictCustomers(
  history: LedgerHistory,
  terms: Terms,
  scheduled: ReadonlySet<string>,
  asOf: number,
  end: number,
  daily: DailyPrediction[],
): number[] {
  // Orders per customer and day (history.ts); each carries the account of the customer's latest invoice.
  const customers = [...history.orders.keys()].sort(cmpStr);
  const merged = new Map<string, OrderEv[]>();
  for (const c of customers) {
    const { days, totals, accountId } = history.orders.get(c)!;
    merged.set(c, days.map((day, i) => ({ day, value: parseFloat(totals[i]!) || 0, accountId })));
  }
  const churnRate = estimateChurnRate(merged, asOf);
  const season = orderSeasonality(merged, asOf);
  const orgQuantiles = terms.arDelayCount >= 5 ? countsQuantiles(history.arDelays) : [0, 0, 0, 0, 0];
  const ctx: CustomerContext = { asOf, end, churnRate, season, terms, orgQuantiles };
  // Each customer's first order and its later ones (cohort.ts); the first two orders, which the run-rate counted before.
  const firsts: FirstOrder[] = [];
  const firstTwo: { day: number; value: number }[] = [];
  const singles: { age: number; value: number }[] = [];
  let unmodelledAccount: string | null = null;
  let firstOrder = Infinity;
  const adjusted = (o: OrderEv) => o.value / season[monthOf(o.day)]!;
  for (const c of customers) {
    if (scheduled.has(c)) continue;
    const list = merged.get(c)!;
    const seen = list.filter((o) => o.day < asOf && asOf - o.day <= LONG_RUN_WINDOW);
    const first = list[0];
    if (first && first === seen[0]) {
      const later = seen.slice(1);
      firsts.push({ day: first.day, value: adjusted(first), later: later.map((o) => ({ day: o.day, value: adjusted(o) })) });
      if (later.length === 0) singles.push({ age: asOf - first.day, value: adjusted(first) });
    }
    // Orders that no renewal could have predicted (a customer's first and second).
    for (const o of list.slice(0, 2)) {
      if (o.day >= asOf || asOf - o.day > LONG_RUN_WINDOW) continue;
      firstTwo.push({ day: o.day, value: adjusted(o) });
      if (asOf - o.day <= RUN_RATE_WINDOW) unmodelledAccount ??= o.accountId;
    }
    const p = repeatPurchases(c, list, ctx);
    if (p) daily.push(p);
  }
  for (const list of merged.values()) if (list.length) firstOrder = Math.min(firstOrder, list[0]!.day);
  // The ledger's opening book (customers whose first order in the books is in its first 13 weeks) had ordered before the
  // books begin: how they order again and pay is not how a new customer does; both are read from the customers after it.
  const afterBook = firstOrder + OPENING_BOOK;
  const lags = newCustomerLags(merged, scheduled, ctx, afterBook);
  const H = end - asOf;
  const learnt = firsts.filter((f) => f.day >= afterBook);
  let newCustomers: DailyPrediction | null;
  if (cohortSupport(learnt, asOf, H) >= MIN_COHORT) {
    // A first order's later ones, and the customers with one order so far: each as the business's customers of its age who
    // had not ordered again by then ordered after.
    const singlesLater = new Float64Array(H + 1);
    const curves = new Map<number, Float64Array>();
    for (const x of singles) {
      let curve = curves.get(x.age);
      if (!curve) curves.set(x.age, (curve = laterOrderCurve(learnt, asOf, x.age, H)));
      for (let u = 1; u <= H; u++) singlesLater[u]! += x.value * curve[u]!;
    }
    const later = { arrivals: laterOrderCurve(learnt, asOf, 0, H), singles: singlesLater, customers: singles.length };
    newCustomers = newCustomersPrediction(firsts, firstOrder, unmodelledAccount, season, lags, asOf, end, later);
  } else {
    // Too young a ledger to read that curve from (its customers seen for the 13 weeks after their first order): the
    // run-rate of first and second orders.
    newCustomers = newCustomersPrediction(firstTwo, firstOrder, unmodelledAccount, season, lags, asOf, end);
  }
  if (newCustomers) daily.push(newCustomers);
  return season;
}

/** A customer's expected purchases after its last order (renewal model); null without a model or anything expected. */
function repeatPurchases(c: string, list: readonly OrderEv[], ctx: CustomerContext): DailyPrediction | null {
  const { asOf, end, season } = ctx;
  if (list.length < 2) return null;
  const gaps: number[] = [];
  for (let i = Math.max(1, list.length - 13); i < list.length; i++) gaps.push(list[i]!.day - list[i - 1]!.day);
  const model = gapModel(gaps);
  if (!model) return null;
  const last = list[list.length - 1]!;
  const base = Math.max(last.day, asOf);
  const H = end - base;
  if (H <= 0) return null;
  const m = renewalDensity(model, base - last.day, H, churnPerGap(ctx.churnRate, median(gaps)));
  const recent = list.slice(-6);
  let norm = 0;
  for (const o of recent) norm += o.value / season[monthOf(o.day)]!;
  const level = norm / recent.length;
  const values = new Float64Array(H + 1);
  let any = false;
  for (let u = 1; u <= H; u++) {
    if (m[u]! <= 1e-7) continue;
    values[u] = m[u]! * level * season[monthOf(base + u)]!;
    any = true;
  }
  if (!any) return null;
  const own = ctx.terms.customerDelays.get(c) ?? [];
  const terms = ctx.terms.arTerms.get(c) ?? ctx.terms.orgArTerms;
  const lags = (own.length >= MIN_OWN_HISTORY ? fiveQuantiles(own) : ctx.orgQuantiles).map((d) => Math.max(0, terms + d));
  const whose = own.length >= MIN_OWN_HISTORY ? "the customer's" : "the business's";
  const reason = `repeat-purchase model: ${list.length} orders, a median ${median(gaps)} days apart, the last on ${fromDay(last.day)}; paid after ${terms} days' terms and the spread of ${whose} payment delays`;
  return {
    id: `predicted:${c}`,
    inflow: true,
    base,
    values,
    lag: lags[2]!,
    lags,
    customer: true,
    accountId: last.accountId,
    unit: level,
    unitSpread: relativeSpread(recent.map((o) => o.value / season[monthOf(o.day)]!)),
    why: { kind: 'predicted', documentId: null, contactId: c, reasonCode: 'repeat_purchase', reason },
  };
}

/** The ledger's first days (13 weeks) whose new customers are its opening book. */
const OPENING_BOOK = 91;

/** Recent new customers a new customer's payment is learnt from, at least. */
const MIN_NEW_CUSTOMERS = 5;

/**
 * How the business's new customers pay: each customer (not on a schedule)
 * whose first order is within LONG_RUN_WINDOW days and on or after `since`
 * (the day after the ledger's opening book: customers who first appear in
 * the books' first 13 weeks had ordered before them, on the terms of old
 * customers) counts, at its median
 * terms plus its median delay (days from invoice to payment; the business's
 * median delay while it has paid nothing: a slow payer is not left out for
 * being slow), weighed by its first two orders' value (the money the new
 * customers' rate counts); their 10th-90th percentiles. A business whose new
 * customers buy on short terms while its old ones have 30 days is paid
 * sooner for its new sales than its usual terms say. Fewer than
 * MIN_NEW_CUSTOMERS: the business's usual terms plus its delay quantiles.
 */
function newCustomerLags(orders: ReadonlyMap<string, readonly OrderEv[]>, scheduled: ReadonlySet<string>, ctx: CustomerContext, since: number): NewCustomerLags {
  const { terms, asOf } = ctx;
  const lags: number[] = [];
  const weights: number[] = [];
  for (const [c, list] of orders) {
    const first = list[0];
    if (!first || scheduled.has(c) || first.day >= asOf || first.day < since || asOf - first.day > LONG_RUN_WINDOW) continue;
    const own = terms.customerDelays.get(c);
    const delay = own?.length ? median(own) : terms.orgArDelayMedian;
    lags.push(Math.max(0, (terms.arTerms.get(c) ?? terms.orgArTerms) + delay));
    weights.push(list.slice(0, 2).reduce((a, o) => a + Math.max(0, o.value), 0));
  }
  if (lags.length < MIN_NEW_CUSTOMERS) return { lags: ctx.orgQuantiles.map((d) => Math.max(0, terms.orgArTerms + d)), customers: 0, terms: terms.orgArTerms };
  return { lags: fiveQuantiles(lags, weights), customers: lags.length, terms: terms.orgArTerms };
}
