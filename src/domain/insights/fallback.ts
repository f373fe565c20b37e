/**
 * Fallback detectors (docs/forecast.md#notes-for-agents): plain observations
 * used only when the insight engine has nothing to say, so an agent always
 * gets a line of context. Their notes carry no sourceInsightId.
 */
import type { AgentNote, ForecastPayload } from '../forecast/types.js';
import { money } from './format.js';
import { dec } from '../money.js';

export interface FallbackFacts {
  currency: string;
  openReceivables: { amountDue: number; overdue: boolean }[];
}

export function fallbackNotes(facts: FallbackFacts, payload: Pick<ForecastPayload, 'startingCash' | 'endingCash' | 'weeks'>): AgentNote[] {
  const notes: AgentNote[] = [];
  const open = facts.openReceivables;
  const total = open.reduce((a, r) => a + r.amountDue, 0);
  const overdue = open.filter((r) => r.overdue);
  if (open.length === 0) {
    notes.push({ kind: 'ar', window: 'this_month', severity: 'info', text: 'There are no open receivables.' });
  } else if (overdue.length === 0) {
    notes.push({
      kind: 'ar',
      window: 'this_month',
      severity: 'info',
      text: `${open.length} open invoice${open.length === 1 ? '' : 's'} worth ${money(facts.currency, total.toFixed(2))}, none overdue.`,
    });
  } else {
    const od = overdue.reduce((a, r) => a + r.amountDue, 0);
    notes.push({
      kind: 'ar',
      window: 'this_month',
      severity: 'info',
      text: `${overdue.length} of ${open.length} open invoices are overdue, worth ${money(facts.currency, od.toFixed(2))}.`,
    });
  }
  const start = dec(payload.startingCash);
  const endCash = dec(payload.endingCash);
  const direction = endCash.gt(start) ? 'rise' : endCash.lt(start) ? 'fall' : 'stay';
  notes.push({
    kind: 'trend',
    window: 'this_quarter',
    severity: endCash.isNeg() ? 'warn' : 'info',
    text:
      direction === 'stay'
        ? `Cash is forecast to stay at ${money(facts.currency, start)} over the next 13 weeks.`
        : `Cash is forecast to ${direction} from ${money(facts.currency, start)} today to ${money(facts.currency, endCash)} in 13 weeks.`,
  });
  return notes;
}
