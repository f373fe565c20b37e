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
 * SETTLED_SHARE of those in its history, three at least, and the latest
 * unless what was paid since is small: BETWEEN_SHARE) each equal, within
 * MATCH_TOLERANCE, what the account owed at the end of a month one to
 * MAX_MONTHS_BACK months before the payment's (less what the series paid in
 * between). The series' own payments are what pays the account; every other
 * line of it (another bank transaction coded there, GST paid on imports, a
 * refund) is part of what accrued. A bank series of receipts coded to the
 * account (a business refunded its GST every quarter) settles what the
 * account is owed back: the same model on the balance negated (owedBack).
 */
import { D, dec, type Dec } from '../money.js';
import { roundToCents, toDec, type Amount } from './cents.js';
import { addMonths, dayOfMonth, fromDay, monthEnd, monthIndex, toDay } from './days.js';
import { upperBound } from './sorted.js';
import type { LiabilityLine } from './types.js';

/** At most this many months between the end of the period a payment settles and the payment's month. */
const MAX_MONTHS_BACK = 6;
/** A payment settles a period when it is within this share of what the account owed at the period's end (a dollar at least: returns round). */
const MATCH_TOLERANCE = 0.02;
/** A series settles its account when at least this share of its payments do (and three at least). */
const SETTLED_SHARE = 0.75;
const MIN_SETTLED = 3;
/** Payments of the series since the latest that settled a period, together at most this share of a typical one, leave the model on. */
const BETWEEN_SHARE = 0.25;
/** A series two periods past their due days (by more than this many days) has stopped being paid this way. */
const OVERDUE_GRACE = 7;
/** The pace of accrual: the last year's against the year before's, month (30 days) by month, the median of at least half of them. */
const PACE_MONTHS = 12;
/** How far back the days to come are read: a year, or 52 weeks (whichever the account's last half year repeats better). */
const YEAR_LAGS = [365, 364] as const;
const LAG_CHECK_DAYS = 182;

/** A liability account day by day: its balance (credit positive: what it owed) after each day with a journal line, ascending. */
export interface Accrual {
  accountId: string;
  days: number[];
  balance: Dec[];
  /** Several accounts as one (combinedAccrual): each of them. */
  parts?: readonly Accrual[];
  /** Per day (as `days`), what its lines took off the balance (a payment, a purchase's tax), as a positive amount; and what they put on it. */
  falls?: Dec[];
  rises?: Dec[];
}

const ZERO = dec(0);
const at = (days: readonly number[], values: readonly Dec[], day: number): Dec => {
  const i = upperBound(days, day) - 1;
  return i >= 0 ? values[i]! : ZERO;
};

/** Each liability account's balance day by day, from its journal lines (credit positive, per day). */
export function accruals(lines: readonly LiabilityLine[] | undefined): Map<string, Accrual> {
  const out = new Map<string, Accrual>();
  if (!lines?.length) return out;
  const byAccount = new Map<string, Map<number, { rise: Dec; fall: Dec }>>();
  for (const l of lines) {
    let m = byAccount.get(l.accountId);
    if (!m) byAccount.set(l.accountId, (m = new Map()));
    const day = toDay(l.date);
    const a = dec(l.amount);
    const t = m.get(day) ?? { rise: ZERO, fall: ZERO };
    m.set(day, a.gte(0) ? { rise: t.rise.plus(a), fall: t.fall } : { rise: t.rise, fall: t.fall.minus(a) });
  }
  for (const [accountId, perDay] of byAccount) {
    const days = [...perDay.keys()].sort((x, y) => x - y);
    const balance: Dec[] = [];
    const rises: Dec[] = [];
    const falls: Dec[] = [];
    let b = ZERO;
    for (const d of days) {
      const { rise, fall } = perDay.get(d)!;
      balance.push((b = b.plus(rise).minus(fall)));
      rises.push(rise);
      falls.push(fall);
    }
    out.set(accountId, { accountId, days, balance, rises, falls });
  }
  return out;
}

/**
 * Several liability accounts as one (a GST return and the tax withheld paid
 * in one bank transaction, split over both accounts): on each day any of
 * them moved, what they owed together. Its id: theirs, joined by '+'.
 */
