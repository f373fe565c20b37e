/** What the ledger says about the organisation itself. */
import { sql } from 'drizzle-orm';
import type { Db } from '../db.js';
import * as s from '../schema.js';
import type { OrganisationUpdate } from '../rows.js';
import { LedgerWriteError } from './common.js';

/**
 * Applies what the ledger says about the organisation: its ledger tenant,
 * base currency, financial year end and (when known) time zone. Refuses a
 * ledger other than the one the organisation is already linked to.
 */
export async function applyOrganisationUpdate(db: Db, orgId: string, u: OrganisationUpdate): Promise<void> {
  if (u.orgId !== orgId) throw new LedgerWriteError(`organisation: an update for ${u.orgId} in a write for ${orgId}`);
  const [org] = await db
    .select({ id: s.organisations.id, ledgerTenantId: s.organisations.ledgerTenantId })
    .from(s.organisations)
    .where(sql`${s.organisations.id} = ${orgId}`);
  if (!org) throw new LedgerWriteError(`organisation ${orgId} not found`);
  if (org.ledgerTenantId && org.ledgerTenantId !== u.ledgerTenantId) {
    throw new LedgerWriteError(
      `organisation ${orgId} is linked to ledger ${org.ledgerTenantId}, not to ${u.ledgerTenantId} (OrganisationID)`,
    );
  }
  const set: Partial<typeof s.organisations.$inferInsert> = { ledgerTenantId: u.ledgerTenantId };
  if (u.baseCurrency !== undefined) set.baseCurrency = u.baseCurrency;
  if (u.fyEndDay !== undefined && u.fyEndMonth !== undefined) {
    set.fyEndDay = u.fyEndDay;
    set.fyEndMonth = u.fyEndMonth;
  }
  if (u.timezone !== undefined) set.timezone = u.timezone;
  await db.update(s.organisations).set(set).where(sql`${s.organisations.id} = ${orgId}`);
}
