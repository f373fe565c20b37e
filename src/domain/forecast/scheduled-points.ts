/**
 * The ledger's own schedules (repeating invoices and bills, schedules.ts;
 * docs/forecast.md#schedules): known future documents, placed as points on
 * their due day plus the contact's usual delay. A contact with one is not
 * also projected from its detected pattern (orders, bills, bank transactions).
 */
import { median, MIN_OWN_HISTORY } from './behaviour.js';
import { amountOf, isPositive } from './cents.js';
import { fromDay } from './days.js';
import { paysWords } from './items.js';
import type { PointPrediction } from './prepared.js';
import { isGenerating, scheduleOccurrences, scheduledDueDay, type RepeatingSchedule } from './schedules.js';
import type { Terms } from './terms.js';

/** The contacts with a generating schedule. */
export interface ScheduledContacts {
  customers: Set<string>;
  suppliers: Set<string>;
}

/** Adds the schedules' documents from `asOf` to `end` to `points`. */
export function scheduledPoints(schedules: readonly RepeatingSchedule[], terms: Terms, asOf: number, end: number, points: PointPrediction[]): ScheduledContacts {
  const customers = new Set<string>();
  const suppliers = new Set<string>();
  for (const sch of schedules) {
    if (!isGenerating(sch)) continue;
    const amount = amountOf(sch.total);
    if (!isPositive(amount)) continue;
    const ar = sch.kind === 'AR';
    const c = sch.contactId;
    let delay = terms.orgBillDelay;
    let habit = `the business's median ${delay} days late on bills`;
    if (ar) {
      const own = c ? (terms.customerDelays.get(c) ?? []) : [];
      delay = own.length >= MIN_OWN_HISTORY ? median(own.slice(-12)) : terms.orgArDelayMedian;
      habit = paysWords(own.length >= MIN_OWN_HISTORY, delay);
    }
    const every = sch.period === 1 ? (sch.unit === 'WEEKLY' ? 'weekly' : 'monthly') : `every ${sch.period} ${sch.unit === 'WEEKLY' ? 'weeks' : 'months'}`;
    for (const d of scheduleOccurrences(sch, asOf, end)) {
      const due = scheduledDueDay(sch, d);
      const reason = `${every} schedule (repeating ${ar ? 'invoice' : 'bill'}): a document dated ${fromDay(d)}, due ${fromDay(due)}, and ${habit}`;
      const why = { kind: 'scheduled', documentId: sch.id, contactId: c, reasonCode: 'schedule', reason } as const;
      points.push({ id: `scheduled:${sch.id}`, inflow: ar, day: due + delay, amount, accountId: sch.accountId, statistical: false, customer: ar, why });
    }
    if (c) (ar ? customers : suppliers).add(c);
  }
  return { customers, suppliers };
}