export function combinedAccrual(parts: readonly Accrual[]): Accrual {
  const days = [...new Set(parts.flatMap((p) => p.days))].sort((x, y) => x - y);
  const balance = days.map((d) => parts.reduce((sum, p) => sum.plus(at(p.days, p.balance, d)), ZERO));
  // What the parts' lines of the day itself took off and put on (none for a part without lines that day).
  const onDay = (d: number, of: 'falls' | 'rises') =>
    parts.reduce((sum, p) => {
      const i = upperBound(p.days, d) - 1;
      return i >= 0 && p.days[i] === d && p[of] ? sum.plus(p[of]![i]!) : sum;
    }, ZERO);
  return { accountId: parts.map((p) => p.accountId).join('+'), days, balance, parts, falls: days.map((d) => onDay(d, 'falls')), rises: days.map((d) => onDay(d, 'rises')) };
}

/** The account seen from its other side: what it is owed back (a debit balance, GST credits above the GST collected) as positive. */
export function owedBack(acc: Accrual): Accrual {
  return {
    accountId: acc.accountId,
    days: acc.days,
    balance: acc.balance.map((b) => b.negated()),
    ...(acc.parts ? { parts: acc.parts.map(owedBack) } : {}),
    ...(acc.rises ? { falls: acc.rises } : {}),
    ...(acc.falls ? { rises: acc.falls } : {}),
  };
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
  /** Overdue, and the account owes less than the period accrued (paid some other way): only what it owes. */
  capped: boolean;
  /** What earlier periods that went the other way (a quarter of refunds; for a refund series, a quarter that owed tax) carried into this one (0 or less): netted off it. */
  carried: Dec;
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
  /**
   * The periods since the series' own latest payment that were paid another
   * way (a bill to the tax office, another contact's payment): from
   * SUCCEEDED_AFTER on, and with another series settling the account, the
   * series is over (series.ts).
   */
  paidElsewhere: number;
  /** The day of the latest payment that settled a period. */
  lastSettled: number;
}

/** Periods running paid another way after which a series is taken as succeeded by the series that pays them (SettlementModel.paidElsewhere). */
export const SUCCEEDED_AFTER = MIN_SETTLED;

/** When a payment comes after its period's end: so many months on, on this day of the month (31: the month's last). */
interface Due {
  months: number;
  dom: number;
}
const dueAfter = (end: number, d: Due) => addMonths(end, d.months, d.dom);
/** A payment's day of the month; its month's last day (whatever the month) is 31. */
const domOf = (day: number) => (dayOfMonth(day + 1) === 1 ? 31 : dayOfMonth(day));

/**
 * Whether a series of payments settles its account's accrual, learnt from
 * its payments before `asOf`, and when it pays; null when it does not (or
 * the account has no journals), or when it has stopped (a period more than
 * one period overdue).
 */
