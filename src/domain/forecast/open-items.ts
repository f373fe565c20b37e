/**
 * The open documents (docs/forecast.md): the invoices and bills parsed once,
 * the ones the projection places (AUTHORISED, DRAFT and SUBMITTED), the facts
 * the insight engine reads about them, and each contact's unallocated credit
 * netted off them (docs/forecast.md#credits).
 */
import { D, type Dec } from '../money.js';
import { amountOf, isPositive, toDec, toF, type Amount } from './cents.js';
import { cmpStr } from './compare.js';
import { toDay } from './days.js';
import { LOOKBACK } from './history.js';
import type { Facts, PItem } from './prepared.js';
import type { ContactCredit, LedgerItem } from './types.js';

export function parseItem(i: LedgerItem): PItem {
  return {
    src: i,
    ar: i.kind === 'AR',
    issue: i.issueDate ? toDay(i.issueDate) : null,
    due: i.dueDate ? toDay(i.dueDate) : null,
    paid: i.paidDate ? toDay(i.paidDate) : null,
    totalF: parseFloat(i.total) || 0,
  };
}

/** The item's exact total. */
export function totalOf(it: PItem): Amount {
  return (it.total$ ??= amountOf(it.src.total));
}

/** The item's exact amount due. */
export function dueOf(it: PItem): Amount {
  return (it.due$ ??= amountOf(it.src.amountDue));
}

/** What the forecast still expects of an open item: its amount due less the credit applied to it (applyCredits). */
export function owedOf(it: PItem): Amount {
  return it.owed$ ?? dueOf(it);
}

/**
 * Nets each contact's unallocated credit off its open AUTHORISED documents of
 * the same side, oldest due date first (as a bookkeeper allocates): the
 * forecast then expects only what is left (docs/forecast.md#credits). Credit
 * beyond the contact's open documents waits for documents not yet issued and
 * is not projected.
 */
function applyCredits(open: readonly PItem[], credits: readonly ContactCredit[]): void {
  const left = new Map<string, Dec>();
  for (const c of credits) {
    const key = `${c.kind}:${c.contactId}`;
    const a = new D(c.amount);
    if (a.gt(0)) left.set(key, (left.get(key) ?? new D(0)).plus(a));
  }
  if (left.size === 0) return;
  const ordered = open
    .filter((it) => it.src.status === 'AUTHORISED' && it.src.contactId !== null && left.has(`${it.src.kind}:${it.src.contactId}`) && isPositive(dueOf(it)))
    .sort((a, b) => (a.due ?? a.issue ?? 0) - (b.due ?? b.issue ?? 0) || cmpStr(a.src.id, b.src.id));
  for (const it of ordered) {
    const key = `${it.src.kind}:${it.src.contactId}`;
    const credit = left.get(key)!;
    if (credit.lte(0)) continue;
    const due = toDec(dueOf(it));
    const take = D.min(credit, due);
    it.owed$ = amountOf(due.minus(take));
    left.set(key, credit.minus(take));
  }
}

export interface OpenDocuments {
  /** The AUTHORISED, DRAFT and SUBMITTED invoices and bills, in ledger order. */
  openItems: PItem[];
  /** Days overdue of the open AUTHORISED receivables due within LOOKBACK: the organisation's delay model knows they are not paid yet. */
  openOverdue: number[];
  openReceivables: Facts['openReceivables'];
  /** What the draft and submitted invoices would bring (before their probabilities). */
  pipelineTotal: number;
}

/** The open documents, their facts, and the contacts' credits netted off them. */
export function openDocuments(items: readonly PItem[], credits: readonly ContactCredit[], asOf: number): OpenDocuments {
  const openItems: PItem[] = [];
  const openOverdue: number[] = [];
  const openReceivables: Facts['openReceivables'] = [];
  let pipelineTotal = 0;
  for (const it of items) {
    const st = it.src.status;
    if (st !== 'AUTHORISED' && st !== 'DRAFT' && st !== 'SUBMITTED') continue;
    openItems.push(it);
    if (!it.ar) continue;
    const due = it.due ?? it.issue;
    if (st === 'AUTHORISED' && isPositive(dueOf(it))) {
      if (due !== null && due < asOf && asOf - due <= LOOKBACK) openOverdue.push(asOf - due);
      openReceivables.push({ id: it.src.id, contactId: it.src.contactId, amountDue: toF(dueOf(it)), due: due ?? asOf });
    } else if (st !== 'AUTHORISED') {
      pipelineTotal += toF(dueOf(it)) || it.totalF;
    }
  }
  applyCredits(openItems, credits);
  return { openItems, openOverdue, openReceivables, pipelineTotal };
}
