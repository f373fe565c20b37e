/**
 * Run-rates of the business no series or customer model predicts
 * (docs/forecast.md, "What goes into the weeks"): the last RUN_RATE_WINDOW
 * days' total, spread evenly per day (new customers: by season too).
 */
import { median } from './behaviour.js';
import { monthOf } from './days.js';
import type { SeriesWhy } from './items.js';
import type { DailyPrediction } from './prepared.js';
import { relativeSpread } from './spread.js';

/** Window of the run-rates of business no series models (days). */
export const RUN_RATE_WINDOW = 182;
/** The longer run the new customers' rate returns to (days; less when the history is shorter). */
export const LONG_RUN_WINDOW = 730;
/** How fast a recent rate of new customers gives way to the longer-run one: half of the gap is gone after this many days. */
const NEW_CUSTOMERS_HALF_LIFE = 91;
/**
 * When a new customer's order is paid, in days after it (0.1, 0.3, 0.5, 0.7
 * and 0.9 quantiles): `customers` is how many recent new customers they were
 * learnt from (0: the business's usual `terms` plus its delay quantiles).
 */
export interface NewCustomerLags {
  lags: number[];
  customers: number;
  terms: number;
}

/** Events a run-rate needs in its window. */
const RUN_RATE_MIN_EVENTS = 5;

/**
 * What a run-rate counts of the events in its window: nothing below
 * RUN_RATE_MIN_EVENTS events (one bill is not a rate), and no event above
 * ten times the window's median (a one-off purchase is not repeated).
 */
function runRateTotal(events: readonly number[]): number {
  if (events.length < RUN_RATE_MIN_EVENTS) return 0;
  return runRateCounted(events).reduce((a, v) => a + v, 0);
}

/** Each event as a run-rate counts it: none above ten times the events' median. */
export function runRateCounted(events: readonly number[]): number[] {
  const cap = 10 * median(events);
  return events.map((v) => Math.min(v, cap));
}

/** The typical event of a run-rate: the mean of what it counts. */
const unitOf = (events: readonly number[], total: number) => total / Math.max(1, events.length);

/** The flat run-rate of these events (their values in the window) from `asOf` to `end`, paid after `lags` (shared equally); null when it counts nothing. */
export function runRatePrediction(
  id: string,
  events: readonly number[],
  inflow: boolean,
  lags: readonly number[],
  accountId: string | null,
  asOf: number,
  end: number,
  why: SeriesWhy,
): DailyPrediction | null {
  const total = runRateTotal(events);
  if (total <= 0) return null;
  const H = end - asOf;
  const values = new Float64Array(H + 1);
  for (let u = 1; u <= H; u++) values[u] = total / RUN_RATE_WINDOW;
  const lag = lags[(lags.length - 1) >> 1]!;
  return { id, inflow, base: asOf, values, lag, ...(lags.some((l) => l !== lag) ? { lags: [...lags] } : {}), customer: false, accountId, unit: unitOf(events, total), unitSpread: relativeSpread(events), why };
}

/** The new customers' later orders (cohort.ts): per unit of a day's first orders, `arrivals[u]` u days on; `singles[u]`, the money the customers with one order so far (`customers` of them) are expected to order on day asOf + u. Seasonally adjusted. */
export interface NewCustomersLater {
  arrivals: Float64Array;
  singles: Float64Array;
  customers: number;
}

/**
 * New customers: the rate of the orders no renewal could have predicted
 * (`unmodelled`: customers' first and second orders, seasonally adjusted),
 * by season, paid as the recent new customers have paid (`pay`); null
 * when the recent window counts nothing. The rate starts at the last
 * RUN_RATE_WINDOW days' and decays towards the longer run's (LONG_RUN_WINDOW
 * days, or since the first order), half the gap every NEW_CUSTOMERS_HALF_LIFE
 * days: a one-off burst of sign-ups is not forecast to repeat every quarter.
 */
export function newCustomersPrediction(
  unmodelled: readonly { day: number; value: number }[],
  firstOrder: number,
  accountId: string | null,
  season: readonly number[],
  pay: NewCustomerLags,
  asOf: number,
  end: number,
  later?: NewCustomersLater,
): DailyPrediction | null {
  const recentValues = unmodelled.filter((e) => asOf - e.day <= RUN_RATE_WINDOW).map((e) => e.value);
  const recent = runRateTotal(recentValues) / RUN_RATE_WINDOW;
  const span = Math.min(LONG_RUN_WINDOW, Math.max(RUN_RATE_WINDOW, asOf - firstOrder));
  const longRun = span > RUN_RATE_WINDOW ? runRateTotal(unmodelled.filter((e) => asOf - e.day <= span).map((e) => e.value)) / span : recent;
  const H = end - asOf;
  const rate = new Float64Array(H + 1);
  for (let u = 1; u <= H; u++) rate[u] = recent > 0 ? longRun + (recent - longRun) * 0.5 ** (u / NEW_CUSTOMERS_HALF_LIFE) : 0;
  const values = new Float64Array(H + 1);
  let any = false;
  for (let u = 1; u <= H; u++) {
    // The first orders of the day's arrivals; the later orders of earlier days' arrivals and of today's one-order customers.
    let v = rate[u]!;
    if (later) {
      for (let a = 1; a < u; a++) v += rate[a]! * later.arrivals[u - a]!;
      v += later.singles[u]!;
    }
    values[u] = v * season[monthOf(asOf + u)]!;
    any ||= values[u]! > 0;
  }
  if (!any) return null;
  const { lags } = pay;
  const paid =
    pay.customers > 0
      ? `paid as the ${pay.customers} customers who first ordered in the last ${LONG_RUN_WINDOW} days (those first seen in the books' first 13 weeks left out) pay (their terms and payment delays: ${lags[2] === 0 ? 'on the day of the invoice' : `${lags[2]} days from invoice to payment`}, the median)`
      : `paid after the usual ${pay.terms} days' terms and the spread of the business's payment delays`;
  const reason = later
    ? `new customers: the rate of first orders of the last ${RUN_RATE_WINDOW} days, easing toward the longer run's, and their later orders${later.customers ? `, with the ${later.customers} customers with one order so far,` : ''} as the business's customers ordered after their first; by season; ${paid}`
    : `new customers: the rate of first and second orders of the last ${RUN_RATE_WINDOW} days, easing toward the longer run's, by season; ${paid}`;
  return {
    id: 'predicted:new-customers',
    inflow: true,
    base: asOf,
    values,
    lag: lags[2]!,
    lags,
    customer: true,
    accountId,
    unit: unitOf(recentValues, recent * RUN_RATE_WINDOW),
    unitSpread: relativeSpread(recentValues),
    why: { kind: 'predicted', documentId: null, contactId: null, reasonCode: 'new_customers', reason },
  };
}
