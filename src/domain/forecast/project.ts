/**
 * The projection of one scenario (docs/forecast.md#scenarios): every expected
 * movement of the prepared model (engine.ts, prepared.ts) placed into the 13
 * weeks, scaled by the scenario's factors, and added up exactly.
 */
import { D, canonical, dec, type Dec } from '../money.js';
import { horizonTotals } from './totals.js';
import { customerDelayDist, customerPriors, median, MIN_OWN_HISTORY, paymentProbabilities, type DelayDist } from './behaviour.js';
import { Acc, amountOf, factorOf, isPositive, roundToCents, scale, splitByWeights, toDec, type Amount, type Factor } from './cents.js';
import { cmpStr } from './compare.js';
import { fromDay, toDay } from './days.js';
import { dueOf, owedOf, totalOf } from './open-items.js';
import type { DailyPrediction, PItem, PreparedForecast } from './prepared.js';
import type { ItemSink, ItemWhy } from './items.js';
import { billWhy, dailyWhy, manualWhy, orderWhy, pipelineWhy, pointWhy, receivableWhy } from './item-reasons.js';
import type { CategoryEntry, ForecastPayload, ForecastWeek, ManualItem, PurchaseOrder, Scenario, ScenarioAdjustments } from './types.js';
import { buildNotes } from '../insights/engine.js';

/** Snapshots of engine version 1 had no guaranteedInflow/forecastInflow split; version 3 added bands, the shortfall and the calibration. */
export const ENGINE_VERSION = 3;
export const WEEKS = 13;

/** Probability that a draft or submitted invoice is issued and paid (pipeline). */
export const PIPELINE_PROBABILITY = { DRAFT: '0.5', SUBMITTED: '0.8' } as const;

/**
 * The categories of amounts without an account (docs/forecast.md#categories):
 * purchase orders not yet billed, manual lines without an account, and
 * anything else without one (documents without lines, bank series without an
 * account). Their keys cannot clash with account ids (Xero ids are GUIDs).
 */
export const PURCHASE_ORDERS = '_purchase_orders';
export const MANUAL = '_manual';
export const UNCATEGORISED = '_uncategorised';
export const KIND_CATEGORY_NAMES: Record<string, string> = {
  [PURCHASE_ORDERS]: 'Purchase orders (expected bills)',
  [MANUAL]: 'Manual forecast lines',
  [UNCATEGORISED]: 'Uncategorised',
};

interface WeekAcc {
  inflow: Acc;
  statistical: Acc;
  outflow: Acc;
  items: Set<string>;
  overdue: Set<string>;
  probabilityWeighted: boolean;
  categories: Map<string, { inflow: Acc; outflow: Acc }>;
}

interface EmitFlags {
  statistical?: boolean;
  overdue?: boolean;
  probability?: boolean;
  category?: string;
  /** Not scaled by the scenario's factors (a what-if's one-off). */
  exact?: boolean;
}

/** Adds an amount of item `id` to week `k` (none when k < 0); `why` says what it is and why it is there (built only when items are collected). */
type Emit = (k: number, id: string, amount: Amount, inflow: boolean, accountId: string | null, flags: EmitFlags, why: ItemWhy | undefined) => void;

function parseFactor(v: string | undefined): Factor {
  if (v === undefined || v === null) return ONE;
  const d = dec(v);
  if (!d.isFinite() || d.lt(0)) throw new RangeError(`not a scenario factor: ${v}`);
  return factorOf(d);
}

const ONE = factorOf(new D(1));
const PIPELINE_FACTORS = { DRAFT: factorOf(dec(PIPELINE_PROBABILITY.DRAFT)), SUBMITTED: factorOf(dec(PIPELINE_PROBABILITY.SUBMITTED)) };

/** Default adjustments of the built-in scenarios (docs/forecast.md#scenarios). */
export const DEFAULT_SCENARIO_ADJUSTMENTS: Record<'BASE' | 'BEST' | 'WORST', ScenarioAdjustments> = {
  BASE: {},
  BEST: { inflowFactor: '1.05', outflowFactor: '0.97', paymentDelayShiftDays: -3 },
  WORST: { inflowFactor: '0.9', outflowFactor: '1.05', paymentDelayShiftDays: 7 },
};

/**
 * The scenario's forecast; with `items`, every placed amount is also handed
 * to it with its reason (the week's items, items.ts), which the payload does
 * not carry.
 */
