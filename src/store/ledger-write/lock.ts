/** The ledger lock: one writer (import or sync) per organisation at a time. */
import { sql } from 'drizzle-orm';
import type { Db } from '../db.js';

/** The advisory-lock namespace of an organisation's ledger writers (imports and syncs). */
export const LEDGER_LOCK_NAMESPACE = 'cashline:ledger:';

/** Runs `fn` in one transaction holding the organisation's ledger lock: one writer per organisation at a time. */
export async function withLedgerLock<T>(db: Db, orgId: string, fn: (tx: Db) => Promise<T>): Promise<T> {
  return db.transaction(async (tx) => {
    const t = tx as unknown as Db;
    await t.execute(sql`select pg_advisory_xact_lock(hashtext(${LEDGER_LOCK_NAMESPACE + orgId}))`);
    return fn(t);
  });
}
