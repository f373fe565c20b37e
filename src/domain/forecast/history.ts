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
import type { Counts, LedgerHistory, LedgerItem } from './types.js';

/** History window of the behaviour models (days): delays, terms, bills. */
export const LOOKBACK = 730;
/** Orders older than this (days) are not read (seasonality wants three years). */
export const ORDER_HISTORY = 3 * 365;
/** Each contact's latest this many delays and terms are kept. */
export const RECENT = 12;


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

/** A day's total: the document's own text while it is alone on its day, an exact sum once there are several. */
type DayTotal = string | Amount;

const addTo = (m: Map<number, Amount>, k: number, a: Amount) => m.set(k, add(m.get(k) ?? { cents: 0, extra: null }, a));

/** Status letters of the documents the history reads (voided and deleted ones are never given). */
export const STATUS_OF_LETTER: Record<string, string> = { P: 'PAID', A: 'AUTHORISED', D: 'DRAFT', S: 'SUBMITTED' };

export interface HistoryResult {
  history: LedgerHistory;
  /** Each contact's latest document of each kind (by date, then id): the one whose account its series carries (setSeriesAccounts). */
  latest: { ar: Map<string, string>; ap: Map<string, string> };
}

/**
 * Builds the history one contact at a time: `group` for the documents of one
 * contact (or of none) and one kind, then `doc` for each of them in any
 * order, then `finish`. The store streams its groups in; summariseHistory
 * groups documents first. A contact's state lives only while its group is
 * read, so nothing is looked up per document.
 */
export class HistoryBuilder {
  private readonly h: LedgerHistory = {
    arDelays: new Map(),
    customerDelays: new Map(),
    arTerms: new Map(),
    apTerms: new Map(),
    orgArTerms: new Map(),
    orgApTerms: new Map(),
    billDelays: new Map(),
    supplierDelays: new Map(),
    receiptsLast28: '0',
    monthlyRevenue: new Map(),
    orders: new Map(),
    bills: new Map(),
  };
  private readonly monthly = new Map<number, Amount>();
  private receipts: Amount = { cents: 0, extra: null };
  private readonly latest = { ar: new Map<string, string>(), ap: new Map<string, string>() };
  // The current group
  private contact: string | null = null;
  private ar = true;
  private delays = new Recent();
  private terms = new Recent();
  private days = new Map<number, DayTotal>();
  private latestDay = -Infinity;
  private latestId: string | null = null;

  constructor(private readonly asOf: number) {}

  group(contact: string | null, ar: boolean): void {
    this.endGroup();
    this.contact = contact || null; // an empty contact id is no contact
    this.ar = ar;
    this.delays = new Recent();
    this.terms = new Recent();
    this.days = new Map();
    this.latestDay = -Infinity;
    this.latestId = null;
  }

  /** One document of the current group; `status` as stored (PAID, AUTHORISED, ...), dates as day numbers. */
  doc(id: string, status: string, issue: number | null, dueDay: number | null, paid: number | null, total: string): void {
    if (status === 'VOIDED' || status === 'DELETED') return;
    const { asOf, ar } = this;
    const contact = this.contact !== null;
    const due = dueDay ?? issue;
    const day = issue ?? dueDay;
    if (contact) {
      const d = day ?? -Infinity;
      if (this.latestId === null || d > this.latestDay || (d === this.latestDay && id > this.latestId)) {
        this.latestDay = d;
        this.latestId = id;
      }
    }
    if (issue !== null && dueDay !== null && issue <= asOf && (status === 'AUTHORISED' || status === 'PAID')) {
      const terms = dueDay > issue ? dueDay - issue : 0;
      if (contact) this.terms.add(issue, id, terms);
      if (asOf - issue <= LOOKBACK) bump(ar ? this.h.orgArTerms : this.h.orgApTerms, terms);
    }
    const paidBefore = status === 'PAID' && paid !== null && paid < asOf;
    if (ar) {
      if (paidBefore) {
        if (due !== null) {
          if (asOf - due <= LOOKBACK) bump(this.h.arDelays, paid - due);
          if (contact) this.delays.add(paid, id, paid - due);
        }
        if (asOf - paid <= 28) this.receipts = add(this.receipts, amountOf(total));
      }
      if (day !== null && day <= asOf) {
        if (issue !== null && (status === 'AUTHORISED' || status === 'PAID')) addTo(this.monthly, monthIndex(issue), amountOf(total));
        if (contact && asOf - day <= ORDER_HISTORY) this.addToDay(day, total);
      }
    } else {
      if (paidBefore && asOf - paid <= 365 && due !== null) bump(this.h.billDelays, paid - due);
      if (paidBefore && due !== null && contact) this.delays.add(paid, id, paid - due);
      if (contact && day !== null && day <= asOf && asOf - day <= LOOKBACK) this.addToDay(day, total);
    }
  }

