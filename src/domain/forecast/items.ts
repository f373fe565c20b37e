/**
 * What makes up a week of the forecast (docs/forecast.md#items): every amount
 * the projection places (project.ts) can say what it is and why it is where
 * it is. The projection hands each placed amount, with its reason, to an
 * `ItemSink`, which adds up the amounts of one item in one week and one
 * direction exactly (the same amounts the week's inflow and outflow add up,
 * so a week's items add up to them to the cent) and ranks them.
 */
import { add, amountText, toDec, type Amount } from './cents.js';
import { cmpStr } from './compare.js';
import { fromDay } from './days.js';

/** What an item is: the engine's categories of placed amounts. */
export const ITEM_KINDS = ['invoice', 'bill', 'scheduled', 'recurring', 'predicted', 'run_rate', 'purchase_order', 'manual'] as const;
export type ItemKind = (typeof ITEM_KINDS)[number];

/**
 * Why an item is in its week (a machine-friendly code; the item's `reason`
 * says it in words, with its figures):
 * - customer_delay: an open invoice not yet due, placed by the customer's payment-delay distribution;
 * - overdue_conditional: an overdue invoice, by the same distribution given it is still unpaid;
 * - pipeline: a draft or submitted invoice, by its probability of being issued and paid;
 * - bill_due / bill_overdue: an open bill, on its due date plus the business's usual bill-payment delay (past due: this week);
 * - purchase_order: an order not yet billed, on its arrival plus the supplier's terms;
 * - schedule: a document a repeating invoice or bill of the ledger will generate;
 * - cadence: the next occurrence of a recurring series with a calendar cadence;
 * - renewal: a frequent series without a cadence (renewal model);
 * - daily_flow: a bank series that moves money most days, per open day (flows.ts);
 * - repeat_purchase: a customer's predicted repeat purchases (renewal model);
 * - new_customers: the run-rate of new customers' first orders;
 * - run_rate: the run-rate of other bills, receipts or spending;
 * - manual: an operator's forecast line, on its date.
 */
export const REASON_CODES = [
  'customer_delay',
  'overdue_conditional',
  'pipeline',
  'bill_due',
  'bill_overdue',
  'purchase_order',
  'schedule',
  'cadence',
  'renewal',
  'daily_flow',
  'repeat_purchase',
  'new_customers',
  'run_rate',
  'manual',
] as const;
export type ReasonCode = (typeof REASON_CODES)[number];

/** What a series (a schedule, a recurring flow, a prediction) says of itself when it is prepared (prepared.ts). */
export interface SeriesWhy {
  kind: ItemKind;
  /** The ledger document behind it (a repeating invoice's id), null for statistical ones. */
  documentId: string | null;
  contactId: string | null;
  reasonCode: ReasonCode;
  reason: string;
}

/** Why one placed amount is where it is. */
export interface ItemWhy {
  /** What it is and why (a series' own, shared by its weeks). */
  what: SeriesWhy;
  /** The day the money is expected (days.ts), within the week and not before today. */
  day: number;
  /** The probability of the movement this week, 0..1. */
  probability: number;
}

/** One item of one week (the API's ForecastItem without the contact's name). */
export interface ForecastItem {
  weekIndex: number;
  /** Rank within the week: amount descending, then item id, then in before out (from 1). */
  seq: number;
  /** The id in the week's itemIds (a document, order, manual line or series id; what excludedItemIds take). */
  itemId: string;
  direction: 'in' | 'out';
  /** What this item moves in the week, in that direction (canonical decimal, positive). */
  amount: string;
  kind: ItemKind;
  documentId: string | null;
  contactId: string | null;
  expectedDate: string;
  probability: number;
  reasonCode: ReasonCode;
  /** The reason in words: `template` with its {chance} filled in from `probability`. */
  reason: string;
  /** The wording as stored, shared by the item's weeks (renderReason gives `reason`). */
  template: string;
}

