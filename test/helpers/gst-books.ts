/** The GST account of the settlement tests (forecast-liabilities*.test.ts): its id, the chart with it, the quarters and the tax office's dates. */
import { addDays } from '../../src/domain/calendar.js';
import { dec, type Dec } from '../../src/domain/money.js';
import type { LiabilityLine, Scenario } from '../../src/domain/forecast/types.js';
import { input } from './forecast-input.js';

export const BASE: Scenario = { id: 'base', name: 'Base case', kind: 'BASE', adjustments: {} };
export const NOW = new Date('2026-11-25T08:00:00Z');
export const GST = 'acc-gst';
export const accounts = { ...input().accounts, [GST]: { name: 'GST', code: '820' } };

/** The quarter (its first month's index, year x 12 + month) a day falls in. */
export const quarterOf = (date: string) => {
  const [y, m] = date.split('-').map(Number) as [number, number];
  return y * 12 + Math.floor((m - 1) / 3) * 3;
};
/** The tax office's dates: each settles the quarter before its own (28 October the July quarter, 28 February the October quarter, two months on). */
export const BAS_DATES = new Set(['10-28', '02-28', '04-28', '07-28']);

/**
 * The GST account from 1 July 2023 to the day before `asOf`: each day's
 * accrual (`perDay`) as its journal line and, on each of the tax office's
 * dates, `onReturn(date, due, lines)` with what the quarter before accrued
 * (none before the first whole quarter), to add the return's own lines and
 * payment as each test's books make them. The lines, in the order made.
 */
export function gstDays(asOf: string, perDay: (date: string) => Dec, onReturn: (date: string, due: Dec, lines: LiabilityLine[]) => void): LiabilityLine[] {
  const lines: LiabilityLine[] = [];
  const byQuarter = new Map<number, Dec>();
  for (let date = '2023-07-01'; date < asOf; date = addDays(date, 1)) {
    const a = perDay(date);
    lines.push({ accountId: GST, date, amount: a.toFixed() });
    byQuarter.set(quarterOf(date), (byQuarter.get(quarterOf(date)) ?? dec(0)).plus(a));
    const due = BAS_DATES.has(date.slice(5)) ? byQuarter.get(quarterOf(date) - 3) : undefined;
    if (due) onReturn(date, due, lines);
  }
  return lines;
}
