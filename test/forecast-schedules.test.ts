import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { fromDay, toDay } from '../src/domain/forecast/days.js';
import { isGenerating, scheduledDueDay, scheduleOccurrences, type RepeatingSchedule } from '../src/domain/forecast/schedules.js';

const sched = (over: Partial<RepeatingSchedule> = {}): RepeatingSchedule => ({
  id: 's1',
  kind: 'AP',
  contactId: 'c1',
  status: 'AUTHORISED',
  period: 1,
  unit: 'MONTHLY',
  dueDate: 0,
  dueDateType: 'DAYSAFTERBILLDATE',
  startDate: '2026-01-31',
  endDate: null,
  nextScheduledDate: '2026-11-30',
  total: '100.00',
  accountId: null,
  reference: null,
  ...over,
});
const days = (list: number[]) => list.map(fromDay);
const d = toDay;

describe('repeating invoice schedules (docs/forecast.md#schedules)', () => {
  it('Given a monthly schedule started on the 31st, When projected, Then each month keeps the 31st or its last day', () => {
    expect(days(scheduleOccurrences(sched(), d('2026-11-25'), d('2027-04-01')))).toEqual(['2026-11-30', '2026-12-31', '2027-01-31', '2027-02-28', '2027-03-31']);
  });

  it('Given every second month, or weekly every 2 weeks, Then the period is honoured', () => {
    expect(days(scheduleOccurrences(sched({ period: 2, startDate: '2026-01-15', nextScheduledDate: '2026-12-15' }), d('2026-11-25'), d('2027-06-30')))).toEqual([
      '2026-12-15',
      '2027-02-15',
      '2027-04-15',
      '2027-06-15',
    ]);
    expect(days(scheduleOccurrences(sched({ unit: 'WEEKLY', period: 2, startDate: '2026-11-02', nextScheduledDate: '2026-11-30' }), d('2026-11-25'), d('2026-12-31')))).toEqual([
      '2026-11-30',
      '2026-12-14',
      '2026-12-28',
    ]);
  });

  it('Given an end date, Then nothing after it; Given a next date already past, Then it is generated today', () => {
    expect(days(scheduleOccurrences(sched({ endDate: '2027-01-15' }), d('2026-11-25'), d('2027-04-01')))).toEqual(['2026-11-30', '2026-12-31']);
    expect(days(scheduleOccurrences(sched({ startDate: '2026-01-20', nextScheduledDate: '2026-11-20' }), d('2026-11-25'), d('2026-12-31')))).toEqual(['2026-11-25', '2026-12-20']);
  });

  it('Given a DRAFT or DELETED schedule, or one with no date to start from, Then it generates nothing', () => {
    for (const status of ['DRAFT', 'DELETED']) expect(scheduleOccurrences(sched({ status }), d('2026-11-25'), d('2027-04-01'))).toEqual([]);
    const none = sched({ startDate: null, nextScheduledDate: null });
    expect(isGenerating(none)).toBe(false);
    expect(scheduleOccurrences(none, d('2026-11-25'), d('2027-04-01'))).toEqual([]);
  });

  it("computes due dates by Xero's DueDateType, never before the document date", () => {
    const doc = d('2026-12-20');
    const due = (dueDateType: string, dueDate: number) => fromDay(scheduledDueDay(sched({ dueDateType, dueDate }), doc));
    expect(due('DAYSAFTERBILLDATE', 14)).toBe('2027-01-03');
    expect(due('DAYSAFTERINVOICEDATE', 0)).toBe('2026-12-20');
    expect(due('DAYSAFTERBILLMONTH', 20)).toBe('2027-01-20');
    expect(due('DAYSAFTERINVOICEMONTH', 7)).toBe('2027-01-07');
    expect(due('OFCURRENTMONTH', 31)).toBe('2026-12-31');
    expect(due('OFCURRENTMONTH', 5)).toBe('2026-12-20');
    expect(due('OFFOLLOWINGMONTH', 31)).toBe('2027-01-31');
    expect(fromDay(scheduledDueDay(sched({ dueDateType: 'OFFOLLOWINGMONTH', dueDate: 30 }), d('2027-01-10')))).toBe('2027-02-28');
  });

  it('property: occurrences are increasing, inside the window, never after the end date, and spaced by the period', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 2000 }),
        fc.integer({ min: 1, max: 6 }),
        fc.constantFrom<'WEEKLY' | 'MONTHLY'>('WEEKLY', 'MONTHLY'),
        fc.integer({ min: -60, max: 60 }),
        fc.integer({ min: 1, max: 400 }),
        fc.option(fc.integer({ min: 0, max: 400 })),
        (startOff, period, unit, nextOff, span, endOff) => {
          const from = d('2026-11-25');
          const start = from - startOff;
          const s = sched({ unit, period, startDate: fromDay(start), nextScheduledDate: fromDay(Math.max(start, from + nextOff)), endDate: endOff === null ? null : fromDay(from + endOff) });
          const out = scheduleOccurrences(s, from, from + span);
          for (let i = 0; i < out.length; i++) {
            expect(out[i]!).toBeGreaterThanOrEqual(from);
            expect(out[i]!).toBeLessThanOrEqual(from + span);
            if (endOff !== null) expect(out[i]!).toBeLessThanOrEqual(from + endOff);
            if (i > 0) {
              const gap = out[i]! - out[i - 1]!;
              expect(gap).toBeGreaterThan(0);
              if (unit === 'WEEKLY' && i > 1) expect(gap).toBe(7 * period);
              if (unit === 'MONTHLY' && i > 1) expect(gap).toBeGreaterThanOrEqual(28 * period - 3);
            }
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
