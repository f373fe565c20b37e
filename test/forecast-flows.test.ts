/**
 * Daily flows (src/domain/forecast/flows.ts; docs/forecast.md#daily-flows):
 * a bank series that moves money most days, forecast per open day.
 */
import { describe, expect, it } from 'vitest';
import { flowForecast, type FlowForecast } from '../src/domain/forecast/flows.js';
import { fromDay, isoWeekday, toDay } from '../src/domain/forecast/days.js';
import { prepareForecast, runForecast } from '../src/domain/forecast/engine.js';
import { projectForecast } from '../src/domain/forecast/project.js';
import type { BankTxn, ForecastPayload, Scenario } from '../src/domain/forecast/types.js';
import { dec } from '../src/domain/money.js';
import { input } from './helpers/forecast-input.js';

const BASE: Scenario = { id: 'base', name: 'Base case', kind: 'BASE', adjustments: {} };
const NOW = new Date('2026-01-01T00:00:00Z');

/** A card processor's payouts: each business day (Mon-Fri) everything sold since the last payout (sales Mon-Sat, `sales(day)`), between `from` and `to` (exclusive), none on `closed` days. */
function payouts(from: string, to: string, sales: (day: number) => number, closed: (day: number) => boolean = () => false) {
  const days: number[] = [];
  const money: number[] = [];
  let owed = 0;
  for (let d = toDay(from); d < toDay(to); d++) {
    const wd = isoWeekday(d);
    if (wd <= 5 && owed > 0) {
      days.push(d);
      money.push(owed);
      owed = 0;
    }
    if (wd !== 7 && !closed(d)) owed += sales(d);
  }
  return { days, money };
}

/** 24 December to 6 January. */
const christmas = (d: number) => {
  const md = fromDay(d).slice(5);
  return md >= '12-24' || md <= '01-06';
};

/** Expected money of each week (Monday to Sunday) from `monday`. */
function weeks(f: FlowForecast, monday: string, n: number): number[] {
  const out = Array<number>(n).fill(0);
  for (let u = 1; u < f.values.length; u++) {
    const k = Math.floor((f.base + u - toDay(monday)) / 7);
    if (k >= 0 && k < n) out[k]! += f.values[u]!;
  }
  return out;
}

const flow = (x: ReturnType<typeof flowForecast>): FlowForecast => {
  if (x === null || x === 'stopped') throw new Error(`not a flow: ${x}`);
  return x;
};

describe('daily flows', () => {
  it('Given a processor paying out every business day what was sold since the last, When forecast, Then each week brings what a week has brought (a renewal model of its 1- and 3-day gaps expected about 30% less)', () => {
    const { days, money } = payouts('2025-01-06', '2025-06-02', () => 1000);
    const f = flow(flowForecast(days, money, toDay('2025-06-02'), toDay('2025-08-31')));
    // Six selling days a week, 1000 each.
    for (const w of weeks(f, '2025-06-02', 13)) expect(w).toBeCloseTo(6000, 6);
    expect(f.weekly).toBeCloseTo(6000, 6);
    // Mondays bring Friday's and Saturday's: each weekday at its own rate.
    const monday = f.values[1]!;
    const tuesday = f.values[2]!;
    expect(monday).toBeCloseTo(2000, 6);
    expect(tuesday).toBeCloseTo(1000, 6);
    expect(f.values[6]).toBe(0); // Saturday
    // Steady weeks: the simulation's event size (a week's variance over its mean) is small.
    expect(f.unit).toBeLessThan(60);
  });

  it('Given a shop that closed over Christmas last year, When forecast from 1 December, Then the days it was closed then are expected closed now, and the weeks around them as usual', () => {
    const { days, money } = payouts('2024-06-03', '2025-12-01', () => 1000, christmas);
    const f = flow(flowForecast(days, money, toDay('2025-12-01'), toDay('2026-03-01')));
    const w = weeks(f, '2025-12-01', 13);
    expect(Math.abs(w[0]! / 6000 - 1)).toBeLessThan(0.05);
    // Week of 29 December: closed all week (its Monday pays out nothing sold since the 23rd... last year: nothing at all).
    expect(w[4]).toBeLessThan(0.15 * 6000);
    // Week of 5 January: Monday and Tuesday closed (last year's 6 January was a Monday, this year's a Tuesday: each counts half).
    expect(w[5]).toBeGreaterThan(0.3 * 6000);
    expect(w[5]).toBeLessThan(0.85 * 6000);
    expect(Math.abs(w[7]! / 6000 - 1)).toBeLessThan(0.05);
    expect(f.closedDays).toBeGreaterThan(10);
  });

  it('Given the shop silent since it closed for Christmas, When forecast on 5 January, Then it has not stopped: it reopens when it did last year', () => {
    const { days, money } = payouts('2024-06-03', '2026-01-05', () => 1000, christmas);
    const f = flow(flowForecast(days, money, toDay('2026-01-05'), toDay('2026-04-05')));
    expect(f.paused).toBe(true);
    const w = weeks(f, '2026-01-05', 13);
    expect(w[0]).toBeLessThan(0.85 * 6000);
    // As usual from the week after (within 5%: a year before's days around each day, read across its reopening, are an estimate).
    expect(Math.abs(w[1]! / 6000 - 1)).toBeLessThan(0.05);
    expect(Math.abs(w[12]! / 6000 - 1)).toBeLessThan(0.05);
  });

  it('Given a flow silent for 40 days with no pause a year before, Then it has stopped (nothing more is expected)', () => {
    const { days, money } = payouts('2024-06-03', '2025-10-01', () => 1000);
    expect(flowForecast(days, money, toDay('2025-11-10'), toDay('2026-02-08'))).toBe('stopped');
  });

  it('Given a flow silent for ten days with no year before to say why, Then it resumes today at its usual rates', () => {
    const { days, money } = payouts('2025-03-03', '2025-09-01', () => 1000);
    const f = flow(flowForecast(days, money, toDay('2025-09-11'), toDay('2025-12-07')));
    expect(f.paused).toBe(true);
    expect(weeks(f, '2025-09-15', 12)[0]).toBeCloseTo(6000, 6);
  });

  it("Given sales that doubled from March to May last year, When forecast from March, Then the weeks rise as they did (the series' own season, read a year before)", () => {
    const sales = (d: number) => {
      const month = Number(fromDay(d).slice(5, 7));
      return month === 5 ? 2000 : month === 4 ? 1500 : 1000;
    };
    const { days, money } = payouts('2024-01-01', '2025-03-03', sales);
    const f = flow(flowForecast(days, money, toDay('2025-03-03'), toDay('2025-06-01')));
    expect(f.seasonYears).toBe(1);
    const w = weeks(f, '2025-03-03', 13);
    expect(Math.abs(w[1]! / 6000 - 1)).toBeLessThan(0.05);
    // Mid-May: double.
    expect(w[11]! / w[1]!).toBeGreaterThan(1.8);
    expect(w[11]! / w[1]!).toBeLessThan(2.2);
  });

  it('is not for sparse series: weekly ones, nor card purchases on one day in three (their gaps a median 2 days apart, but fewer than three days a week over eight weeks)', () => {
    const weekly = Array.from({ length: 40 }, (_, i) => toDay('2025-01-06') + 7 * i);
    expect(flowForecast(weekly, weekly.map(() => 100), toDay('2025-10-13'), toDay('2026-01-11'))).toBeNull();
    // Every third day: 19 days of the last 56.
    const nowAndThen = Array.from({ length: 120 }, (_, i) => toDay('2025-01-06') + 3 * i);
    expect(flowForecast(nowAndThen, nowAndThen.map(() => 50), toDay('2026-01-05'), toDay('2026-04-05'))).toBeNull();
    // Every other day: 28 of the last 56, a flow.
    const everyOther = Array.from({ length: 160 }, (_, i) => toDay('2025-01-06') + 2 * i);
    expect(flowForecast(everyOther, everyOther.map(() => 50), toDay('2025-11-24'), toDay('2026-02-22'))).not.toBeNull();
  });
});

