/**
 * Days and money as the demo writes them: days are whole UTC days since the
 * epoch; dates in Xero's `/Date(ms+0000)/` form; money kept in integer cents
 * (exact) and written as JSON numbers with at most two decimals, as Xero does.
 */
export const DAY_MS = 86_400_000;

export const dayOf = (d: Date) => Math.floor(d.getTime() / DAY_MS);
export const msDate = (day: number) => `/Date(${day * DAY_MS}+0000)/`;
export const msStamp = (day: number, hour = 10) => `/Date(${day * DAY_MS + hour * 3_600_000}+0000)/`;
export const isoDay = (day: number) => new Date(day * DAY_MS).toISOString().slice(0, 10);
export const monthOf = (day: number) => new Date(day * DAY_MS).getUTCMonth();
/** The calendar month of a day, `YYYY-MM`. */
export const monthKey = (day: number) => isoDay(day).slice(0, 7);
/** Cents as a JSON number with at most two decimals (exact: the shortest round-trip form). */
export const amt = (cents: number) => cents / 100;