  private addToDay(day: number, total: string) {
    const prev = this.days.get(day);
    this.days.set(day, prev === undefined ? total : add(typeof prev === 'string' ? amountOf(prev) : prev, amountOf(total)));
  }

  private endGroup(): void {
    const c = this.contact;
    if (c === null) return;
    const h = this.h;
    if (this.latestId !== null) (this.ar ? this.latest.ar : this.latest.ap).set(c, this.latestId);
    if (this.delays.values.length) (this.ar ? h.customerDelays : h.supplierDelays).set(c, this.delays.values);
    if (this.terms.values.length) (this.ar ? h.arTerms : h.apTerms).set(c, this.terms.values);
    if (this.days.size) {
      const days = [...this.days.keys()].sort((a, b) => a - b);
      const totals = days.map((d) => {
        const t = this.days.get(d)!;
        return typeof t === 'string' ? t : amountText(t);
      });
      (this.ar ? h.orders : h.bills).set(c, { days, totals, accountId: null });
    }
    this.contact = null;
  }

  finish(): HistoryResult {
    this.endGroup();
    for (const mi of [...this.monthly.keys()].sort((a, b) => a - b)) this.h.monthlyRevenue.set(mi, amountText(this.monthly.get(mi)!));
    this.h.receiptsLast28 = amountText(this.receipts);
    return { history: this.h, latest: this.latest };
  }
}

/** The history of these documents as of `asOf` (the organisation's today); accounts are the documents' own. */
export function summariseHistory(items: readonly LedgerItem[], asOfDate: string): LedgerHistory {
  const groups = new Map<string, LedgerItem[]>();
  const byId = new Map<string, LedgerItem>();
  for (const it of items) {
    byId.set(it.id, it);
    const k = `${it.kind}\u0000${it.contactId ?? ''}\u0000${it.contactId === null ? 'none' : ''}`;
    const list = groups.get(k);
    if (list) list.push(it);
    else groups.set(k, [it]);
  }
  const b = new HistoryBuilder(toDay(asOfDate));
  const day = (d: string | null) => (d ? toDay(d) : null);
  for (const list of groups.values()) {
    b.group(list[0]!.contactId, list[0]!.kind === 'AR');
    for (const it of list) b.doc(it.id, it.status, day(it.issueDate), day(it.dueDate), day(it.paidDate), it.total);
  }
  const { history, latest } = b.finish();
  setSeriesAccounts(history, latest, (id) => byId.get(id) ?? null);
  return history;
}

/** A document's accounts as a series carries them: its largest line's, and every one its lines are coded to when two or more. */
export type DocAccounts = Pick<LedgerItem, 'accountId' | 'accountIds'>;

/** Gives each series the account (and accounts) of its contact's latest document of its kind. */
export function setSeriesAccounts(h: LedgerHistory, latest: { ar: Map<string, string>; ap: Map<string, string> }, accountsOf: (docId: string) => DocAccounts | null): void {
  const set = (series: LedgerHistory['orders'], ids: Map<string, string>) => {
    for (const [c, s] of series) {
      const id = ids.get(c);
      const a = id === undefined ? null : accountsOf(id);
      s.accountId = a?.accountId ?? null;
      if (a?.accountIds) s.accountIds = a.accountIds;
    }
  };
  set(h.orders, latest.ar);
  set(h.bills, latest.ap);
}
