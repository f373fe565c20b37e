/**
 * How often a repeating flow stops: customers' churn, learnt from their
 * orders, and a fixed rate for series of bills and bank transactions
 * (docs/forecast.md, "What goes into the weeks").
 */
import { median } from './behaviour.js';

/**
 * How fast regular customers stop ordering, per day: among customers with at
 * least three orders, those silent for more than three times their median
 * gap (and at least 60 days) count as stopped; the rate is stopped / the days
 * covered by everyone's gaps (bounded to 1%-60% a year). A customer's chance
 * of stopping after an order is then 1 - exp(-rate x its median gap): small
 * for weekly buyers, larger for quarterly ones.
 */
export function estimateChurnRate(orders: Map<string, { day: number }[]>, asOf: number): number {
  let days = 0;
  let stopped = 0;
  for (const list of orders.values()) {
    if (list.length < 3) continue;
    const g: number[] = [];
    for (let i = 1; i < list.length; i++) g.push(list[i]!.day - list[i - 1]!.day);
    days += list[list.length - 1]!.day - list[0]!.day;
    const silent = asOf - list[list.length - 1]!.day;
    if (silent > Math.max(60, 3 * median(g))) stopped++;
  }
  const perYear = days > 0 ? (stopped / days) * 365 : 0.2;
  return Math.min(0.6, Math.max(0.01, perYear)) / 365;
}

/** Per-event stopping probability of a series with this median gap under a daily stopping rate. */
export function churnPerGap(rate: number, medianGap: number): number {
  return Math.min(0.3, Math.max(0.001, 1 - Math.exp(-rate * Math.max(1, medianGap))));
}

/** Series of bills and bank transactions: about 10% a year stop. */
export const SERIES_STOP_RATE = -Math.log(0.9) / 365;