/** Bank receipts on these days, as the ledger has them: a card processor's payouts (`payouts`), by default. */
const bankTxns = (p: { days: number[]; money: number[] }, contactId: string | null = 'card-processor', reference = 'Card settlement'): BankTxn[] =>
  p.days.map((d, i) => ({ id: `bt${i}`, date: fromDay(d), amount: p.money[i]!.toFixed(2), contactId, accountId: 'acc-sales', reference }));

describe('daily flows in the forecast', () => {
  const weekInflow = (p: ForecastPayload) => p.weeks.map((w) => Number(w.inflow));

  it("Given a shop's card payouts, When forecast, Then each week's inflow is a week's takings, and the item says it is a daily flow", () => {
    const asOf = '2025-12-01';
    const books = input({ asOf, bankTxns: bankTxns(payouts('2024-06-03', asOf, () => 1000, christmas)) });
    const p = projectForecast(prepareForecast(books), BASE, NOW);
    const w = weekInflow(p);
    expect(Math.abs(w[0]! / 6000 - 1)).toBeLessThan(0.05);
    expect(w[4]).toBeLessThan(0.15 * 6000); // closed over Christmas, as last year
    expect(Math.abs(w[8]! / 6000 - 1)).toBeLessThan(0.05);
    const item = runForecast(books, [BASE], NOW).items[0]!.find((i) => i.itemId === 'recurring:bank:in:card-processor:acc-sales')!;
    expect(item.reasonCode).toBe('daily_flow');
    expect(item.reason).toMatch(/most days/);
    expect(item.reason).toMatch(/expected closed, as the same days were last year/);
  });

  it('Given weekly cash deposits that skipped the Monday after Christmas last year, When forecast from 1 December, Then that Monday is skipped again; When forecast on 12 January, silent for two weeks, Then they go on (a pause, not a stop)', () => {
    // Every Monday's deposit of the week before's cash, but in the fortnight the shop is shut (24 December to 6 January).
    const mondays: number[] = [];
    for (let d = toDay('2024-06-03'); d < toDay('2026-01-12'); d += 7) if (!christmas(d)) mondays.push(d);
    const deposits = (before: string) => {
      const days = mondays.filter((d) => d < toDay(before));
      return bankTxns({ days, money: days.map(() => 500) }, null, 'Cash deposit');
    };
    const dec1 = projectForecast(prepareForecast(input({ asOf: '2025-12-01', bankTxns: deposits('2025-12-01') })), BASE, NOW);
    // Mondays 1 December to 23 February, but 29 December and 5 January (a year before, 30 December and 6 January: shut).
    expect(weekInflow(dec1)).toEqual([500, 500, 500, 500, 0, 0, 500, 500, 500, 500, 500, 500, 500]);
    const jan12 = projectForecast(prepareForecast(input({ asOf: '2026-01-12', bankTxns: deposits('2026-01-12') })), BASE, NOW);
    expect(dec(jan12.totalInflow).toNumber()).toBe(13 * 500);
    // Without the year before, two weeks' silence is a stop, as before.
    const young = deposits('2026-01-12').filter((t) => t.date >= '2025-06-01');
    const stopped = projectForecast(prepareForecast(input({ asOf: '2026-01-12', bankTxns: young })), BASE, NOW);
    expect(dec(stopped.totalInflow).isZero()).toBe(true);
  });
});
