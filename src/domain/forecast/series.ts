/**
 * Suppliers' bills and bank transactions as series (docs/forecast.md, "What
 * goes into the weeks"): a series with a calendar cadence is projected by its
 * next occurrences (recurring.ts), a frequent one without a cadence by its
 * renewal model (renewal.ts), and the recent events of the rest join the
 * run-rates of other bills, receipts and spending (run-rate.ts).
 */
import { fiveQuantiles, median } from './behaviour.js';
import { lowerBound, upperBound } from './sorted.js';
import { accruals, combinedAccrual, owedBack, settledWords, settlementModel, SUCCEEDED_AFTER, type Accrual, type SettlementModel } from './liabilities.js';
import { amountOf, isPositive, toDec, toF, type Amount } from './cents.js';
import { churnPerGap, SERIES_STOP_RATE } from './churn.js';
import { cmpStr } from './compare.js';
import { addMonths, dayOfMonth, fromDay, toDay } from './days.js';
import type { SeriesWhy } from './items.js';
import { LOOKBACK } from './history.js';
import { openOrderDays, orderLeadTimes, type OrderLeads } from './po-matching.js';
import type { DailyPrediction, PointPrediction } from './prepared.js';
import type { SuppressedReason } from './purchase-orders.js';
import { CADENCES, detectCadence, isActive, isActiveLimit, nextOccurrences, type CadenceMatch } from './recurring.js';
import { gapModel, renewalDensity } from './renewal.js';
import { flowForecast, pausesOf } from './flows.js';
import { RUN_RATE_WINDOW, runRateCounted, runRatePrediction } from './run-rate.js';
import { relativeSpread } from './spread.js';
import type { Terms } from './terms.js';
import type { BankTxn, ForecastInput, LedgerHistory } from './types.js';

/** A series without a calendar cadence is projected by its renewal model when it had this many events in the last 180 days. */
const FREQUENT_EVENTS = 6;

interface Ev {
  day: number;
  amount: Amount;
  accountId: string | null;
  /** The liability accounts (ids joined by '+', sorted) a bank transaction split over two or more of them pays. */
  settles?: string;
}

interface Series {
  inflow: boolean;
  /** A bank series coded to liability accounts (with journals): its direction and contact, and those accounts (succeeded). */
  pays?: { who: string; accounts: readonly string[] };
  /** Days from an event to its cash (bills: terms plus the organisation's delay). */
  lag: number;
  events: Ev[];
  bill: boolean;
}

/** A series' events added up per day, in day order. */
interface ByDay {
  days: number[];
  amounts: Ev[];
}

/** What every series' projection shares: the horizon and where predictions go. */
interface SeriesContext {
  asOf: number;
  end: number;
  daily: DailyPrediction[];
  points: PointPrediction[];
}

/** The recent events' values of the series no model projects, each one's lag (its series'), with the first account seen. */
interface Rest {
  values: number[];
  lags: number[];
  accountId: string | null;
}

/**
 * Adds the predictions of the bills' and bank transactions' series to `out`
 * (the `scheduled` suppliers' bills left out: their schedules predict them),
 * then the run-rates of the rest.
 */
