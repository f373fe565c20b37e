/** Repeating invoices and bills: the ledger's whole list replaces the stored one. */
import { sql } from 'drizzle-orm';
import { type Db, rows as queryRows } from '../db.js';
import * as s from '../schema.js';
import type { RepeatingInvoiceRow } from '../rows.js';
import { checkOrg } from './common.js';
import { upsert, type UpsertSpec } from './upsert.js';

// The ledger answers a schedule whole: every column is its current value (a removed end date is null).
const REPEATING_INVOICES: UpsertSpec = {
  table: s.repeatingInvoices,
  key: ['id'],
  modes: { contactId: 'set', reference: 'set', startDate: 'set', endDate: 'set', nextScheduledDate: 'set', lineAmountTypes: 'set', accountCode: 'set' },
  chunk: 1000,
};

/**
 * Replaces the organisation's repeating invoices and bills with `rows` (the
 * ledger's whole list): new and changed schedules are written, the ones the
 * ledger no longer lists are deleted. Returns rows written plus deleted.
 */
export async function replaceRepeatingInvoices(db: Db, orgId: string, rows: readonly RepeatingInvoiceRow[]): Promise<number> {
  checkOrg(orgId, rows, 'repeating invoices');
  const gone = await queryRows<{ id: string }>(
    db,
    sql`delete from repeating_invoices
        where org_id = ${orgId} and id not in (select json_array_elements_text(${JSON.stringify(rows.map((r) => r.id))}::json))
        returning id`,
  );
  const deleted = gone.length;
  return deleted + (await upsert(db, orgId, REPEATING_INVOICES, rows, 'repeating invoices')).size;
}
