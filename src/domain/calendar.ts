/**
 * Calendars and time zones (pure). Organisations live in an IANA time zone;
 * their business days, months and financial years are computed there.
 */
import { Temporal } from 'temporal-polyfill';

export function isValidTimeZone(tz: string): boolean {
  try {
    Temporal.Now.instant().toZonedDateTimeISO(tz);
    return /\//.test(tz) || tz === 'UTC';
  } catch {
    return false;
  }
}

/** A financial-year end (day, month) is valid when the day exists in that month (29 Feb is allowed). */
export function isValidFyEnd(day: number, month: number): boolean {
  if (!Number.isInteger(day) || !Number.isInteger(month) || month < 1 || month > 12 || day < 1) return false;
  const daysInMonth = Temporal.PlainYearMonth.from({ year: 2024, month }).daysInMonth; // leap year
  return day <= daysInMonth;
}

/** The calendar date (YYYY-MM-DD) of `at` in time zone `tz`. */
export function dateIn(tz: string, at: Date): string {
  return Temporal.Instant.fromEpochMilliseconds(at.getTime()).toZonedDateTimeISO(tz).toPlainDate().toString();
}

/** Whether a YYYY-MM-DD string is a real calendar date (2024-02-30 is not). */
export function isCalendarDate(s: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(s)) return false;
  try {
    Temporal.PlainDate.from(s, { overflow: 'reject' });
    return true;
  } catch {
    return false;
  }
}

/** Whole days from `from` to `to` (YYYY-MM-DD), negative when `to` is earlier. */
export function daysBetween(from: string, to: string): number {
  return Temporal.PlainDate.from(from).until(Temporal.PlainDate.from(to), { largestUnit: 'days' }).days;
}

export function addDays(date: string, days: number): string {
  return Temporal.PlainDate.from(date).add({ days }).toString();
}
