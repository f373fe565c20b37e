/**
 * The 13-week cash forecast engine (pure; docs/forecast.md). `prepareForecast`
 * learns the organisation's behaviour once (payment delays, terms, cadences,
 * repeat purchases, purchase-order matches); `projectForecast` places every
 * expected movement of one scenario into the weeks and adds them up exactly.
 */
import { D, canonical, dec, type Dec } from '../money.js';
import {
  customerDelayDist,
  median,
  MIN_OWN_HISTORY,
  paymentProbabilities,
  type DelayDist,
} from './behaviour.js';
import { Acc, amountOf, factorOf, isPositive, roundToCents, scale, splitByWeights, toDec, toF, type Amount, type Factor } from './cents.js';
import { cmpStr } from './compare.js';
import { learnTerms } from './terms.js';
import { matchedOrders, openOrderDays } from './po-matching.js';
import { salesFacts } from './seasonality.js';
import { scheduledPoints } from './scheduled-points.js';
import { predictCustomers } from './customers.js';
import { RUN_RATE_WINDOW, runRatePrediction } from './run-rate.js';
import { churnPerGap, SERIES_STOP_RATE } from './churn.js';
import { dueOf, openDocuments, owedOf, parseItem, totalOf } from './open-items.js';
import { fromDay, mondayOf, toDay } from './days.js';
import { cashPosition } from './opening.js';
import { detectCadence, isActive, nextOccurrences } from './recurring.js';
import { LOOKBACK, summariseHistory } from './history.js';
import { gapModel, renewalDensity } from './renewal.js';
import type { CategoryEntry, ForecastInput, ForecastPayload, ForecastWeek, ManualItem, Scenario, ScenarioAdjustments } from './types.js';
import { buildNotes } from '../insights/engine.js';
import type { DailyPrediction, PItem, PointPrediction, PreparedForecast } from './prepared.js';


/** Snapshots of engine version 1 had no guaranteedInflow/forecastInflow split. */
export const ENGINE_VERSION = 2;
export const WEEKS = 13;

/** Probability that a draft or submitted invoice is issued and paid (pipeline). */
export const PIPELINE_PROBABILITY = { DRAFT: '0.5', SUBMITTED: '0.8' } as const;
/** A series without a calendar cadence is projected by its renewal model when it had this many events in the last 180 days. */
const FREQUENT_EVENTS = 6;

// ---------------------------------------------------------------------------
// Parsed inputs (their types: prepared.ts)
// ---------------------------------------------------------------------------



