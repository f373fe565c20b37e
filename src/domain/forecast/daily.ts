/**
 * The daily summary's pieces (spec 2.8 DailySummaryResponse; decisions.md:
 * last7d {inflow, outflow, net, topInflows, topOutflows}, ar {current,
 * days30, days60, days90plus, total} each {count, amount}, forecast13w
 * {endingCash, lowestClosingCash, lowestWeekStart, breakEvenDate}), as pure
 * functions; the route adds names' redaction and the envelope.
 */
import { canonical, D, dec, type Dec } from '../money.js';
import { addDays, daysBetween } from '../calendar.js';
import type { ForecastPayload } from './types.js';

export interface MoneyEvent {
  id: string;
  /** The day the money moved. */
  date: string;
  /** Signed: positive in, negative out. */
  amount: string;
  contactId: string | null;
  contactName: string | null;
  contactSensitive: boolean;
}

/** A top inflow or outflow, before the route renames sensitive contacts. */
export interface TopEvent {
  contactName: string;
  contactSensitive: boolean;
  amount: string;
  /** ISO instant: midnight UTC of the day the money moved. */
  date: string;
}

export interface Last7d {
  inflow: string;
  outflow: string;
  net: string;
  topInflows: TopEvent[];
  topOutflows: TopEvent[];
}

export const TOP_EVENTS = 5;
/** The name given to money moved without a contact (bank fees, interest...). */
export const NO_CONTACT = 'No contact';

/**
 * The 7 days ending on `asOf` (inclusive): total in, total out, net, and the
 * 5 largest inflows and outflows by amount (ties: the later day first, then
 * the id), dated by the day the money moved.
 */
export function last7d(events: readonly MoneyEvent[], asOf: string): Last7d {
  const from = addDays(asOf, -6);
  let inflow = new D(0);
  let outflow = new D(0);
  const ins: { e: MoneyEvent; a: Dec }[] = [];
  const outs: { e: MoneyEvent; a: Dec }[] = [];
  for (const e of events) {
    if (e.date < from || e.date > asOf) continue;
    const a = dec(e.amount);
    if (a.gt(0)) {
      inflow = inflow.plus(a);
      ins.push({ e, a });
    } else if (a.lt(0)) {
      outflow = outflow.minus(a);
      outs.push({ e, a: a.neg() });
    }
  }
  const top = (list: { e: MoneyEvent; a: Dec }[]): TopEvent[] =>
    list
      .sort((x, y) => y.a.comparedTo(x.a) || (x.e.date < y.e.date ? 1 : x.e.date > y.e.date ? -1 : x.e.id < y.e.id ? -1 : x.e.id > y.e.id ? 1 : 0))
      .slice(0, TOP_EVENTS)
      .map(({ e, a }) => ({
        contactName: e.contactName ?? NO_CONTACT,
        contactSensitive: e.contactSensitive,
        amount: canonical(a),
        date: `${e.date}T00:00:00.000Z`,
      }));
  return { inflow: canonical(inflow), outflow: canonical(outflow), net: canonical(inflow.minus(outflow)), topInflows: top(ins), topOutflows: top(outs) };
}

export interface Bucket {
  count: number;
  amount: string;
}

export interface ArAgeing {
  current: Bucket;
  days30: Bucket;
  days60: Bucket;
  days90: Bucket;
  days90plus: Bucket;
  total: Bucket;
}

export type AgeingBand = 'current' | 'days30' | 'days60' | 'days90' | 'days90plus';
export const AGEING_BANDS: readonly AgeingBand[] = ['current', 'days30', 'days60', 'days90', 'days90plus'];

/**
 * The ageing band of a receivable `daysPastDue` days past its due date
 * (decisions.md): current = not yet past due (due today or later), days30 =
 * 1-30, days60 = 31-60, days90 = 61-90, days90plus = over 90 days past due.
 * The store's aggregate (`arAgeingInStore`) writes the same bounds in SQL.
 */
export function ageingBand(daysPastDue: number): AgeingBand {
  return daysPastDue > 90 ? 'days90plus' : daysPastDue > 60 ? 'days90' : daysPastDue > 30 ? 'days60' : daysPastDue > 0 ? 'days30' : 'current';
}

/**
 * Receivables ageing: open AUTHORISED invoices with something still owed
 * (`amountDue`, the amounts are what is still owed), by days past the due
 * date (the issue date when there is no due date) as at `asOf`, in the bands
 * of `ageingBand`; `total` is their sum.
 */