export function settlementModel(days: readonly number[], paid: readonly Dec[], acc: Accrual | undefined, asOf: number): SettlementModel | null {
  if (!acc || days.length < MIN_SETTLED) return null;
  const counted = upperBound(days, asOf);
  // The series' own payments, cumulative: what pays the account. The accrual is the balance with them put back.
  const paidCum: Dec[] = [];
  let p = ZERO;
  for (let i = 0; i < counted; i++) paidCum.push((p = p.plus(paid[i]!)));
  let own = days.slice(0, counted);
  const B = (x: number) => at(acc.days, acc.balance, x);
  const S = (x: number) => at(own, paidCum, x);
  const C = (x: number) => B(x).plus(S(x));
  const close = (a: Dec, b: Dec) => a.minus(b).abs().lte(D.max(1, b.abs().times(MATCH_TOLERANCE)));
  // Each payment against what the account owed at the end of each month 1-6 months before its own, less what the series paid between.
  const matched: { day: number; end: number; due: Due; paid: Dec }[] = [];
  for (let i = 0; i < counted; i++) {
    const d = days[i]!;
    let best: { k: number; end: number; err: Dec } | null = null;
    for (let k = 1; k <= MAX_MONTHS_BACK; k++) {
      const end = monthEnd(monthIndex(d) - k);
      if (end < acc.days[0]!) break;
      const owed = B(end).minus(S(d - 1).minus(S(end)));
      const err = owed.minus(paid[i]!).abs();
      if (close(owed, paid[i]!) && (!best || err.lt(best.err))) best = { k, end, err };
    }
    if (best) matched.push({ day: d, end: best.end, due: { months: best.k, dom: domOf(d) }, paid: paid[i]! });
  }
  if (matched.length < MIN_SETTLED || matched.length < SETTLED_SHARE * counted) return null;
  // The model holds while the latest payment settled a period (the next one starts after it), or what the series paid since is
  // small beside what its periods take (a penalty or interest paid to the tax office between returns): together at most
  // BETWEEN_SHARE of the median payment that settled a period.
  const last = matched[matched.length - 1]!;
  let since = ZERO;
  for (let i = upperBound(days, last.day); i < counted; i++) since = since.plus(paid[i]!);
  const typical = matched.map((m) => m.paid).sort((a, b) => a.comparedTo(b))[(matched.length - 1) >> 1]!;
  if (since.gt(typical.times(BETWEEN_SHARE))) return null;
  const months = periodMonths(matched.map((m) => m.end));
  if (!months) return null;
  // When it pays after a period: as it most often does for periods of this length (ties: the latest; a business that went from
  // quarterly to monthly returns pays the months on their own day), or as the same period a year before when that was at most a
  // month from the usual (a tax office's December exception; a return paid months late is not taken for its due day).
  // A payment's period length: the months since the one before's end (the first's: as its successor's).
  const gapAt = (i: number) => monthIndex(matched[i]!.end) - monthIndex(matched[i - 1]!.end);
  const ofLength = matched.filter((_, i) => (i > 0 ? gapAt(i) : matched.length > 1 && gapAt(1)) === months);
  const usual = mostFrequent((ofLength.length ? ofLength : matched).map((m) => m.due), (due) => `${due.months}:${due.dom}`)!;
  // The same period: one ending a year before, of as many months (unless it is the first one settled: nothing tells).
  const sameBefore = (end: number) => {
    const i = matched.findIndex((m) => m.end === monthEnd(monthIndex(end) - 12));
    return i === 0 || (i > 0 && monthIndex(matched[i]!.end) - monthIndex(matched[i - 1]!.end) === months) ? matched[i] : undefined;
  };
  const dueOf = (end: number): { due: number; from: Settled['dueFrom'] } => {
    const same = sameBefore(end);
    return same && Math.abs(same.due.months - usual.months) <= 1 ? { due: dueAfter(end, same.due), from: 'year_before' } : { due: dueAfter(end, usual), from: 'usual' };
  };
  const today = asOf - 1; // what the lines say up to: yesterday (today's may be still to come)
  // Periods settled some other way since (a bill to the tax office, a payment from another account or contact): a day on which the
  // account's balance fell by what the period accrued settled it; it is paid, and that money is no accrual of the next period.
  // A period that accrued less than nothing (a quarter of refunds) has nothing to pay: what the tax office owes back is carried
  // into the next (paid back during it, it is no tax of that period; not paid back, it is offset against that period's return).
  let settledTo = last.end;
  let carry = ZERO;
  let otherWay = 0;
  for (;;) {
    const end = monthEnd(monthIndex(settledTo) + months);
    if (end >= today) break;
    const owed = C(end).minus(C(settledTo)).plus(carry);
    // (Nothing at all accrued is not taken for a refund: more likely lines not in the books yet.)
    if (owed.lt(0)) {
      [settledTo, carry] = [end, owed];
      continue;
    }
    let paidOn = -1;
    for (let j = upperBound(acc.days, end); j < acc.days.length && acc.days[j]! <= today && paidOn < 0; j++) {
      // The day's fall, or what its lines took off (the day's own accrual, a sale's tax, not netted against the payment).
      const fell = acc.balance[j]!.minus(j > 0 ? acc.balance[j - 1]! : ZERO).negated();
      if (owed.gt(0) && (close(fell, owed) || (acc.falls !== undefined && close(acc.falls[j]!, owed)))) paidOn = acc.days[j]!;
    }
    if (paidOn < 0) break;
    otherWay++;
    const k = upperBound(own, paidOn);
    own = [...own.slice(0, k), paidOn, ...own.slice(k)];
    paidCum.splice(k, 0, k > 0 ? paidCum[k - 1]! : ZERO);
    for (let i = k; i < paidCum.length; i++) paidCum[i] = paidCum[i]!.plus(owed);
    [settledTo, carry] = [end, ZERO];
  }
  // Stopped: the period after the last one settled is more than a period overdue (the next one's due day has passed too).
  if (dueOf(monthEnd(monthIndex(settledTo) + 2 * months)).due < asOf - OVERDUE_GRACE) return null;
  const pace = acc.parts ? partsPace(acc.parts, own, today) : paceOf(C, acc.days[0]!, today);
  return {
    months,
    matched: matched.length,
    payments: counted,
    paidElsewhere: otherWay,
    lastSettled: last.day,
    schedule(horizonEnd) {
      const out: Settled[] = [];
      let placedOverdue = ZERO;
      let carriedOn = carry;
      for (let start = settledTo; ; ) {
        const end = monthEnd(monthIndex(start) + months);
        const { due, from } = dueOf(end);
        if (Math.max(due, asOf) > horizonEnd) break;
        // Known: what accrued in the period up to yesterday; expected: the rest of it.
        const known = C(Math.min(end, today)).minus(C(Math.min(start, today)));
        const { expected, from: expectedFrom } = end > today ? pace(Math.max(start, today), end) : { expected: ZERO, from: 'year_before' as const };
        // What the tax office still owes back from a quarter of refunds nets off this one; less than nothing is carried on again.
        const carried = carriedOn;
        const net = known.plus(expected).plus(carried);
        carriedOn = D.min(0, net);
        let total = D.max(0, net);
        // Overdue: at most what the account still owes (a return paid some other way, a bill to the tax office, is not owed twice).
        let capped = false;
        if (due < asOf) {
          const owes = D.max(0, B(today).minus(placedOverdue));
          if (owes.lt(total)) [total, capped] = [owes, true];
          placedOverdue = placedOverdue.plus(total);
        }
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
          capped,
          carried,
        });
        start = end;
      }
      return out;
    },
  };
}

