/**
 * Exact money for the engine's hot loops. Ledger amounts are almost always
 * whole cents; the engine carries them as integer cents in JS numbers (exact
 * while below 2^53, about 90 trillion) and keeps a decimal.js remainder for
 * anything finer or larger, so sums stay exact "to the cent and beyond"
 * without a Decimal operation per item. Nothing here is a float: statistical
 * estimates (means, probabilities) are turned into whole cents once, by
 * Math.round, before they become money.
 */
import { canonical, D, dec, type Dec, type MoneyInput } from '../money.js';

/** An exact amount: cents / 100 + extra. */
export interface Amount {
  cents: number;
  /** Sub-cent or out-of-range part; null when the amount is whole cents. */
  extra: Dec | null;
}

const WHOLE_CENTS = /^(-?)(\d{1,13})(?:\.(\d{1,2})0*)?$/;
const ZERO_DEC = new D(0);

/** Parses a NUMERIC string (or Decimal) exactly. */
export function amountOf(v: MoneyInput | null | undefined): Amount {
  if (v === null || v === undefined || v === '') return { cents: 0, extra: null };
  if (typeof v === 'string') {
    const m = WHOLE_CENTS.exec(v);
    if (m) {
      const frac = (m[3] ?? '').padEnd(2, '0');
      const c = Number(m[2]) * 100 + Number(frac);
      return { cents: m[1] ? -c : c, extra: null };
    }
  }
  return splitDec(dec(v));
}

/** A Decimal as cents + remainder. */
export function splitDec(d: Dec): Amount {
  const c = d.times(100);
  const whole = c.truncated();
  if (whole.abs().lt(2 ** 52)) {
    const rest = d.minus(whole.div(100));
    return { cents: whole.toNumber(), extra: rest.isZero() ? null : rest };
  }
  return { cents: 0, extra: d };
}

export function toDec(a: Amount): Dec {
  const base = new D(a.cents).div(100);
  return a.extra ? base.plus(a.extra) : base;
}

/** The canonical decimal string of an amount (money.ts `canonical`), without a Decimal for whole cents. */
export function amountText(a: Amount): string {
  if (a.extra !== null) return canonical(toDec(a));
  const c = Math.abs(a.cents);
  const whole = Math.floor(c / 100);
  const frac = c % 100;
  const sign = a.cents < 0 ? '-' : '';
  if (frac === 0) return c === 0 ? '0' : `${sign}${whole}`;
  return `${sign}${whole}.${frac % 10 === 0 ? frac / 10 : String(frac).padStart(2, '0')}`;
}

export function isPositive(a: Amount): boolean {
  if (a.extra === null) return a.cents > 0;
  return toDec(a).gt(0);
}

/** The amount as a float: for statistics only, never for money. */
export const toF = (a: Amount) => a.cents / 100 + (a.extra ? a.extra.toNumber() : 0);

/** a + b, exact. */
export function add(a: Amount, b: Amount): Amount {
  const c = a.cents + b.cents;
  if (!Number.isSafeInteger(c)) return splitDec(toDec(a).plus(toDec(b)));
  const extra = a.extra && b.extra ? a.extra.plus(b.extra) : (a.extra ?? b.extra);
  return { cents: c, extra };
}

/** The amount rounded to whole cents (half away from zero), e.g. for scaled or converted values. */
export function roundToCents(d: Dec): Amount {
  return splitDec(d.toDecimalPlaces(2, D.ROUND_HALF_UP));
}

/** A scale factor prepared once: its Decimal, and when it has at most 6 decimals, num / den as integers. */
export interface Factor {
  dec: Dec;
  one: boolean;
  num: number | null;
  den: number;
}

export function factorOf(d: Dec): Factor {
  const dp = d.decimalPlaces();
  const den = 10 ** Math.min(dp, 6);
  const num = dp <= 6 ? d.times(den).toNumber() : null;
  return { dec: d, one: d.eq(1), num: num !== null && Number.isSafeInteger(num) ? num : null, den };
}

/**
 * a x factor rounded to whole cents (half away from zero; factor: never a
 * float). Factor 1 returns `a` itself, unrounded. Whole cents times a factor
 * of few decimals is integer arithmetic; anything else goes through decimal.js.
 */
export function scale(a: Amount, f: Factor): Amount {
  if (f.one) return a;
  if (a.extra === null && f.num !== null) {
    const q = a.cents * f.num;
    if (Number.isSafeInteger(q)) {
      const abs = Math.abs(q);
      let whole = Math.floor(abs / f.den);
      if (2 * (abs - whole * f.den) >= f.den) whole++;
      return { cents: q < 0 ? -whole : whole, extra: null };
    }
  }
  return roundToCents(toDec(a).times(f.dec));
}

/** A running exact sum. */
export class Acc {
  private c = 0;
  private extra: Dec = ZERO_DEC;
  private hasExtra = false;
  add(a: Amount): this {
    const c = this.c + a.cents;
    if (Number.isSafeInteger(c)) this.c = c;
    else {
      this.extra = this.extra.plus(new D(a.cents).div(100));
      this.hasExtra = true;
    }
    if (a.extra) {
      this.extra = this.extra.plus(a.extra);
      this.hasExtra = true;
    }
    return this;
  }
  addCents(c: number): this {
    return this.add({ cents: c, extra: null });
  }
  get value(): Dec {
    const base = new D(this.c).div(100);
    return this.hasExtra ? base.plus(this.extra) : base;
  }
  get amount(): Amount {
    return this.hasExtra ? splitDec(this.value) : { cents: this.c, extra: null };
  }
}

/**
 * Splits whole cents `total` over weights (non-negative floats) by largest
 * remainder: the parts are integers and sum exactly to `total`. Ties go to
 * the earlier index, so the split is deterministic.
 */
export function splitByWeights(total: number, weights: ArrayLike<number>): number[] {
  const n = weights.length;
  const out = new Array<number>(n).fill(0);
  let sum = 0;
  for (let i = 0; i < n; i++) sum += weights[i]! > 0 ? weights[i]! : 0;
  if (n === 0 || sum <= 0 || total === 0) {
    if (n > 0) out[0] = total;
    return out;
  }
  const sign = total < 0 ? -1 : 1;
  const abs = Math.abs(total);
  let given = 0;
  const rems: { i: number; r: number }[] = [];
  for (let i = 0; i < n; i++) {
    const w = weights[i]! > 0 ? weights[i]! : 0;
    const exact = (abs * w) / sum;
    const f = Math.floor(exact);
    out[i] = f;
    given += f;
    rems.push({ i, r: exact - f });
  }
  rems.sort((a, b) => b.r - a.r || a.i - b.i);
  for (let k = 0; given < abs; k = (k + 1) % n) {
    const i = rems[k]!.i;
    out[i] = out[i]! + 1;
    given++;
  }
  // Float rounding can only overshoot by a unit here and there: take it back from the smallest remainders.
  for (let k = n - 1; given > abs; k = (k - 1 + n) % n) {
    const i = rems[k]!.i;
    if (out[i]! > 0) {
      out[i] = out[i]! - 1;
      given--;
    }
  }
  return sign < 0 ? out.map((x) => -x || 0) : out;
}
