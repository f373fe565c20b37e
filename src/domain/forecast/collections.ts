/**
 * What to do about the lowest week (issue 18; docs/forecast.md#collections):
 * the open receivables ranked by how much collecting each on its due date,
 * rather than when the forecast expects it, would lift the lowest closing
 * cash of the BASE forecast; and the bills that could be paid later without
 * passing their due date, with the same lift.
 *
 * Exact and consistent with the forecast: the forecast's own projection
 * places each document (the week items, items.ts), and the lift of a
 * document is the change in the lowest closing cash when its placed amounts
 * are replaced by its whole amount in its due week (the first week for an
 * overdue invoice; nothing within the 13 weeks when due after them):
 * closing'_k = closing_k + sum over weeks w <= k of (new_w - placed_w), lift =
 * min closing' - min closing. Running the forecast with the invoice left out
 * and a line of its amount on its due date gives the same figure (tested).
 */
import { D, type Dec } from '../money.js';
import { amountText, toDec } from './cents.js';
import { fromDay } from './days.js';
import { ItemSink, type ForecastItem } from './items.js';
import { customerHabit } from './item-reasons.js';
import { owedOf } from './open-items.js';
import { projectForecast, weekOf } from './project.js';
import type { PItem, PreparedForecast } from './prepared.js';
import type { Scenario } from './types.js';

/** What both lists say of a document. */
interface CollectionDocument {
  documentId: string;
  number: string | null;
  contactId: string | null;
  /** What is still expected (base currency; a receivable's after the customer's unallocated credits): the amount the forecast places. */
  amountDue: string;
  dueDate: string | null;
  daysOverdue: number;
  /** How much the lowest closing cash rises if it moves on its due date (a receivable collected then, today when overdue; a bill paid then). */
  lift: string;
}

export interface CollectionReceivable extends CollectionDocument {
  /** The day by which the forecast expects half of it paid (the item's expected day that week); null: not within the 13 weeks. */
  predictedDate: string | null;
  /** The chance it is still unpaid at the end of the lowest week (never paid included), 0..1. */
  probabilityAfterLowestWeek: number;
  /** The customer's paying history in one line. */
  history: string;
}

export interface CollectionPayable extends CollectionDocument {
  /** When the forecast expects it paid. */
  predictedDate: string;
}

/** A customer's open invoices all collected on their due dates, together. */
export interface CollectionCustomer {
  contactId: string;
  invoices: number;
  amountDue: string;
  /** How much the lowest closing cash rises (the same rule as a receivable's, all of its invoices at once). */
  lift: string;
}

export interface Collections {
  lowestWeekIndex: number;
  minClosingCash: string;
  receivables: CollectionReceivable[];
  payables: CollectionPayable[];
  /** Per customer, the largest lift first. */
  customers: CollectionCustomer[];
}

/** The lowest closing cash once `delta` (per week, this week's money in minus out) is added to the weeks. */
function lowestWith(closings: readonly Dec[], delta: ReadonlyMap<number, Dec>): Dec {
  let run = new D(0);
  let min: Dec | null = null;
  for (let k = 0; k < closings.length; k++) {
    const d = delta.get(k);
    if (d) run = run.plus(d);
    const c = closings[k]!.plus(run);
    if (min === null || c.lessThan(min)) min = c;
  }
  return min!;
}

const round4 = (p: number) => Math.min(1, Math.max(0, Math.round(p * 10_000) / 10_000));

