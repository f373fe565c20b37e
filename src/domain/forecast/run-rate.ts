/**
 * Run-rates of the business no series or customer model predicts
 * (docs/forecast.md, "What goes into the weeks"): the last RUN_RATE_WINDOW
 * days' total, spread evenly per day (new customers: by season too).
 */
import { median } from './behaviour.js';
import { monthOf } from './days.js';
import type { DailyPrediction } from './prepared.js';

/** Window of the run-rates of business no series models (days). */
export const RUN_RATE_WINDOW = 182;
/** Events a run-rate needs in its window. */
const RUN_RATE_MIN_EVENTS = 5;

/**
 * What a run-rate counts of the events in its window: nothing below
 * RUN_RATE_MIN_EVENTS events (one bill is not a rate), and no event above
 * ten times the window's median (a one-off purchase is not repeated).
 */
function runRateTotal(events: readonly number[]): number {
  if (events.length < RUN_RATE_MIN_EVENTS) return 0;
  const cap = 10 * median(events);
  return events.reduce((a, v) => a + Math.min(v, cap), 0);
}

/** The flat run-rate of these events (their values in the window) from `asOf` to `end`; null when it counts nothing. */
export function runRatePrediction(
  id: string,
  events: readonly number[],
  inflow: boolean,
  lag: number,
  accountId: string | null,
  asOf: number,
  end: number,
): DailyPrediction | null {
  const total = runRateTotal(events);
  if (total <= 0) return null;
  const H = end - asOf;
  const values = new Float64Array(H + 1);
  for (let u = 1; u <= H; u++) values[u] = total / RUN_RATE_WINDOW;
  return { id, inflow, base: asOf, values, lag, customer: false, accountId };
}

/**
 * New customers: the run-rate of the orders no renewal could have predicted
 * (`unmodelled`: customers' first and second orders in the window, seasonally
 * adjusted), by season, paid after the organisation's terms plus its delay
 * quantiles; null when it counts nothing.
 */
export function newCustomersPrediction(
  unmodelled: readonly number[],
  accountId: string | null,
  season: readonly number[],
  orgQuantiles: readonly number[],
  orgArTerms: number,
  asOf: number,
  end: number,
): DailyPrediction | null {
  const newBusiness = runRateTotal(unmodelled);
  if (!(newBusiness > 0)) return null;
  const H = end - asOf;
  const values = new Float64Array(H + 1);
  const perDay = newBusiness / RUN_RATE_WINDOW;
  for (let u = 1; u <= H; u++) values[u] = perDay * season[monthOf(asOf + u)]!;
  const lags = orgQuantiles.map((d) => Math.max(0, orgArTerms + d));
  return {
    id: 'predicted:new-customers',
    inflow: true,
    base: asOf,
    values,
    lag: lags[2]!,
    lags,
    customer: true,
    accountId,
  };
}
