/**
 * The ledger's history as the engine learns from it (docs/forecast.md#history):
 * not the documents themselves but what the behaviour models read of them -
 * counts of payment delays and terms, each contact's latest delays and terms,
 * each customer's orders and each supplier's bills summed per day, sales per
 * month. The store computes it in SQL (src/store/queries/history.ts), so a
 * recompute reads a few thousand rows instead of every invoice and bill;
 * `summariseHistory` computes the same from documents (the backtest, tests,
 * and the engine when it is given documents only). Both follow the rules
 * below exactly; test/forecast-history.test.ts holds them equal.
 */
import { add, amountOf, amountText, type Amount } from './cents.js';
import { monthIndex, toDay } from './days.js';
import type { LedgerItem } from './types.js';

/** History window of the behaviour models (days): delays, terms, bills. */
export const LOOKBACK = 730;
/** Orders older than this (days) are not read (seasonality wants three years). */
export const ORDER_HISTORY = 3 * 365;
/** Each contact's latest this many delays and terms are kept. */
export const RECENT = 12;

/** How many times each value occurs. */
export type Counts = Map<number, number>;

/** A contact's documents summed per day, oldest first. */
export interface DaySeries {
  days: number[];
  /** Exact decimal strings, one per day: the document's total, or the canonical sum of the day's documents. */
  totals: string[];
  /** The account of the contact's latest document of this kind (by date, then id): the category of what is predicted from it. */
  accountId: string | null;
}

export interface LedgerHistory {
  /** Invoices paid before today: paid - due (the issue date when no due date) in days, of those due within LOOKBACK. */
  arDelays: Counts;
  /** Per customer: the delays of its latest RECENT paid invoices (by paid date, then id), oldest first. */
  customerDelays: Map<string, number[]>;
  /** Per contact: the terms (due - issue, at least 0) of its latest RECENT AUTHORISED or PAID invoices (bills) issued by today, oldest first. */
  arTerms: Map<string, number[]>;
  apTerms: Map<string, number[]>;
  /** The same terms of every such document issued within LOOKBACK. */
  orgArTerms: Counts;
  orgApTerms: Counts;
  /** Bills paid before today, within 365 days: paid - due (or issue). */
  billDelays: Counts;
  /** Totals of the invoices paid in the 28 days before today. */
  receiptsLast28: string;
  /** AUTHORISED and PAID invoices per month of issue (month index, days.ts), issued by today. */
  monthlyRevenue: Map<number, string>;
  /** Per customer: its invoices of any status dated by today, within ORDER_HISTORY. */
  orders: Map<string, DaySeries>;
  /** Per supplier: its bills of any status dated by today, within LOOKBACK. */
  bills: Map<string, DaySeries>;
}

// ---------------------------------------------------------------------------
// Counts
// ---------------------------------------------------------------------------

export function countOf(c: Counts): number {
  let n = 0;
  for (const k of c.values()) n += k;
  return n;
}

/** The values at the given ranks (0-based, ascending order of value), as if the counts were expanded and sorted. */
export function valuesAtRanks(c: Counts, ranks: readonly number[]): number[] {
  const keys = [...c.keys()].sort((a, b) => a - b);
  return ranks.map((r) => {
    let seen = 0;
    for (const k of keys) {
      seen += c.get(k)!;
      if (r < seen) return k;
    }
    return keys[keys.length - 1] ?? 0;
  });
}

/** The lower median (behaviour.ts `median` of the expanded values); 0 when empty. */
export function countsMedian(c: Counts): number {
  const n = countOf(c);
  return n === 0 ? 0 : valuesAtRanks(c, [(n - 1) >> 1])[0]!;
}

/** Quantiles 0.1, 0.3, 0.5, 0.7 and 0.9 (the value at rank floor(q n)); [0 x5] when empty. */
export function countsQuantiles(c: Counts): number[] {
  const n = countOf(c);
  if (n === 0) return [0, 0, 0, 0, 0];
  return valuesAtRanks(c, [0.1, 0.3, 0.5, 0.7, 0.9].map((q) => Math.min(n - 1, Math.floor(q * n))));
}

