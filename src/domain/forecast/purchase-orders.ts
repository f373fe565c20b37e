/**
 * Purchase orders matched to supplier bills (spec 3: a matched order has a
 * non-null suppressedReason and is left out of the forecast):
 * - REFERENCE: a bill (not voided or deleted) whose reference equals the
 *   order's number or its (non-empty) reference, ignoring case and spaces
 *   around;
 * - CONTACT_AMOUNT: otherwise, a bill of the same supplier for exactly the
 *   same total, dated from 7 days before the order to 120 days after it,
 *   not already matched to another order.
 * Orders are matched in date order (then id), bills in date order (then id),
 * so the result is deterministic. DELETED orders are never matched.
 */
import { toDay } from './days.js';
import type { LedgerItem, PurchaseOrder } from './types.js';
import { amountOf } from './cents.js';

export type SuppressedReason = 'REFERENCE' | 'CONTACT_AMOUNT';

/** A reference as orders and bills are matched by it: trimmed, lower-cased ('' for none). */
export const referenceKey = (s: string | null | undefined) => (s ?? '').trim().toLowerCase();
const WINDOW_BEFORE = 7;
const WINDOW_AFTER = 120;

export function matchPurchaseOrders(orders: readonly PurchaseOrder[], items: readonly LedgerItem[]): Map<string, SuppressedReason | null> {
  const out = new Map<string, SuppressedReason | null>();
  const bills = items
    .filter((i) => i.kind === 'AP' && i.status !== 'VOIDED' && i.status !== 'DELETED')
    .map((b) => ({ b, day: toDay(b.issueDate ?? b.dueDate ?? '1970-01-01'), total: amountOf(b.total) }))
    .sort((x, y) => x.day - y.day || (x.b.id < y.b.id ? -1 : x.b.id > y.b.id ? 1 : 0));
  const byRef = new Map<string, number>();
  for (let i = 0; i < bills.length; i++) {
    const r = referenceKey(bills[i]!.b.reference);
    if (r && !byRef.has(r)) byRef.set(r, i);
  }
  const byContact = new Map<string, number[]>();
  for (let i = 0; i < bills.length; i++) {
    const c = bills[i]!.b.contactId;
    if (!c) continue;
    const list = byContact.get(c);
    if (list) list.push(i);
    else byContact.set(c, [i]);
  }
  const used = new Set<number>();
  const sorted = [...orders].sort((a, b) => {
    const da = a.issueDate ?? a.deliveryDate ?? '';
    const db = b.issueDate ?? b.deliveryDate ?? '';
    return da < db ? -1 : da > db ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
  });
  // References first: a bill that names an order belongs to it, whatever the order of the orders.
  for (const po of sorted) {
    if (po.status === 'DELETED') {
      out.set(po.id, null);
      continue;
    }
    const keys = [referenceKey(po.number), referenceKey(po.reference)].filter((k) => k !== '');
    const hit = keys.map((k) => byRef.get(k)).find((i) => i !== undefined);
    if (hit !== undefined) {
      out.set(po.id, 'REFERENCE');
      used.add(hit);
    }
  }
  for (const po of sorted) {
    if (po.status === 'DELETED' || out.has(po.id)) continue;
    out.set(po.id, null);
    if (!po.contactId) continue;
    const day = toDay(po.issueDate ?? po.deliveryDate ?? po.expectedArrivalDate ?? '1970-01-01');
    const total = amountOf(po.total);
    for (const i of byContact.get(po.contactId) ?? []) {
      const bill = bills[i]!;
      if (used.has(i)) continue;
      if (bill.day < day - WINDOW_BEFORE || bill.day > day + WINDOW_AFTER) continue;
      if (bill.total.cents !== total.cents || !sameExtra(bill.total.extra, total.extra)) continue;
      used.add(i);
      out.set(po.id, 'CONTACT_AMOUNT');
      break;
    }
  }
  return out;
}

function sameExtra(a: { eq(x: unknown): boolean } | null, b: unknown): boolean {
  if (a === null || b === null) return a === b;
  return a.eq(b);
}
