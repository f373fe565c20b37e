/**
 * Payments that settle what a liability account accrued (docs/forecast.md,
 * "Payments that settle an account"): a business's GST or VAT return pays
 * the tax its invoices and bills put into the GST account over a quarter,
 * the tax withheld from wages and the pension or superannuation owed are
 * paid for the period they built up in. The ledger's journals say how much
 * accrued; so the next payment is what accrued over the period it settles,
 * known in full once that period has ended, rather than the median of the
 * last three payments (which misses a seasonal quarter and a growing
 * business).
 *
 * Learnt from the business's own payments: a bank series coded to a
 * liability account settles it when most of its payments (at least
 * SETTLED_SHARE of those in its history, three at least) each equal, within
 * MATCH_TOLERANCE, what the account owed at the end of a month one to
 * MAX_MONTHS_BACK months before the payment's (less what was paid in between).
 */
import { D, dec, type Dec } from '../money.js';
import { roundToCents, type Amount } from './cents.js';
import { addMonths, dayOfMonth, fromDay, monthIndex, toDay } from './days.js';
import { upperBound } from './sorted.js';
import type { BankTxn, LiabilityLine } from './types.js';

/** At most this many months between the end of the period a payment settles and the payment's month. */
const MAX_MONTHS_BACK = 6;
/** A payment settles a period when it is within this share of what the account owed at the period's end (a dollar at least: returns round). */
const MATCH_TOLERANCE = 0.02;
/** A series settles its account when at least this share of its payments do (and three at least). */
const SETTLED_SHARE = 0.75;
const MIN_SETTLED = 3;
/** A series two periods past their due days (by more than this many days) has stopped being paid this way. */
const OVERDUE_GRACE = 7;
/** The pace of accrual: the last this many days against the same days a year before. */
const PACE_DAYS = 365;
/** The same days a year before are read this many days wider either side (half a month). */
const SMOOTH_DAYS = 15;

/** A liability account day by day (the days with a journal line or a bank transaction coded to it, ascending). */
export interface Accrual {
  accountId: string;
  days: number[];
  /** What it owed after each day: its balance, credit positive. */
  balance: Dec[];
  /** What the business came to owe in it up to each day: the balance less the bank transactions coded to it (which pay it). */
  cum: Dec[];
}

const ZERO = dec(0);
const at = (days: readonly number[], values: readonly Dec[], day: number): Dec => {
  const i = upperBound(days, day) - 1;
  return i >= 0 ? values[i]! : ZERO;
};
/** The last day of a month (monthIndex). */
const monthEnd = (m: number) => Math.floor(Date.UTC(Math.floor(m / 12), (m % 12) + 1, 0) / 86_400_000);

/**
 * Each liability account's accrual from its journal lines (credit positive,
 * per day) and the bank transactions coded to it (which pay it, or bring a
 * refund): the accrual is the balance less those.
 */
export function accruals(lines: readonly LiabilityLine[] | undefined, bankTxns: readonly BankTxn[]): Map<string, Accrual> {
  const out = new Map<string, Accrual>();
  if (!lines?.length) return out;
  const byAccount = new Map<string, Map<number, Dec>>();
  const add = (acc: string, day: number, amount: Dec) => {
    let m = byAccount.get(acc);
    if (!m) byAccount.set(acc, (m = new Map()));
    m.set(day, (m.get(day) ?? ZERO).plus(amount));
  };
  for (const l of lines) add(l.accountId, toDay(l.date), dec(l.amount));
  const bank = new Map<string, Map<number, Dec>>();
  for (const t of bankTxns) {
    if (!t.accountId || !byAccount.has(t.accountId)) continue;
    let m = bank.get(t.accountId);
    if (!m) bank.set(t.accountId, (m = new Map()));
    const day = toDay(t.date);
    m.set(day, (m.get(day) ?? ZERO).plus(dec(t.amount)));
  }
  for (const [accountId, perDay] of byAccount) {
    const paid = bank.get(accountId) ?? new Map<number, Dec>();
    const days = [...new Set([...perDay.keys(), ...paid.keys()])].sort((x, y) => x - y);
    const balance: Dec[] = [];
    const cum: Dec[] = [];
    let b = ZERO;
    let c = ZERO;
    for (const d of days) {
      // A payment debits the account by what it pays (its journal line) and is its bank transaction (negative, money out).
      b = b.plus(perDay.get(d) ?? ZERO);
      c = c.plus(perDay.get(d) ?? ZERO).minus(paid.get(d) ?? ZERO);
      balance.push(b);
      cum.push(c);
    }
    out.set(accountId, { accountId, days, balance, cum });
  }
  return out;
}