export function predictSeries(
  input: ForecastInput,
  history: LedgerHistory,
  terms: Terms,
  scheduled: ReadonlySet<string>,
  poReasons: Map<string, SuppressedReason | null>,
  ctx: SeriesContext,
): void {
  const { asOf, end } = ctx;
  const liabilities = accruals(input.liabilityLines);
  const series = collectSeries(history, input.bankTxns, terms, scheduled, liabilities, asOf);
  const openPoDays = openOrderDays(input.purchaseOrders, poReasons);
  const leadTimes = orderLeadTimes(input.purchaseOrders, poReasons, input.items, history.bills, asOf);
  const billContacts = new Set<string>(scheduled);
  const unapproved = new Set(input.items.filter((it) => it.kind === 'AP' && (it.status === 'DRAFT' || it.status === 'SUBMITTED') && it.contactId).map((it) => it.contactId!));
  const bills: Rest = { values: [], lags: [], accountId: null };
  const bankIn: Rest = { values: [], lags: [], accountId: null };
  const bankOut: Rest = { values: [], lags: [], accountId: null };
  // Bill series first: a contact whose bills recur is not also projected from its bank transactions.
  const seriesOrder = [...series.keys()].sort((a, b) => (a.startsWith('bill:') === b.startsWith('bill:') ? cmpStr(a, b) : a.startsWith('bill:') ? -1 : 1));
  // Payments that settle a liability account: their periods say when and how much (liabilities.ts). Not a supplier with a bill not
  // yet approved: it is among its bills but has not touched the account (the draft a published activity statement leaves).
  const models = new Map<string, { events: ByDay; settles: ReturnType<typeof settlementOf> }>();
  for (const key of seriesOrder) {
    const s = series.get(key)!;
    const events = byDay(s.events);
    models.set(key, { events, settles: s.bill && unapproved.has(key.slice(5)) ? null : settlementOf(s, events, liabilities, asOf) });
  }
  // The accounts a series still paying settles: a series whose last periods were paid by one of them is over (succeeded).
  // (Per direction: a series of refunds pays nothing of what a series of payments settles.)
  const paying = new Set(
    [...models].flatMap(([key, m]) => (m.settles && m.settles.paidElsewhere < SUCCEEDED_AFTER ? m.settles.accountId.split('+').map((id) => `${series.get(key)!.inflow}:${id}`) : [])),
  );
  for (const key of seriesOrder) {
    const s = series.get(key)!;
    const contact = s.bill ? key.slice(5) : null;
    if (!s.bill && key.split(':')[2] && billContacts.has(key.split(':')[2]!)) continue;
    const { events, settles } = models.get(key)!;
    const poDay = contact ? openPoDays.get(contact) : undefined;
    if (settles && settles.paidElsewhere >= SUCCEEDED_AFTER && settles.accountId.split('+').some((id) => paying.has(`${s.inflow}:${id}`))) continue;
    if (settles) {
      const names = settles.accountId.split('+').map((id) => input.accounts[id]?.name ?? 'the account');
      settledPoints(key, s, events, settles, names.length > 1 ? `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}` : names[0]!, ctx);
      if (contact) billContacts.add(contact);
      continue;
    }
    // Money most days (a card processor's payouts): per open day, on the days the business is open (flows.ts).
    if (!s.bill && flowSeries(key, s, events, ctx)) continue;
    if (cadencePoints(key, s, events, poDay, ctx, detectCadence) || renewalSeries(key, s, events, poDay, contact ? leadTimes.get(contact) : undefined, ctx)) {
      if (contact) billContacts.add(contact);
      continue;
    }
    // A few a year (the yearly pattern, loose quarters): its contact's bank series stay its own (a telephone company's
    // yearly bill says nothing of its monthly direct debits).
    if (yearlyPoints(key, s, events, poDay, ctx) || cadencePoints(key, s, events, poDay, ctx, looseQuarters)) continue;
    // Not modelled: its recent events join the run-rate of the rest.
    const rest = s.bill ? bills : s.inflow ? bankIn : bankOut;
    for (const e of events.amounts) {
      if (asOf - e.day > RUN_RATE_WINDOW) continue;
      rest.values.push(toF(e.amount));
      rest.lags.push(s.lag);
      rest.accountId ??= e.accountId;
    }
  }
  const runRate = (id: string, rest: Rest, inflow: boolean, what: string) => {
    // Each event is paid as its own series is (a bill: its supplier's terms and the business's bill delay), not at one lag for all;
    // weighed by its money as the rate counts it (one-offs above 10 times the median capped).
    const lags = rest.lags.length ? fiveQuantiles(rest.lags, runRateCounted(rest.values)) : [0];
    const [lo, hi] = [lags[0]!, lags[4]!];
    const paid = hi > 0 ? `, paid ${lo === hi ? `${lo} days` : lo === 0 ? `up to ${hi} days` : `${lo}-${hi} days`} later (each supplier's terms and the business's bill delay)` : '';
    const reason = `run-rate of ${what} no series models: the last ${RUN_RATE_WINDOW} days' total (one-offs above 10 times the median capped), spread evenly${paid}`;
    const r = runRatePrediction(id, rest.values, inflow, lags, rest.accountId, asOf, end, { kind: 'run_rate', documentId: null, contactId: null, reasonCode: 'run_rate', reason });
    if (r) ctx.daily.push(r);
  };
  runRate('predicted:other-bills', bills, false, 'the bills');
  runRate('predicted:other-receipts', bankIn, true, 'the bank receipts');
  runRate('predicted:other-spending', bankOut, false, 'the bank spending');
}

