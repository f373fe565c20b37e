/**
 * The organisation as the forecast reads it: its name, time zone and base
 * currency, and its chart of accounts (names and codes, the ones flagged
 * sensitive).
 */
import { eq, sql } from 'drizzle-orm';
import { type Db, rows } from '../db.js';
import * as s from '../schema.js';

export interface OrgMeta {
  id: string;
  name: string;
  timezone: string;
  baseCurrency: string;
}

export async function orgMeta(db: Db, orgId: string): Promise<OrgMeta | null> {
  const [o] = await db
    .select({ id: s.organisations.id, name: s.organisations.name, timezone: s.organisations.timezone, baseCurrency: s.organisations.baseCurrency })
    .from(s.organisations)
    .where(eq(s.organisations.id, orgId));
  return o ?? null;
}

/** Names and codes of the organisation's accounts, and code -> id. */
export async function loadAccounts(db: Db, orgId: string): Promise<{ byId: Record<string, { name: string; code: string | null }>; idByCode: Map<string, string> }> {
  const list = await rows<{ id: string; code: string | null; name: string }>(db, sql`select id, code, name from accounts where org_id = ${orgId}`);
  const byId: Record<string, { name: string; code: string | null }> = {};
  const idByCode = new Map<string, string>();
  for (const a of list) {
    byId[a.id] = { name: a.name, code: a.code };
    if (a.code) idByCode.set(a.code, a.id);
  }
  return { byId, idByCode };
}

/** Ids of the organisation's contacts and accounts flagged sensitive now: what a read without READ_SENSITIVE renames. */
export async function sensitiveIds(db: Db, orgId: string): Promise<{ accounts: Set<string>; contacts: Set<string> }> {
  const list = await rows<{ id: string; contact: boolean }>(
    db,
    sql`select id, false as contact from accounts where org_id = ${orgId} and is_sensitive
        union all
        select id, true as contact from contacts where org_id = ${orgId} and is_sensitive`,
  );
  return { accounts: new Set(list.filter((r) => !r.contact).map((r) => r.id)), contacts: new Set(list.filter((r) => r.contact).map((r) => r.id)) };
}

/** The names and sensitivity of these contacts of the organisation (ids it does not have are left out). */
export async function contactsByIds(db: Db, orgId: string, ids: readonly string[]): Promise<Map<string, { name: string; sensitive: boolean }>> {
  if (ids.length === 0) return new Map();
  const list = await rows<{ id: string; name: string; is_sensitive: boolean }>(
    db,
    sql`select id, name, is_sensitive from contacts where org_id = ${orgId} and id = any(${sql.param([...ids])}::text[])`,
  );
  return new Map(list.map((r) => [r.id, { name: r.name, sensitive: r.is_sensitive }]));
}

/** Ids of the organisation's accounts flagged sensitive (bank accounts and ledger accounts alike). */
export async function sensitiveAccountIds(db: Db, orgId: string): Promise<Set<string>> {
  const list = await rows<{ id: string }>(db, sql`select id from accounts where org_id = ${orgId} and is_sensitive`);
  return new Set(list.map((r) => r.id));
}
