/** Contacts and accounts, from their own lists or known only from a reference. */
import type { Db } from '../db.js';
import * as s from '../schema.js';
import type { AccountRow, ContactRow } from '../rows.js';
import { upsert, type UpsertSpec } from './upsert.js';

const CONTACTS: UpsertSpec = {
  table: s.contacts,
  key: ['id'],
  omit: ['isSensitive'],
  insertDefaults: { contactStatus: `'ACTIVE'`, isCustomer: 'false', isSupplier: 'false' },
  guard: 'ledgerUpdatedAt',
  chunk: 1000,
};
const CONTACT_REFS: UpsertSpec = { ...CONTACTS, onConflict: 'nothing' };

const ACCOUNTS: UpsertSpec = {
  table: s.accounts,
  key: ['id'],
  omit: ['isSensitive'],
  insertDefaults: { status: `'ACTIVE'` },
  guard: 'ledgerUpdatedAt',
  chunk: 1000,
};
const ACCOUNT_REFS: UpsertSpec = { ...ACCOUNTS, onConflict: 'nothing' };

/** Contacts from GET /Contacts. is_sensitive is never touched. Returns how many were written. */
export async function upsertContacts(db: Db, orgId: string, rows: readonly ContactRow[]): Promise<number> {
  return (await upsert(db, orgId, CONTACTS, rows, 'contacts')).size;
}

/** Contacts known only from a reference (id and name): inserted when missing, never updated. */
export async function insertContactRefs(db: Db, orgId: string, rows: readonly ContactRow[]): Promise<number> {
  return (await upsert(db, orgId, CONTACT_REFS, mergeRoles(rows), 'contact refs')).size;
}

/** Accounts from GET /Accounts. is_sensitive is never touched. */
export async function upsertAccounts(db: Db, orgId: string, rows: readonly AccountRow[]): Promise<number> {
  return (await upsert(db, orgId, ACCOUNTS, rows, 'accounts')).size;
}

/** Accounts known only from a reference: inserted when missing, never updated. */
export async function insertAccountRefs(db: Db, orgId: string, rows: readonly AccountRow[]): Promise<number> {
  return (await upsert(db, orgId, ACCOUNT_REFS, rows, 'account refs')).size;
}

/** A contact named both as customer and as supplier by references is both. */
function mergeRoles(rows: readonly ContactRow[]): ContactRow[] {
  const byId = new Map<string, ContactRow>();
  for (const r of rows) {
    const prev = byId.get(r.id);
    if (!prev) byId.set(r.id, { ...r });
    else {
      prev.isCustomer = Boolean(prev.isCustomer || r.isCustomer);
      prev.isSupplier = Boolean(prev.isSupplier || r.isSupplier);
    }
  }
  return [...byId.values()];
}
