/**
 * Recurring flows detected from history (docs/forecast.md#recurring-flows):
 * a series (a supplier's bills; bank transactions of one contact or
 * description and account, one direction) recurs when at least 75% of its
 * last gaps (at least two; every one for four-weekly) fall in one cadence's
 * range (weekly 6-8 days, fortnightly 12-16, four-weekly 28, monthly 26-35,
 * bimonthly 55-67, quarterly 80-100, annual 350-380). Its next dates follow
 * the cadence from the last event (monthly: the same day of the month), its
 * amount is the median of the last three. A series is active while the time
 * since its last event is at most 1.5 periods plus 3 days; an occurrence
 * already due but not seen is placed today when it is at most half a period
 * (and at most 7 days) late, and dropped otherwise. A weekly or fortnightly
 * series skips the days it was silent a year before (flows.ts pausesOf: more
 * than this limit between two events, on the same days one or two years
 * before, by weekday and by date), and one silent now beyond the limit is
 * still active when it was silent then too (a shop shut over Christmas).
 */
import { addMonths, dayOfMonth } from './days.js';

export type Cadence = 'WEEKLY' | 'FORTNIGHTLY' | 'FOUR_WEEKLY' | 'MONTHLY' | 'BIMONTHLY' | 'QUARTERLY' | 'ANNUAL';

export const CADENCES: { cadence: Cadence; period: number; min: number; max: number }[] = [
  { cadence: 'WEEKLY', period: 7, min: 6, max: 8 },
  { cadence: 'FORTNIGHTLY', period: 14, min: 12, max: 16 },
  // Every four weeks exactly (a monthly series has 30- and 31-day gaps too, so it does not match).
  { cadence: 'FOUR_WEEKLY', period: 28, min: 28, max: 28 },
  { cadence: 'MONTHLY', period: 30.44, min: 26, max: 35 },
  { cadence: 'BIMONTHLY', period: 60.88, min: 55, max: 67 },
  { cadence: 'QUARTERLY', period: 91.3, min: 80, max: 100 },
  { cadence: 'ANNUAL', period: 365.25, min: 350, max: 380 },
];

/** Calendar cadences step by months (same day of the month); the others by days. */
const MONTHS_OF: Partial<Record<Cadence, number>> = { MONTHLY: 1, BIMONTHLY: 2, QUARTERLY: 3, ANNUAL: 12 };

export interface CadenceMatch {
  cadence: Cadence;
  period: number;
}

/** The cadence of sorted, distinct event days, or null. */
export function detectCadence(days: readonly number[]): CadenceMatch | null {
  if (days.length < 3) return null;
  const gaps: number[] = [];
  for (let i = Math.max(1, days.length - 12); i < days.length; i++) gaps.push(days[i]! - days[i - 1]!);
  for (const c of CADENCES) {
    const inRange = gaps.filter((g) => g >= c.min && g <= c.max).length;
    const needed = c.cadence === 'FOUR_WEEKLY' ? gaps.length : 0.75 * gaps.length;
    if (inRange >= 2 && inRange >= needed) return { cadence: c.cadence, period: c.period };
  }
  return null;
}

/** The longest silence (days) of an active series of this period. */
export const isActiveLimit = (period: number) => period * 1.5 + 3;

export function isActive(lastDay: number, asOf: number, period: number): boolean {
  return asOf - lastDay <= isActiveLimit(period);
}

/** The next occurrence days of a recurring series in [asOf, end] (late ones moved to asOf, per the rule above). */
export function nextOccurrences(days: readonly number[], match: CadenceMatch, asOf: number, end: number): number[] {
  const last = days[days.length - 1]!;
  const out: number[] = [];
  const grace = Math.min(7, match.period / 2);
  const months = MONTHS_OF[match.cadence] ?? 0;
  const dom = months ? dayOfMonth(last) : 0;
  for (let k = 1; k < 400; k++) {
    const d = months ? addMonths(last, k * months, dom) : last + Math.round(k * match.period);
    if (d > end) break;
    if (d < asOf) {
      if (asOf - d <= grace) out.push(asOf);
      continue;
    }
    out.push(d);
  }
  return out;
}
