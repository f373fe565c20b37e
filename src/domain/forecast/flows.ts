/**
 * Daily flows (docs/forecast.md#daily-flows): a bank series that moves money
 * most days, such as a card processor's or a payment platform's payouts of a
 * shop's takings, a café's cash deposits of each day, daily direct debits.
 * Forecast as money per open day, not as events: each weekday at what that
 * weekday brought over the recent open days (8 weeks, more when pauses leave
 * fewer than 28 open days), times the change from the same weeks a year (and
 * two years) before to the days around each forecast day then (the series'
 * own season), on the days the business is open: a day that fell inside a
 * pause of the series a year before (364 and 365 days, so both the weekday
 * and the date count half) is expected closed as often as it was closed
 * then (a shop that shuts over Christmas, a summer fortnight). A pause is a
 * silence half as long again as its usual gaps (the 90th percentile of its
 * last 26), and at least a week. Silent now for
 * longer than a pause: still going when last year was silent on the same
 * days (it reopens when it did then) or the silence is at most four weeks
 * (it resumes today); else stopped.
 *
 * How much a week varies: the spread of the recent full open weeks' totals
 * (the simulation draws a week's money with that variance: `unit` is the
 * variance over the mean, so a steady flow is not drawn as lumpy events).
 */
import { median } from './behaviour.js';
import { isoWeekday } from './days.js';
import { lowerBound } from './sorted.js';
import { relativeSpread } from './spread.js';

/** A flow's events are a median of at most this many days apart (over its last 26 gaps). */
const FLOW_MAX_MEDIAN_GAP = 3;
/** ... and on at least this many days of the eight weeks to its last event (three a week), within the last 182 days. */
const FLOW_MIN_DAYS = 24;
/** The recent window of the rates: 8 weeks, widened (13, 26 weeks) until it has this many open days. */
const WINDOWS = [56, 91, 182];
const MIN_OPEN_DAYS = 28;
/** A silence of at most this many days is a pause the series comes back from, without a year before to say so. */
const SHORT_PAUSE = 28;
/** Days either side of a day a year before that its season reads. */
const SEASON_HALF_WIDTH = 10;
/** Years before whose seasons and pauses count. */
const YEARS = [1, 2];

export interface FlowForecast {
  /** Day of index 0; index u (1..) is day base + u. */
  base: number;
  /** Expected money on each day. */
  values: Float64Array;
  /** The variance of a week's money over its mean (the simulation's event size). */
  unit: number;
  /** Expected money in a full open week now (the weekday rates added up). */
  weekly: number;
  /** Open days the rates were read from. */
  openDays: number;
  /** The median of its last 26 gaps (days). */
  medianGap: number;
  /** How many years before gave the season. */
  seasonYears: number;
  /** Days of the horizon expected closed (a pause a year before on the same days), as a sum of shares. */
  closedDays: number;
  /** Silent for longer than a pause now, and expected back (last year's reopening, or today). */
  paused: boolean;
}

/**
 * The forecast of a series of (distinct, sorted) event days and each day's
 * money (a float estimate), for days asOf..end; 'stopped' when it is a flow
 * that has stopped; null when it is not a flow (too few or too sparse events,
 * or too few open days to read its rates from).
 */