const bump = (c: Counts, v: number) => c.set(v, (c.get(v) ?? 0) + 1);

// ---------------------------------------------------------------------------
// From documents
// ---------------------------------------------------------------------------

/** The latest RECENT values by (at, id), kept in order as they come (no list of everything, no sort). */
class Recent {
  readonly at: number[] = [];
  readonly ids: string[] = [];
  readonly values: number[] = [];

  add(at: number, id: string, value: number): void {
    const n = this.at.length;
    let i = n;
    while (i > 0 && (this.at[i - 1]! > at || (this.at[i - 1] === at && this.ids[i - 1]! > id))) i--;
    if (n === RECENT && i === 0) return; // older than all of the latest RECENT
    this.at.splice(i, 0, at);
    this.ids.splice(i, 0, id);
    this.values.splice(i, 0, value);
    if (n === RECENT) {
      this.at.shift();
      this.ids.shift();
      this.values.shift();
    }
  }
}

function recentOf(m: Map<string, Recent>, k: string): Recent {
  let r = m.get(k);
  if (!r) m.set(k, (r = new Recent()));
  return r;
}

const valuesOf = (m: Map<string, Recent>) => new Map([...m].map(([k, r]) => [k, r.values]));

/** A day's total: the document's own text while it is alone on its day, an exact sum once there are several. */
type DayTotal = string | Amount;

function series(m: Map<string, Map<number, DayTotal>>): Map<string, DaySeries> {
  const out = new Map<string, DaySeries>();
  for (const [c, perDay] of m) {
    const days = [...perDay.keys()].sort((a, b) => a - b);
    out.set(c, { days, totals: days.map((d) => text(perDay.get(d)!)), accountId: null });
  }
  return out;
}

const text = (t: DayTotal) => (typeof t === 'string' ? t : amountText(t));

function addToDay(m: Map<number, DayTotal>, day: number, total: string) {
  const prev = m.get(day);
  m.set(day, prev === undefined ? total : add(typeof prev === 'string' ? amountOf(prev) : prev, amountOf(total)));
}

const addTo = (m: Map<number, Amount>, k: number, a: Amount) => m.set(k, add(m.get(k) ?? { cents: 0, extra: null }, a));

/** What the history reads of a document: its dates as day numbers (days.ts). */
export interface HistoryDoc {
  id: string;
  ar: boolean;
  contactId: string | null;
  status: string;
  issue: number | null;
  due: number | null;
  paid: number | null;
  /** Gross total, base currency. */
  total: string;
}

/**
 * The history of these documents as of day `asOf`, its series without their
 * accounts yet, and each contact's latest document of each kind (by date,
 * then id): the one whose account a series carries (`setSeriesAccounts`).
 */
