/**
 * Financial-year windows and month bucketing (src/domain/fiscal.ts).
 * Spec 4.6: "When the range is omitted, the window is the current
 * financial-year to date per the organisation's financial year end day and
 * month setting. Month buckets use the organisation's IANA timezone (default
 * Australia/Sydney)". Spec 2.8 SummaryMonthBucket: "calendar month in the
 * organisation's IANA timezone … not UTC".
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { Temporal } from 'temporal-polyfill';
import { addDays, daysBetween } from '../src/domain/calendar.js';
import {
  addMonths,
  financialYearOf,
  financialYearToDate,
  fyEndInYear,
  lastFullMonths,
  monthIn,
  monthRange,
  monthsBetween,
  windowInstants,
} from '../src/domain/fiscal.js';

const dateArb = fc.date({ min: new Date('1990-01-01T00:00:00Z'), max: new Date('2099-12-31T00:00:00Z'), noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10));
const fyEndArb = fc.integer({ min: 1, max: 12 }).chain((month) =>
  fc.integer({ min: 1, max: Temporal.PlainYearMonth.from({ year: 2024, month }).daysInMonth }).map((day) => ({ day, month })),
);

describe('financial years (spec 4.6: default window = current financial year to date)', () => {
  it('Given a 30 June year end, When today is 23 Nov 2026, Then the year to date runs from 1 July 2026 to today', () => {
    expect(financialYearToDate('2026-11-23', 30, 6)).toEqual({ from: '2026-07-01', to: '2026-11-23' });
    expect(financialYearOf('2026-11-23', 30, 6)).toEqual({ from: '2026-07-01', to: '2027-06-30' });
  });

  it('Given a 30 June year end, When today is the year end itself or the day after, Then the year flips the day after', () => {
    expect(financialYearToDate('2026-06-30', 30, 6)).toEqual({ from: '2025-07-01', to: '2026-06-30' });
    expect(financialYearToDate('2026-07-01', 30, 6)).toEqual({ from: '2026-07-01', to: '2026-07-01' });
  });

  it('Given a 31 December year end, Then the financial year is the calendar year', () => {
    expect(financialYearToDate('2026-01-01', 31, 12)).toEqual({ from: '2026-01-01', to: '2026-01-01' });
    expect(financialYearToDate('2025-12-31', 31, 12)).toEqual({ from: '2025-01-01', to: '2025-12-31' });
  });

  it('Given a 29 February year end, Then common years end on 28 February and leap years on the 29th', () => {
    expect(fyEndInYear(2024, 29, 2)).toBe('2024-02-29');
    expect(fyEndInYear(2025, 29, 2)).toBe('2025-02-28');
    expect(financialYearOf('2024-02-29', 29, 2)).toEqual({ from: '2023-03-01', to: '2024-02-29' });
    expect(financialYearOf('2024-03-01', 29, 2)).toEqual({ from: '2024-03-01', to: '2025-02-28' });
    expect(financialYearOf('2025-03-01', 29, 2)).toEqual({ from: '2025-03-01', to: '2026-02-28' });
    expect(financialYearOf('2028-02-29', 29, 2)).toEqual({ from: '2027-03-01', to: '2028-02-29' });
    expect(financialYearToDate('2025-02-28', 29, 2)).toEqual({ from: '2024-03-01', to: '2025-02-28' });
  });

  it('Given the Online Retail year end (31 March), When today is 9 Dec 2011, Then the year to date starts 1 April 2011', () => {
    expect(financialYearToDate('2011-12-09', 31, 3)).toEqual({ from: '2011-04-01', to: '2011-12-09' });
  });

  it('property: for any year end in any month and any date, the date lies in its financial year, which starts the day after the previous year end and lasts 365 or 366 days', () => {
    fc.assert(
      fc.property(dateArb, fyEndArb, (date, { day, month }) => {
        const fy = financialYearOf(date, day, month);
        expect(fy.from <= date && date <= fy.to).toBe(true);
        const length = daysBetween(fy.from, fy.to) + 1;
        expect([365, 366]).toContain(length);
        // it ends on a year-end day, and the day before it starts is one too
        const endYear = Number(fy.to.slice(0, 4));
        expect(fy.to).toBe(fyEndInYear(endYear, day, month));
        expect(addDays(fy.from, -1)).toBe(fyEndInYear(endYear - 1, day, month));
        // the year to date is its prefix
        expect(financialYearToDate(date, day, month)).toEqual({ from: fy.from, to: date });
      }),
      { numRuns: 1000 },
    );
  });

  it('property: consecutive days stay in the same financial year except across a year end', () => {
    fc.assert(
      fc.property(dateArb, fyEndArb, (date, { day, month }) => {
        const next = addDays(date, 1);
        const a = financialYearOf(date, day, month);
        const b = financialYearOf(next, day, month);
        if (date === a.to) expect(b.from).toBe(next);
        else expect(b).toEqual(a);
      }),
      { numRuns: 1000 },
    );
  });
});

describe("months in the organisation's time zone (spec 2.8 SummaryMonthBucket)", () => {
  it('Given a payment at 00:30 on 1 February in Sydney (still 31 January in UTC), When bucketed for a Sydney organisation, Then it is February', () => {
    const at = new Date('2026-01-31T13:30:00Z'); // 2026-02-01T00:30+11:00
    expect(monthIn('Australia/Sydney', at)).toBe('2026-02');
    expect(monthIn('UTC', at)).toBe('2026-01');
    expect(monthIn('Australia/Sydney', '2026-01-31T13:30:00Z')).toBe('2026-02');
  });

  it('Given 23:30 on 31 July in New York (already August in UTC), Then it is July there', () => {
    expect(monthIn('America/New_York', new Date('2026-08-01T03:30:00Z'))).toBe('2026-07');
  });

  it('Given a ledger calendar date, Then it is bucketed as written (it is already the business day)', () => {
    expect(monthIn('Australia/Sydney', '2026-02-01')).toBe('2026-02');
    expect(monthIn('Pacific/Auckland', '2026-01-31')).toBe('2026-01');
  });

  it('Given a window of dates, When turned into instants, Then dateTo covers its whole day in the zone (to end of day)', () => {
    const w = windowInstants('Australia/Sydney', { from: '2026-02-01', to: '2026-02-28' });
    expect(w.start.toISOString()).toBe('2026-01-31T13:00:00.000Z');
    expect(w.endExclusive.toISOString()).toBe('2026-02-28T13:00:00.000Z');
    expect(monthIn('Australia/Sydney', new Date(w.endExclusive.getTime() - 1))).toBe('2026-02');
  });

  it('property: every instant is bucketed in the month of its local calendar date, for any zone', () => {
    const zones = ['Australia/Sydney', 'Europe/London', 'America/New_York', 'Pacific/Auckland', 'Asia/Kolkata', 'UTC'];
    fc.assert(
      fc.property(fc.date({ min: new Date('2000-01-01T00:00:00Z'), max: new Date('2060-01-01T00:00:00Z'), noInvalidDate: true }), fc.constantFrom(...zones), (at, tz) => {
        const local = Temporal.Instant.fromEpochMilliseconds(at.getTime()).toZonedDateTimeISO(tz);
        expect(monthIn(tz, at)).toBe(local.toPlainDate().toString().slice(0, 7));
        const { start, endExclusive } = windowInstants(tz, { from: local.toPlainDate().toString(), to: local.toPlainDate().toString() });
        expect(start.getTime() <= at.getTime() && at.getTime() < endExclusive.getTime()).toBe(true);
      }),
      { numRuns: 500 },
    );
  });

  it('Given month arithmetic, Then ranges, differences and the last full months agree', () => {
    expect(addMonths('2026-11', 3)).toBe('2027-02');
    expect(addMonths('2026-01', -1)).toBe('2025-12');
    expect(monthsBetween('2025-12', '2026-02')).toBe(2);
    expect(monthRange('2026-07-15', '2026-11-23')).toEqual(['2026-07', '2026-08', '2026-09', '2026-10', '2026-11']);
    expect(monthRange('2026-11-23', '2026-07-15')).toEqual([]);
    expect(lastFullMonths('2026-11-23', 3)).toEqual({ from: '2026-08-01', to: '2026-10-31' });
    expect(lastFullMonths('2024-03-01', 1)).toEqual({ from: '2024-02-01', to: '2024-02-29' });
    fc.assert(
      fc.property(fc.integer({ min: 1990, max: 2090 }), fc.integer({ min: 1, max: 12 }), fc.integer({ min: -300, max: 300 }), (y, m, n) => {
        const a = `${y}-${String(m).padStart(2, '0')}`;
        expect(monthsBetween(a, addMonths(a, n))).toBe(n);
      }),
    );
  });
});