interface Entry {
  week: number;
  id: string;
  inflow: boolean;
  amount: Amount;
  why: SeriesWhy;
  day: number;
  probability: number;
}

/** Collects the placed amounts of one scenario, per (week, item, direction). */
export class ItemSink {
  private readonly entries = new Map<string, Entry>();

  /** An amount of item `id` in week `week`, and why it is there. */
  add(week: number, id: string, inflow: boolean, amount: Amount, why: ItemWhy): void {
    const key = `${week}${inflow ? '+' : '-'}${id}`;
    const e = this.entries.get(key);
    if (e) {
      e.amount = add(e.amount, amount);
      // Several occurrences in one week (a schedule's two dates): the earliest.
      e.day = Math.min(e.day, why.day);
      return;
    }
    this.entries.set(key, { week, id, inflow, amount, why: why.what, day: why.day, probability: why.probability });
  }

  /** Every item of every week, ranked within its week (amount descending, then id, then in before out). */
  items(): ForecastItem[] {
    const list = [...this.entries.values()];
    list.sort((a, b) => a.week - b.week || cmpAmountDesc(a.amount, b.amount) || cmpStr(a.id, b.id) || Number(b.inflow) - Number(a.inflow));
    const out: ForecastItem[] = [];
    const dates = new Map<number, string>();
    const dateOf = (day: number) => {
      let d = dates.get(day);
      if (d === undefined) dates.set(day, (d = fromDay(day)));
      return d;
    };
    let week = -1;
    let seq = 0;
    for (const e of list) {
      if (e.week !== week) {
        week = e.week;
        seq = 0;
      }
      const probability = roundProbability(e.probability);
      out.push({
        weekIndex: e.week,
        seq: ++seq,
        itemId: e.id,
        direction: e.inflow ? 'in' : 'out',
        amount: amountText(e.amount),
        kind: e.why.kind,
        documentId: e.why.documentId,
        contactId: e.why.contactId,
        expectedDate: dateOf(e.day),
        probability,
        reasonCode: e.why.reasonCode,
        reason: renderReason(e.why.reason, probability),
        template: e.why.reason,
      });
    }
    return out;
  }
}

function cmpAmountDesc(a: Amount, b: Amount): number {
  if (a.extra === null && b.extra === null) return b.cents - a.cents;
  return toDec(b).comparedTo(toDec(a));
}

/** A probability for the answer: 0..1, four decimals. */
const roundProbability = (p: number): number => (Number.isFinite(p) ? Math.min(1, Math.max(0, Math.round(p * 10_000) / 10_000)) : 0);

// ---------------------------------------------------------------------------
// Words
// ---------------------------------------------------------------------------

/** How a customer pays, from its median delay: "the customer pays a median 23 days late", "the business's customers pay on the due date (median)". */
export function paysWords(own: boolean, median: number): string {
  const n = Math.round(median);
  const who = own ? 'the customer pays' : "the business's customers pay";
  if (n === 0) return `${who} on the due date (median)`;
  const d = Math.abs(n) === 1 ? 'day' : 'days';
  return `${who} a median ${Math.abs(n)} ${d} ${n > 0 ? 'late' : 'early'}`;
}

/**
 * Where a reason's wording says how likely the item is this week: filled in
 * from the item's (rounded) probability, so the wording of an invoice is the
 * same in all its weeks and is stored once per snapshot.
 */
export const CHANCE = '{chance}';

/** A reason's words: its template with {chance} as a percentage of `probability`. */
export const renderReason = (template: string, probability: number): string => (template.includes(CHANCE) ? template.replace(CHANCE, percent(probability)) : template);

/** "34%" ("<1%" for a small but real chance). */
export function percent(p: number): string {
  if (p > 0 && p < 0.005) return '<1%';
  return `${Math.round(p * 100)}%`;
}

/** The scenario's shift of customers' delays, as words ('' without one). */
export const shiftWords = (shift: number): string => (shift === 0 ? '' : ` (this scenario: ${shift > 0 ? '+' : ''}${shift} days)`);