export function arAgeing(open: readonly { dueDate: string | null; issueDate: string | null; amountDue: string }[], asOf: string): ArAgeing {
  const acc = Object.fromEntries(AGEING_BANDS.map((b) => [b, [0, new D(0)]])) as Record<AgeingBand, [number, Dec]>;
  let n = 0;
  let total = new D(0);
  for (const r of open) {
    const a = dec(r.amountDue);
    if (a.lte(0)) continue;
    const band = ageingBand(daysBetween(r.dueDate ?? r.issueDate ?? asOf, asOf));
    acc[band][0] += 1;
    acc[band][1] = acc[band][1].plus(a);
    n++;
    total = total.plus(a);
  }
  const b = (x: [number, Dec]): Bucket => ({ count: x[0], amount: canonical(x[1]) });
  return {
    current: b(acc.current),
    days30: b(acc.days30),
    days60: b(acc.days60),
    days90: b(acc.days90),
    days90plus: b(acc.days90plus),
    total: { count: n, amount: canonical(total) },
  };
}

export interface Forecast13w {
  endingCash: string;
  lowestClosingCash: string;
  lowestWeekStart: string;
  /**
   * When cash is back at or above zero after its lowest point
   * (`breakEvenDate`, docs/forecast.md#break-even).
   */
  breakEvenDate: string | null;
  /** The chance cash goes below the shortfall threshold in the 13 weeks (snapshots of engine version 3 on). */
  shortfallProbability?: number;
}

/**
 * The break-even rule (docs/forecast.md#break-even), at the forecast's
 * weekly resolution. The cash path is today's cash (`startingCash`) then each
 * week's closing cash. Its lowest point is the last point holding the
 * minimum (so a second dip to the same low is not "recovered" from).
 * - Cash never below zero on the path: null (nothing to recover from).
 * - Otherwise: the end of the first week after the lowest point whose closing
 *   cash is at or above zero.
 * - No such week inside the window: null (no recovery in sight).
 */
export function breakEvenDate(p: Pick<ForecastPayload, 'weeks' | 'startingCash'>): string | null {
  const path = [dec(p.startingCash), ...p.weeks.map((w) => dec(w.closing))];
  let low = 0;
  for (let i = 1; i < path.length; i++) if (path[i]!.lte(path[low]!)) low = i;
  if (!path[low]!.isNegative()) return null;
  for (let i = low + 1; i < path.length; i++) if (!path[i]!.isNegative()) return p.weeks[i - 1]!.weekEnd;
  return null;
}

export function forecast13w(p: Pick<ForecastPayload, 'weeks' | 'startingCash' | 'endingCash' | 'shortfall'>): Forecast13w {
  const start = dec(p.startingCash);
  let lowest: Dec | null = null;
  let lowestWeek = p.weeks[0]?.weekStart ?? '';
  for (const w of p.weeks) {
    const c = dec(w.closing);
    if (lowest === null || c.lt(lowest)) {
      lowest = c;
      lowestWeek = w.weekStart;
    }
  }
  return {
    endingCash: p.endingCash,
    lowestClosingCash: canonical(lowest ?? start),
    lowestWeekStart: lowestWeek,
    breakEvenDate: breakEvenDate(p),
    ...(p.shortfall ? { shortfallProbability: p.shortfall.probability } : {}),
  };
}

/** A movement this many times the usual size of its direction is unusual. */
export const ANOMALY_FACTOR = 3;
/** Days of history the usual size is learnt from (before the 7-day window). */
export const ANOMALY_HISTORY_DAYS = 90;
/** Movements the history needs before anything can be called unusual. */
export const ANOMALY_MIN_HISTORY = 10;

/**
 * Pending anomalies (decisions.md daily summary `anomalies {pending}`;
 * docs/forecast.md#daily-summary): movements of the 7 days ending on `asOf`
 * larger than ANOMALY_FACTOR times the 90th percentile of the same
 * direction's movements (in or out) in the ANOMALY_HISTORY_DAYS before that
 * window. "Pending" because they are recent enough to still need a look; an
 * older movement is no longer counted. Nothing is unusual without
 * ANOMALY_MIN_HISTORY movements of that direction to compare with.
 */
export function pendingAnomalies(events: readonly MoneyEvent[], asOf: string): number {
  const from = addDays(asOf, -6);
  const histFrom = addDays(from, -ANOMALY_HISTORY_DAYS);
  const hist: { in: Dec[]; out: Dec[] } = { in: [], out: [] };
  const recent: Dec[] = [];
  for (const e of events) {
    if (e.date > asOf || e.date < histFrom) continue;
    const a = dec(e.amount);
    if (a.isZero()) continue;
    if (e.date >= from) recent.push(a);
    else (a.gt(0) ? hist.in : hist.out).push(a.abs());
  }
  const p90 = (list: Dec[]): Dec | null => {
    if (list.length < ANOMALY_MIN_HISTORY) return null;
    const s = [...list].sort((x, y) => x.comparedTo(y));
    // percentile_disc(0.9): the first value whose cumulative share reaches 90% (the SQL count uses the same).
    return s[Math.max(0, Math.ceil((9 * s.length) / 10) - 1)]!;
  };
  const limit = { in: p90(hist.in), out: p90(hist.out) };
  let n = 0;
  for (const a of recent) {
    const l = a.gt(0) ? limit.in : limit.out;
    if (l !== null && a.abs().gt(l.times(ANOMALY_FACTOR))) n++;
  }
  return n;
}