/** The series: bills per supplier (history.ts), bank transactions per direction, contact (or reference) and account. */
function collectSeries(
  history: LedgerHistory,
  bankTxns: readonly BankTxn[],
  terms: Terms,
  scheduled: ReadonlySet<string>,
  liabilities: ReadonlyMap<string, Accrual>,
  asOf: number,
): Map<string, Series> {
  const series = new Map<string, Series>();
  const push = (key: string, inflow: boolean, lag: number, bill: boolean, ev: Ev, pays?: Series['pays']) => {
    const s = series.get(key);
    if (s) s.events.push(ev);
    else series.set(key, { inflow, lag, events: [ev], bill, ...(pays ? { pays } : {}) });
  };
  // Bills per supplier and day (history.ts), with the account of the supplier's latest bill.
  for (const [c, { days, totals, accountId, accountIds }] of history.bills) {
    if (scheduled.has(c)) continue;
    const lag = (terms.apTerms.get(c) ?? terms.orgApTerms) + terms.orgBillDelay;
    const settles = splitOver(accountIds, liabilities);
    days.forEach((day, i) => push(`bill:${c}`, false, lag, true, { day, amount: amountOf(totals[i]!), accountId, ...(settles ? { settles } : {}) }));
  }
  for (const t of bankTxns) {
    const day = toDay(t.date);
    if (day > asOf || asOf - day > LOOKBACK) continue;
    const a = amountOf(t.amount);
    const inflow = isPositive(a);
    const who = t.contactId ?? `ref:${normRef(t.reference)}`;
    // Split over two or more liability accounts: a series of its own, that may settle them together (whatever the lines' order).
    const settles = splitOver(t.accountIds, liabilities);
    const paid = settles ? settles.split('+') : t.accountId && liabilities.has(t.accountId) ? [t.accountId] : null;
    const direction = inflow ? 'in' : 'out';
    push(
      `bank:${direction}:${who}:${settles ?? t.accountId ?? ''}`,
      inflow,
      0,
      false,
      {
        day,
        amount: inflow ? a : { cents: -a.cents || 0, extra: a.extra ? a.extra.neg() : null },
        accountId: t.accountId,
        ...(settles ? { settles } : {}),
      },
      paid ? { who: `${direction}:${who}`, accounts: paid } : undefined,
    );
  }
  joinSuccessions(series, liabilities, asOf);
  return series;
}

/**
 * A contact's bank series that paid liability accounts and ended before
 * another of its series (the same direction) began paying those accounts
 * and more is that one's beginning, when together they settle what the
 * later pays (liabilities.ts): the business changed how it codes the
 * payment (its first employee: the GST return's transaction split over GST
 * and the tax withheld from then on). Its events join the later series.
 * Apart, the earlier would go on paying its account (each period settled
 * another way, by the later) beside the later, which pays it too. Not
 * joined: a later series paying fewer accounts (the tax withheld paid apart
 * from then on), one whose latest payment settles no period of them (a
 * one-off split over the accounts between returns), nor one the two would
 * not settle together (returns paid apart before, each account owing, then
 * together).
 */
function joinSuccessions(series: Map<string, Series>, liabilities: ReadonlyMap<string, Accrual>, asOf: number): void {
  const span = (s: Series) => {
    let [first, last] = [Infinity, -Infinity];
    for (const e of s.events) [first, last] = [Math.min(first, e.day), Math.max(last, e.day)];
    return { first, last };
  };
  const byWho = new Map<string, { key: string; s: Series; first: number; last: number }[]>();
  for (const [key, s] of series) {
    if (!s.pays) continue;
    const list = byWho.get(s.pays.who) ?? [];
    list.push({ key, s, ...span(s) });
    byWho.set(s.pays.who, list);
  }
  for (const list of byWho.values()) {
    if (list.length < 2) continue;
    list.sort((a, b) => a.first - b.first || cmpStr(a.key, b.key));
    for (const a of list) {
      const next = list.find((b) => b.first > a.last && series.has(b.key) && a.s.pays!.accounts.every((id) => b.s.pays!.accounts.includes(id)));
      if (!next) continue;
      const events = next.s.events.concat(a.s.events);
      const joined = settlementOf({ ...next.s, events }, byDay(events.slice()), liabilities, asOf);
      if (!joined || joined.lastSettled < next.last) continue;
      next.s.events = events;
      series.delete(a.key);
    }
  }
}