export function projectForecast(p: PreparedForecast, scenario: Scenario, computedAt: Date, items?: ItemSink): ForecastPayload {
  const adj = scenario.adjustments ?? {};
  const inF = parseFactor(adj.inflowFactor);
  const outF = parseFactor(adj.outflowFactor);
  const shift = Math.trunc(adj.paymentDelayShiftDays ?? 0);
  const excluded = new Set(adj.excludedItemIds ?? []);
  const weeks: WeekAcc[] = p.starts.map(() => ({
    inflow: new Acc(),
    statistical: new Acc(),
    outflow: new Acc(),
    items: new Set(),
    overdue: new Set(),
    probabilityWeighted: false,
    categories: new Map(),
  }));
  const emit = emitter(weeks, inF, outF, excluded, items);

  // The items' reasons are built only when they are collected.
  const why = items !== undefined;
  forEachOpenReceivable(p, shift, (it, k, a, overdue, prob) =>
    emit(k, it.src.id, a, true, it.src.accountId, { overdue }, why ? receivableWhy(p, it, k, prob, customerDist(p, it.src.contactId), shift) : undefined),
  );
  placeOpenItems(p, shift, emit, why);
  placePurchaseOrders(p, emit, why);
  for (const pt of p.points) {
    const day = pt.day + (pt.customer ? shift : 0);
    const k = weekOf(p, day);
    emit(k, pt.id, pt.amount, pt.inflow, pt.accountId, { statistical: pt.statistical }, why && k >= 0 ? pointWhy(p, pt, k, day) : undefined);
  }
  placeDaily(p, shift, emit, why);
  placeManual(p, [...p.input.manualItems, ...(adj.manualItems ?? [])], emit, why);
  return payloadOf(p, scenario, computedAt, weeks);
}

/** The week of a day: days before today in week 0 (overdue), -1 beyond the horizon. */
export function weekOf(p: PreparedForecast, day: number): number {
  const d = day < p.asOf ? p.asOf : day;
  if (d > p.end) return -1;
  return Math.floor((d - p.starts[0]!) / 7);
}

/** Every amount that moves a week lands in exactly one category: its account, else the category of its kind. */
function emitter(weeks: WeekAcc[], inF: Factor, outF: Factor, excluded: ReadonlySet<string>, items: ItemSink | undefined): Emit {
  return (k, id, amount, inflow, accountId, flags, why) => {
    if (k < 0 || excluded.has(id)) return;
    const a = flags.exact ? amount : scale(amount, inflow ? inF : outF);
    if (a.cents === 0 && (a.extra === null || a.extra.isZero())) return;
    if (items && why) items.add(k, id, inflow, a, why);
    const w = weeks[k]!;
    if (inflow) {
      w.inflow.add(a);
      if (flags.statistical) w.statistical.add(a);
    } else w.outflow.add(a);
    w.items.add(id);
    if (flags.overdue) w.overdue.add(id);
    if (flags.probability) w.probabilityWeighted = true;
    const key = accountId ?? flags.category ?? UNCATEGORISED;
    let c = w.categories.get(key);
    if (!c) w.categories.set(key, (c = { inflow: new Acc(), outflow: new Acc() }));
    (inflow ? c.inflow : c.outflow).add(a);
  };
}

/** The draft and submitted invoices (by their pipeline probability) and the open bills. */
function placeOpenItems(p: PreparedForecast, shift: number, emit: Emit, why: boolean): void {
  const { asOf } = p;
  for (const it of p.openItems) {
    const st = it.src.status;
    const id = it.src.id;
    if (it.ar) {
      if (st === 'DRAFT' || st === 'SUBMITTED') {
        const base = isPositive(dueOf(it)) ? dueOf(it) : totalOf(it);
        if (!isPositive(base)) continue;
        const weighted = scale(base, PIPELINE_FACTORS[st]);
        const day = pipelineDay(p, it) + shift;
        const k = weekOf(p, day);
        emit(k, id, weighted, true, it.src.accountId, { probability: true }, why && k >= 0 ? pipelineWhy(p, it, k, day, Number(PIPELINE_PROBABILITY[st]), shift) : undefined);
      }
    } else if (st === 'AUTHORISED' || st === 'DRAFT' || st === 'SUBMITTED') {
      const owed = st === 'AUTHORISED' ? owedOf(it) : dueOf(it);
      const base = isPositive(owed) ? owed : st === 'AUTHORISED' ? null : totalOf(it);
      if (!base || !isPositive(base)) continue;
      const due = it.due ?? it.issue ?? asOf;
      const k = weekOf(p, due + p.orgBillDelay);
      emit(k, id, base, false, it.src.accountId, { overdue: due < asOf }, why && k >= 0 ? billWhy(p, it, k, due) : undefined);
    }
  }
}

/** The day a draft or submitted invoice is expected to be paid, if it is issued: its due date (or today plus the customer's terms) plus the customer's usual delay. */
export function pipelineDay(p: PreparedForecast, it: PItem): number {
  const c = it.src.contactId ?? '';
  const own = p.customerDelays.get(c) ?? [];
  const delay = own.length >= MIN_OWN_HISTORY ? median(own.slice(-12)) : p.orgArDelayMedian;
  const due = it.due !== null && it.due >= p.asOf ? it.due : p.asOf + (p.arTerms.get(c) ?? p.orgArTerms);
  return due + delay;
}

