/**
 * The look-ups behind every authenticated request (src/api/auth.ts): the key
 * with its organisation and billing account by the key's public prefix, and
 * an organisation a key may name (its own, or a partner's linked client).
 */
import { and, eq, sql } from 'drizzle-orm';
import type { Db } from '../db.js';
import * as s from '../schema.js';

/**
 * The key, its organisation and billing account by the key's public prefix:
 * a prepared statement per store (built once; on PostgreSQL also parsed and
 * planned once per connection), as every authenticated request runs it.
 */
const keyLookups = new WeakMap<Db, ReturnType<typeof prepareKeyLookup>>();

function prepareKeyLookup(db: Db) {
  return db
    .select({ key: s.apiKeys, org: s.organisations, billing: s.billingAccounts })
    .from(s.apiKeys)
    .leftJoin(s.organisations, eq(s.organisations.id, s.apiKeys.orgId))
    .leftJoin(s.billingAccounts, eq(s.billingAccounts.id, s.organisations.billingAccountId))
    .where(eq(s.apiKeys.keyPrefix, sql.placeholder('prefix')))
    .prepare('cashline_key_lookup');
}

/** The key of this prefix with its organisation and billing account (one query), or undefined. */
export async function keyByPrefix(db: Db, prefix: string) {
  let q = keyLookups.get(db);
  if (!q) keyLookups.set(db, (q = prepareKeyLookup(db)));
  return (await q.execute({ prefix }))[0];
}

/** The organisation with its billing account, or null. */
export async function orgWithBilling(db: Db, orgId: string) {
  const [r] = await db
    .select({ org: s.organisations, billing: s.billingAccounts })
    .from(s.organisations)
    .leftJoin(s.billingAccounts, eq(s.billingAccounts.id, s.organisations.billingAccountId))
    .where(eq(s.organisations.id, orgId));
  return r ?? null;
}

/** The organisation with its billing account when it is linked to the partner practice (one query), else null. */
export async function linkedOrgWithBilling(db: Db, partnerId: string, orgId: string) {
  const [r] = await db
    .select({ org: s.organisations, billing: s.billingAccounts })
    .from(s.partnerLinks)
    .innerJoin(s.organisations, eq(s.organisations.id, s.partnerLinks.orgId))
    .leftJoin(s.billingAccounts, eq(s.billingAccounts.id, s.organisations.billingAccountId))
    .where(and(eq(s.partnerLinks.partnerId, partnerId), eq(s.partnerLinks.orgId, orgId)));
  return r ?? null;
}
