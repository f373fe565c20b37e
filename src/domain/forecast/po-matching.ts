/**
 * Purchase orders in the preparation (spec 3; purchase-orders.ts matches
 * them): which orders a bill already covers, and the expected arrival of the
 * orders still open, per supplier.
 */
import { matchPurchaseOrders, referenceKey, type SuppressedReason } from './purchase-orders.js';
import { toDay } from './days.js';
import type { ForecastInput, LedgerItem, PurchaseOrder } from './types.js';

/** The orders' matches (null: not matched), among the bills that can match (only bills naming an order, or of an ordering supplier). */
export function matchedOrders(input: ForecastInput): Map<string, SuppressedReason | null> {
  const poKeys = new Set<string>();
  const poContacts = new Set<string>();
  // A bill can match by contact and amount only within [order - 7 days, order + 120 days] (purchase-orders.ts): bills outside every order's window are not candidates.
  let poFirst = Infinity;
  let poLast = -Infinity;
  for (const po of input.purchaseOrders) {
    if (po.status === 'DELETED') continue;
    for (const k of [po.number, po.reference].map(referenceKey)) if (k) poKeys.add(k);
    if (po.contactId) {
      poContacts.add(po.contactId);
      const d = toDay(po.issueDate ?? po.deliveryDate ?? po.expectedArrivalDate ?? '1970-01-01');
      if (d < poFirst) poFirst = d;
      if (d > poLast) poLast = d;
    }
  }
  const inWindow = (i: LedgerItem) => {
    const d = toDay(i.issueDate ?? i.dueDate ?? '1970-01-01');
    return d >= poFirst - 7 && d <= poLast + 120;
  };
  const candidateBills = input.purchaseOrders.length
    ? input.items.filter(
        (i) =>
          i.kind === 'AP' &&
          ((i.contactId !== null && poContacts.has(i.contactId) && inWindow(i)) || (i.reference !== null && poKeys.has(referenceKey(i.reference)))),
      )
    : [];
  return matchPurchaseOrders(input.purchaseOrders, candidateBills);
}

/** Per supplier: the latest expected day of its open, unmatched AUTHORISED orders (a bill is expected after it). */
export function openOrderDays(purchaseOrders: readonly PurchaseOrder[], poReasons: Map<string, SuppressedReason | null>): Map<string, number> {
  const openPoDays = new Map<string, number>();
  for (const po of purchaseOrders) {
    if (po.status !== 'AUTHORISED' || poReasons.get(po.id) || !po.contactId) continue;
    const d = po.expectedArrivalDate ?? po.deliveryDate ?? po.issueDate;
    if (!d) continue;
    const day = toDay(d);
    openPoDays.set(po.contactId, Math.max(openPoDays.get(po.contactId) ?? -Infinity, day));
  }
  return openPoDays;
}

/** A supplier orders before its deliveries when at least this share of its last year's bills had an order billed in that year. */
const ORDERING_SHARE = 0.8;
/** Billed orders in the last year a supplier's lead time is learnt from, at least. */
const MIN_ORDERS = 3;

/** How a supplier that orders first is told of its next delivery (series.ts renewalSeries). */
export interface OrderLeads {
  /** Its orders' lead times (days from an order to its expected arrival, or to a bill naming it when sooner), sorted. */
  leads: number[];
  /** The share of its deliveries that are ordered first (billed orders over bills, with one bill more: never quite all). */
  ordered: number;
}

/**
 * Per supplier that orders before its deliveries (at least ORDERING_SHARE as
 * many billed orders issued in the last 365 days as bills dated in them, and
 * MIN_ORDERS): those orders' lead times, from the order to its expected
 * arrival, or to a bill naming it when that came sooner (a supplier that
 * bills on ordering), and the share of its deliveries ordered first. A
 * delivery of such a supplier not ordered yet comes at least a lead time
 * after today. Not for a supplier with a draft or submitted order issued
 * within its longest lead time (an order on its way to being placed, whose
 * delivery may be near). `billDays`: each supplier's
 * bill days (history.ts). A billed order is BILLED, or AUTHORISED and matched
 * by a bill (a replayed cut-off's view).
 */
export function orderLeadTimes(
  purchaseOrders: readonly PurchaseOrder[],
  poReasons: Map<string, SuppressedReason | null>,
  items: readonly LedgerItem[],
  billDays: ReadonlyMap<string, { days: readonly number[] }>,
  asOf: number,
): Map<string, OrderLeads> {
  const out = new Map<string, OrderLeads>();
  if (purchaseOrders.length === 0) return out;
  const leads = new Map<string, number[]>();
  const pending = new Map<string, number>();
  // The earliest bill naming each order (by its number or reference, as the matching compares them).
  const billNaming = new Map<string, number>();
  for (const it of items) {
    const key = it.kind === 'AP' ? referenceKey(it.reference) : '';
    const day = it.issueDate ?? it.dueDate;
    if (!key || !day || it.status === 'VOIDED' || it.status === 'DELETED') continue;
    billNaming.set(key, Math.min(billNaming.get(key) ?? Infinity, toDay(day)));
  }
  const namedBill = (po: PurchaseOrder) => Math.min(...[po.number, po.reference].map((k) => billNaming.get(referenceKey(k)) ?? Infinity));
  for (const po of purchaseOrders) {
    if (!po.contactId || !po.issueDate) continue;
    const issued = toDay(po.issueDate);
    if (issued > asOf) continue;
    if (po.status === 'DRAFT' || po.status === 'SUBMITTED') {
      pending.set(po.contactId, Math.max(pending.get(po.contactId) ?? -Infinity, issued));
      continue;
    }
    const billed = po.status === 'BILLED' || (po.status === 'AUTHORISED' && poReasons.get(po.id));
    const arrival = po.expectedArrivalDate ?? po.deliveryDate;
    if (!billed || !arrival || asOf - issued > 365) continue;
    const lead = Math.min(toDay(arrival), namedBill(po)) - issued;
    const list = leads.get(po.contactId) ?? [];
    list.push(Math.max(0, lead));
    leads.set(po.contactId, list);
  }
  for (const [contact, list] of leads) {
    const bills = (billDays.get(contact)?.days ?? []).filter((d) => d <= asOf && asOf - d <= 365).length;
    if (list.length < MIN_ORDERS || list.length < ORDERING_SHARE * bills) continue;
    list.sort((a, b) => a - b);
    const longest = list[list.length - 1]!;
    // All on the day they are ordered: nothing to tell. A draft or submitted order younger than its longest lead: one may be on its way.
    if (longest === 0 || asOf - (pending.get(contact) ?? -Infinity) <= longest) continue;
    out.set(contact, { leads: list, ordered: Math.min(list.length, bills) / (bills + 1) });
  }
  return out;
}
