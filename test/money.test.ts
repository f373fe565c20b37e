/**
 * Spec section 1: "All decimal and money values are serialised as canonical
 * decimal strings … digits with an optional fractional part and trailing zeros
 * trimmed. They are never JSON numbers." One function does it: canonical().
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { canonical, D, dec, isCanonical, sum } from '../src/domain/money.js';
import { amountText, factorOf, scale, toDec, type Amount } from '../src/domain/forecast/cents.js';

const decimalString = fc
  .tuple(fc.boolean(), fc.stringMatching(/^[0-9]{1,25}$/), fc.stringMatching(/^[0-9]{0,20}$/))
  .map(([neg, int, frac]) => `${neg ? '-' : ''}${int}${frac ? `.${frac}` : ''}`);

describe('canonical decimal strings', () => {
  it('Given examples, When serialised, Then trailing zeros are trimmed and there is no exponent', () => {
    expect(canonical('1.50')).toBe('1.5');
    expect(canonical('100')).toBe('100');
    expect(canonical('100.000')).toBe('100');
    expect(canonical('0.0000001')).toBe('0.0000001'); // Decimal#toString would give 1e-7
    expect(canonical('1e21')).toBe('1000000000000000000000');
    expect(canonical('-0.00')).toBe('0'); // never '-0'
    expect(canonical('-12.3400')).toBe('-12.34');
    expect(canonical('007.10')).toBe('7.1');
    expect(canonical(dec('0.1').plus('0.2'))).toBe('0.3');
  });

  it('property: the output is always canonical (no exponent, no trailing zeros, no leading zeros, no -0)', () => {
    fc.assert(
      fc.property(decimalString, (s) => {
        const c = canonical(s);
        expect(isCanonical(c)).toBe(true);
        expect(c).not.toMatch(/[eE]/);
      }),
      { numRuns: 2000 },
    );
  });

  it('property: decimal text (as NUMERIC comes from the store) trimmed as text equals the Decimal path', () => {
    const numericText = fc
      .tuple(fc.boolean(), fc.bigInt({ min: 0n, max: 10n ** 20n }), fc.integer({ min: 0, max: 12 }), fc.integer({ min: 0, max: 4 }))
      .map(([neg, units, scale, pad]) => {
        const digits = units.toString().padStart(scale + 1, '0');
        const text = scale ? `${digits.slice(0, -scale)}.${digits.slice(-scale)}${'0'.repeat(pad)}` : digits;
        return `${neg ? '-' : ''}${text}`;
      });
    fc.assert(
      fc.property(numericText, (s) => {
        expect(canonical(s)).toBe(canonical(new D(s)));
      }),
      { numRuns: 2000 },
    );
  });

  it('property: canonical() preserves the value exactly and is idempotent', () => {
    fc.assert(
      fc.property(decimalString, (s) => {
        const c = canonical(s);
        expect(dec(c).equals(dec(s))).toBe(true);
        expect(canonical(c)).toBe(c);
      }),
      { numRuns: 2000 },
    );
  });

  it('property: negative values keep their sign and mirror the positive form', () => {
    fc.assert(
      fc.property(decimalString, (s) => {
        const v = dec(s);
        fc.pre(!v.isZero());
        const pos = canonical(v.abs());
        expect(canonical(v.abs().negated())).toBe(`-${pos}`);
      }),
    );
  });

  it('property: sums of many cent amounts are exact (no float drift)', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: -10_000_000, max: 10_000_000 }), { maxLength: 200 }), (cents) => {
        const total = sum(cents.map((c) => (c / 100).toFixed(2)));
        const exact = cents.reduce((a, b) => a + b, 0);
        expect(total.times(100).toFixed()).toBe(String(exact));
      }),
    );
  });

  it('rejects non-finite input', () => {
    expect(() => canonical(Number.NaN)).toThrow();
    expect(() => canonical(Number.POSITIVE_INFINITY)).toThrow();
  });

  it('Given text with an absurd exponent, Then it is refused at once rather than written out in millions of digits (a property run once spent minutes on one)', () => {
    expect(() => canonical('1e-9999999')).toThrow(/beyond 10\^1000/);
    expect(() => canonical('-9e9999999')).toThrow(/beyond 10\^1000/);
    expect(canonical('1e999')).toBe(`1${'0'.repeat(999)}`);
    expect(canonical('1e-999')).toBe(`0.${'0'.repeat(998)}1`);
  });
});

describe('engine amounts (src/domain/forecast/cents.ts)', () => {
  it('property: scale() by a prepared factor equals decimal.js a x factor rounded half away from zero to cents; amountText() is canonical()', () => {
    const cents = fc.oneof(fc.integer({ min: -1e12, max: 1e12 }), fc.constantFrom(0, 1, -1, 5, -5, 50, -50));
    const factor = fc.oneof(
      fc.constantFrom('1', '1.05', '0.97', '0.9', '0.5', '0.8', '0', '2.125', '0.0000001', '1.2345678'),
      fc.tuple(fc.integer({ min: 0, max: 300 }), fc.integer({ min: 0, max: 999999 })).map(([i, f]) => `${i}.${String(f).padStart(6, '0')}`),
    );
    fc.assert(
      fc.property(cents, factor, fc.boolean(), (c, f, sub) => {
        const a: Amount = sub ? { cents: c, extra: dec('0.001') } : { cents: c, extra: null };
        const want = toDec(a).times(dec(f)).toDecimalPlaces(2, D.ROUND_HALF_UP);
        const got = scale(a, factorOf(dec(f)));
        expect(toDec(got).eq(dec(f).eq(1) ? toDec(a) : want)).toBe(true);
        expect(amountText(a)).toBe(canonical(toDec(a)));
      }),
      { numRuns: 3000 },
    );
  });
});
