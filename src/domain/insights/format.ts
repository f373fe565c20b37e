/** Deterministic text formatting for notes and narratives (no locale: the same text everywhere). */
import { D, dec, type MoneyInput } from '../money.js';

/** 'AUD 12,345' (whole units, half away from zero, thousands separated by commas). */
export function money(currency: string, v: MoneyInput): string {
  const d = dec(v).toDecimalPlaces(0, D.ROUND_HALF_UP);
  const neg = d.isNeg() && !d.isZero();
  const digits = d.abs().toFixed(0).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return `${neg ? '-' : ''}${currency} ${digits}`;
}

/** What a shortfall is measured against, in words: 'zero', or 'the cash buffer of AUD 5,000'. */
export function shortfallBelow(currency: string, threshold: string): string {
  return threshold === '0' ? 'zero' : `the cash buffer of ${money(currency, threshold)}`;
}

/** A whole percentage: 0.234 -> '23%'. */
export function pct(fraction: number): string {
  return `${Math.round(fraction * 100)}%`;
}

export const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

/** '2026-11-23' -> '23 November 2026'. */
export function longDate(date: string): string {
  return `${Number(date.slice(8, 10))} ${MONTHS[Number(date.slice(5, 7)) - 1]} ${date.slice(0, 4)}`;
}
