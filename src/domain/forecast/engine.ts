/**
 * The 13-week cash forecast engine (pure; docs/forecast.md). `prepareForecast`
 * learns the organisation's behaviour once (payment delays, terms, cadences,
 * repeat purchases, purchase-order matches), one step per module:
 * open-items.ts, terms.ts, po-matching.ts, seasonality.ts,
 * scheduled-points.ts, customers.ts, series.ts (with churn.ts and
 * run-rate.ts); `projectForecast` (project.ts) places every expected movement
 * of one scenario into the weeks and adds them up exactly.
 */
import { learnTerms } from './terms.js';
import { matchedOrders } from './po-matching.js';
import { salesFacts } from './seasonality.js';
import { scheduledPoints } from './scheduled-points.js';
import { predictCustomers } from './customers.js';
import { predictSeries } from './series.js';
import { openDocuments, parseItem } from './open-items.js';
import { mondayOf, toDay } from './days.js';
import { cashPosition } from './opening.js';
import { summariseHistory } from './history.js';
import { projectForecast, WEEKS } from './project.js';
import type { ForecastInput, ForecastPayload, Scenario } from './types.js';
import type { DailyPrediction, PointPrediction, PreparedForecast } from './prepared.js';

export function prepareForecast(input: ForecastInput): PreparedForecast {
  const asOf = toDay(input.asOf);
  const w0 = mondayOf(asOf);
  const starts = Array.from({ length: WEEKS }, (_, k) => w0 + 7 * k);
  const ends = starts.map((s) => s + 6);
  const end = ends[WEEKS - 1]!;
  const items = input.items.map(parseItem);
  // What the models learn from: the store's summary, or the documents' own (history.ts: the same rules).
  const history = input.history ?? summariseHistory(input.items, input.asOf);

  // --- the open documents: what is placed, and the facts about them
  const { openItems, openOverdue, openReceivables, pipelineTotal } = openDocuments(items, input.credits ?? [], asOf);

  // --- behaviour: delays, terms
  const terms = learnTerms(history, openOverdue);
  const { orgDelay, customerDelays, arTerms, apTerms, orgArTerms, orgApTerms, orgBillDelay, orgArDelayMedian } = terms;

  // --- purchase orders (only bills naming an order, or of an ordering supplier, can match)
  const poReasons = matchedOrders(input);

  // --- monthly sales (insights) and seasonality
  const { monthlyRevenue, seasonalityMonths, receiptsLast28 } = salesFacts(history, asOf);

  const daily: DailyPrediction[] = [];
  const points: PointPrediction[] = [];

  // --- the ledger's own schedules (repeating invoices and bills, schedules.ts): known future documents.
  // A contact with one is not also projected from its detected pattern (orders, bills, bank transactions).
  const { customers: scheduledCustomers, suppliers: scheduledSuppliers } = scheduledPoints(input.schedules ?? [], terms, asOf, end, points);

  // --- customers: repeat purchases (renewal model) and the run-rate of the rest
  const season = predictCustomers(history, terms, scheduledCustomers, seasonalityMonths, asOf, end, daily);

  // --- suppliers' bills and bank transactions: recurring series, and the run-rates of the rest
  predictSeries(input, history, terms, scheduledSuppliers, poReasons, { asOf, end, daily, points });

  return {
    input,
    asOf,
    starts,
    ends,
    end,
    items,
    openItems,
    orgDelay,
    customerDelays,
    distCache: new Map(),
    arTerms,
    orgArTerms,
    orgArDelayMedian,
    apTerms,
    orgApTerms,
    orgBillDelay,
    poReasons,
    daily,
    points,
    season,
    cash: cashPosition({ asOf: input.asOf, currency: input.currency, bankAccounts: input.bankAccounts, override: input.override }),
    facts: { monthlyRevenue, seasonalityMonths, openReceivables, pipelineTotal, receiptsLast28 },
  };
}

/** Runs every scenario on one prepared model. */
export function runForecast(input: ForecastInput, scenarios: readonly Scenario[], computedAt: Date): { prepared: PreparedForecast; payloads: ForecastPayload[] } {
  const prepared = prepareForecast(input);
  return { prepared, payloads: scenarios.map((s) => projectForecast(prepared, s, computedAt)) };
}
