/**
 * The daily summary's pieces as pure functions (spec 2.8 DailySummaryResponse;
 * decisions.md sub-objects last7d, ar, forecast13w; spec 8: topInflows and
 * topOutflows of 5 entries) and its deterministic 2-4 sentence narrative with
 * documented thresholds (docs/forecast.md#daily-summary).
 */
import { describe, expect, it } from 'vitest';
import { addDays } from '../src/domain/calendar.js';
import { ANOMALY_MIN_HISTORY, ageingBand, arAgeing, breakEvenDate, forecast13w, last7d, pendingAnomalies, type MoneyEvent } from '../src/domain/forecast/daily.js';
import { narrative, narrativeShortfall, netSignal } from '../src/domain/narrative.js';
import type { ForecastWeek } from '../src/domain/forecast/types.js';

const AS_OF = '2026-11-23';
const ev = (id: string, date: string, amount: string, name: string | null = `Contact ${id}`, sensitive = false): MoneyEvent => ({
  id,
  date,
  amount,
  contactId: name ? `c-${id}` : null,
  contactName: name,
  contactSensitive: sensitive,
});

describe('daily summary pieces', () => {
  it('last7d: the 7 days ending today, inflow/outflow/net, top 5 each way by amount, dated by the day money moved', () => {
    const events = [
      ev('old', addDays(AS_OF, -7), '99999'),
      ev('future', addDays(AS_OF, 1), '99999'),
      ...Array.from({ length: 7 }, (_, i) => ev(`in${i}`, addDays(AS_OF, -i), String(100 * (i + 1)))),
      ev('tie', AS_OF, '700'),
      ev('out1', AS_OF, '-50.5', 'Payroll', true),
      ev('fee', addDays(AS_OF, -6), '-2.5', null),
    ];
    const l = last7d(events, AS_OF);
    expect(l).toMatchObject({ inflow: '3500', outflow: '53', net: '3447' });
    expect(l.topInflows.map((e) => e.amount)).toEqual(['700', '700', '600', '500', '400']);
    // ties: the later day first
    expect(l.topInflows[0]).toEqual({ contactName: 'Contact tie', contactSensitive: false, amount: '700', date: '2026-11-23T00:00:00.000Z' });
    expect(l.topOutflows).toEqual([
      { contactName: 'Payroll', contactSensitive: true, amount: '50.5', date: '2026-11-23T00:00:00.000Z' },
      { contactName: 'No contact', contactSensitive: false, amount: '2.5', date: '2026-11-17T00:00:00.000Z' },
    ]);
  });

  it('ar ageing: current (not yet past due), 1-30, 31-60, 61-90, over 90 days past due, as {count, amount} of what is still owed', () => {
    const due = (late: number) => ({ dueDate: addDays(AS_OF, -late), issueDate: null, amountDue: '10.5' });
    const a = arAgeing(
      [due(-10), due(0), due(1), due(30), due(31), due(60), due(61), due(90), due(91), due(400), { dueDate: null, issueDate: addDays(AS_OF, -45), amountDue: '1' }, { ...due(5), amountDue: '0' }],
      AS_OF,
    );
    expect(a).toEqual({
      current: { count: 2, amount: '21' }, // due in 10 days, due today
      days30: { count: 2, amount: '21' }, // 1 and 30 days past due
      days60: { count: 3, amount: '22' }, // 31, 60, and the invoice without a due date issued 45 days ago
      days90: { count: 2, amount: '21' }, // 61 and 90
      days90plus: { count: 2, amount: '21' }, // 91 and 400
      total: { count: 11, amount: '106' }, // nothing owed on the last one: not counted
    });
    expect([0, 1, 30, 31, 60, 61, 90, 91].map(ageingBand)).toEqual(['current', 'days30', 'days30', 'days60', 'days60', 'days90', 'days90', 'days90plus']);
  });

  const week = (k: number, closing: string): ForecastWeek => ({
    weekStart: addDays('2026-11-23', 7 * k),
    weekEnd: addDays('2026-11-29', 7 * k),
    opening: '0',
    inflow: '0',
    outflow: '0',
    net: '0',
    closing,
    itemIds: [],
  });

  it('forecast13w: ending cash, lowest closing and its week', () => {
    const dips = [900, 800, 700, 950, 1000, 1100, 1200, 990, 1001, 1002, 1003, 1004, 1005].map((c, k) => week(k, String(c)));
    expect(forecast13w({ weeks: dips, startingCash: '1000', endingCash: '1005' })).toEqual({
      endingCash: '1005',
      lowestClosingCash: '700',
      lowestWeekStart: '2026-12-07',
      breakEvenDate: null, // never below zero
    });
  });

  describe('breakEvenDate: the first week end after the lowest point with closing cash back at or above zero', () => {
    const path = (start: string, closings: number[]) => ({ startingCash: start, weeks: closings.map((c, k) => week(k, String(c))) });
    it('never below zero: null (a business that is never negative gets no date)', () => {
      expect(breakEvenDate(path('1000', [900, 800, 700, 950, 1000, 1100, 1200, 990, 1001, 1002, 1003, 1004, 1005]))).toBeNull();
      expect(breakEvenDate(path('0', [0, 0, 5]))).toBeNull(); // zero is not below zero
    });
    it('below zero then back: the end of the first week after the lowest point at or above zero', () => {
      // lowest in week 4 (-300); week 6 is the first after it at >= 0 (week 5 is still -1).
      expect(breakEvenDate(path('100', [50, -100, -200, -300, -1, 0, 40, 50, 60, 70, 80, 90, 100]))).toBe(addDays('2026-11-29', 7 * 5));
      // a first dip that recovered does not count: the lowest point is the second dip.
      expect(breakEvenDate(path('100', [-50, 20, 30, -400, -100, 10, 10, 10, 10, 10, 10, 10, 10]))).toBe(addDays('2026-11-29', 7 * 5));
      // today's cash is the lowest point: week 1 back at zero.
      expect(breakEvenDate(path('-500', [0, 10, 10]))).toBe('2026-11-29');
    });
    it('below zero and not back inside the window: null (a business negative all 13 weeks gets no date)', () => {
      expect(breakEvenDate(path('-1150000', Array.from({ length: 13 }, (_, k) => -1150000 + k * 1000)))).toBeNull();
      expect(breakEvenDate(path('100', [50, 20, -10, -20, -30, -40, -50, -60, -70, -80, -90, -100, -110]))).toBeNull();
    });
    it('the lowest point repeated: measured from its last occurrence', () => {
      expect(breakEvenDate(path('100', [-300, 10, -300, -5, 5]))).toBe(addDays('2026-11-29', 7 * 4));
    });
    it('recovering in the last week of the window: that week', () => {
      const closings = [...Array.from({ length: 12 }, (_, k) => -10 - k), 0];
      expect(breakEvenDate(path('5', closings))).toBe(addDays('2026-11-29', 7 * 12));
      expect(forecast13w({ ...path('5', closings), endingCash: '0' }).breakEvenDate).toBe(addDays('2026-11-29', 7 * 12));
    });
  });

  it('narrative: 2-4 deterministic sentences; net positive / negative / roughly flat by the documented 5% band', () => {
    const ar0 = arAgeing([], AS_OF);
    const f = forecast13w({ weeks: [week(0, '5000')], startingCash: '5000', endingCash: '5000' });
    const base = { currency: 'AUD', cashToday: '12345.67', bankAccounts: 3, ar: ar0, forecast13w: f };
    const l = (inflow: string, outflow: string, net: string) => ({ inflow, outflow, net, topInflows: [], topOutflows: [] });
    expect(netSignal(l('1000', '910', '90'))).toBe('flat'); // |90| <= 5% of 1910
    expect(netSignal(l('1000', '800', '200'))).toBe('positive');
    expect(netSignal(l('800', '1000', '-200'))).toBe('negative');
    expect(netSignal(l('0', '0', '0'))).toBe('flat');
    const text = narrative({ ...base, last7d: l('1000', '800', '200') });
    expect(text).toBe(
      'Cash today is AUD 12,346 across 3 bank accounts. Over the last 7 days cash grew by AUD 200: AUD 1,000 in against AUD 800 out. Cash is forecast at AUD 5,000 in 13 weeks.',
    );
    expect(narrative({ ...base, last7d: l('800', '1000', '-200') })).toContain('Over the last 7 days cash fell by AUD 200: AUD 1,000 out against AUD 800 in.');
    expect(narrative({ ...base, last7d: l('1000', '960', '40') })).toContain('The last 7 days were roughly flat: AUD 1,000 in and AUD 960 out.');
    const overdue = arAgeing([{ dueDate: addDays(AS_OF, -45), issueDate: null, amountDue: '300' }], AS_OF);
    const low = forecast13w({ weeks: [week(0, '-10'), week(1, '20')], startingCash: '0', endingCash: '20' });
    const four = narrative({ ...base, bankAccounts: 1, ar: overdue, forecast13w: low, last7d: l('0', '0', '0') });
    expect(four).toBe(
      'Cash today is AUD 12,346 across 1 bank account. No money moved in the last 7 days. 1 invoice is past due, with AUD 300 still owed. The forecast has cash falling below zero, to -AUD 10 in the week of 23 November 2026.',
    );
    // Issue 17: a chance of going short from 5% is stated in the outlook's sentence (still at most four), with its likeliest first week.
    const risky = narrative({ ...base, ar: overdue, last7d: l('1000', '800', '200'), shortfall: { threshold: '0', probability: 0.508, firstWeekStart: '2027-01-18' } });
    expect(risky).toBe(
      'Cash today is AUD 12,346 across 3 bank accounts. Over the last 7 days cash grew by AUD 200: AUD 1,000 in against AUD 800 out. 1 invoice is past due, with AUD 300 still owed. Cash is forecast at AUD 5,000 in 13 weeks, with a 51% chance of going below zero in that time, most likely first in the week of 18 January 2027.',
    );
    expect(narrative({ ...base, last7d: l('1000', '800', '200'), shortfall: { threshold: '2500', probability: 0.2, firstWeekStart: null } })).toContain(
      'Cash is forecast at AUD 5,000 in 13 weeks, with a 20% chance of going below the cash buffer of AUD 2,500 in that time.',
    );
    expect(narrative({ ...base, last7d: l('1000', '800', '200'), shortfall: { threshold: '0', probability: 0.049, firstWeekStart: '2027-01-18' } })).toBe(text);
    const fourRisky = narrative({ ...base, bankAccounts: 1, ar: overdue, forecast13w: low, last7d: l('0', '0', '0'), shortfall: { threshold: '0', probability: 0.97, firstWeekStart: '2026-11-23' } });
    expect(fourRisky).toContain('The forecast has cash falling below zero, to -AUD 10 in the week of 23 November 2026 (a 97% chance of going below zero in the 13 weeks).');
    // From the forecast: its threshold, chance and first likely week; none before engine version 3.
    expect(narrativeShortfall({ weeks: [week(0, '5'), week(1, '-5')], shortfall: { threshold: '0', probability: 0.6, firstLikelyWeekIndex: 1 } })).toEqual({ threshold: '0', probability: 0.6, firstWeekStart: week(1, '-5').weekStart });
    expect(narrativeShortfall({ weeks: [week(0, '5')] })).toBeNull();
    for (const t of [text, four, risky, fourRisky, narrative({ ...base, forecast13w: null, last7d: l('1', '1', '0') })]) {
      const n = t.split(/(?<=\.) /).length;
      expect(n).toBeGreaterThanOrEqual(2);
      expect(n).toBeLessThanOrEqual(4);
    }
  });

  it('decisions.md anomalies.pending: movements of the last 7 days above 3x the 90th percentile of their direction over the 90 days before; none without history', () => {
    // History: 30 receipts of 100-129 and 30 payments of 200-229 over the 90 days before the window.
    const hist = Array.from({ length: 30 }, (_, i) => [
      ev(`hi${i}`, addDays(AS_OF, -10 - 2 * i), String(100 + i)),
      ev(`ho${i}`, addDays(AS_OF, -11 - 2 * i), String(-(200 + i))),
    ]).flat();
    // percentile_disc(0.9): receipts (100-129 and r3's 5000, which is history) the 28th of 31 = 127; payments the 27th of 30 = 226.
    // Limits 381 and 678.
    const recent = [
      ev('r1', AS_OF, '381'), // at the limit: not unusual
      ev('r2', addDays(AS_OF, -6), '381.01'), // above: unusual
      ev('r3', addDays(AS_OF, -7), '5000'), // before the 7 days (history): not pending
      ev('p1', addDays(AS_OF, -2), '-678.01'), // unusual payment
      ev('p2', addDays(AS_OF, -1), '-600'),
      ev('f1', addDays(AS_OF, 1), '9999'), // after today: ignored
    ];
    expect(pendingAnomalies([...hist, ...recent], AS_OF)).toBe(2);
    const few = hist.filter((e) => dec0(e.amount) > 0).slice(0, ANOMALY_MIN_HISTORY - 1);
    expect(pendingAnomalies([...few, ev('big', AS_OF, '100000')], AS_OF)).toBe(0);
  });
});
const dec0 = (s: string) => Number(s);