// ---------------------------------------------------------------------------
// prepare
// ---------------------------------------------------------------------------

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

  // --- suppliers' bills and bank transactions: recurring series
  interface Ev {
    day: number;
    amount: Amount;
    accountId: string | null;
  }
  const series = new Map<string, { inflow: boolean; lag: number; events: Ev[]; bill: boolean }>();
  const push = (key: string, inflow: boolean, lag: number, bill: boolean, ev: Ev) => {
    const s = series.get(key);
    if (s) s.events.push(ev);
    else series.set(key, { inflow, lag, events: [ev], bill });
  };
  // Bills per supplier and day (history.ts), with the account of the supplier's latest bill.
  for (const [c, { days, totals, accountId }] of history.bills) {
    if (scheduledSuppliers.has(c)) continue;
    const lag = (apTerms.get(c) ?? orgApTerms) + orgBillDelay;
    days.forEach((day, i) => push(`bill:${c}`, false, lag, true, { day, amount: amountOf(totals[i]!), accountId }));
  }
  const openPoDays = openOrderDays(input.purchaseOrders, poReasons);
  const billContacts = new Set<string>(scheduledSuppliers);
  for (const t of input.bankTxns) {
    const day = toDay(t.date);
    if (day > asOf || asOf - day > LOOKBACK) continue;
    const a = amountOf(t.amount);
    const inflow = isPositive(a);
    const who = t.contactId ?? `ref:${normRef(t.reference)}`;
    push(`bank:${inflow ? 'in' : 'out'}:${who}:${t.accountId ?? ''}`, inflow, 0, false, {
      day,
      amount: inflow ? a : { cents: -a.cents || 0, extra: a.extra ? a.extra.neg() : null },
      accountId: t.accountId,
    });
  }
  const modelledBills = new Set<string>();
  const otherBills: number[] = [];
  let otherBillsAccount: string | null = null;
  const otherBankIn: number[] = [];
  const otherBankOut: number[] = [];
  let otherBankInAccount: string | null = null;
  let otherBankOutAccount: string | null = null;
  // Bill series first: a contact whose bills recur is not also projected from its bank transactions.
  const seriesOrder = [...series.keys()].sort((a, b) => (a.startsWith('bill:') === b.startsWith('bill:') ? cmpStr(a, b) : a.startsWith('bill:') ? -1 : 1));
  for (const key of seriesOrder) {
    const s = series.get(key)!;
    const contact = s.bill ? key.slice(5) : null;
    if (!s.bill && key.split(':')[2] && billContacts.has(key.split(':')[2]!)) continue;
    s.events.sort((a, b) => a.day - b.day);
    const days: number[] = [];
    const amounts: Ev[] = [];
    for (const e of s.events) {
      if (days.length && days[days.length - 1] === e.day) {
        const prev = amounts[amounts.length - 1]!;
        amounts[amounts.length - 1] = { ...prev, amount: addAmounts(prev.amount, e.amount) };
      } else {
        days.push(e.day);
        amounts.push(e);
      }
    }
    const poDay = contact ? openPoDays.get(contact) : undefined;
    const lastKnown = Math.max(days[days.length - 1]!, poDay ?? -Infinity);
    const match = detectCadence(days);
    const lastEv = amounts[amounts.length - 1]!;
    if (match && isActive(days[days.length - 1]!, asOf, match.period)) {
      if (contact) billContacts.add(contact);
      modelledBills.add(key);
      const recent = amounts
        .slice(-3)
        .map((e) => ({ day: e.day, amount: e.amount }))
        .sort((a, b) => toDec(a.amount).comparedTo(toDec(b.amount)) || a.day - b.day);
      const amount = recent[(recent.length - 1) >> 1]!.amount;
      // Cash moves `lag` days after the event; an event after the last known one (a bill or an open order).
      const anchor = [...days];
      if (poDay !== undefined && poDay > anchor[anchor.length - 1]!) anchor.push(poDay);
      for (const d of nextOccurrences(anchor, match, asOf, end - s.lag)) {
        points.push({
          id: `recurring:${key}`,
          inflow: s.inflow,
          day: d + s.lag,
          amount,
          accountId: lastEv.accountId,
          statistical: false,
        });
      }
      continue;
    }
    const recentEvents = days.filter((d) => asOf - d <= 180).length;
    if (recentEvents >= FREQUENT_EVENTS) {
      const gaps: number[] = [];
      for (let i = Math.max(1, days.length - 13); i < days.length; i++) gaps.push(days[i]! - days[i - 1]!);
      const model = gapModel(gaps);
      const med = median(gaps);
      if (model && asOf - lastKnown <= 3 * Math.max(med, 7)) {
        if (contact) billContacts.add(contact);
        modelledBills.add(key);
        const base = Math.max(lastKnown, asOf);
        const H = end - base;
        if (H > 0) {
          const m = renewalDensity(model, base - lastKnown, H, churnPerGap(SERIES_STOP_RATE, med));
          const recent = amounts.slice(-6);
          const level = recent.reduce((a, e) => a + toF(e.amount), 0) / recent.length;
          const values = new Float64Array(H + 1);
          for (let u = 1; u <= H; u++) values[u] = m[u]! * level;
          daily.push({ id: `recurring:${key}`, inflow: s.inflow, base, values, lag: s.lag, customer: false, accountId: lastEv.accountId });
        }
        continue;
      }
    }
    // Not modelled: its recent events join the run-rate of the rest.
    for (const e of amounts) {
      if (asOf - e.day > RUN_RATE_WINDOW) continue;
      const v = toF(e.amount);
      if (s.bill) {
        otherBills.push(v);
        otherBillsAccount ??= e.accountId;
      } else if (s.inflow) {
        otherBankIn.push(v);
        otherBankInAccount ??= e.accountId;
      } else {
        otherBankOut.push(v);
        otherBankOutAccount ??= e.accountId;
      }
    }
  }
  const runRate = (id: string, events: number[], inflow: boolean, lag: number, accountId: string | null) => {
    const r = runRatePrediction(id, events, inflow, lag, accountId, asOf, end);
    if (r) daily.push(r);
  };
  runRate('predicted:other-bills', otherBills, false, orgApTerms + orgBillDelay, otherBillsAccount);
  runRate('predicted:other-receipts', otherBankIn, true, 0, otherBankInAccount);
  runRate('predicted:other-spending', otherBankOut, false, 0, otherBankOutAccount);

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

function addAmounts(a: Amount, b: Amount): Amount {
  const c = a.cents + b.cents;
  if (Number.isSafeInteger(c) && !a.extra && !b.extra) return { cents: c, extra: null };
  return amountOf(toDec(a).plus(toDec(b)));
}