/** The day an open purchase order's bill is expected to be paid, before the organisation's bill delay: arrival plus the supplier's terms. */
export function orderDueDay(p: PreparedForecast, po: PurchaseOrder): number {
  const d = po.expectedArrivalDate ?? po.deliveryDate ?? po.issueDate;
  const arrival = d ? toDay(d) : p.asOf;
  const terms = (po.contactId ? p.apTerms.get(po.contactId) : undefined) ?? p.orgApTerms;
  return arrival + terms;
}

/** The open purchase orders no bill matches: a bill expected on arrival, paid after the supplier's terms. */
function placePurchaseOrders(p: PreparedForecast, emit: Emit, why: boolean): void {
  for (const po of p.input.purchaseOrders) {
    if (po.status !== 'AUTHORISED' || p.poReasons.get(po.id)) continue;
    const total = amountOf(po.total);
    if (!isPositive(total)) continue;
    const day = orderDueDay(p, po) + p.orgBillDelay;
    const k = weekOf(p, day);
    emit(k, po.id, total, false, null, { category: PURCHASE_ORDERS }, why && k >= 0 ? orderWhy(p, po, k, day) : undefined);
  }
}

/**
 * The statistical series: each day's expected money, moved by its lags
 * (shared equally), summed per week and rounded to cents; with `collect`,
 * each week's mean day too (the items' expected date).
 */
function placeDaily(p: PreparedForecast, shift: number, emit: Emit, collect: boolean): void {
  for (const dp of p.daily) {
    const dayWeights = collect ? new Float64Array(WEEKS) : undefined;
    const perWeek = dailyPerWeek(p, dp, shift, dayWeights);
    for (let k = 0; k < WEEKS; k++) {
      const c = Math.round(perWeek[k]! * 100);
      // forecastInflow is the hazard model's predicted purchases only (spec 2.3); recurring series and run-rates of bank receipts are guaranteed.
      if (c > 0) {
        const why = dayWeights ? dailyWhy(p, dp, k, perWeek[k]!, dayWeights[k]! / perWeek[k]!) : undefined;
        emit(k, dp.id, { cents: c, extra: null }, dp.inflow, dp.accountId, { statistical: dp.inflow && dp.customer }, why);
      }
    }
  }
}

/**
 * A statistical series' expected money per week: each day's value moved by
 * its lags (shared equally). With `dayWeights`, also each week's sum of
 * money times day (its mean day is that over the week's money).
 */
export function dailyPerWeek(p: PreparedForecast, dp: DailyPrediction, shift: number, dayWeights?: Float64Array): Float64Array {
  const { asOf, starts, end } = p;
  const extra = dp.customer ? shift : 0;
  const lags = dp.lags ?? [dp.lag];
  const share = 1 / lags.length;
  const perWeek = new Float64Array(WEEKS);
  for (let u = 1; u < dp.values.length; u++) {
    const v = dp.values[u]!;
    if (v === 0) continue;
    for (const lag of lags) {
      // A scenario paid sooner (a negative shift) pays an order on its day at the soonest, never before it is placed.
      const day = dp.base + u + Math.max(0, lag + extra);
      if (day < asOf || day > end) continue;
      const k = Math.floor((day - starts[0]!) / 7);
      perWeek[k]! += v * share;
      if (dayWeights) dayWeights[k]! += v * share * day;
    }
  }
  return perWeek;
}

/** The organisation's and the scenario's manual lines (signed: positive in). */
function placeManual(p: PreparedForecast, manual: readonly ManualItem[], emit: Emit, why: boolean): void {
  for (const m of manual) {
    const a = amountOf(m.amount);
    const inflow = isPositive(a);
    const abs = inflow ? a : amountOf(toDec(a).neg());
    if (!isPositive(abs)) continue;
    const k = weekOf(p, toDay(m.date));
    emit(k, m.id, abs, inflow, m.accountId ?? null, { category: MANUAL, ...(m.exact ? { exact: true } : {}) }, why && k >= 0 ? manualWhy(p, m, k) : undefined);
  }
}

/** The weeks added up, exactly, from the opening cash, their totals (totals.ts), and the payload with its notes. */
function payloadOf(p: PreparedForecast, scenario: Scenario, computedAt: Date, weeks: readonly WeekAcc[]): ForecastPayload {
  const opening0 = dec(p.cash.effectiveStartingCash);
  let opening = opening0;
  const out: ForecastWeek[] = weeks.map((w, k) => {
    const { week, closing } = weekOut(p, w, k, opening);
    opening = closing;
    return week;
  });
  const startingCash = canonical(opening0);
  const payload: ForecastPayload = {
    engineVersion: ENGINE_VERSION,
    scenarioId: scenario.id,
    scenarioName: scenario.name,
    scenarioKind: scenario.kind,
    computedAt: computedAt.toISOString(),
    asOfDate: p.input.asOf,
    currency: p.input.currency,
    weeks: out,
    startingCash,
    ...horizonTotals(startingCash, out),
    notesForAgent: [],
    cashPosition: p.cash,
  };
  payload.notesForAgent = buildNotes(p, payload);
  return payload;
}

