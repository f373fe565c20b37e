/**
 * The look-ups behind every authenticated request (src/api/auth.ts): the key
 * with its organisation and billing account by the key's public prefix, and
 * an organisation a key may name (its own, or a partner's linked client).
 */
import { and, eq, sql } from 'drizzle-orm';
import type { Db } from '../db.js';
import * as s from '../schema.js';

/** keyByPrefix's query, its SQL built once per handle (a select builder builds it anew on every execution). */
const keyQuery = (db: Db) =>
  db
    .select({ key: s.apiKeys, org: s.organisations, billing: s.billingAccounts })
    .from(s.apiKeys)
    .leftJoin(s.organisations, eq(s.organisations.id, s.apiKeys.orgId))
    .leftJoin(s.billingAccounts, eq(s.billingAccounts.id, s.organisations.billingAccountId))
    .where(eq(s.apiKeys.keyPrefix, sql.placeholder('prefix')))
    // '': PostgreSQL's unnamed statement (what an unprepared query uses), nothing kept in a server session.
    .prepare('');
const keyQueries = new WeakMap<Db, ReturnType<typeof keyQuery>>();

/**
 * The key of this prefix with its organisation and billing account (one
 * query), or undefined. An unnamed statement, like every other: a named
 * server-side prepared statement lives in one server session, which a
 * transaction pooler (PgBouncer) does not keep for a client (docs/scaling.md
 * "PgBouncer"); the process's key cache (src/api/key-cache.ts) spares most
 * requests this look-up anyway. Only the query's text is kept, in process.
 */
export async function keyByPrefix(db: Db, prefix: string) {
  let q = keyQueries.get(db);
  if (!q) keyQueries.set(db, (q = keyQuery(db)));
  const [r] = await q.execute({ prefix });
  return r;
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
