/**
 * Financial years and calendar months of an organisation (pure).
 *
 * - A financial year ends on (fyEndDay, fyEndMonth) in the organisation's
 *   calendar. A day past the month's length (29 Feb in a common year, or 31
 *   in a 30-day month) means the month's last day, so a year "ending 29 Feb"
 *   ends on 28 Feb in common years and 29 Feb in leap years.
 * - Months are YYYY-MM strings of the organisation's IANA time zone: an
 *   instant is first converted to the zone's calendar (00:30 on the 1st in
 *   Sydney is that month, although it is still the previous month in UTC);
 *   a calendar date (YYYY-MM-DD, as the ledger stores its dates: the
 *   business's own calendar) is already local and is bucketed as written.
 * docs/analytics.md has the rules.
 */
import { Temporal } from 'temporal-polyfill';
import { addDays } from './calendar.js';
import { ParamError } from './list-params.js';

export interface DateWindow {
  /** First day, inclusive (YYYY-MM-DD). */
  from: string;
  /** Last day, inclusive (YYYY-MM-DD): the whole of it, to its end. */
  to: string;
}

function daysInMonth(year: number, month: number): number {
  return Temporal.PlainYearMonth.from({ year, month }).daysInMonth;
}

/** The financial-year end date falling in calendar year `year` (the day clamped to the month). */
export function fyEndInYear(year: number, fyEndDay: number, fyEndMonth: number): string {
  if (!Number.isInteger(fyEndMonth) || fyEndMonth < 1 || fyEndMonth > 12) throw new RangeError(`not a month: ${fyEndMonth}`);
  if (!Number.isInteger(fyEndDay) || fyEndDay < 1 || fyEndDay > 31) throw new RangeError(`not a day: ${fyEndDay}`);
  const day = Math.min(fyEndDay, daysInMonth(year, fyEndMonth));
  return Temporal.PlainDate.from({ year, month: fyEndMonth, day }).toString();
}

/** The financial year containing `date`: from the day after the previous year end to the next year end (inclusive). */
export function financialYearOf(date: string, fyEndDay: number, fyEndMonth: number): DateWindow {
  const year = Number(date.slice(0, 4));
  // The year end on or after `date` closes its financial year.
  let end = fyEndInYear(year, fyEndDay, fyEndMonth);
  if (end < date) end = fyEndInYear(year + 1, fyEndDay, fyEndMonth);
  const endYear = Number(end.slice(0, 4));
  const previousEnd = fyEndInYear(endYear - 1, fyEndDay, fyEndMonth);
  return { from: addDays(previousEnd, 1), to: end };
}

/** The current financial year to date: from its first day to `today` (inclusive). */
export function financialYearToDate(today: string, fyEndDay: number, fyEndMonth: number): DateWindow {
  return { from: financialYearOf(today, fyEndDay, fyEndMonth).from, to: today };
}

/**
 * The month (YYYY-MM) of a calendar date or an instant in time zone `tz`.
 * A 'YYYY-MM-DD' string is a local calendar date; a Date or an ISO instant
 * string (with a time) is converted to `tz` first.
 */
export function monthIn(tz: string, at: Date | string): string {
  if (typeof at === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(at)) return at.slice(0, 7);
  const ms = typeof at === 'string' ? Temporal.Instant.from(at).epochMilliseconds : at.getTime();
  return Temporal.Instant.fromEpochMilliseconds(ms).toZonedDateTimeISO(tz).toPlainDate().toString().slice(0, 7);
}

/** The month of a calendar date. */
export const monthOf = (date: string): string => date.slice(0, 7);

/** `month` (YYYY-MM) plus `n` months (n may be negative). */
export function addMonths(month: string, n: number): string {
  return Temporal.PlainYearMonth.from(month).add({ months: n }).toString();
}

/** Whole months from `from` to `to` (YYYY-MM), negative when `to` is earlier. */
export function monthsBetween(from: string, to: string): number {
  const [fy, fm] = from.split('-').map(Number) as [number, number];
  const [ty, tm] = to.split('-').map(Number) as [number, number];
  return (ty - fy) * 12 + (tm - fm);
}

/** Every month from the month of `from` to the month of `to` (inclusive); [] when `to` is earlier. */
export function monthRange(from: string, to: string): string[] {
  const a = from.slice(0, 7);
  const n = monthsBetween(a, to.slice(0, 7));
  const out: string[] = [];
  for (let i = 0; i <= n; i++) out.push(addMonths(a, i));
  return out;
}

/** First and last day of a month. */
export function monthWindow(month: string): DateWindow {
  const ym = Temporal.PlainYearMonth.from(month);
  return { from: ym.toPlainDate({ day: 1 }).toString(), to: ym.toPlainDate({ day: ym.daysInMonth }).toString() };
}

/** The last `n` full calendar months before the month of `today` (the current month is left out). */
export function lastFullMonths(today: string, n: number): DateWindow {
  const current = today.slice(0, 7);
  return { from: monthWindow(addMonths(current, -n)).from, to: monthWindow(addMonths(current, -1)).to };
}

/**
 * The instants a calendar-date window covers in `tz`: [start of `from`, start
 * of the day after `to`). "dateTo inclusive, to end of day" in instants.
 */
export function windowInstants(tz: string, w: DateWindow): { start: Date; endExclusive: Date } {
  const start = Temporal.PlainDate.from(w.from).toZonedDateTime({ timeZone: tz }).epochMilliseconds;
  const end = Temporal.PlainDate.from(addDays(w.to, 1)).toZonedDateTime({ timeZone: tz }).epochMilliseconds;
  return { start: new Date(start), endExclusive: new Date(end) };
}

/** The longest summary window, in years. */
export const MAX_WINDOW_YEARS = 20;

/**
 * The window of a summary (docs/analytics.md): dateTo defaults to today,
 * dateFrom to the first day of the financial year containing dateTo (so,
 * with neither, the financial year to date). A window that runs backwards
 * or spans more than MAX_WINDOW_YEARS is a ParamError naming the bound the
 * caller sent (dateFrom when both were).
 */
export function summaryWindow(q: { dateFrom?: string | undefined; dateTo?: string | undefined }, today: string, fyEndDay: number, fyEndMonth: number): DateWindow {
  const to = q.dateTo ?? today;
  const from = q.dateFrom ?? financialYearOf(to, fyEndDay, fyEndMonth).from;
  const culprit = q.dateFrom !== undefined ? 'dateFrom' : 'dateTo';
  if (from > to) throw new ParamError(culprit, 'must not be after dateTo (default today)');
  if (Number(to.slice(0, 4)) - Number(from.slice(0, 4)) > MAX_WINDOW_YEARS) throw new ParamError(culprit, `the window may span at most ${MAX_WINDOW_YEARS} years`);
  return { from, to };
}