/** The liability accounts (with journals) a document's lines are split over, joined by '+', when two or more; else undefined. */
function splitOver(accountIds: readonly string[] | undefined, liabilities: ReadonlyMap<string, Accrual>): string | undefined {
  const split = accountIds?.filter((id) => liabilities.has(id));
  return split && split.length > 1 ? split.join('+') : undefined;
}

/** Sorts the events by day (in place) and adds up those of the same day. */
function byDay(events: Ev[]): ByDay {
  events.sort((a, b) => a.day - b.day);
  const days: number[] = [];
  const amounts: Ev[] = [];
  for (const e of events) {
    if (days.length && days[days.length - 1] === e.day) {
      const prev = amounts[amounts.length - 1]!;
      amounts[amounts.length - 1] = { ...prev, amount: addAmounts(prev.amount, e.amount) };
    } else {
      days.push(e.day);
      amounts.push(e);
    }
  }
  return { days, amounts };
}

/**
 * Quarters that do not keep to one length (a tax office's: 59 to 123 days
 * apart): every one of the last gaps (two to four) within LOOSE_QUARTER days,
 * taken as quarterly. Tried after the strict cadences, the renewal model and
 * the yearly pattern (which places such quarters on their own dates once a
 * year of them has a counterpart a year before).
 */
const LOOSE_QUARTER = { min: 55, max: 125 };
function looseQuarters(days: readonly number[]): CadenceMatch | null {
  if (days.length < 3) return null;
  for (let i = Math.max(1, days.length - 4); i < days.length; i++) {
    const g = days[i]! - days[i - 1]!;
    if (g < LOOSE_QUARTER.min || g > LOOSE_QUARTER.max) return null;
  }
  return { cadence: 'QUARTERLY', period: CADENCES.find((c) => c.cadence === 'QUARTERLY')!.period };
}

/** A series with an active calendar cadence (as `detect` finds it): its next occurrences as points (true), else nothing (false). */
function cadencePoints(key: string, s: Series, { days, amounts }: ByDay, poDay: number | undefined, ctx: SeriesContext, detect: (days: readonly number[]) => CadenceMatch | null): boolean {
  const { asOf, end } = ctx;
  const match = detect(days);
  if (!match) return false;
  // A weekly or fortnightly series: the days it was silent a year before (a shop shut over Christmas) are not expected now,
  // and a silence now that it kept then too is a pause, not a stop.
  const lastDay = days[days.length - 1]!;
  const pauses = match.period <= 14 ? pausesOf(days, isActiveLimit(match.period)) : null;
  if (!isActive(lastDay, asOf, match.period) && !((pauses?.closedShare(asOf - 1) ?? 0) > 0.5)) return false;
  const { amount, spread, lastEv } = recurringAmount(amounts);
  const why = seriesWhy(key, s, 'cadence', `${match.cadence.toLowerCase().replace('_', '-')} cadence of ${days.length} past ${seriesWords(key, s)}, the last on ${fromDay(lastDay)}: the next dates from it, the median of the last three amounts${lagWords(s)}`);
  // Cash moves `lag` days after the event; an event after the last known one (a bill or an open order).
  const anchor = [...days];
  if (poDay !== undefined && poDay > anchor[anchor.length - 1]!) anchor.push(poDay);
  for (const d of nextOccurrences(anchor, match, asOf, end - s.lag)) {
    if (pauses && (pauses.closedShare(d) ?? 0) > 0.5) continue;
    ctx.points.push({
      id: `recurring:${key}`,
      inflow: s.inflow,
      day: d + s.lag,
      amount,
      accountId: lastEv.accountId,
      statistical: false,
      ...(spread > 0 ? { spread } : {}),
      why,
    });
  }
  return true;
}

/**
 * The settlement model (liabilities.ts) of a series that pays a liability
 * account with journals: bank payments coded to it, or a supplier's bills
 * (the tax office's bill for a return: its lines debit the account the day
 * it is raised, and the cash follows after the bill's terms); else null.
 */