/** Week k from its opening cash: the week's text, and its sums. */
function weekOut(p: PreparedForecast, w: WeekAcc, k: number, opening: Dec): { week: ForecastWeek; inflow: Dec; outflow: Dec; closing: Dec } {
  const inflow = w.inflow.value;
  const outflow = w.outflow.value;
  const statistical = w.statistical.value;
  const net = inflow.minus(outflow);
  const closing = opening.plus(net);
  const accounts: Record<string, CategoryEntry> = {};
  for (const id of [...w.categories.keys()].sort(cmpStr)) {
    const c = w.categories.get(id)!;
    const acc = p.input.accounts[id];
    accounts[id] = { name: acc?.name ?? KIND_CATEGORY_NAMES[id] ?? id, code: acc?.code ?? null, inflow: canonical(c.inflow.value), outflow: canonical(c.outflow.value) };
  }
  const week: ForecastWeek = {
    weekStart: fromDay(p.starts[k]!),
    weekEnd: fromDay(p.ends[k]!),
    opening: canonical(opening),
    inflow: canonical(inflow),
    guaranteedInflow: canonical(inflow.minus(statistical)),
    forecastInflow: canonical(statistical),
    outflow: canonical(outflow),
    net: canonical(net),
    closing: canonical(closing),
    itemIds: [...w.items].sort(cmpStr),
    overdueItemIds: [...w.overdue].sort(cmpStr),
    probabilityWeighted: w.probabilityWeighted,
    categories: { accounts },
  };
  return { week, inflow, outflow, closing };
}

/**
 * Places every open AUTHORISED receivable: the probability of being paid in
 * each week given the customer's delays and that it is not paid yet, times
 * what is due (docs/forecast.md#when-customers-pay).
 */
export function forEachOpenReceivable(p: PreparedForecast, shift: number, put: (it: PItem, week: number, a: Amount, overdue: boolean, probability: number) => void): void {
  for (const it of p.openItems) {
    if (!it.ar || it.src.status !== 'AUTHORISED' || !isPositive(owedOf(it))) continue;
    const due = it.due ?? it.issue ?? p.asOf;
    const probs = paymentProbabilities(customerDist(p, it.src.contactId), due, p.asOf, shift, p.starts, p.ends);
    spread(owedOf(it), probs, (k, a) => put(it, k, a, due < p.asOf, probs[k]!));
  }
}

export function customerDist(p: PreparedForecast, contactId: string | null): DelayDist {
  if (!contactId) return p.orgDelay;
  let d = p.distCache.get(contactId);
  if (!d) {
    const own = p.customerDelays.get(contactId) ?? [];
    p.priors ??= customerPriors(p.orgDelay, p.customerDelays);
    const { prior, share } = p.priors.forCustomer(own);
    d = customerDelayDist(prior, own, share);
    p.distCache.set(contactId, d);
  }
  return d;
}

/**
 * Splits an amount over the weeks by probability: the expected amount within
 * the horizon (amount x total probability, rounded to cents: an expectation,
 * so whole cents) is shared by largest remainder, so the parts add up exactly
 * to it.
 */
function spread(amount: Amount, probs: Float64Array, put: (k: number, a: Amount) => void): void {
  let total = 0;
  for (let k = 0; k < probs.length; k++) total += probs[k]!;
  if (total <= 0) return;
  const whole = amount.extra === null ? amount : roundToCents(toDec(amount));
  if (Math.abs(whole.cents) < 2 ** 50 && whole.extra === null) {
    const expected = Math.round(whole.cents * Math.min(1, total));
    const parts = splitByWeights(expected, probs);
    for (let k = 0; k < parts.length; k++) if (parts[k] !== 0) put(k, { cents: parts[k]!, extra: null });
    return;
  }
  // Beyond exact integer cents (over ten trillion): exact decimal shares.
  const exp = toDec(amount).times(Math.min(1, total)).toDecimalPlaces(2);
  let given = new D(0);
  let last = -1;
  for (let k = 0; k < probs.length; k++) if (probs[k]! > 0) last = k;
  for (let k = 0; k <= last; k++) {
    if (!(probs[k]! > 0)) continue;
    const part = k === last ? exp.minus(given) : exp.times(probs[k]! / total).toDecimalPlaces(2, D.ROUND_DOWN);
    given = given.plus(part);
    put(k, roundToCents(part));
  }
}
