/**
 * Xero's two date formats (pure):
 * - Microsoft JSON dates `/Date(1539993600000+0000)/`: milliseconds since the
 *   epoch (UTC), optionally followed by the local offset (+hhmm / -hhmm);
 * - ISO strings `2019-10-31T00:00:00`, with or without `Z` or an offset, a
 *   space instead of `T`, and up to 7 fraction digits (.NET's form).
 *
 * Calendar dates (Date, DueDate, FullyPaidOnDate, …) are the business day as
 * the ledger wrote it: Xero stores them as midnight of that day. So an ISO
 * string's date part is taken as written (whatever its offset), and a
 * `/Date(ms+hhmm)/` is shifted by its offset before its UTC date is taken.
 *
 * Timestamps (UpdatedDateUTC) are instants: `/Date(ms…)/` is `ms` whatever the
 * offset says (the offset only tells the writer's local time), and an ISO
 * string without an offset is UTC.
 */

const MS_DATE = /^\/Date\((-?\d{1,16})([+-])?(\d{2})?(\d{2})?\)\/$/;
const ISO =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?)?(?:(Z|z)|([+-])(\d{2}):?(\d{2}))?$/;

const MAX_MS = 8.64e15;

interface MsDate {
  ms: number;
  offsetMinutes: number;
}

function parseMsDate(s: string): MsDate | null {
  const m = MS_DATE.exec(s);
  if (!m) return null;
  const [, msText, sign, hh, mm] = m;
  // An offset is a sign with exactly four digits, or nothing at all.
  if ((sign === undefined) !== (hh === undefined) || (hh === undefined) !== (mm === undefined)) return null;
  const ms = Number(msText);
  if (!Number.isSafeInteger(ms) || Math.abs(ms) > MAX_MS) return null;
  let offsetMinutes = 0;
  if (sign) {
    const h = Number(hh);
    const min = Number(mm);
    if (h > 23 || min > 59) return null;
    offsetMinutes = (sign === '-' ? -1 : 1) * (h * 60 + min);
  }
  return { ms, offsetMinutes };
}

function isoDateOf(ms: number): string | null {
  if (Math.abs(ms) > MAX_MS) return null;
  const d = new Date(ms);
  const y = d.getUTCFullYear();
  if (y < 1 || y > 9999) return null;
  return `${String(y).padStart(4, '0')}-${String(d.getUTCMonth() + 1).padStart(2, '0')}-${String(d.getUTCDate()).padStart(2, '0')}`;
}

function daysInMonth(year: number, month: number): number {
  const d = new Date(0);
  d.setUTCFullYear(year, month, 0); // day 0 of the next month: the last day of this one
  return d.getUTCDate();
}

interface IsoParts {
  date: string;
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  ms: number;
  /** Minutes east of UTC; null when the string has no zone. */
  offsetMinutes: number | null;
}

function parseIso(s: string): IsoParts | null {
  const m = ISO.exec(s);
  if (!m) return null;
  const year = Number(m[1]);
  const month = Number(m[2]);
  const day = Number(m[3]);
  if (year < 1 || month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return null;
  const hour = m[4] === undefined ? 0 : Number(m[4]);
  const minute = m[5] === undefined ? 0 : Number(m[5]);
  const second = m[6] === undefined ? 0 : Number(m[6]);
  if (hour > 24 || minute > 59 || second > 60) return null;
  if (hour === 24 && (minute !== 0 || second !== 0)) return null;
  const ms = m[7] === undefined ? 0 : Number(m[7].padEnd(3, '0').slice(0, 3));
  let offsetMinutes: number | null = null;
  if (m[8]) offsetMinutes = 0;
  else if (m[9]) {
    const h = Number(m[10]);
    const min = Number(m[11]);
    if (h > 23 || min > 59) return null;
    offsetMinutes = (m[9] === '-' ? -1 : 1) * (h * 60 + min);
  }
  return { date: `${m[1]}-${m[2]}-${m[3]}`, year, month, day, hour, minute, second, ms, offsetMinutes };
}

/**
 * A Xero calendar date as 'YYYY-MM-DD', or null when `s` is not one of Xero's
 * date forms (or not a real date).
 */
export function parseXeroDate(s: string): string | null {
  if (s.startsWith('/')) {
    const d = parseMsDate(s);
    if (!d) return null;
    return isoDateOf(d.ms + d.offsetMinutes * 60_000);
  }
  return parseIso(s)?.date ?? null;
}

/** A Xero timestamp as a Date, or null when `s` is not one of Xero's date forms. */
export function parseXeroTimestamp(s: string): Date | null {
  if (s.startsWith('/')) {
    const d = parseMsDate(s);
    return d ? new Date(d.ms) : null;
  }
  const p = parseIso(s);
  if (!p) return null;
  // Built field by field: Date.UTC would map years 0-99 to 1900-1999.
  const d = new Date(0);
  d.setUTCFullYear(p.year, p.month - 1, p.day);
  d.setUTCHours(p.hour, p.minute, Math.min(p.second, 59), p.ms);
  const ms = d.getTime() - (p.offsetMinutes ?? 0) * 60_000;
  if (!Number.isFinite(ms) || Math.abs(ms) > MAX_MS) return null;
  return new Date(ms);
}

/** Formats an instant as Xero does: `/Date(ms+0000)/` (or with the given offset in minutes). */
export function toMsDate(at: Date, offsetMinutes = 0): string {
  const sign = offsetMinutes < 0 ? '-' : '+';
  const abs = Math.abs(offsetMinutes);
  const hh = String(Math.floor(abs / 60)).padStart(2, '0');
  const mm = String(abs % 60).padStart(2, '0');
  return `/Date(${at.getTime()}${sign}${hh}${mm})/`;
}

/**
 * A calendar date as Xero writes it in `/Date()/` form: midnight of that day
 * in a zone `offsetMinutes` east of UTC, with that offset.
 */
export function calendarDateToMsDate(date: string, offsetMinutes = 0): string {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  const midnight = new Date(0);
  midnight.setUTCFullYear(y, m - 1, d);
  midnight.setUTCHours(0, 0, 0, 0);
  return toMsDate(new Date(midnight.getTime() - offsetMinutes * 60_000), offsetMinutes);
}