/** The collections of a scenario (the BASE one for the endpoint) on the prepared model. */
export function collections(p: PreparedForecast, scenario: Scenario, computedAt: Date): Collections {
  const sink = new ItemSink();
  const payload = projectForecast(p, scenario, computedAt, sink);
  const closings = payload.weeks.map((w) => new D(w.closing));
  const lowest = payload.minClosingCashWeekIndex ?? 0;
  const minClosing = new D(payload.minClosingCash ?? payload.endingCash);
  const placed = new Map<string, ForecastItem[]>();
  for (const i of sink.items()) {
    if (i.documentId === null || (i.kind !== 'invoice' && i.kind !== 'bill')) continue;
    let list = placed.get(i.documentId);
    if (!list) placed.set(i.documentId, (list = []));
    list.push(i);
  }
  const dueWeek = (it: PItem) => weekOf(p, it.due ?? it.issue ?? p.asOf);
  const documentOf = (it: PItem, amountDue: string, delta: ReadonlyMap<number, Dec>): CollectionDocument => ({
    documentId: it.src.id,
    number: it.src.number ?? null,
    contactId: it.src.contactId,
    amountDue,
    dueDate: it.due === null ? null : fromDay(it.due),
    daysOverdue: it.due !== null && it.due < p.asOf ? p.asOf - it.due : 0,
    lift: lowestWith(closings, delta).minus(minClosing).toFixed(),
  });

  const receivables: CollectionReceivable[] = [];
  const payables: CollectionPayable[] = [];
  const perCustomer = new Map<string, { invoices: number; owed: Dec; delta: Map<number, Dec> }>();
  for (const it of p.openItems) {
    if (it.src.status !== 'AUTHORISED') continue;
    const items = (placed.get(it.src.id) ?? []).filter((i) => i.direction === (it.ar ? 'in' : 'out'));
    if (it.ar) {
      const owed = toDec(owedOf(it));
      if (!owed.greaterThan(0)) continue;
      // Collected on its due date: its whole amount in the due week, none where the forecast placed it.
      const delta = new Map<number, Dec>();
      for (const i of items) delta.set(i.weekIndex, (delta.get(i.weekIndex) ?? new D(0)).minus(i.amount));
      const k = dueWeek(it);
      if (k >= 0) delta.set(k, (delta.get(k) ?? new D(0)).plus(owed));
      if (it.src.contactId !== null) {
        let c = perCustomer.get(it.src.contactId);
        if (!c) perCustomer.set(it.src.contactId, (c = { invoices: 0, owed: new D(0), delta: new Map() }));
        c.invoices++;
        c.owed = c.owed.plus(owed);
        for (const [w, d] of delta) c.delta.set(w, (c.delta.get(w) ?? new D(0)).plus(d));
      }
      let byLowest = new D(0);
      let cumulative = new D(0);
      let predicted: string | null = null;
      for (const i of [...items].sort((a, b) => a.weekIndex - b.weekIndex)) {
        if (i.weekIndex <= lowest) byLowest = byLowest.plus(i.amount);
        cumulative = cumulative.plus(i.amount);
        if (predicted === null && cumulative.times(2).greaterThanOrEqualTo(owed)) predicted = i.expectedDate;
      }
      receivables.push({
        ...documentOf(it, amountText(owedOf(it)), delta),
        predictedDate: predicted,
        probabilityAfterLowestWeek: round4(1 - byLowest.div(owed).toNumber()),
        history: customerHabit(p, it.src.contactId),
      });
    } else {
      // A bill the forecast expects paid before its due week could wait until then.
      const at = items[0];
      const k = dueWeek(it);
      if (!at || it.due === null || (k >= 0 && k <= at.weekIndex)) continue;
      const amount = items.reduce((s, i) => s.plus(i.amount), new D(0));
      const delta = new Map<number, Dec>([[at.weekIndex, amount]]);
      if (k >= 0) delta.set(k, (delta.get(k) ?? new D(0)).minus(amount));
      payables.push({ ...documentOf(it, amount.toFixed(), delta), predictedDate: at.expectedDate });
    }
  }
  const byLift = (a: { lift: string; documentId: string }, b: { lift: string; documentId: string }) =>
    new D(b.lift).comparedTo(a.lift) || (a.documentId < b.documentId ? -1 : a.documentId > b.documentId ? 1 : 0);
  receivables.sort(byLift);
  payables.sort(byLift);
  const customers = [...perCustomer.entries()]
    .map(([contactId, c]) => ({ contactId, invoices: c.invoices, amountDue: c.owed.toFixed(), lift: lowestWith(closings, c.delta).minus(minClosing).toFixed() }))
    .sort((a, b) => new D(b.lift).comparedTo(a.lift) || (a.contactId < b.contactId ? -1 : 1));
  return { lowestWeekIndex: lowest, minClosingCash: minClosing.toFixed(), receivables, payables, customers };
}