export function flowForecast(days: readonly number[], money: readonly number[], asOf: number, end: number): FlowForecast | 'stopped' | null {
  const n = days.length;
  // Most days: three a week or more over the eight weeks to its last event (a now-and-then series is not a flow).
  const last = days[n - 1]!;
  if (asOf - last > 182 || n - lowerBound(days, last - 55) < FLOW_MIN_DAYS) return null;
  const gaps: number[] = [];
  for (let i = Math.max(1, n - 26); i < n; i++) gaps.push(days[i]! - days[i - 1]!);
  const med = median(gaps);
  if (med > FLOW_MAX_MEDIAN_GAP) return null;
  // Longer than its usual gaps allow (half as long again as the longest but one in ten), and at least a week.
  const usual = [...gaps].sort((a, b) => a - b)[Math.floor(0.9 * (gaps.length - 1))]!;
  const pauseLen = Math.max(7, 1.5 * usual);
  const { inPause, closedShare } = pausesOf(days, pauseLen);
  const silent = asOf - last;
  const paused = silent > pauseLen;
  if (paused && !((closedShare(asOf - 1) ?? 0) > 0) && silent > SHORT_PAUSE) return 'stopped';

  // Open days: inside the series' span, not in a pause, not in the current silence when it is one.
  const open = (x: number) => x >= days[0]! && !inPause(x) && !(paused && x > last);
  const openCount = (from: number, to: number) => {
    let c = 0;
    for (let x = from; x <= to; x++) if (open(x)) c++;
    return c;
  };
  const moneyOn = (from: number, to: number) => {
    let s = 0;
    for (let i = lowerBound(days, from); i < n && days[i]! <= to; i++) s += money[i]!;
    return s;
  };
  // The shortest window with enough open days.
  const window = WINDOWS.find((w) => openCount(asOf - w, asOf - 1) >= MIN_OPEN_DAYS) ?? WINDOWS[WINDOWS.length - 1]!;
  const openDays = openCount(asOf - window, asOf - 1);
  const count = new Array<number>(7).fill(0);
  const sum = new Array<number>(7).fill(0);
  for (let x = asOf - window; x < asOf; x++) if (open(x)) count[isoWeekday(x) % 7]!++;
  if (openDays < MIN_OPEN_DAYS / 2) return null;
  for (let i = lowerBound(days, asOf - window); i < n && days[i]! < asOf; i++) sum[isoWeekday(days[i]!) % 7]! += money[i]!;
  const total = sum.reduce((a, b) => a + b, 0);
  const perOpenDay = total / openDays;
  const rate = sum.map((s, w) => (count[w]! > 0 ? s / count[w]! : perOpenDay));
  const weekly = rate.reduce((a, b) => a + b, 0);

  // The season: money per open day around each day a year (two years) before, over money per open day in the window then.
  const openRate = (from: number, to: number) => {
    const c = openCount(from, to);
    return c > 0 ? { rate: moneyOn(from, to) / c, days: c } : null;
  };
  const years: { k: number; base: number }[] = [];
  for (const k of YEARS) {
    const from = asOf - window - 364 * k;
    if (from < days[0]!) continue;
    const then = openRate(from, asOf - 1 - 364 * k);
    if (then && then.days >= MIN_OPEN_DAYS / 2 && then.rate > 0) years.push({ k, base: then.rate });
  }
  const season = (d: number) => {
    let s = 0;
    let c = 0;
    for (const y of years) {
      const x = d - 364 * y.k;
      if (x + SEASON_HALF_WIDTH >= asOf) continue;
      const around = openRate(x - SEASON_HALF_WIDTH, x + SEASON_HALF_WIDTH);
      if (!around || around.days < 7) continue;
      s += around.rate / y.base;
      c++;
    }
    return c ? s / c : 1;
  };

  const base = asOf - 1;
  const values = new Float64Array(end - base + 1);
  let closedDays = 0;
  for (let u = 1; u < values.length; u++) {
    const d = base + u;
    const closed = closedShare(d) ?? 0;
    closedDays += closed;
    values[u] = rate[isoWeekday(d) % 7]! * season(d) * (1 - closed);
  }
  return { base, values, unit: weekVariance(asOf, window, openCount, moneyOn) ?? total / Math.max(1, n - lowerBound(days, asOf - window)), weekly, openDays, medianGap: med, seasonYears: years.length, closedDays, paused };
}

/**
 * The pauses of a series of (distinct, sorted) event days: silences longer
 * than `pauseLen` between two events. `inPause(x)`: day x lies strictly
 * inside one; `closedShare(d)`: the share of the years before (one and two,
 * each at 364 and 365 days: the weekday and the date) in which day d fell
 * inside one, null when the series did not span any of those days.
 */
export function pausesOf(days: readonly number[], pauseLen: number): { inPause: (x: number) => boolean; closedShare: (d: number) => number | null } {
  const n = days.length;
  const inPause = (x: number) => {
    const i = lowerBound(days, x);
    return i > 0 && i < n && days[i]! !== x && days[i]! - days[i - 1]! > pauseLen;
  };
  const closedShare = (d: number): number | null => {
    let obs = 0;
    let closed = 0;
    for (const k of YEARS) {
      for (const back of [364, 365]) {
        const x = d - back * k;
        if (x <= days[0]! || x >= days[n - 1]!) continue;
        obs++;
        if (inPause(x)) closed++;
      }
    }
    return obs ? closed / obs : null;
  };
  return { inPause, closedShare };
}

/**
 * The variance over the mean of the full open weeks' totals (the 7 days
 * before asOf, the 7 before them, ...) in the window; null below three such
 * weeks or without money.
 */
function weekVariance(asOf: number, window: number, openCount: (from: number, to: number) => number, moneyOn: (from: number, to: number) => number): number | null {
  const totals: number[] = [];
  for (let to = asOf - 1; to - 6 >= asOf - window; to -= 7) if (openCount(to - 6, to) === 7) totals.push(moneyOn(to - 6, to));
  if (totals.length < 3) return null;
  const mean = totals.reduce((a, b) => a + b, 0) / totals.length;
  if (!(mean > 0)) return null;
  return Math.max(relativeSpread(totals) ** 2 * mean, mean / 1000);
}
