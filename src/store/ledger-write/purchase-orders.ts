/** Purchase orders with their lines. */
import type { Db } from '../db.js';
import * as s from '../schema.js';
import type { MappedPurchaseOrder, PurchaseOrderLineRow } from '../rows.js';
import { checkOrg, chunks, LINE_CHUNK, newestById } from './common.js';
import { deleteChildren, insertRows } from './unnest.js';
import { upsert, type UpsertSpec } from './upsert.js';

const PURCHASE_ORDERS: UpsertSpec = {
  table: s.purchaseOrders,
  key: ['id'],
  omit: ['suppressedReason'],
  insertDefaults: { reference: `''` },
  guard: 'ledgerUpdatedAt',
  chunk: 500,
};

/** Purchase orders; an upserted order's lines are replaced when the record carries lines. */
export async function upsertPurchaseOrders(
  db: Db,
  orgId: string,
  orders: readonly MappedPurchaseOrder[],
  onProgress?: (done: number, total: number) => void,
): Promise<{ orders: number; lines: number }> {
  const out = { orders: 0, lines: 0 };
  checkOrg(orgId, orders.map((o) => o.order), 'purchase orders');
  const unique = newestById(orders, (m) => m.order.id, (m) => m.order.ledgerUpdatedAt);
  let done = 0;
  for (const part of chunks(unique, PURCHASE_ORDERS.chunk)) {
    const written = await upsert(db, orgId, PURCHASE_ORDERS, part.map((m) => m.order), 'purchase orders');
    out.orders += written.size;
    const withLines = part.filter((m) => written.has(m.order.id) && m.lines !== null);
    if (withLines.length) {
      await deleteChildren(db, orgId, s.purchaseOrderLines, 'purchaseOrderId', withLines.map((m) => m.order.id));
      const lines: PurchaseOrderLineRow[] = withLines.flatMap((m) => m.lines!);
      out.lines += await insertRows(db, orgId, s.purchaseOrderLines, lines, LINE_CHUNK, 'purchase order lines');
    }
    done += part.length;
    onProgress?.(done, unique.length);
  }
  return out;
}
