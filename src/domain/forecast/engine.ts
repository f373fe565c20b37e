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
import { levelSpread, youngLevelSpread, monthlyTotals, salesFacts } from './seasonality.js';
import { scheduledPoints } from './scheduled-points.js';
import { predictCustomers } from './customers.js';
import { predictSeries } from './series.js';
import { openDocuments, parseItem } from './open-items.js';
import { mondayOf, toDay } from './days.js';
import { cashPosition } from './opening.js';
import { summariseHistory } from './history.js';
import type { LedgerHistory } from './types.js';
import { projectForecast, WEEKS } from './project.js';
import type { ForecastInput, ForecastPayload, Scenario } from './types.js';
import type { DailyPrediction, PointPrediction, PreparedForecast } from './prepared.js';
import { simulateForecast, withLevel } from './simulate.js';
import { calibrationSummary, forecastBands } from './bands.js';
import { uncertaintyNotes } from '../insights/uncertainty.js';
import type { CalibrationState } from './calibrate.js';
import { ItemSink, type ForecastItem } from './items.js';

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
  const season = predictCustomers(history, terms, scheduledCustomers, asOf, end, daily);

  // --- suppliers' bills and bank transactions: recurring series, and the run-rates of the rest
  predictSeries(input, history, terms, scheduledSuppliers, poReasons, { asOf, end, daily, points });

  const salesByMonth = new Map([...history.monthlyRevenue].map(([m, v]) => [m, parseFloat(v) || 0]));
  const spendByMonth = monthlyTotals(history.bills.values());
  const level = { sales: levelSpread(salesByMonth, asOf), spend: levelSpread(spendByMonth, asOf) };
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
    billDelays: history.billDelays,
    supplierDelays: history.supplierDelays,
    levelSpread: level,
    youngSpread: youngSpreads(history, level, asOf),
    poReasons,
    daily,
    points,
    season,
    cash: cashPosition({ asOf: input.asOf, currency: input.currency, bankAccounts: input.bankAccounts, override: input.override }),
    facts: { monthlyRevenue, seasonalityMonths, openReceivables, pipelineTotal, receiptsLast28 },
  };
}

/** A business is young for its bands while its first document is under a year old. */
const YOUNG_DAYS = 365;

/**
 * A young business's level spreads (docs/forecast.md#level): where the
 * quarter-on-quarter spread is not measurable yet (`level`: 0), the spread of
 * its four-week totals of sales and of spending since its first document
 * (seasonality.ts youngLevelSpread); none once it is a year old.
 */
function youngSpreads(history: LedgerHistory, level: { sales: number; spend: number }, asOf: number): { sales: number; spend: number } {
  let firstDay = asOf;
  for (const m of [history.orders, history.bills]) for (const s of m.values()) if (s.days.length) firstDay = Math.min(firstDay, s.days[0]!);
  if (asOf - firstDay >= YOUNG_DAYS) return { sales: 0, spend: 0 };
  return {
    sales: level.sales > 0 ? 0 : youngLevelSpread(history.orders.values(), firstDay, asOf),
    spend: level.spend > 0 ? 0 : youngLevelSpread(history.bills.values(), firstDay, asOf),
  };
}

/** What the bands stand on: the organisation's calibration (none: the simulation's own bands) and its shortfall threshold. */
export interface BandOptions {
  calibration: CalibrationState | null;
  /** Closing cash below this is a shortfall (a decimal string; the organisation's cash buffer, else 0). */
  threshold: string;
}

/**
 * Runs every scenario on one prepared model: the point forecast, then its
 * bands and shortfall; and each scenario's items (what makes up each week,
 * items.ts), which the payload does not carry.
 */
export function runForecast(
  input: ForecastInput,
  scenarios: readonly Scenario[],
  computedAt: Date,
  bands: BandOptions = { calibration: null, threshold: '0' },
): { prepared: PreparedForecast; payloads: ForecastPayload[]; items: ForecastItem[][] } {
  const prepared = prepareForecast(input);
  const items: ForecastItem[][] = [];
  const payloads = scenarios.map((s) => {
    const sink = new ItemSink();
    const payload = withBands(prepared, s, projectForecast(prepared, s, computedAt, sink), bands);
    items.push(sink.items());
    return payload;
  });
  return { prepared, payloads, items };
}

/** The scenario's simulated futures read into its weeks' bands, the shortfall and the calibration (docs/forecast.md#bands). */
export function withBands(prepared: PreparedForecast, scenario: Scenario, payload: ForecastPayload, opts: BandOptions): ForecastPayload {
  const sim = simulateForecast(prepared, scenario);
  const b = forecastBands(sim, opts.calibration, Number(opts.threshold), withLevel(prepared, scenario, sim));
  const out: ForecastPayload = {
    ...payload,
    weeks: payload.weeks.map((w, k) => ({ ...w, bands: b.weeks[k]!.bands, shortfallProbability: b.weeks[k]!.shortfallProbability })),
    shortfall: b.shortfall,
    calibration: calibrationSummary(opts.calibration),
  };
  // The shortfall, and what drives the band's width, join the notes.
  return { ...out, notesForAgent: uncertaintyNotes(prepared, out, sim) };
}
