/**
 * The daily summary's narrative (spec 2.8): deterministic prose of 2 to 4
 * sentences, the same words for the same numbers.
 *
 * Thresholds of the 7-day net signal (docs/forecast.md#daily-summary):
 * - roughly flat when |net| is at most 5% of the week's gross flow
 *   (inflow + outflow), or there was no flow at all;
 * - net positive when net is above that band; net negative when below.
 * Sentences: (1) cash today and across how many bank accounts; (2) the 7-day
 * signal; (3) receivables overdue, when any; (4) the 13-week outlook (the
 * lowest point when cash would go below zero, otherwise the ending cash),
 * with the chance of going below zero (or the cash buffer) in the 13 weeks
 * when the forecast's notes state it (NOTE_SHORTFALL) and the week it most
 * likely happens first.
 */
import { dec } from './money.js';
import type { ArAgeing, Forecast13w, Last7d } from './forecast/daily.js';
import type { ForecastPayload } from './forecast/types.js';
import { longDate, money, pct, shortfallBelow } from './insights/format.js';
import { NOTE_SHORTFALL } from './insights/uncertainty.js';

export const FLAT_BAND = 0.05;

/** The forecast's shortfall as the narrative states it: its threshold (0 or the cash buffer), chance and likeliest first week. */
export interface NarrativeShortfall {
  threshold: string;
  probability: number;
  firstWeekStart: string | null;
}

export type NetSignal = 'positive' | 'negative' | 'flat';

export function netSignal(last: Pick<Last7d, 'inflow' | 'outflow' | 'net'>): NetSignal {
  const gross = dec(last.inflow).plus(dec(last.outflow));
  const net = dec(last.net);
  if (gross.isZero() || net.abs().lte(gross.times(FLAT_BAND))) return 'flat';
  return net.gt(0) ? 'positive' : 'negative';
}

/** A forecast's shortfall as the narrative states it; null for a forecast without one (before engine version 3). */
export function narrativeShortfall(p: Pick<ForecastPayload, 'weeks' | 'shortfall'> | null | undefined): NarrativeShortfall | null {
  const s = p?.shortfall;
  if (!s) return null;
  const first = s.firstLikelyWeekIndex === null ? null : (p.weeks[s.firstLikelyWeekIndex]?.weekStart ?? null);
  return { threshold: s.threshold, probability: s.probability, firstWeekStart: first };
}

export function narrative(input: {
  currency: string;
  cashToday: string;
  bankAccounts: number;
  last7d: Last7d;
  ar: ArAgeing;
  forecast13w: Forecast13w | null;
  shortfall?: NarrativeShortfall | null;
}): string {
  const c = input.currency;
  const sentences: string[] = [];
  sentences.push(
    `Cash today is ${money(c, input.cashToday)} across ${input.bankAccounts} bank account${input.bankAccounts === 1 ? '' : 's'}.`,
  );
  const l = input.last7d;
  switch (netSignal(l)) {
    case 'positive':
      sentences.push(`Over the last 7 days cash grew by ${money(c, l.net)}: ${money(c, l.inflow)} in against ${money(c, l.outflow)} out.`);
      break;
    case 'negative':
      sentences.push(`Over the last 7 days cash fell by ${money(c, dec(l.net).neg())}: ${money(c, l.outflow)} out against ${money(c, l.inflow)} in.`);
      break;
    default:
      sentences.push(
        dec(l.inflow).isZero() && dec(l.outflow).isZero()
          ? 'No money moved in the last 7 days.'
          : `The last 7 days were roughly flat: ${money(c, l.inflow)} in and ${money(c, l.outflow)} out.`,
      );
  }
  // Past due: every band but current (ar.total minus ar.current), what is still owed.
  const overdueCount = input.ar.total.count - input.ar.current.count;
  if (overdueCount > 0) {
    const amount = dec(input.ar.total.amount).minus(input.ar.current.amount);
    sentences.push(`${overdueCount} invoice${overdueCount === 1 ? ' is' : 's are'} past due, with ${money(c, amount)} still owed.`);
  }
  const f = input.forecast13w;
  if (f) {
    // The chance, in the same sentence (2 to 4 sentences, spec 2.8).
    const s = input.shortfall && input.shortfall.probability >= NOTE_SHORTFALL ? input.shortfall : null;
    const below = s ? shortfallBelow(c, s.threshold) : 'zero';
    const when = s?.firstWeekStart ? `, most likely first in the week of ${longDate(s.firstWeekStart)}` : '';
    const chance = s ? `, with a ${pct(s.probability)} chance of going below ${below} in that time${when}` : '';
    if (dec(f.lowestClosingCash).isNeg()) {
      sentences.push(`The forecast has cash falling below zero, to ${money(c, f.lowestClosingCash)} in the week of ${longDate(f.lowestWeekStart)}${s ? ` (a ${pct(s.probability)} chance of going below ${below} in the 13 weeks)` : ''}.`);
    } else {
      sentences.push(`Cash is forecast at ${money(c, f.endingCash)} in 13 weeks${chance}.`);
    }
  }
  return sentences.join(' ');
}
