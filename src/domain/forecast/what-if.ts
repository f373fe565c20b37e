/**
 * What if (issue 18; docs/forecast.md#what-if): a forecast computed for one
 * request from the parameters of GET /forecast, never stored. The what-if is
 * a scenario of its own: the chosen scenario's adjustments with the
 * request's on top (receipts later, a customer who never pays, inflows and
 * outflows scaled, one-off payments or receipts), run through the same
 * projection and bands as a stored scenario, so its figures mean exactly
 * what a stored forecast's do.
 */
import { D } from '../money.js';
import { withBands, type BandOptions } from './engine.js';
import { projectForecast } from './project.js';
import type { PreparedForecast } from './prepared.js';
import type { ForecastPayload, ManualItem, Scenario, ScenarioAdjustments } from './types.js';

export interface OneOff {
  /** Signed: positive a receipt, negative a payment (canonical decimal). */
  amount: string;
  date: string;
}

/** The what-if parameters as understood (what the response echoes as `whatIf`). */
export interface WhatIf {
  /** Days added to every expected customer receipt (negative: earlier). */
  receiptsDelayDays?: number;
  /** Customers whose expected receipts are dropped, as if they never pay. */
  excludeContact?: string[];
  /** Every inflow scaled to this percentage (100: unchanged). */
  inflowPercent?: number;
  /** Every outflow scaled to this percentage. */
  outflowPercent?: number;
  /** One-off receipts (positive) and payments (negative), not scaled by the percentages. */
  oneOff?: OneOff[];
}

/** Whether any what-if parameter is given (a plain forecast otherwise). */
export const isWhatIf = (w: WhatIf): boolean =>
  w.receiptsDelayDays !== undefined ||
  (w.excludeContact?.length ?? 0) > 0 ||
  w.inflowPercent !== undefined ||
  w.outflowPercent !== undefined ||
  (w.oneOff?.length ?? 0) > 0;

/** The id of the what-if's n-th one-off line (1-based), in the weeks' itemIds. */
export const oneOffId = (n: number): string => `what-if:one-off:${n}`;

/** A factor times a percentage, exactly (decimal strings). */
function scaled(factor: string | undefined, percent: number | undefined): string | undefined {
  if (percent === undefined) return factor;
  return new D(factor ?? '1').times(percent).div(100).toFixed();
}

/**
 * The ids of the expected receipts of these customers: their open invoices
 * (AUTHORISED, draft and submitted), their repeat purchases and the
 * schedules of their repeating invoices. What they are billed for (their
 * bills as suppliers) is left as it is.
 */
export function receiptIdsOf(p: PreparedForecast, contactIds: readonly string[]): string[] {
  const wanted = new Set(contactIds);
  const ids = new Set<string>();
  for (const it of p.openItems) if (it.ar && it.src.contactId !== null && wanted.has(it.src.contactId)) ids.add(it.src.id);
  for (const dp of p.daily) if (dp.inflow && dp.why.contactId !== null && wanted.has(dp.why.contactId)) ids.add(dp.id);
  for (const pt of p.points) if (pt.inflow && pt.why.contactId !== null && wanted.has(pt.why.contactId)) ids.add(pt.id);
  return [...ids].sort();
}

/** The scenario the what-if describes: `base`'s adjustments with the what-if's on top (`receipts`: receiptIdsOf its excluded contacts). */
function whatIfScenario(base: Scenario, w: WhatIf, receipts: readonly string[]): Scenario {
  const adj: ScenarioAdjustments = base.adjustments ?? {};
  const excluded = [...(adj.excludedItemIds ?? []), ...receipts];
  const oneOffs: ManualItem[] = (w.oneOff ?? []).map((o, i) => ({ id: oneOffId(i + 1), date: o.date, amount: o.amount, exact: true }));
  const inflowFactor = scaled(adj.inflowFactor, w.inflowPercent);
  const outflowFactor = scaled(adj.outflowFactor, w.outflowPercent);
  return {
    ...base,
    adjustments: {
      ...adj,
      ...(inflowFactor !== undefined ? { inflowFactor } : {}),
      ...(outflowFactor !== undefined ? { outflowFactor } : {}),
      paymentDelayShiftDays: (adj.paymentDelayShiftDays ?? 0) + (w.receiptsDelayDays ?? 0),
      excludedItemIds: excluded,
      manualItems: [...(adj.manualItems ?? []), ...oneOffs],
    },
  };
}

export interface WhatIfRun {
  /** The what-if's forecast, with its bands, shortfall and notes. */
  payload: ForecastPayload;
  /** The same scenario without the what-if, from the same prepared model (its point forecast). */
  baseline: ForecastPayload;
  /** Expected receipts of the excluded customers that were left out. */
  excludedReceiptCount: number;
  /** Its one-off lines, with their ids. */
  oneOff: (OneOff & { id: string })[];
}

/**
 * The forecast of `scenario` with the what-if on top, and without it, from
 * one prepared model (prepareForecast of the books; nothing stored, the model
 * not changed: it may serve the next what-if).
 */
export function runWhatIf(prepared: PreparedForecast, scenario: Scenario, w: WhatIf, computedAt: Date, bands: BandOptions): WhatIfRun {
  const receipts = receiptIdsOf(prepared, w.excludeContact ?? []);
  const adjusted = whatIfScenario(scenario, w, receipts);
  const payload = withBands(prepared, adjusted, projectForecast(prepared, adjusted, computedAt), bands);
  return {
    payload,
    baseline: projectForecast(prepared, scenario, computedAt),
    excludedReceiptCount: receipts.length,
    oneOff: (w.oneOff ?? []).map((o, i) => ({ id: oneOffId(i + 1), ...o })),
  };
}