/** A payment as what it settles: its day, the accrual over its period, the part known by today and the part expected. */
export interface Settled {
  /** The day it is expected: its due day, today when that has passed (the period is still owed). */
  day: number;
  /** Its due day: the period's end and the months and day of the month the business pays after it. */
  due: number;
  amount: Amount;
  /** The period's first and last day. */
  periodStart: number;
  periodEnd: number;
  known: Dec;
  expected: Dec;
  /** The share of the amount that is expected (not accrued yet): what may vary. */
  expectedShare: number;
  /** How its due day was told: as the same period's payment a year before, or as the business usually pays. */
  dueFrom: 'year_before' | 'usual';
  /** How the part expected was told: the same days a year before, or the last year's daily average. */
  expectedFrom: 'year_before' | 'average';
}

/** The payments of one series (days ascending, amounts paid, positive), against the account they are coded to. */
export interface SettlementModel {
  /** The payments from today to `end` (a day): each next period's, the one still owed first (placed today when its due day has passed). */
  schedule(end: number): Settled[];
  /** How many months each payment settles. */
  months: number;
  /** How many of the payments in the history settled a period, of how many. */
  matched: number;
  payments: number;
}

/** When a payment comes after its period's end: so many months on, on this day of the month. */
interface Due {
  months: number;
  dom: number;
}
const dueAfter = (end: number, d: Due) => addMonths(end, d.months, d.dom);

/**
 * Whether a series of payments settles its account's accrual, learnt from
 * its payments before `asOf`, and when it pays; null when it does not (or
 * the account has no journals), or when it has stopped (a period more than
 * one period overdue).
 */
export function settlementModel(days: readonly number[], paid: readonly Dec[], acc: Accrual | undefined, asOf: number): SettlementModel | null {
  if (!acc || days.length < MIN_SETTLED) return null;
  // Each payment against what the account owed at the end of each month 1-6 months before its own, less what was paid between.
  const matched: { day: number; end: number; due: Due }[] = [];
  const B = (x: number) => at(acc.days, acc.balance, x);
  const C = (x: number) => at(acc.days, acc.cum, x);
  for (let i = 0; i < days.length; i++) {
    const d = days[i]!;
    if (d > asOf) break;
    let best: { k: number; end: number; err: Dec } | null = null;
    for (let k = 1; k <= MAX_MONTHS_BACK; k++) {
      const end = monthEnd(monthIndex(d) - k);
      if (end < acc.days[0]!) break;
      // Owed at the period's end, less what was paid between it and this payment (balance moves that are not accruals).
      const owed = B(end).plus(B(d - 1).minus(B(end)).minus(C(d - 1).minus(C(end))));
      const err = owed.minus(paid[i]!).abs();
      if (err.lte(D.max(1, paid[i]!.abs().times(MATCH_TOLERANCE))) && (!best || err.lt(best.err))) best = { k, end, err };
    }
    if (best) matched.push({ day: d, end: best.end, due: { months: best.k, dom: dayOfMonth(d) } });
  }
  const counted = days.filter((d) => d <= asOf).length;
  if (matched.length < MIN_SETTLED || matched.length < SETTLED_SHARE * counted) return null;
  // The model holds while the latest payment settled a period: the next one starts after it.
  const last = matched[matched.length - 1]!;
  if (last.day !== days[counted - 1]) return null;
  // Its periods' length in months: the most frequent between the ends of consecutive payments (ties: the latest).
  const counts = new Map<number, number>();
  let months = 0;
  for (let i = 1; i < matched.length; i++) {
    const m = monthIndex(matched[i]!.end) - monthIndex(matched[i - 1]!.end);
    if (m <= 0) continue;
    counts.set(m, (counts.get(m) ?? 0) + 1);
    if (!months || counts.get(m)! >= counts.get(months)!) months = m;
  }
  if (!months) return null;
  // When it pays after a period: as the same period a year before, else as it most often does (ties: the latest).
  const dueCounts = new Map<string, number>();
  let usual = last.due;
  for (const m of matched) {
    const key = `${m.due.months}:${m.due.dom}`;
    dueCounts.set(key, (dueCounts.get(key) ?? 0) + 1);
    if (dueCounts.get(key)! >= dueCounts.get(`${usual.months}:${usual.dom}`)!) usual = m.due;
  }
  const dueOf = (end: number): { due: number; from: Settled['dueFrom'] } => {
    const yearBefore = monthEnd(monthIndex(end) - 12);
    const same = matched.find((m) => m.end === yearBefore);
    return same ? { due: dueAfter(end, same.due), from: 'year_before' } : { due: dueAfter(end, usual), from: 'usual' };
  };
  // Stopped: the period after the last one settled is more than a period overdue (the next one's due day has passed too).
  const secondEnd = monthEnd(monthIndex(last.end) + 2 * months);
  if (dueOf(secondEnd).due < asOf - OVERDUE_GRACE) return null;
  const pace = paceOf(acc, asOf - 1);
  return {
    months,
    matched: matched.length,
    payments: counted,
    schedule(horizonEnd) {
      const out: Settled[] = [];
      for (let start = last.end; ; ) {
        const end = monthEnd(monthIndex(start) + months);
        const { due, from } = dueOf(end);
        if (Math.max(due, asOf) > horizonEnd) break;
        // Known: what accrued in the period before today (today's lines may be still to come); expected: the rest of it, from today on.
        const known = C(Math.min(end, asOf - 1)).minus(C(start));
        const { expected, from: expectedFrom } = end >= asOf ? pace(Math.max(asOf - 1, start), end) : { expected: ZERO, from: 'year_before' as const };
        const total = D.max(0, known.plus(expected));
        out.push({
          day: Math.max(due, asOf),
          due,
          amount: roundToCents(total),
          periodStart: start + 1,
          periodEnd: end,
          known,
          expected,
          expectedShare: total.gt(0) ? Math.min(1, Math.max(0, expected.div(total).toNumber())) : 0,
          dueFrom: from,
          expectedFrom,
        });
        start = end;
      }
      return out;
    },
  };
}

