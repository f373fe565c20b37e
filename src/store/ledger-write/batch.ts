/**
 * Batched writes of mapped ledger rows (src/ledger/map/) for one
 * organisation. The importer calls them inside its one transaction; the live
 * sync calls them page by page. Each function takes a `Db` (usually a
 * transaction) and an already-mapped batch.
 *
 * How rows are written:
 * - Multi-row `INSERT … SELECT … FROM unnest($col1::text[], …) … ON CONFLICT
 *   (org_id, …) DO UPDATE`, a few hundred to a few thousand rows per
 *   statement: the rows travel as one text array per column (money as
 *   decimal strings, exact; cast in SQL) and every statement is keyed by
 *   org_id.
 * - Never lost: nothing is ever deleted except an upserted item's own lines
 *   (and a credit note's own allocations) when the new record carries them.
 * - A NULL never overwrites a stored value (`coalesce(new, old)`), and a NOT
 *   NULL column the source does not carry (`undefined` in the row) keeps its
 *   stored value; on insert it gets its default.
 * - A record older than the stored one (by the ledger's UpdatedDateUTC) does
 *   not overwrite it.
 * - Operator-owned columns (contacts/accounts.is_sensitive, purchase
 *   orders' suppressed_reason) are never written here.
 * - Rows known only from a reference (a contact named by an invoice, a bank
 *   account named by a transaction or the bank summary) are inserted when
 *   missing and never overwrite a stored row.
 */
import type { Db } from '../db.js';
import type { AccountRow, ContactRow, LedgerBatch } from '../rows.js';
import { upsertCashItems } from './cash-items.js';
import { insertAccountRefs, insertContactRefs, upsertAccounts, upsertContacts } from './contacts-accounts.js';
import { upsertJournalLines } from './journals.js';
import { applyOrganisationUpdate } from './organisation.js';
import { upsertBankBalances, upsertBankTransactions, upsertPayments } from './payments-bank.js';
import { upsertPurchaseOrders } from './purchase-orders.js';
import { replaceRepeatingInvoices } from './repeating-invoices.js';

export interface WriteProgress {
  (resource: string, done: number, total: number): void;
}

export interface BatchWritten {
  organisation: number;
  contacts: number;
  accounts: number;
  cashItems: number;
  lineItems: number;
  allocations: number;
  purchaseOrders: number;
  purchaseOrderLines: number;
  payments: number;
  bankTransactions: number;
  bankBalances: number;
  journalLines: number;
  repeatingInvoices: number;
}

/** A BatchWritten of zeros. */
function nothingWritten(): BatchWritten {
  return {
    organisation: 0,
    contacts: 0,
    accounts: 0,
    cashItems: 0,
    lineItems: 0,
    allocations: 0,
    purchaseOrders: 0,
    purchaseOrderLines: 0,
    payments: 0,
    bankTransactions: 0,
    bankBalances: 0,
    journalLines: 0,
    repeatingInvoices: 0,
  };
}

/**
 * Writes a whole mapped batch in dependency order: the organisation,
 * contacts and accounts (then the ones known only by reference) before the
 * rows that name them, then cash items (with their lines, allocations and
 * embedded payments), purchase orders, payments, bank transactions, bank
 * balances and journal lines. Counts are rows inserted or updated.
 */
export async function writeLedgerBatch(
  db: Db,
  orgId: string,
  batch: LedgerBatch,
  onProgress?: WriteProgress,
): Promise<BatchWritten> {
  const w = nothingWritten();
  const step = async (resource: string, total: number, run: () => Promise<void>) => {
    await run();
    onProgress?.(resource, total, total);
  };
  if (batch.organisation) {
    await applyOrganisationUpdate(db, orgId, batch.organisation);
    w.organisation = 1;
    onProgress?.('Organisation', 1, 1);
  }
  await step('Contacts', batch.contacts.length, async () => {
    w.contacts = await upsertContacts(db, orgId, batch.contacts);
  });
  await step('Accounts', batch.accounts.length, async () => {
    w.accounts = await upsertAccounts(db, orgId, batch.accounts);
  });
  const contactRefs = [
    ...batch.cashItems.map((m) => m.contact),
    ...batch.purchaseOrders.map((m) => m.contact),
    ...batch.bankTransactions.map((m) => m.contact),
    ...batch.repeatingContacts,
  ].filter((c): c is ContactRow => c !== null);
  w.contacts += await insertContactRefs(db, orgId, contactRefs);
  const accountRefs = [
    ...batch.bankTransactions.map((m) => m.account).filter((a): a is AccountRow => a !== null),
    ...batch.bankSummary.accounts,
  ];
  w.accounts += await insertAccountRefs(db, orgId, accountRefs);

  const cash = await upsertCashItems(db, orgId, batch.cashItems, (done, total) => onProgress?.('CashItems', done, total));
  w.cashItems = cash.items;
  w.lineItems = cash.lines;
  w.allocations = cash.allocations;
  w.payments = cash.payments;

  const po = await upsertPurchaseOrders(db, orgId, batch.purchaseOrders, (done, total) =>
    onProgress?.('PurchaseOrders', done, total),
  );
  w.purchaseOrders = po.orders;
  w.purchaseOrderLines = po.lines;

  await step('Payments', batch.payments.length, async () => {
    w.payments += await upsertPayments(db, orgId, batch.payments);
  });
  await step('BankTransactions', batch.bankTransactions.length, async () => {
    w.bankTransactions = await upsertBankTransactions(
      db,
      orgId,
      batch.bankTransactions.map((m) => m.transaction),
    );
  });
  await step('BankSummary', batch.bankSummary.balances.length, async () => {
    w.bankBalances = await upsertBankBalances(db, orgId, batch.bankSummary.balances);
  });
  await step('Journals', batch.journalLines.length, async () => {
    w.journalLines = await upsertJournalLines(db, orgId, batch.journalLines);
  });
  if (batch.repeatingInvoices) {
    const list = batch.repeatingInvoices;
    await step('RepeatingInvoices', list.length, async () => {
      w.repeatingInvoices = await replaceRepeatingInvoices(db, orgId, list);
    });
  }
  return w;
}
