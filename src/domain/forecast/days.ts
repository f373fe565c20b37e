/**
 * Calendar days as integers (days since 1970-01-01), for the engine's hot
 * loops: parsing and adding with Temporal 400,000 times is too slow, and a
 * calendar date has no time zone once the organisation's "today" is known.
 * The organisation's today comes from src/domain/calendar.ts (dateIn).
 */
const DAY_MS = 86_400_000;

const dayCache = new Map<string, number>();

/** 'YYYY-MM-DD' -> day number (memoised: a ledger has a few thousand distinct dates). */
export function toDay(date: string): number {
  let n = dayCache.get(date);
  if (n === undefined) {
    const y = +date.slice(0, 4);
    const m = +date.slice(5, 7);
    const d = +date.slice(8, 10);
    n = Math.floor(Date.UTC(y, m - 1, d) / DAY_MS);
    if (dayCache.size > 200_000) dayCache.clear();
    dayCache.set(date, n);
  }
  return n;
}

const dateCache = new Map<number, string>();

/** Day number -> 'YYYY-MM-DD' (memoised like toDay). */
export function fromDay(day: number): string {
  let s = dateCache.get(day);
  if (s === undefined) {
    s = new Date(day * DAY_MS).toISOString().slice(0, 10);
    if (dateCache.size > 200_000) dateCache.clear();
    dateCache.set(day, s);
  }
  return s;
}

/** ISO weekday, Monday 1 ... Sunday 7. */
export function isoWeekday(day: number): number {
  // 1970-01-01 was a Thursday (4).
  return ((((day + 3) % 7) + 7) % 7) + 1;
}

/** The Monday of the week holding `day`. */
export function mondayOf(day: number): number {
  return day - (isoWeekday(day) - 1);
}

const monthCache = new Map<number, number>();

/** Months since year 0 (year x 12 + month 0-11) of a day. */
export function monthIndex(day: number): number {
  let m = monthCache.get(day);
  if (m === undefined) {
    const d = new Date(day * DAY_MS);
    m = d.getUTCFullYear() * 12 + d.getUTCMonth();
    if (monthCache.size > 200_000) monthCache.clear();
    monthCache.set(day, m);
  }
  return m;
}

/** Month 0-11 of a day. */
export function monthOf(day: number): number {
  return monthIndex(day) % 12;
}

/** 'YYYY-MM' of a month index. */
export function monthKey(index: number): string {
  return `${Math.floor(index / 12)}-${String((index % 12) + 1).padStart(2, '0')}`;
}

/** The last day of a month (a monthIndex). */
export function monthEnd(index: number): number {
  return Math.floor(Date.UTC(Math.floor(index / 12), (index % 12) + 1, 0) / DAY_MS);
}

/** Day of month 1-31. */
export function dayOfMonth(day: number): number {
  return new Date(day * DAY_MS).getUTCDate();
}

/** `day` moved by whole months, keeping the day of month (clamped to the month's last day). */
export function addMonths(day: number, months: number, dom?: number): number {
  const d = new Date(day * DAY_MS);
  const y = d.getUTCFullYear();
  const m = d.getUTCMonth() + months;
  const want = dom ?? d.getUTCDate();
  const last = new Date(Date.UTC(y, m + 1, 0)).getUTCDate();
  return Math.floor(Date.UTC(y, m, Math.min(want, last)) / DAY_MS);
}