function normRef(s: string | null): string {
  return (s ?? '')
    .toLowerCase()
    .replace(/[0-9]+/g, '#')
    .replace(/[^a-z#]+/g, ' ')
    .trim()
    .slice(0, 40);
}


// ---------------------------------------------------------------------------
// project
// ---------------------------------------------------------------------------

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

export function projectForecast(p: PreparedForecast, scenario: Scenario, computedAt: Date): ForecastPayload {
  const adj = scenario.adjustments ?? {};
  const inF = parseFactor(adj.inflowFactor);
  const outF = parseFactor(adj.outflowFactor);
  const shift = Math.trunc(adj.paymentDelayShiftDays ?? 0);
  const excluded = new Set(adj.excludedItemIds ?? []);
  const { asOf, starts, ends, end } = p;
  const weeks: WeekAcc[] = starts.map(() => ({
    inflow: new Acc(),
    statistical: new Acc(),
    outflow: new Acc(),
    items: new Set(),
    overdue: new Set(),
    probabilityWeighted: false,
    categories: new Map(),
  }));
  const weekOf = (day: number) => {
    const d = day < asOf ? asOf : day;
    if (d > end) return -1;
    return Math.floor((d - starts[0]!) / 7);
  };
  // Every amount that moves a week lands in exactly one category: its account, else the category of its kind.
  const emit = (
    k: number,
    id: string,
    amount: Amount,
    inflow: boolean,
    accountId: string | null,
    flags: { statistical?: boolean; overdue?: boolean; probability?: boolean; category?: string } = {},
  ) => {
    if (k < 0 || excluded.has(id)) return;
    const a = scale(amount, inflow ? inF : outF);
    if (a.cents === 0 && (a.extra === null || a.extra.isZero())) return;
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

  forEachOpenReceivable(p, shift, (it, k, a, overdue) => emit(k, it.src.id, a, true, it.src.accountId, { overdue }));
  for (const it of p.openItems) {
    const st = it.src.status;
    const id = it.src.id;
    if (it.ar) {
      if (st === 'DRAFT' || st === 'SUBMITTED') {
        const base = isPositive(dueOf(it)) ? dueOf(it) : totalOf(it);
        if (!isPositive(base)) continue;
        const c = it.src.contactId ?? '';
        const own = p.customerDelays.get(c) ?? [];
        const delay = own.length >= MIN_OWN_HISTORY ? median(own.slice(-12)) : p.orgArDelayMedian;
        const due = it.due !== null && it.due >= asOf ? it.due : asOf + (p.arTerms.get(c) ?? p.orgArTerms);
        const weighted = scale(base, PIPELINE_FACTORS[st]);
        emit(weekOf(due + delay + shift), id, weighted, true, it.src.accountId, { probability: true });
      }
    } else if (st === 'AUTHORISED' || st === 'DRAFT' || st === 'SUBMITTED') {
      const owed = st === 'AUTHORISED' ? owedOf(it) : dueOf(it);
      const base = isPositive(owed) ? owed : st === 'AUTHORISED' ? null : totalOf(it);
      if (!base || !isPositive(base)) continue;
      const due = it.due ?? it.issue ?? asOf;
      emit(weekOf(due + p.orgBillDelay), id, base, false, it.src.accountId, { overdue: due < asOf });
    }
  }

  for (const po of p.input.purchaseOrders) {
    if (po.status !== 'AUTHORISED' || p.poReasons.get(po.id)) continue;
    const total = amountOf(po.total);
    if (!isPositive(total)) continue;
    const d = po.expectedArrivalDate ?? po.deliveryDate ?? po.issueDate;
    const arrival = d ? toDay(d) : asOf;
    const terms = (po.contactId ? p.apTerms.get(po.contactId) : undefined) ?? p.orgApTerms;
    emit(weekOf(arrival + terms + p.orgBillDelay), po.id, total, false, null, { category: PURCHASE_ORDERS });
  }

  for (const pt of p.points) emit(weekOf(pt.day + (pt.customer ? shift : 0)), pt.id, pt.amount, pt.inflow, pt.accountId, { statistical: pt.statistical });

  for (const dp of p.daily) {
    const extra = dp.customer ? shift : 0;
    const lags = dp.lags ?? [dp.lag];
    const share = 1 / lags.length;
    const perWeek = new Float64Array(WEEKS);
    for (let u = 1; u < dp.values.length; u++) {
      const v = dp.values[u]!;
      if (v === 0) continue;
      for (const lag of lags) {
        const day = dp.base + u + lag + extra;
        if (day < asOf || day > end) continue;
        perWeek[Math.floor((day - starts[0]!) / 7)]! += v * share;
      }
    }
    for (let k = 0; k < WEEKS; k++) {
      const c = Math.round(perWeek[k]! * 100);
      // forecastInflow is the hazard model's predicted purchases only (spec 2.3); recurring series and run-rates of bank receipts are guaranteed.
      if (c > 0) emit(k, dp.id, { cents: c, extra: null }, dp.inflow, dp.accountId, { statistical: dp.inflow && dp.customer });
    }
  }

  const manual: ManualItem[] = [...p.input.manualItems, ...(adj.manualItems ?? [])];
  for (const m of manual) {
    const a = amountOf(m.amount);
    const inflow = isPositive(a);
    const abs = inflow ? a : amountOf(toDec(a).neg());
    if (!isPositive(abs)) continue;
    emit(weekOf(toDay(m.date)), m.id, abs, inflow, m.accountId ?? null, { category: MANUAL });
  }

  // --- add up, exactly
  const opening0 = dec(p.cash.effectiveStartingCash);
  let opening = opening0;
  let totalIn = new D(0);
  let totalOut = new D(0);
  let minClosing: Dec | null = null;
  let minIndex = 0;
  const out: ForecastWeek[] = weeks.map((w, k) => {
    const inflow = w.inflow.value;
    const outflow = w.outflow.value;
    const statistical = w.statistical.value;
    const net = inflow.minus(outflow);
    const closing = opening.plus(net);
    totalIn = totalIn.plus(inflow);
    totalOut = totalOut.plus(outflow);
    if (minClosing === null || closing.lt(minClosing)) {
      minClosing = closing;
      minIndex = k;
    }
    const accounts: Record<string, CategoryEntry> = {};
    for (const id of [...w.categories.keys()].sort(cmpStr)) {
      const c = w.categories.get(id)!;
      const acc = p.input.accounts[id];
      accounts[id] = { name: acc?.name ?? KIND_CATEGORY_NAMES[id] ?? id, code: acc?.code ?? null, inflow: canonical(c.inflow.value), outflow: canonical(c.outflow.value) };
    }
    const week: ForecastWeek = {
      weekStart: fromDay(starts[k]!),
      weekEnd: fromDay(ends[k]!),
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
    opening = closing;
    return week;
  });
  const payload: ForecastPayload = {
    engineVersion: ENGINE_VERSION,
    scenarioId: scenario.id,
    scenarioName: scenario.name,
    scenarioKind: scenario.kind,
    computedAt: computedAt.toISOString(),
    asOfDate: p.input.asOf,
    currency: p.input.currency,
    weeks: out,
    startingCash: canonical(opening0),
    endingCash: canonical(opening),
    minClosingCash: canonical(minClosing ?? opening0),
    minClosingCashWeekIndex: minIndex,
    totalInflow: canonical(totalIn),
    totalOutflow: canonical(totalOut),
    notesForAgent: [],
    cashPosition: p.cash,
  };
  payload.notesForAgent = buildNotes(p, payload);
  return payload;
}

/**
 * Places every open AUTHORISED receivable: the probability of being paid in
 * each week given the customer's delays and that it is not paid yet, times
 * what is due (docs/forecast.md#when-customers-pay).
 */
export function forEachOpenReceivable(p: PreparedForecast, shift: number, put: (it: PItem, week: number, a: Amount, overdue: boolean) => void): void {
  for (const it of p.openItems) {
    if (!it.ar || it.src.status !== 'AUTHORISED' || !isPositive(owedOf(it))) continue;
    const due = it.due ?? it.issue ?? p.asOf;
    const probs = paymentProbabilities(customerDist(p, it.src.contactId), due, p.asOf, shift, p.starts, p.ends);
    spread(owedOf(it), probs, (k, a) => put(it, k, a, due < p.asOf));
  }
}

function customerDist(p: PreparedForecast, contactId: string | null): DelayDist {
  if (!contactId) return p.orgDelay;
  let d = p.distCache.get(contactId);
  if (!d) {
    d = customerDelayDist(p.orgDelay, p.customerDelays.get(contactId) ?? []);
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

/** Runs every scenario on one prepared model. */
export function runForecast(input: ForecastInput, scenarios: readonly Scenario[], computedAt: Date): { prepared: PreparedForecast; payloads: ForecastPayload[] } {
  const prepared = prepareForecast(input);
  return { prepared, payloads: scenarios.map((s) => projectForecast(prepared, s, computedAt)) };
}
