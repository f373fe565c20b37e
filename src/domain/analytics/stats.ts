/** Small robust statistics (pure). */

/** The median of numbers (mean of the two middle values for an even count); null for none. */
export function median(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/** Median absolute deviation from the median; null for none. */
export function mad(values: readonly number[]): number | null {
  const m = median(values);
  if (m === null) return null;
  return median(values.map((v) => Math.abs(v - m)));
}

/** Rounds to `dp` decimal places (half away from zero), without -0. */
export function round(n: number, dp: number): number {
  const f = 10 ** dp;
  const r = Math.sign(n) * Math.round(Math.abs(n) * f) / f;
  return r === 0 ? 0 : r;
}

export const clamp = (n: number, lo: number, hi: number): number => (n < lo ? lo : n > hi ? hi : n);

const DAY_MS = 86_400_000;

/** Days since 1970-01-01 of a YYYY-MM-DD calendar date (fast: no Temporal objects in hot loops). */
export function epochDay(date: string): number {
  // setUTCFullYear, unlike Date.UTC, does not map years 0-99 to 1900-1999.
  return new Date(0).setUTCFullYear(Number(date.slice(0, 4)), Number(date.slice(5, 7)) - 1, Number(date.slice(8, 10))) / DAY_MS;
}

/** Whole days from `from` to `to` (YYYY-MM-DD); the same as calendar.daysBetween. */
export const dayDiff = (from: string, to: string): number => epochDay(to) - epochDay(from);
