/**
 * A new customer's later orders (src/domain/forecast/cohort.ts;
 * docs/forecast.md#new-customers): learnt from the business's own customers.
 */
import { describe, expect, it } from 'vitest';
import { cohortSupport, laterOrderCurve, type FirstOrder } from '../src/domain/forecast/cohort.js';
import { addDays } from '../src/domain/calendar.js';
import { prepareForecast } from '../src/domain/forecast/engine.js';
import { toDay } from '../src/domain/forecast/days.js';
import { AS_OF, doc, input } from './helpers/forecast-input.js';

const asOf = toDay('2026-06-01');

/** A customer whose first order is `age` days before asOf, at `value`, and later orders `after` days after it (those before asOf). */
const customer = (age: number, value: number, after: number[]): FirstOrder => {
  const day = asOf - age;
  return { day, value, later: after.map((d) => ({ day: day + d, value })).filter((o) => o.day < asOf) };
};

describe("a new customer's later orders", () => {
  it('Given customers who each ordered again every 30 days after their first, When one arrives, Then its later orders are expected 30, 60 and 90 days on, at its first order\'s value', () => {
    const firsts = Array.from({ length: 20 }, (_, i) => customer(200 + i, 100, [30, 60, 90, 120, 150, 180]));
    const curve = laterOrderCurve(firsts, asOf, 0, 95);
    for (const u of [30, 60, 90]) expect(curve[u]).toBeCloseTo(1, 9);
    expect(curve.reduce((a, v) => a + v, 0)).toBeCloseTo(3, 9);
  });

  it('Given half the customers ordered again 20 days after their first and half never did, Then a one-order customer 10 days old is expected half an order 10 days on; one 25 days old, which has not ordered again, nothing', () => {
    const firsts = [...Array.from({ length: 10 }, (_, i) => customer(300 + i, 100, [20])), ...Array.from({ length: 10 }, (_, i) => customer(300 + i, 100, []))];
    expect(laterOrderCurve(firsts, asOf, 10, 60)[10]).toBeCloseTo(0.5, 9);
    expect(laterOrderCurve(firsts, asOf, 25, 60).reduce((a, v) => a + v, 0)).toBe(0);
  });

  it('reads each day after a first order only from customers seen that long, money over money, and stands on five customers at least', () => {
    // Ten customers seen 100 days and more (ordering again on day 50 at twice their first order), ten seen 40 days (who would
    // have ordered again on day 45: not seen yet); a first order of 300 weighs three times one of 100.
    const old = Array.from({ length: 10 }, (_, i) => customer(100 + i, i === 0 ? 300 : 100, []).day).map((day, i) => ({ day, value: i === 0 ? 300 : 100, later: [{ day: day + 50, value: i === 0 ? 600 : 200 }] }));
    const young = Array.from({ length: 10 }, () => customer(40, 100, [45]));
    const curve = laterOrderCurve([...old, ...young], asOf, 0, 91);
    expect(curve[50]).toBeCloseTo(2, 9);
    expect(curve[45]).toBe(0);
    expect(cohortSupport([...old, ...young], asOf, 91)).toBe(10);
    expect(laterOrderCurve(old.slice(0, 4), asOf, 0, 91)[50]).toBe(0);
  });
});

describe('new customers in the forecast', () => {
  /** Subscribers paying on the day, each every 30 days from its sign-up; one signs up every `every` days from `from` days before AS_OF. */
  const subscribers = (from: number, every: number) =>
    Array.from({ length: Math.floor(from / every) }, (_, i) => {
      const signUp = addDays(AS_OF, -from + i * every);
      return Array.from({ length: 40 }, (_, k) => addDays(signUp, 30 * k))
        .filter((d) => d < AS_OF)
        .map((d) => doc({ contactId: `sub-${i}`, issueDate: d, dueDate: d, status: 'PAID', paidDate: d, total: '50' }));
    }).flat();
  const weekly = (values: Float64Array, base: number, from: number) => {
    const out = Array<number>(13).fill(0);
    values.forEach((v, u) => {
      const k = Math.floor((base + u - from) / 7);
      if (k >= 0 && k < 13) out[k]! += v;
    });
    return out;
  };

  it("Given a subscription business whose customers pay every month from their sign-up, When forecast, Then the new customers' money grows week by week (each new subscriber pays again every month) and today's one-order subscribers pay again", () => {
    const p = prepareForecast(input({ items: subscribers(600, 3) }));
    const nc = p.daily.find((d) => d.id === 'predicted:new-customers')!;
    expect(nc.why.reason).toMatch(/and their later orders, with the \d+ customers with one order so far, as the business's customers ordered after their first/);
    const w = weekly(nc.values, nc.base, p.starts[0]!);
    // One sign-up every 3 days at 50: 117 a week of first orders. By week 13 the quarter's sign-ups pay again each month
    // (three payments a day-slot: 350 a week) and so do the ten subscribers with one order today (117 a week): about 467.
    // The run-rate of first and second orders alone stayed at 230 a week.
    expect(w[12]! / w[1]!).toBeGreaterThan(1.5);
    expect(w[12]).toBeGreaterThan(400);
    expect(w[12]).toBeLessThan(520);
  });

  it("Given a ledger too young to have seen its customers for 13 weeks after their first order, Then the run-rate of first and second orders, as before", () => {
    const p = prepareForecast(input({ items: subscribers(120, 3) }));
    const nc = p.daily.find((d) => d.id === 'predicted:new-customers')!;
    expect(nc.why.reason).toMatch(/the rate of first and second orders/);
  });
});