/**
 * What an account is expected to accrue over the days (from, to], and how
 * that was told: what it accrued over the same days a year before, at the
 * pace of its last year against the year before (a seasonal, growing
 * business; without two years, at last year's); without a year before those
 * days, its daily average of the last year (of its history when shorter).
 * Never below zero.
 */
function paceOf(acc: Accrual, asOf: number): (from: number, to: number) => { expected: Dec; from: Settled['expectedFrom'] } {
  const C = (d: number) => at(acc.days, acc.cum, d);
  const first = acc.days[0]!;
  const lastYear = C(asOf).minus(C(asOf - PACE_DAYS));
  const yearBefore = first <= asOf - 2 * PACE_DAYS ? C(asOf - PACE_DAYS).minus(C(asOf - 2 * PACE_DAYS)) : null;
  const pace = yearBefore && yearBefore.gt(0) && lastYear.gt(0) ? lastYear.div(yearBefore) : dec(1);
  const span = Math.max(1, Math.min(PACE_DAYS, asOf - first + 1));
  return (from, to) => {
    // The same days a year before, widened by SMOOTH_DAYS either side and scaled back to their length: an accrual on paydays
    // (every fortnight, every month) is not counted once more or less for where the days fell a year ago.
    if (first <= from - 365 - SMOOTH_DAYS) {
      const then = C(to - 365 + SMOOTH_DAYS).minus(C(from - 365 - SMOOTH_DAYS)).times(to - from).div(to - from + 2 * SMOOTH_DAYS);
      if (then.gte(0)) return { expected: then.times(pace), from: 'year_before' };
    }
    return { expected: D.max(0, lastYear.times(to - from).div(span)), from: 'average' };
  };
}

/** "what accrued in GST from 2026-10-01 to 2026-12-31 (...)": the period's words. */
export function settledWords(s: Settled, accountName: string): string {
  const what = `what accrued in ${accountName} from ${fromDay(s.periodStart)} to ${fromDay(s.periodEnd)}`;
  if (s.expected.isZero()) return `${what} (${s.known.toFixed(2)}, all known)`;
  const how = s.expectedFrom === 'year_before' ? "the same days last year at this year's pace" : "the last year's daily average";
  return `${what} (${s.known.toFixed(2)} so far, ${s.expected.toFixed(2)} expected: ${how})`;
}
