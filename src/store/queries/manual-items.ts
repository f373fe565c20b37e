/**
 * The operator's manual forecast lines (cashline-server forecast ...), kept
 * as one document, and the check a stored manual line must pass (scenarios'
 * manual lines too).
 */
import { and, eq } from 'drizzle-orm';
import type { Db } from '../db.js';
import * as s from '../schema.js';
import type { ManualItem } from '../../domain/forecast/types.js';

/** Manual forecast lines are kept as one document: derived_snapshots kind 'forecast_manual_items', payload {items: ManualItem[]}. */
export const MANUAL_ITEMS_KIND = 'forecast_manual_items';

export async function loadManualItems(db: Db, orgId: string): Promise<ManualItem[]> {
  const [row] = await db
    .select({ payload: s.derivedSnapshots.payload })
    .from(s.derivedSnapshots)
    .where(and(eq(s.derivedSnapshots.orgId, orgId), eq(s.derivedSnapshots.kind, MANUAL_ITEMS_KIND)));
  const items = (row?.payload as { items?: unknown } | undefined)?.items;
  return Array.isArray(items) ? items.filter(isManualItem) : [];
}

export async function saveManualItems(db: Db, orgId: string, items: ManualItem[], now: Date): Promise<void> {
  await db
    .insert(s.derivedSnapshots)
    .values({ orgId, kind: MANUAL_ITEMS_KIND, key: '', computedAt: now, payload: { items } })
    .onConflictDoUpdate({
      target: [s.derivedSnapshots.orgId, s.derivedSnapshots.kind, s.derivedSnapshots.key],
      set: { payload: { items }, computedAt: now },
    });
}

export function isManualItem(v: unknown): v is ManualItem {
  const m = v as ManualItem;
  return (
    typeof m === 'object' && m !== null && typeof m.id === 'string' && typeof m.date === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(m.date) &&
    typeof m.amount === 'string' && /^-?\d+(\.\d+)?$/.test(m.amount)
  );
}