/** The periods' length in months: the latest gap between settled periods' ends when the one before it agrees (a change of cadence), else the most frequent (ties: the latest). */
function periodMonths(ends: readonly number[]): number {
  const gaps: number[] = [];
  for (let i = 1; i < ends.length; i++) {
    const m = monthIndex(ends[i]!) - monthIndex(ends[i - 1]!);
    if (m > 0) gaps.push(m);
  }
  if (gaps.length >= 2 && gaps[gaps.length - 1] === gaps[gaps.length - 2]) return gaps[gaps.length - 1]!;
  return mostFrequent(gaps, String) ?? 0;
}

/** The value seen most often (by `key`); of equally frequent ones, the one whose count reached it last. Undefined when empty. */
function mostFrequent<T>(values: readonly T[], key: (v: T) => string): T | undefined {
  const counts = new Map<string, number>();
  let best: T | undefined;
  for (const v of values) {
    const k = key(v);
    counts.set(k, (counts.get(k) ?? 0) + 1);
    if (best === undefined || counts.get(k)! >= counts.get(key(best))!) best = v;
  }
  return best;
}

/**
 * What an account is expected to accrue over the days (from, to], and how
 * that was told: what it accrued over the same days a year before (365 days
 * back, or 52 weeks for an accrual that keeps to the week, a fortnightly
 * payday: whichever its last half year repeats better), at its pace (the
 * median over the last twelve months of each month's accrual against the
 * same month a year before, a one-off in either left aside; 1 without six
 * such months); without a year before those days, its daily average of the
 * last year (of its history when shorter). Never below zero (unless not
 * `clamp`: one of several accounts settled together, partsPace).
 */