function settlementOf(s: Series, { days, amounts }: ByDay, liabilities: ReadonlyMap<string, Accrual>, asOf: number): (SettlementModel & { accountId: string }) | null {
  const last = amounts[amounts.length - 1];
  const owes = last?.settles ? combinedAccrual(last.settles.split('+').map((id) => liabilities.get(id)!)) : last?.accountId ? liabilities.get(last.accountId) : undefined;
  if (!owes) return null;
  // Receipts settle what the account is owed back (a business refunded its GST every quarter): the same model, on the balance's other side.
  const acc = s.inflow ? owedBack(owes) : owes;
  // A bill's period is settled the day it is raised: the model is of those days (its cash: `lag` days on).
  const model = settlementModel(days, amounts.map((e) => toDec(e.amount)), acc, asOf);
  return model ? Object.assign(model, { accountId: acc.accountId }) : null;
}

/**
 * A series of payments that settle a liability account (or of receipts that
 * settle what it is owed back: refunds, inflows): each period's
 * payment in the horizon on its due day (today when that has passed: the
 * period is still owed), at what the account accrued over the period; only
 * the part still to accrue varies in the futures. Nothing for a period that
 * accrued nothing (or less). A supplier's bills: each period's bill on its
 * due day, its cash `lag` days later (the bill's terms and the business's
 * bill delay).
 */
function settledPoints(key: string, s: Series, { days, amounts }: ByDay, model: SettlementModel, account: string, ctx: SeriesContext): void {
  const spread = relativeSpread(amounts.slice(-6).map((e) => toF(e.amount)));
  const lastEv = amounts[amounts.length - 1]!;
  for (const p of model.schedule(ctx.end - s.lag)) {
    if (p.amount.cents <= 0 && !p.amount.extra?.gt(0)) continue;
    const when = p.day > p.due ? `due ${fromDay(p.due)} and still owed` : p.dueFrom === 'year_before' ? 'due as the same period was a year before' : 'due as the business usually pays after a period';
    const why = seriesWhy(
      key,
      s,
      'cadence',
      `${seriesWords(key, s)} that settle ${account} (${model.matched} of the last ${model.payments} each what it ${s.inflow ? 'was owed' : 'owed'} at the end of a ${model.months === 1 ? 'month' : `${model.months}-month period`}, the last on ${fromDay(days[days.length - 1]!)}): this one ${s.inflow ? 'refunding' : 'paying'} ${settledWords(p, account, ctx.asOf, s.inflow)}, ${when}${lagWords(s)}`,
    );
    const share = spread * p.expectedShare;
    ctx.points.push({ id: `recurring:${key}`, inflow: s.inflow, day: p.day + s.lag, amount: p.amount, accountId: lastEv.accountId, statistical: false, ...(share > 0 ? { spread: share } : {}), why });
  }
}

/** A recurring series' amount: the median of its last three (the earlier of equal ones), varying as its last six did; and its last event. */
function recurringAmount(amounts: readonly Ev[]): { amount: Amount; spread: number; lastEv: Ev } {
  const recent = amounts
    .slice(-3)
    .map((e) => ({ day: e.day, amount: e.amount }))
    .sort((a, b) => toDec(a.amount).comparedTo(toDec(b.amount)) || a.day - b.day);
  return { amount: recent[(recent.length - 1) >> 1]!.amount, spread: relativeSpread(amounts.slice(-6).map((e) => toF(e.amount))), lastEv: amounts[amounts.length - 1]! };
}

/** A year ago, give or take this many days, an event of a yearly pattern has its counterpart. */
const YEAR_MATCH = 10;
/** How late (days) an occurrence of a yearly pattern not seen yet is still expected (placed today). */
const YEARLY_GRACE = 7;
/** A yearly pattern is a sparse series' (a dense one that slows down matches a year before by chance): at most this many events in its last year. */
const YEARLY_MAX = 12;

/** The same calendar day a year after `day` (the 29th of February: the 28th). */
const yearAfter = (day: number) => addMonths(day, 12, dayOfMonth(day));

