/**
 * What the forecast engine's preparation step produces and its projection
 * and the insight engine read (engine.ts, project.ts, ../insights/engine.ts): the parsed
 * documents, the behaviour models and the predictions, as types only.
 */
import type { Amount } from './cents.js';
import type { CustomerPriors, DelayDist } from './behaviour.js';
import type { SeriesWhy } from './items.js';
import type { SuppressedReason } from './purchase-orders.js';
import type { CashPosition, Counts, ForecastInput, LedgerItem } from './types.js';

export interface PItem {
  src: LedgerItem;
  ar: boolean;
  issue: number | null;
  due: number | null;
  paid: number | null;
  /** The total as a float: for statistics only, never for money. */
  totalF: number;
  /** Exact amounts, parsed on first use (most of history never needs them). */
  total$?: Amount;
  due$?: Amount;
  /** What is still expected after the contact's unallocated credits (applyCredits); the amount due without any. */
  owed$?: Amount;
}

/** Expected values per day (index u: day base + u) of a statistical series, with the lag from event to cash. */
export interface DailyPrediction {
  id: string;
  inflow: boolean;
  base: number;
  /** Expected money (in currency units, a float estimate) of events on day base + u. */
  values: Float64Array;
  /** Days from the event to the cash moving (terms + usual delay). */
  lag: number;
  /** When set, the event's money is shared equally over these lags instead (terms + quantiles of the payment delay). */
  lags?: number[];
  /** Whether the customers' payment-delay shift of a scenario applies. */
  customer: boolean;
  accountId: string | null;
  /** The typical size of one event (money): how lumpy the series is, for the simulation (simulate.ts). */
  unit: number;
  /** How much one event's amount varies (standard deviation over mean of the recent ones), for the simulation. */
  unitSpread?: number;
  /** What the series is and why it is projected so (the week's items, items.ts). */
  why: SeriesWhy;
}

export interface PointPrediction {
  id: string;
  inflow: boolean;
  day: number;
  amount: Amount;
  accountId: string | null;
  statistical: boolean;
  /** A customer's payment: moved by the scenario's payment-delay shift. */
  customer?: boolean;
  /** How much the series' recent amounts have varied (their standard deviation over their mean), for the simulation; none: fixed. */
  spread?: number;
  /** What the point is and why it falls on its day (the week's items, items.ts). */
  why: SeriesWhy;
}

export interface PreparedForecast {
  input: ForecastInput;
  asOf: number;
  starts: number[];
  ends: number[];
  end: number;
  items: PItem[];
  /** The AUTHORISED, DRAFT and SUBMITTED invoices and bills: what projection places. */
  openItems: PItem[];
  orgDelay: DelayDist;
  customerDelays: Map<string, number[]>;
  distCache: Map<string, DelayDist>;
  /** Each customer's prior from the customers that pay like it, and its weight (behaviour.ts customerPriors), made on first use. */
  priors?: CustomerPriors;
  arTerms: Map<string, number>;
  orgArTerms: number;
  orgArDelayMedian: number;
  apTerms: Map<string, number>;
  orgApTerms: number;
  orgBillDelay: number;
  /** The spread of a quarter's sales and spending against the quarter before (seasonality.ts levelSpread), for the simulation. */
  levelSpread: { sales: number; spend: number };
  /** While the business is under a year old (no levelSpread yet), the spread of its four-week totals (seasonality.ts youngLevelSpread). */
  youngSpread: { sales: number; spend: number };
  /** How late the organisation paid its bills (days: how many at each), for the simulation. */
  billDelays: Counts;
  /** Per supplier: how late the organisation paid its latest bills (history.ts), for the simulation. */
  supplierDelays: Map<string, number[]>;
  poReasons: Map<string, SuppressedReason | null>;
  daily: DailyPrediction[];
  points: PointPrediction[];
  /** Seasonal index per calendar month (1 = average; seasonality.ts orderSeasonality). */
  season: number[];
  cash: CashPosition;
  /** Facts the insight engine reads. */
  facts: Facts;
}

export interface Facts {
  /** Invoiced (AR, base currency) per month 'YYYY-MM', complete months and the current one. */
  monthlyRevenue: Map<string, number>;
  seasonalityMonths: number;
  openReceivables: { id: string; contactId: string | null; amountDue: number; due: number }[];
  pipelineTotal: number;
  /** Receipts (AR payments) in the 28 days before today, from paid dates. */
  receiptsLast28: number;
}

