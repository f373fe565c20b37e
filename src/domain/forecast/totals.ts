/**
 * The figures a forecast states over its weeks, defined once: the engine
 * states them over all 13 weeks of a snapshot, and /forecast over the first
 * `weeks` it returns (decisions.md: endingCash, minClosingCash,
 * totalInflow and totalOutflow cover the returned weeks).
 */
import { canonical, D, dec, type Dec } from '../money.js';

export interface HorizonTotals {
  /** The last week's closing cash (the starting cash when there is no week). */
  endingCash: string;
  /** The lowest closing cash (the starting cash when there is no week). */
  minClosingCash: string;
  /** The first week with that lowest closing cash (0-based; 0 when there is no week). */
  minClosingCashWeekIndex: number;
  totalInflow: string;
  totalOutflow: string;
}

export function horizonTotals(startingCash: string, weeks: readonly { inflow: string; outflow: string; closing: string }[]): HorizonTotals {
  let totalIn: Dec = new D(0);
  let totalOut: Dec = new D(0);
  let min: Dec | null = null;
  let minIndex = 0;
  weeks.forEach((w, k) => {
    totalIn = totalIn.plus(dec(w.inflow));
    totalOut = totalOut.plus(dec(w.outflow));
    const c = dec(w.closing);
    if (min === null || c.lt(min)) {
      min = c;
      minIndex = k;
    }
  });
  const last = weeks[weeks.length - 1];
  return {
    endingCash: last ? last.closing : startingCash,
    minClosingCash: min === null ? startingCash : canonical(min),
    minClosingCashWeekIndex: minIndex,
    totalInflow: canonical(totalIn),
    totalOutflow: canonical(totalOut),
  };
}
