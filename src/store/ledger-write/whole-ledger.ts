/** A whole ledger inserted as it is (a fresh organisation). */
import type { Db } from '../db.js';
import * as s from '../schema.js';
import type { LedgerRows } from '../rows.js';

/** Inserts a whole ledger's rows as they are, 500 at a time (a fresh organisation: no upsert rules apply). */
export async function insertLedgerRows(db: Db, ledger: LedgerRows): Promise<void> {
  const chunks = async <T>(list: T[], insert: (part: T[]) => Promise<unknown>) => {
    for (let i = 0; i < list.length; i += 500) await insert(list.slice(i, i + 500));
  };
  await chunks(ledger.contacts, (p) => db.insert(s.contacts).values(p));
  await chunks(ledger.accounts, (p) => db.insert(s.accounts).values(p));
  await chunks(ledger.bankBalances, (p) => db.insert(s.bankBalances).values(p));
  await chunks(ledger.items, (p) => db.insert(s.cashItems).values(p));
  await chunks(ledger.lines, (p) => db.insert(s.cashItemLines).values(p));
  await chunks(ledger.payments, (p) => db.insert(s.payments).values(p));
  await chunks(ledger.bankTransactions, (p) => db.insert(s.bankTransactions).values(p));
  await chunks(ledger.purchaseOrders, (p) => db.insert(s.purchaseOrders).values(p));
}
