/**
 * Consents under way on the web (`ledger_consents`, docs/sync.md "Connect your
 * Xero"), and what a Xero webhook reads and marks: the connections of the
 * tenants its events name, and their request for a sync.
 */
import { and, eq, gt, inArray, isNull, lt, sql } from 'drizzle-orm';
import type { Db } from '../db.js';
import * as s from '../schema.js';

export type ConsentRow = typeof s.ledgerConsents.$inferSelect;

/** Stores a consent that has just been sent to Xero's authorise page. */
export async function insertConsent(db: Db, row: typeof s.ledgerConsents.$inferInsert): Promise<void> {
  await db.insert(s.ledgerConsents).values(row);
}

/** The organisation's consent `state`, while it has not expired; null otherwise. */
export async function liveConsent(db: Db, orgId: string, state: string, now: Date): Promise<ConsentRow | null> {
  const [row] = await db
    .select()
    .from(s.ledgerConsents)
    .where(and(eq(s.ledgerConsents.orgId, orgId), eq(s.ledgerConsents.state, state), gt(s.ledgerConsents.expiresAt, now)));
  return row ?? null;
}

/** Keeps the tokens (sealed) and the organisations to choose from, while the user chooses. */
export async function holdConsentTokens(db: Db, orgId: string, state: string, tokens: string, tenants: unknown): Promise<void> {
  await db
    .update(s.ledgerConsents)
    .set({ tokens, tenants })
    .where(and(eq(s.ledgerConsents.orgId, orgId), eq(s.ledgerConsents.state, state)));
}

/**
 * Takes the consent: deletes it and says whether this call did (one use: a
 * second callback with the same state, a replay, finds nothing). `withTokens`
 * takes it only once tokens are held (the tenant choice); without, only
 * before (the callback).
 */
export async function takeConsent(db: Db, orgId: string, state: string, withTokens: boolean): Promise<boolean> {
  const gone = await db
    .delete(s.ledgerConsents)
    .where(
      and(
        eq(s.ledgerConsents.orgId, orgId),
        eq(s.ledgerConsents.state, state),
        withTokens ? sql`${s.ledgerConsents.tokens} is not null` : isNull(s.ledgerConsents.tokens),
      ),
    )
    .returning({ state: s.ledgerConsents.state });
  return gone.length > 0;
}

/** Forgets the organisation's expired consents. */
export async function pruneConsents(db: Db, orgId: string, now: Date): Promise<void> {
  await db.delete(s.ledgerConsents).where(and(eq(s.ledgerConsents.orgId, orgId), lt(s.ledgerConsents.expiresAt, now)));
}

/**
 * Marks that the ledgers of these Xero tenants changed at `at` (a webhook
 * names tenants, not organisations: the one look-up across organisations
 * here, by the indexed tenant id), disconnected connections excluded; a
 * worker syncs each if no run starts after. Returns the organisations marked.
 */
export async function requestSyncOfTenants(db: Db, tenantIds: string[], at: Date): Promise<{ orgId: string; tenantId: string }[]> {
  if (tenantIds.length === 0) return [];
  return db
    .update(s.ledgerConnections)
    .set({ syncRequestedAt: at })
    .where(and(inArray(s.ledgerConnections.tenantId, tenantIds), isNull(s.ledgerConnections.disconnectedAt)))
    .returning({ orgId: s.ledgerConnections.orgId, tenantId: s.ledgerConnections.tenantId });
}
