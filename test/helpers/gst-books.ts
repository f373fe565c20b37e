/** The GST account of the settlement tests (forecast-liabilities*.test.ts): its id, the chart with it, the quarters and the tax office's dates. */
import type { Scenario } from '../../src/domain/forecast/types.js';
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
