/**
 * The reasons of the placed amounts (items.ts; docs/forecast.md#items): for
 * each placement of the projection (project.ts), the item's kind, contact,
 * expected day, probability and why, in a code and in words with the figures
 * the placement used. Built only when the projection collects items.
 */
import { DMAX, DMIN, median, MIN_OWN_HISTORY, type DelayDist } from './behaviour.js';
import { fromDay, toDay } from './days.js';
import { CHANCE, paysWords, percent, shiftWords, type ItemWhy } from './items.js';
import type { DailyPrediction, PItem, PointPrediction, PreparedForecast } from './prepared.js';
import type { ManualItem, PurchaseOrder } from './types.js';

/** The first day of week k that money can move on (today for week 0). */
const firstDay = (p: PreparedForecast, k: number) => Math.max(p.starts[k]!, p.asOf);
/** A day within week k: the first day it may move on, the week's end at the latest. */
const within = (p: PreparedForecast, k: number, day: number) => Math.min(p.ends[k]!, Math.max(firstDay(p, k), Math.round(day)));

/** How late a customer pays, in words, from the median the placement used: its own last 12 paid invoices (three needed), else the business's. */
export function customerHabit(p: PreparedForecast, contactId: string | null): string {
  const own = (contactId ? p.customerDelays.get(contactId) : undefined) ?? [];
  return own.length >= MIN_OWN_HISTORY ? paysWords(true, median(own.slice(-12))) : paysWords(false, p.orgArDelayMedian);
}

/**
 * An open AUTHORISED invoice in week k: paid this week with probability `prob`
 * (the customer's delay distribution given it is not paid yet), on the
 * distribution's mean day within the week.
 */
export function receivableWhy(p: PreparedForecast, it: PItem, k: number, prob: number, dist: DelayDist, shift: number): ItemWhy {
  const due = it.due ?? it.issue ?? p.asOf;
  const habit = customerHabit(p, it.src.contactId);
  const chance = `${CHANCE} chance it is paid this week`;
  const late = p.asOf - due;
  const [reasonCode, reason] =
    late > 0
      ? (['overdue_conditional', `overdue ${late} ${late === 1 ? 'day' : 'days'} (due ${fromDay(due)}): conditional delay, ${chance} given it is still unpaid; ${habit}${shiftWords(shift)}`] as const)
      : (['customer_delay', `due ${fromDay(due)}; ${habit}${shiftWords(shift)}: ${chance}`] as const);
  return { what: { kind: 'invoice', documentId: it.src.id, contactId: it.src.contactId, reasonCode, reason }, day: meanDay(p, k, dist, due + shift), probability: prob };
}

/** The mean payment day within week k under a delay distribution counted from `from` (due date plus shift). */
function meanDay(p: PreparedForecast, k: number, dist: DelayDist, from: number): number {
  let mass = 0;
  let sum = 0;
  for (let d = firstDay(p, k); d <= p.ends[k]!; d++) {
    const delay = d - from;
    if (delay < DMIN || delay > DMAX) continue;
    const m = dist.pmf[delay - DMIN]!;
    mass += m;
    sum += m * d;
  }
  return within(p, k, mass > 0 ? sum / mass : firstDay(p, k));
}

/** A draft or submitted invoice: paid on `day` (pipelineDay plus the shift) with its pipeline probability. */
export function pipelineWhy(p: PreparedForecast, it: PItem, k: number, day: number, probability: number, shift: number): ItemWhy {
  const habit = customerHabit(p, it.src.contactId);
  const due = it.due !== null && it.due >= p.asOf ? `due ${fromDay(it.due)}` : `due after the customer's usual terms`;
  const reason = `${it.src.status.toLowerCase()} invoice, ${percent(probability)} likely to be issued and paid; ${due}, and ${habit}${shiftWords(shift)}`;
  return { what: { kind: 'invoice', documentId: it.src.id, contactId: it.src.contactId, reasonCode: 'pipeline', reason }, day: within(p, k, day), probability };
}

/** An open bill (AUTHORISED, or a draft or submitted one) due on `due`, paid after the business's usual delay. */
export function billWhy(p: PreparedForecast, it: PItem, k: number, due: number): ItemWhy {
  const day = due + p.orgBillDelay;
  const draft = it.src.status === 'AUTHORISED' ? '' : `${it.src.status.toLowerCase()} bill, `;
  const [reasonCode, reason] =
    day < p.asOf
      ? (['bill_overdue', `${draft}overdue since ${fromDay(due)}: expected to be paid this week`] as const)
      : (['bill_due', `${draft}due ${fromDay(due)}${billHabit(p.orgBillDelay)}`] as const);
  return { what: { kind: 'bill', documentId: it.src.id, contactId: it.src.contactId, reasonCode, reason }, day: within(p, k, day), probability: 1 };
}

/** The business's habit with bills, as words added to a due date. */
function billHabit(delay: number): string {
  if (delay === 0) return "; the business pays its bills on the due date (median)";
  const d = Math.abs(delay) === 1 ? 'day' : 'days';
  return `, plus the business's median ${Math.abs(delay)} ${d} ${delay > 0 ? 'late' : 'early'} on bills`;
}

/** An open purchase order not yet billed, expected on `day` (its arrival plus the supplier's terms and the business's bill delay). */
export function orderWhy(p: PreparedForecast, po: PurchaseOrder, k: number, day: number): ItemWhy {
  const [label, date] = po.expectedArrivalDate
    ? ['expected arrival', po.expectedArrivalDate]
    : po.deliveryDate
      ? ['delivery', po.deliveryDate]
      : po.issueDate
        ? ['issue', po.issueDate]
        : ['today', fromDay(p.asOf)];
  const terms = (po.contactId ? p.apTerms.get(po.contactId) : undefined) ?? p.orgApTerms;
  const reason = `order not yet billed: ${label} ${date}, plus the supplier's ${terms} days' terms${p.orgBillDelay === 0 ? ', paid on the due date (the business\'s median)' : billHabit(p.orgBillDelay)}`;
  return { what: { kind: 'purchase_order', documentId: po.id, contactId: po.contactId, reasonCode: 'purchase_order', reason }, day: within(p, k, day), probability: 1 };
}

/** A point of a schedule or a recurring series (prepared with its reason), on its day. */
export function pointWhy(p: PreparedForecast, pt: PointPrediction, k: number, day: number): ItemWhy {
  return { what: pt.why, day: within(p, k, day), probability: 1 };
}

/**
 * A statistical series in week k: its expected money `expected` (before the
 * scenario's factor) on the mean day `meanOfDays`; the probability that at
 * least one of its typical events (size `unit`) comes this week, a Poisson
 * count as the bands draw it (simulate.ts); 1 for a series without a unit.
 */
export function dailyWhy(p: PreparedForecast, dp: DailyPrediction, k: number, expected: number, meanOfDays: number): ItemWhy {
  const probability = dp.unit > 0 ? 1 - Math.exp(-expected / dp.unit) : 1;
  return { what: dp.why, day: within(p, k, meanOfDays), probability };
}

/** An operator's manual line. */
export function manualWhy(p: PreparedForecast, m: ManualItem, k: number): ItemWhy {
  const day = toDay(m.date);
  const when = day < p.asOf ? `dated ${m.date}, already past: expected this week` : `dated ${m.date}`;
  return { what: { kind: 'manual', documentId: null, contactId: null, reasonCode: 'manual', reason: `manual forecast line ${when}` }, day: within(p, k, day), probability: 1 };
}
