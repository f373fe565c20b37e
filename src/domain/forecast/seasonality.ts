/**
 * Monthly sales (the insight engine's facts) and the seasonality of order
 * sizes (docs/forecast.md#seasonality).
 */
import { monthIndex, monthKey, monthOf } from './days.js';
import type { Facts } from './prepared.js';
import type { LedgerHistory } from './types.js';

/** Invoiced per month, the complete months of history, and the receipts of the last 28 days. */
export function salesFacts(history: LedgerHistory, asOf: number): Pick<Facts, 'monthlyRevenue' | 'seasonalityMonths' | 'receiptsLast28'> {
  const receiptsLast28 = parseFloat(history.receiptsLast28) || 0;
  const monthlyRevenue = new Map<string, number>();
  for (const [mi, total] of history.monthlyRevenue) monthlyRevenue.set(monthKey(mi), parseFloat(total));
  const seasonalityMonths = [...history.monthlyRevenue.keys()].filter((k) => k < monthIndex(asOf)).length;
  return { monthlyRevenue, seasonalityMonths, receiptsLast28 };
}

/**
 * Monthly seasonality of order sizes, from customers with at least three
 * orders: each order's value over its customer's mean order value, averaged
 * per calendar month (so a changing customer mix does not pass for a season;
 * a customer whose own orders grow does, a little: its early months read
 * low), shrunk toward 1 as far as this ledger's own months say (seasonWeights:
 * a month whose mean could be noise keeps little of it), normalised to mean
 * 1. No minimum history; a month not yet seen stays at 1.
 */
export function orderSeasonality(orders: Map<string, { day: number; value: number }[]>, asOf: number): number[] {
  const sum = Array<number>(12).fill(0);
  const squares = Array<number>(12).fill(0);
  const n = Array<number>(12).fill(0);
  for (const list of orders.values()) {
    if (list.length < 3) continue;
    const mean = list.reduce((a, o) => a + o.value, 0) / list.length;
    if (!(mean > 0)) continue;
    for (const o of list) {
      if (o.day >= asOf) continue;
      const m = monthOf(o.day);
      const r = o.value / mean;
      sum[m]! += r;
      squares[m]! += r * r;
      n[m]! += 1;
    }
  }
  const w = seasonWeights(sum, squares, n);
  const raw = sum.map((s, m) => (n[m] === 0 ? 1 : w[m]! * (s / n[m]!) + (1 - w[m]!)));
  const norm = raw.reduce((a, b) => a + b, 0) / 12;
  return raw.map((x) => x / norm);
}

/**
 * How far to trust each month's mean ratio (empirical Bayes, method of
 * moments): the noise of one order's ratio is the pooled variance of the
 * ratios within the months; the true seasons vary by whatever the months'
 * means vary beyond their noise (tau^2, zero when they vary no more); a month
 * of n orders keeps tau^2 / (tau^2 + noise / n) of its own mean.
 */
function seasonWeights(sum: readonly number[], squares: readonly number[], n: readonly number[]): number[] {
  const zero = Array<number>(12).fill(0);
  let within = 0;
  let dof = 0;
  for (let m = 0; m < 12; m++) {
    if (n[m]! < 2) continue;
    within += squares[m]! - (sum[m]! * sum[m]!) / n[m]!;
    dof += n[m]! - 1;
  }
  const seen = [...Array(12).keys()].filter((m) => n[m]! > 0);
  if (dof === 0 || seen.length < 2) return zero;
  const noise = Math.max(0, within / dof);
  const means = seen.map((m) => sum[m]! / n[m]!);
  const grand = means.reduce((a, b) => a + b, 0) / means.length;
  const between = means.reduce((a, x) => a + (x - grand) ** 2, 0) / (means.length - 1);
  const tau2 = Math.max(0, between - seen.reduce((a, m) => a + noise / n[m]!, 0) / seen.length);
  if (tau2 === 0) return zero;
  return n.map((k) => (k > 0 ? tau2 / (tau2 + noise / k) : 0));
}

/**
 * How much a quarter's total has differed from the quarter before, in this
 * business's own history (the standard deviation of log(months m..m+2 /
 * months m-3..m-1) over its complete months, a month without any counting
 * 0); 0 under six such comparisons. The simulation's common level of sales
 * and of spending (simulate.ts).
 */
export function levelSpread(monthly: ReadonlyMap<number, number>, asOf: number): number {
  const current = monthIndex(asOf);
  const first = Math.min(...monthly.keys());
  const v: number[] = [];
  for (let m = first; m < current; m++) v.push(monthly.get(m) ?? 0);
  // Under a year of months, nothing: a month-on-month stand-in was tried and made the bands of the business's later
  // life worse (the calibration learnt the young business's wider bands and narrowed the grown one's: docs/forecast.md#bands).
  const quarters = logRatios(v, 3);
  return quarters.length >= 6 ? spread(quarters) : 0;
}

/**
 * A young business's level spread (docs/forecast.md#level): while it has too
 * little history for levelSpread, how much its four-week totals have moved
 * against the four weeks before (the standard deviation of log(weeks w..w+3 /
 * weeks w-4..w-1), over its complete weeks counted back from asOf, at every
 * w). A short history cannot tell a steady level's scatter from a moving
 * level, so all of that movement is taken as the level's: the bands of a
 * young business are wide on purpose, until its own replayed history
 * calibrates them. 0 under twelve complete weeks.
 */
export function youngLevelSpread(series: Iterable<{ days: number[]; totals: string[] }>, firstDay: number, asOf: number): number {
  const weeks = Math.floor((asOf - firstDay) / 7);
  if (weeks < 12) return 0;
  const v = new Array<number>(weeks).fill(0);
  for (const { days, totals } of series) {
    days.forEach((day, i) => {
      const back = Math.floor((asOf - 1 - day) / 7);
      if (day < asOf && back < weeks) v[weeks - 1 - back]! += parseFloat(totals[i]!) || 0;
    });
  }
  const ratios = logRatios(v, 4);
  return ratios.length >= 2 ? spread(ratios) : 0;
}

/** log(sum of the `span` periods from i / sum of the `span` periods before i), wherever both are positive. */
function logRatios(v: readonly number[], span: number): number[] {
  const out: number[] = [];
  const sum = (from: number) => v.slice(from, from + span).reduce((a, x) => a + x, 0);
  for (let i = span; i + span <= v.length; i++) {
    const before = sum(i - span);
    const after = sum(i);
    if (before > 0 && after > 0) out.push(Math.log(after / before));
  }
  return out;
}

/** The sample standard deviation. */
function spread(xs: readonly number[]): number {
  const mean = xs.reduce((a, x) => a + x, 0) / xs.length;
  return Math.sqrt(xs.reduce((a, x) => a + (x - mean) ** 2, 0) / (xs.length - 1));
}

/** Totals per month index of a set of day series (a contact's documents per day). */
export function monthlyTotals(series: Iterable<{ days: number[]; totals: string[] }>): Map<number, number> {
  const out = new Map<number, number>();
  for (const { days, totals } of series) days.forEach((day, i) => out.set(monthIndex(day), (out.get(monthIndex(day)) ?? 0) + (parseFloat(totals[i]!) || 0)));
  return out;
}