export function summariseDocs(docs: readonly HistoryDoc[], asOf: number): { history: LedgerHistory; latest: { ar: Map<string, string>; ap: Map<string, string> } } {
  const arDelays: Counts = new Map();
  const billDelays: Counts = new Map();
  const orgArTerms: Counts = new Map();
  const orgApTerms: Counts = new Map();
  const customerPaid = new Map<string, Recent>();
  const arTermsList = new Map<string, Recent>();
  const apTermsList = new Map<string, Recent>();
  const monthly = new Map<number, Amount>();
  const orders = new Map<string, Map<number, DayTotal>>();
  const bills = new Map<string, Map<number, DayTotal>>();
  const latestDoc = { ar: new Map<string, { day: number; id: string }>(), ap: new Map<string, { day: number; id: string }>() };
  let receipts: Amount = { cents: 0, extra: null };
  for (const it of docs) {
    const st = it.status;
    if (st === 'VOIDED' || st === 'DELETED') continue;
    const { ar, issue, paid } = it;
    const contact = it.contactId;
    const due = it.due ?? issue;
    const day = issue ?? it.due;
    if (contact) {
      const m = ar ? latestDoc.ar : latestDoc.ap;
      const d = day ?? -Infinity;
      const prev = m.get(contact);
      if (!prev) m.set(contact, { day: d, id: it.id });
      else if (d > prev.day || (d === prev.day && it.id > prev.id)) {
        prev.day = d;
        prev.id = it.id;
      }
    }
    if (issue !== null && it.due !== null && issue <= asOf && (st === 'AUTHORISED' || st === 'PAID')) {
      const terms = it.due > issue ? it.due - issue : 0;
      if (contact) recentOf(ar ? arTermsList : apTermsList, contact).add(issue, it.id, terms);
      if (asOf - issue <= LOOKBACK) bump(ar ? orgArTerms : orgApTerms, terms);
    }
    const paidBefore = st === 'PAID' && paid !== null && paid < asOf;
    if (ar) {
      if (paidBefore) {
        if (due !== null) {
          if (asOf - due <= LOOKBACK) bump(arDelays, paid - due);
          if (contact) recentOf(customerPaid, contact).add(paid, it.id, paid - due);
        }
        if (asOf - paid <= 28) receipts = add(receipts, amountOf(it.total));
      }
      if (day !== null && day <= asOf) {
        if (issue !== null && (st === 'AUTHORISED' || st === 'PAID')) addTo(monthly, monthIndex(issue), amountOf(it.total));
        if (contact && asOf - day <= ORDER_HISTORY) {
          let m = orders.get(contact);
          if (!m) orders.set(contact, (m = new Map()));
          addToDay(m, day, it.total);
        }
      }
    } else {
      if (paidBefore && asOf - paid <= 365 && due !== null) bump(billDelays, paid - due);
      if (contact && day !== null && day <= asOf && asOf - day <= LOOKBACK) {
        let m = bills.get(contact);
        if (!m) bills.set(contact, (m = new Map()));
        addToDay(m, day, it.total);
      }
    }
  }
  const monthlyRevenue = new Map<number, string>();
  for (const mi of [...monthly.keys()].sort((a, b) => a - b)) monthlyRevenue.set(mi, amountText(monthly.get(mi)!));
  const ids = (m: Map<string, { id: string }>) => new Map([...m].map(([c, v]) => [c, v.id]));
  const history: LedgerHistory = {
    arDelays,
    customerDelays: valuesOf(customerPaid),
    arTerms: valuesOf(arTermsList),
    apTerms: valuesOf(apTermsList),
    orgArTerms,
    orgApTerms,
    billDelays,
    receiptsLast28: amountText(receipts),
    monthlyRevenue,
    orders: series(orders),
    bills: series(bills),
  };
  return { history, latest: { ar: ids(latestDoc.ar), ap: ids(latestDoc.ap) } };
}

/** Gives each series the account of its contact's latest document of its kind. */
export function setSeriesAccounts(h: LedgerHistory, latest: { ar: Map<string, string>; ap: Map<string, string> }, accountOf: (docId: string) => string | null): void {
  for (const [c, s] of h.orders) {
    const id = latest.ar.get(c);
    s.accountId = id === undefined ? null : accountOf(id);
  }
  for (const [c, s] of h.bills) {
    const id = latest.ap.get(c);
    s.accountId = id === undefined ? null : accountOf(id);
  }
}

/** The history of these documents as of `asOf` (the organisation's today); accounts are the documents' own. */
export function summariseHistory(items: readonly LedgerItem[], asOfDate: string): LedgerHistory {
  const byId = new Map<string, LedgerItem>();
  const docs: HistoryDoc[] = items.map((i) => {
    byId.set(i.id, i);
    return {
      id: i.id,
      ar: i.kind === 'AR',
      contactId: i.contactId,
      status: i.status,
      issue: i.issueDate ? toDay(i.issueDate) : null,
      due: i.dueDate ? toDay(i.dueDate) : null,
      paid: i.paidDate ? toDay(i.paidDate) : null,
      total: i.total,
    };
  });
  const { history, latest } = summariseDocs(docs, toDay(asOfDate));
  setSeriesAccounts(history, latest, (id) => byId.get(id)?.accountId ?? null);
  return history;
}
