/**
 * The pure parts of the revenue, expenses and contacts summaries (spec 2.8):
 * month buckets, status buckets, the gross-profit reading and the renaming of
 * sensitive contacts. docs/analytics.md.
 */
import { canonical, D } from '../money.js';
import { type DateWindow, monthRange } from '../fiscal.js';
import type { MarginMonth } from './customer.js';
import { round } from './stats.js';

export const LEDGER_STATUSES = ['DRAFT', 'SUBMITTED', 'AUTHORISED', 'PAID', 'VOIDED', 'DELETED'] as const;
import { SENSITIVE_CONTACT } from '../sensitive.js';

export { SENSITIVE_CONTACT };
export const DEFAULT_TOP_N = 10;
export const MAX_TOP_N = 100;
/** Full months of the gross-profit reading. */
export const GROSS_PROFIT_MONTHS = 3;
/** Full months of the margin used for lifetime values. */
export const MARGIN_MONTHS = 12;

export interface Bucket {
  count: number;
  amount: string;
}

export interface MonthBucket extends Bucket {
  month: string;
}

/** Amounts per calendar date (the ledger's dates are the organisation's calendar). */
export interface DayAmount {
  date: string;
  count: number;
  amount: string;
}

/** Every month of the window, zero-filled, with the days' counts and amounts added to their month. */
export function monthBuckets(window: DateWindow, days: readonly DayAmount[]): MonthBucket[] {
  const acc = new Map<string, { count: number; amount: InstanceType<typeof D> }>();
  for (const m of monthRange(window.from, window.to)) acc.set(m, { count: 0, amount: new D(0) });
  for (const d of days) {
    if (d.date < window.from || d.date > window.to) continue;
    const b = acc.get(d.date.slice(0, 7))!;
    b.count += d.count;
    b.amount = b.amount.plus(d.amount);
  }
  return [...acc].map(([month, b]) => ({ month, count: b.count, amount: canonical(b.amount) }));
}

/** Every ledger status, zero-filled. */
export function statusBuckets(rows: readonly { status: string; count: number; amount: string }[]): Record<string, Bucket> {
  const out: Record<string, Bucket> = {};
  for (const s of LEDGER_STATUSES) out[s] = { count: 0, amount: '0' };
  for (const r of rows) {
    const b = out[r.status] ?? (out[r.status] = { count: 0, amount: '0' });
    b.count += r.count;
    b.amount = canonical(new D(b.amount).plus(r.amount));
  }
  return out;
}

export interface NamedEntry {
  contactId: string;
  name: string;
  isSensitive: boolean;
  count: number;
  amount: string;
}

export interface TopContact {
  contactId: string;
  name: string;
  count: number;
  amount: string;
}

/**
 * Rows for a key: without READ_SENSITIVE (`gate`), a sensitive contact's row
 * keeps its count and amount but its name becomes `Sensitive contact` and its
 * contactId blank; `redacted` counts those rows (0 with READ_SENSITIVE).
 */
export function maskTopContacts(entries: readonly NamedEntry[], gate: boolean): { rows: TopContact[]; redacted: number } {
  let redacted = 0;
  const rows = entries.map((e) => {
    if (gate && e.isSensitive) {
      redacted++;
      return { contactId: '', name: SENSITIVE_CONTACT, count: e.count, amount: e.amount };
    }
    return { contactId: e.contactId, name: e.name, count: e.count, amount: e.amount };
  });
  return { rows, redacted };
}

export interface GrossProfitReading {
  window: DateWindow;
  revenue: string;
  costOfSales: string;
  amount: string;
  marginPercent: number | null;
}

/**
 * The gross-profit reading over `months` (the last three full months):
 * ex-tax sales less ex-tax cost of sales; marginPercent = amount / revenue
 * (4 places) or null when revenue is not positive or no cost-of-sales line
 * was seen in the window.
 */
export function grossProfitReading(window: DateWindow, months: readonly MarginMonth[]): GrossProfitReading {
  let revenue = new D(0);
  let cost = new D(0);
  let lines = 0;
  for (const m of months) {
    revenue = revenue.plus(m.revenue);
    cost = cost.plus(m.costOfSales);
    lines += m.costLines;
  }
  const amount = revenue.minus(cost);
  return {
    window,
    revenue: canonical(revenue),
    costOfSales: canonical(cost),
    amount: canonical(amount),
    marginPercent: revenue.gt(0) && lines > 0 ? round(amount.div(revenue).toNumber(), 4) : null,
  };
}
