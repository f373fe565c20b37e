/**
 * Money: exact decimals (decimal.js), never floats. Every money value that
 * leaves the service is a canonical decimal string: digits, an optional
 * fractional part with trailing zeros trimmed, a leading '-' for negatives,
 * never an exponent, never '-0'.
 */
import { Decimal } from 'decimal.js';

// Enough precision that sums of NUMERIC values never round.
export const D = Decimal.clone({ precision: 60, rounding: Decimal.ROUND_HALF_EVEN, toExpNeg: -100, toExpPos: 100 });
export type Dec = InstanceType<typeof D>;

export type MoneyInput = string | number | Dec;

const CANONICAL = /^-?(0|[1-9]\d*)(\.\d*[1-9])?$/;
/** Plain decimal text without leading zeros or exponent (what canonical() trims as text). */
const PLAIN_DECIMAL = /^-?(0|[1-9]\d{0,40})(\.\d{1,40})?$/;

/** Parses a decimal from a string (as NUMERIC comes from the store) or a Decimal. */
export function dec(v: MoneyInput | null | undefined): Dec {
  if (v === null || v === undefined || v === '') return new D(0);
  if (typeof v === 'number' && !Number.isFinite(v)) throw new RangeError(`not a finite amount: ${v}`);
  return new D(v);
}

/** How far from 1 (a power of ten either way) canonical() writes an amount out: far beyond any money. */
const MAX_EXPONENT = 1000;

/** The canonical decimal string of the spec: '12.5', '-0.01', '0', '1000000'. */
export function canonical(v: MoneyInput): string {
  // Decimal text as the store gives NUMERIC ('1234.5600'): trimmed as text, no Decimal built (a page of 200
  // documents formats 800 amounts); the same answer as below for every string this pattern admits.
  if (typeof v === 'string' && PLAIN_DECIMAL.test(v)) {
    const s = v.includes('.') ? v.replace(/0+$/, '').replace(/\.$/, '') : v;
    return s === '-0' ? '0' : s;
  }
  const d = dec(v);
  if (!d.isFinite()) throw new RangeError(`not a finite amount: ${String(v)}`);
  if (d.isZero()) return '0';
  // '1e-9999999' is a finite Decimal whose plain text has ten million digits (minutes to write): no amount is.
  if (Math.abs(d.e) > MAX_EXPONENT) throw new RangeError(`not an amount (beyond 10^${MAX_EXPONENT} either way): ${String(v)}`);
  // toFixed() never uses exponent notation; trim the trailing zeros it may leave.
  let s = d.toFixed();
  if (s.includes('.')) s = s.replace(/0+$/, '').replace(/\.$/, '');
  return s;
}

/** canonical() for nullable values. */
export function canonicalOrNull(v: MoneyInput | null | undefined): string | null {
  return v === null || v === undefined ? null : canonical(v);
}

export function isCanonical(s: string): boolean {
  return CANONICAL.test(s);
}

export function sum(values: Iterable<MoneyInput>): Dec {
  let total = new D(0);
  for (const v of values) total = total.plus(dec(v));
  return total;
}