function paceOf(C: (d: number) => Dec, first: number, today: number, clamp = true): (from: number, to: number) => { expected: Dec; from: Settled['expectedFrom'] } {
  const between = (a: number, b: number) => C(b).minus(C(a));
  const pace = medianPace(between, first, today);
  // The lag the account repeats better: the day-by-day accrual of its last half year against itself a year (52 weeks) before.
  let lag: number = YEAR_LAGS[0];
  if (today - LAG_CHECK_DAYS - 365 >= first) {
    const miss = YEAR_LAGS.map((L) => {
      let m = ZERO;
      for (let d = today - LAG_CHECK_DAYS + 1; d <= today; d++) m = m.plus(between(d - 1, d).minus(between(d - 1 - L, d - L)).abs());
      return m;
    });
    if (miss[1]!.lt(miss[0]!)) lag = YEAR_LAGS[1];
  }
  const span = Math.max(1, Math.min(365, today - first + 1));
  const lastYear = between(today - 365, today);
  return (from, to) => {
    if (first <= from - lag) {
      const then = between(from - lag, to - lag);
      if (then.gte(0) || !clamp) return { expected: then.times(pace), from: 'year_before' };
    }
    const average = lastYear.times(to - from).div(span);
    return { expected: clamp ? D.max(0, average) : average, from: 'average' };
  };
}

/**
 * Several accounts settled together (a return of GST and the tax withheld),
 * each read as if alone (paceOf, not held above zero: the tax withheld
 * lessens a refund of GST), its payments put back (each payment day's fall
 * of its balance: the series' payments are not split by account); the sum
 * never below zero. So the tax withheld only since the first employee, a
 * year ago, is not taken for the GST growing by half again (months with it
 * against months without), and one begun within the year is its own daily
 * average. Told from the same days a year before when every account was;
 * else from averages.
 */
function partsPace(parts: readonly Accrual[], paid: readonly number[], today: number): (from: number, to: number) => { expected: Dec; from: Settled['expectedFrom'] } {
  const days = [...new Set(paid)];
  const each = parts.map((p) => {
    const B = (x: number) => at(p.days, p.balance, x);
    const back: Dec[] = [];
    let c = ZERO;
    for (const d of days) {
      const fall = B(d - 1).minus(B(d));
      if (fall.gt(0)) c = c.plus(fall);
      back.push(c);
    }
    return paceOf((x) => B(x).plus(at(days, back, x)), p.days[0]!, today, false);
  });
  return (from, to) => {
    let total = ZERO;
    let yearBefore = true;
    for (const e of each) {
      const r = e(from, to);
      total = total.plus(r.expected);
      if (r.from !== 'year_before') yearBefore = false;
    }
    return { expected: D.max(0, total), from: yearBefore ? 'year_before' : 'average' };
  };
}

/** The median over the last PACE_MONTHS months (30 days) of each month's `between` against the same month a year before (both above 0); 1 under half of them. */
function medianPace(between: (a: number, b: number) => Dec, first: number, today: number): Dec {
  const ratios: number[] = [];
  for (let i = 0; i < PACE_MONTHS; i++) {
    const b = today - 30 * i;
    const [now, then] = [between(b - 30, b), between(b - 30 - 365, b - 365)];
    if (b - 30 - 365 >= first && now.gt(0) && then.gt(0)) ratios.push(now.div(then).toNumber());
  }
  ratios.sort((x, y) => x - y);
  return ratios.length >= PACE_MONTHS / 2 ? dec(ratios[ratios.length >> 1]!) : dec(1);
}

/** "what accrued in GST from 2026-10-01 to 2026-12-31 (...)": the period's words. */
export function settledWords(s: Settled, accountName: string, asOf: number, refund = false): string {
  const what = `${refund ? `what ${accountName} was owed back` : `what accrued in ${accountName}`} from ${fromDay(s.periodStart)} to ${fromDay(s.periodEnd)}`;
  const less = s.carried.lt(0) ? `, less ${s.carried.negated().toFixed(2)} carried from an earlier period ${refund ? 'that owed tax' : 'of refunds'}` : '';
  if (s.capped) return `${what} (${s.known.toFixed(2)})${less}, as far as the account ${refund ? 'is still owed' : 'still owes'} it (${toDec(s.amount).toFixed(2)})`;
  if (s.periodEnd < asOf) return `${what} (${s.known.toFixed(2)}, all known)${less}`;
  const how = s.expectedFrom === 'year_before' ? "the same days last year at this year's pace" : "the last year's daily average";
  return `${what} (${s.known.toFixed(2)} so far, ${s.expected.toFixed(2)} expected: ${how})${less}`;
}