/**
 * A series that repeats on the calendar's dates year after year without one
 * cadence (a business's quarterly tax payments on the tax office's dates,
 * 59 to 123 days apart; an accountant's fee or an insurance due every
 * year, from its second year: the ANNUAL cadence needs a third): at most
 * YEARLY_MAX events in its last year, at least 75% of them (one at least)
 * with a counterpart a year before (within YEAR_MATCH days), and still
 * going. Its occurrences in the horizon are last year's events a year on,
 * each the median of the last three amounts (as a cadence's), varying as the
 * last six did; one already paid (early by up to half the gap before it, or
 * an open order for it) is not placed again, nor one of two parts of last
 * year's payment; one whose day has passed (at most YEARLY_GRACE days) and
 * not been seen is placed today. True when it is such a series (even when
 * nothing falls in the horizon).
 */
function yearlyPoints(key: string, s: Series, { days, amounts }: ByDay, poDay: number | undefined, ctx: SeriesContext): boolean {
  const { asOf, end } = ctx;
  // The last year (and a week: an event a year ago today is due again now), at most YEARLY_MAX events of it.
  const from = lowerBound(days, asOf - 365 - YEARLY_GRACE);
  const to = upperBound(days, asOf);
  const lastYear = to - from;
  if (lastYear === 0 || lastYear > YEARLY_MAX) return false;
  // Still going: no longer since its last event than its longest gap of the last year (a series that stopped is not brought back).
  let longest = 0;
  for (let i = Math.max(1, from); i < to; i++) longest = Math.max(longest, days[i]! - days[i - 1]!);
  if (asOf - days[to - 1]! > longest + YEAR_MATCH) return false;
  const near = (d: number, before: number, after: number) => upperBound(days, d + after) > lowerBound(days, d - before);
  let matched = 0;
  for (let i = from; i < to; i++) {
    // Its counterpart: an event whose day a year on is within YEAR_MATCH days of it.
    const j = lowerBound(days, days[i]! - 400);
    for (let k = j; k < i && days[k]! < days[i]! - 300; k++) {
      if (Math.abs(yearAfter(days[k]!) - days[i]!) <= YEAR_MATCH) {
        matched++;
        break;
      }
    }
  }
  if (matched === 0 || matched < 0.75 * lastYear) return false;
  const { amount, spread, lastEv } = recurringAmount(amounts);
  const why = seriesWhy(key, s, 'cadence', `${seriesWords(key, s)} on the same dates every year (${matched} of the last year's ${lastYear} a year after one before), the last on ${fromDay(days[days.length - 1]!)}: last year's dates a year on, the median of the last three amounts${lagWords(s)}`);
  const placed: number[] = [];
  for (let i = from; i < to; i++) {
    const next = yearAfter(days[i]!);
    if (next > end - s.lag || next < asOf - YEARLY_GRACE) continue;
    // Seen already: an event (or an open order) from half the gap before it on (paid early), or YEAR_MATCH days after;
    // or one of last year's a few days apart (one payment in two parts) placed it already.
    const early = Math.max(YEAR_MATCH, Math.floor((i > 0 ? days[i]! - days[i - 1]! : 365) / 2));
    if (near(next, early, YEAR_MATCH) || (poDay !== undefined && poDay >= next - early && poDay <= next + YEAR_MATCH)) continue;
    if (placed.some((d) => Math.abs(d - next) <= YEAR_MATCH)) continue;
    placed.push(next);
    ctx.points.push({ id: `recurring:${key}`, inflow: s.inflow, day: Math.max(next, asOf) + s.lag, amount, accountId: lastEv.accountId, statistical: false, ...(spread > 0 ? { spread } : {}), why });
  }
  return true;
}

/**
 * A frequent series without a cadence, still going (its last known event,
 * a bill or an open order, within three median gaps): its renewal model's
 * expected amounts (true, even when none falls in the horizon), else nothing
 * (false).
 */
