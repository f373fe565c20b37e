/**
 * The two baselines the backtest compares the engine with
 * (docs/forecast.md#backtest). Both place only the invoices and bills open at
 * the cut-off - what a ledger's own "cash flow" view shows - and nothing
 * else (no recurring flows, pipeline, orders or predicted sales):
 * - due_date: every open invoice and bill is paid on its due date (already
 *   overdue: in week 1);
 * - median_delay: on its due date plus the contact's median delay over its
 *   paid documents before the cut-off (at least 3 of them; otherwise the
 *   organisation's median), overdue ones no earlier than the cut-off.
 *
 * And a third that reads no document at all:
 * - naive_run_rate: each of the 13 weeks gets the mean weekly receipts (and
 *   payments) of the 13 weeks before the cut-off.
 */
import { D, dec, type Dec } from '../domain/money.js';
import { median, MIN_OWN_HISTORY } from '../domain/forecast/behaviour.js';
import { mondayOf, toDay } from '../domain/forecast/days.js';
import { WEEKS } from '../domain/forecast/project.js';
import type { ForecastInput } from '../domain/forecast/types.js';
import type { ReplayIndex } from './replay.js';

export interface BaselineWeek {
  receipts: Dec;
  payments: Dec;
}

export function baselineWeeks(input: ForecastInput, method: 'due_date' | 'median_delay'): BaselineWeek[] {
  const C = toDay(input.asOf);
  const w0 = mondayOf(C);
  const end = w0 + 7 * WEEKS - 1;
  const weeks = Array.from({ length: WEEKS }, () => ({ receipts: new D(0), payments: new D(0) }));
  const delays = new Map<string, number[]>();
  const org = { AR: [] as number[], AP: [] as number[] };
  if (method === 'median_delay') {
    for (const it of input.items) {
      if (it.status !== 'PAID' || !it.paidDate) continue;
      const due = it.dueDate ?? it.issueDate;
      if (!due) continue;
      const d = toDay(it.paidDate) - toDay(due);
      org[it.kind].push(d);
      if (!it.contactId) continue;
      const key = `${it.kind}:${it.contactId}`;
      const list = delays.get(key);
      if (list) list.push(d);
      else delays.set(key, [d]);
    }
  }
  const orgMedian = { AR: org.AR.length ? median(org.AR) : 0, AP: org.AP.length ? median(org.AP) : 0 };
  for (const it of input.items) {
    if (it.status !== 'AUTHORISED') continue;
    const amount = dec(it.amountDue);
    if (amount.lte(0)) continue;
    const dueS = it.dueDate ?? it.issueDate;
    let day = dueS ? toDay(dueS) : C;
    if (method === 'median_delay') {
      const own = it.contactId ? (delays.get(`${it.kind}:${it.contactId}`) ?? []) : [];
      day += own.length >= MIN_OWN_HISTORY ? median(own) : orgMedian[it.kind];
    }
    if (day < C) day = C;
    if (day > end) continue;
    const w = weeks[Math.floor((day - w0) / 7)]!;
    if (it.kind === 'AR') w.receipts = w.receipts.plus(amount);
    else w.payments = w.payments.plus(amount);
  }
  return weeks;
}

/** Every week: the mean weekly receipts and payments (transfers left out) of the 13 weeks before the cut-off. */
export function naiveRunRate(ix: ReplayIndex, cutoff: string): BaselineWeek[] {
  const C = toDay(cutoff);
  const from = C - 7 * WEEKS;
  let receipts = new D(0);
  let payments = new D(0);
  for (const m of ix.movements) {
    if (m.day < from || m.day >= C || !m.flow) continue;
    if (m.amount.gt(0)) receipts = receipts.plus(m.amount);
    else payments = payments.minus(m.amount);
  }
  const week = { receipts: receipts.div(WEEKS).toDecimalPlaces(2), payments: payments.div(WEEKS).toDecimalPlaces(2) };
  return Array.from({ length: WEEKS }, () => ({ ...week }));
}