function renewalSeries(key: string, s: Series, { days, amounts }: ByDay, poDay: number | undefined, orders: OrderLeads | undefined, ctx: SeriesContext): boolean {
  const { asOf, end } = ctx;
  const recentEvents = days.filter((d) => asOf - d <= 180).length;
  if (recentEvents < FREQUENT_EVENTS) return false;
  const lastKnown = Math.max(days[days.length - 1]!, poDay ?? -Infinity);
  const gaps: number[] = [];
  for (let i = Math.max(1, days.length - 13); i < days.length; i++) gaps.push(days[i]! - days[i - 1]!);
  const model = gapModel(gaps);
  const med = median(gaps);
  if (!(model && asOf - lastKnown <= 3 * Math.max(med, 7))) return false;
  const base = Math.max(lastKnown, asOf);
  const H = end - base;
  if (H > 0) {
    // A supplier that orders before its deliveries: its next delivery is not ordered yet (an open order is `lastKnown`), so it comes
    // at least a lead time after today: were it on day base + u, the chance of that is the share of its leads up to base + u - asOf
    // (for the share of its deliveries it orders first; the others may come any day).
    const first = orders ? (u: number) => 1 - orders.ordered + (orders.ordered * upperBound(orders.leads, base + u - asOf)) / orders.leads.length : undefined;
    const m = renewalDensity(model, base - lastKnown, H, churnPerGap(SERIES_STOP_RATE, med), first);
    const recent = amounts.slice(-6);
    const level = recent.reduce((a, e) => a + toF(e.amount), 0) / recent.length;
    const values = new Float64Array(H + 1);
    for (let u = 1; u <= H; u++) values[u] = m[u]! * level;
    const lastEv = amounts[amounts.length - 1]!;
    const why = seriesWhy(key, s, 'renewal', `frequent ${seriesWords(key, s)} without a calendar cadence (renewal model): ${recentEvents} in the last 180 days, a median ${med} days apart, the last on ${fromDay(lastKnown)}${orders ? `; it orders ${leadWords(orders.leads)} before a delivery and has no order open for the ${poDay !== undefined ? 'one after its open order' : 'next one'}` : ''}${lagWords(s)}`);
    ctx.daily.push({ id: `recurring:${key}`, inflow: s.inflow, base, values, lag: s.lag, customer: false, accountId: lastEv.accountId, unit: level, unitSpread: relativeSpread(recent.map((e) => toF(e.amount))), why });
  }
  return true;
}

/** A bank series that moves money most days (flows.ts): its expected money per day (true; nothing when it has stopped), else false. */
function flowSeries(key: string, s: Series, { days, amounts }: ByDay, ctx: SeriesContext): boolean {
  const f = flowForecast(days, amounts.map((e) => toF(e.amount)), ctx.asOf, ctx.end);
  if (f === null) return false;
  if (f === 'stopped') return true;
  const season = f.seasonYears ? `, times the change a year before from those weeks to the days around each day (${f.seasonYears === 1 ? 'last year' : 'the last two years'})` : '';
  const closed = f.closedDays >= 0.5 ? `; ${Math.round(f.closedDays)} days expected closed, as the same days were last year` : '';
  const paused = f.paused ? `; silent since ${fromDay(days[days.length - 1]!)}, expected back${f.closedDays >= 0.5 ? ' when it came back last year' : ' now'}` : '';
  const why = seriesWhy(
    key,
    s,
    'daily_flow',
    `${seriesWords(key, s)} most days (${days.length} days of it, a median ${dayWords(f.medianGap)} apart): each weekday at what it brought over the last ${f.openDays} open days, about ${Math.round(f.weekly)} a week${season}${closed}${paused}`,
  );
  ctx.daily.push({ id: `recurring:${key}`, inflow: s.inflow, base: f.base, values: f.values, lag: 0, customer: false, accountId: amounts[amounts.length - 1]!.accountId, unit: f.unit, why });
  return true;
}

const dayWords = (n: number) => `${n} day${n === 1 ? '' : 's'}`;

/** A recurring series' reason: its contact (a supplier, or a bank transaction's contact; none for a series keyed by description). */
function seriesWhy(key: string, s: Series, reasonCode: 'cadence' | 'renewal' | 'daily_flow', reason: string): SeriesWhy {
  const who = s.bill ? key.slice(5) : key.split(':')[2]!;
  return { kind: 'recurring', documentId: null, contactId: who === 'ref' || who === '' ? null : who, reasonCode, reason };
}

const seriesWords = (key: string, s: Series) => (s.bill ? 'bills of this supplier' : `bank ${s.inflow ? 'receipts' : 'payments'}${key.split(':')[2] === 'ref' ? ' of one description' : ' of this contact'}`);
/** "7 days", "5-12 days": an ordering supplier's lead times. */
const leadWords = (leads: readonly number[]) => (leads[0] === leads[leads.length - 1] ? `${leads[0]} days` : `${leads[0]}-${leads[leads.length - 1]} days`);

const lagWords = (s: Series) => (s.lag > 0 ? `, paid ${s.lag} days after each bill (terms and the business's bill delay)` : '');

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

