/**
 * A small, hand-checked ledger for the list and drill tests (store and HTTP),
 * plus a bulk generator for paging tests. Not a test file itself.
 *
 * Organisation o1 (AUD):
 *   contacts  cust-a (customer), cust-s (customer, SENSITIVE), sup-b (supplier),
 *             sup-s (supplier, SENSITIVE), both-x (customer and supplier), none-n (neither)
 *   accounts  200 Sales, 310 Owner drawings (SENSITIVE), 400 General expenses,
 *             610 Receivables (ASSET), 800 Payables (LIABILITY), 960 Retained earnings (EQUITY),
 *             bank-1 Operating (BANK), bank-2 Owner savings (BANK, SENSITIVE), bank-3 Closed (BANK, ARCHIVED)
 *   invoices  inv-1 .. inv-7, one credit note of each kind (cn-1 ACCREC, cn-2 ACCPAY), bills bill-1 .. bill-3,
 *             purchase orders po-1 .. po-3
 * Organisation o2 (NZD): one invoice, one contact, one credit note, one purchase order, one bank account.
 */
import { sql } from 'drizzle-orm';
import type { Db } from '../src/store/db.js';
import * as s from '../src/store/schema.js';

export const T0 = new Date('2026-03-01T00:00:00Z');

type CashItem = typeof s.cashItems.$inferInsert;

function item(v: Partial<CashItem> & Pick<CashItem, 'id' | 'source' | 'ledgerType' | 'ledgerStatus' | 'total'>): CashItem {
  const status = v.ledgerStatus === 'PAID' ? 'ACTUAL' : v.ledgerStatus === 'VOIDED' || v.ledgerStatus === 'DELETED' ? 'CANCELLED' : 'FORECAST';
  return {
    orgId: 'o1',
    currency: 'AUD',
    status,
    sortDate: (v.issueDate ?? v.dueDate)!,
    subTotal: v.total,
    totalTax: '0',
    amountDue: v.ledgerStatus === 'PAID' ? '0' : v.total,
    amountPaid: v.ledgerStatus === 'PAID' ? v.total : '0',
    amountCredited: '0',
    lastSyncedAt: T0,
    ...v,
  };
}

/** Seeds o1 and o2; with `orgsExist`, the caller created them (createOrg with ids 'o1' and 'o2'). */
export async function seedLedger(db: Db, opts: { orgsExist?: boolean } = {}): Promise<void> {
  if (!opts.orgsExist) {
    await db.insert(s.organisations).values([
      { id: 'o1', name: 'One Pty', slug: 'one', baseCurrency: 'AUD' },
      { id: 'o2', name: 'Two Ltd', slug: 'two', baseCurrency: 'NZD' },
    ]);
  }
  await db.execute(sql`update organisations set gross_margin_override = 0.4 where id = 'o1'`);
  await db.insert(s.contacts).values([
    { orgId: 'o1', id: 'cust-a', name: 'Acme Pty Ltd', isCustomer: true, lastSyncedAt: new Date('2026-02-01T10:00:00.001Z') },
    { orgId: 'o1', id: 'cust-s', name: 'Secret Client', isCustomer: true, isSensitive: true, lastSyncedAt: new Date('2026-02-01T10:00:00.002Z') },
    { orgId: 'o1', id: 'sup-b', name: 'Bolt Supplies', isSupplier: true, lastSyncedAt: new Date('2026-02-01T10:00:00.002Z') },
    { orgId: 'o1', id: 'sup-s', name: 'Hidden Supplier', isSupplier: true, isSensitive: true, lastSyncedAt: new Date('2026-02-01T09:00:00Z') },
    { orgId: 'o1', id: 'both-x', name: 'Dual Co', isCustomer: true, isSupplier: true, lastSyncedAt: new Date('2026-02-02T00:00:00Z') },
    { orgId: 'o1', id: 'none-n', name: 'Nobody', lastSyncedAt: new Date('2026-01-15T00:00:00Z') },
    { orgId: 'o2', id: 'o2-cust', name: 'Kiwi Customer', isCustomer: true, lastSyncedAt: new Date('2026-02-01T00:00:00Z') },
  ]);
  // Microsecond precision the JS Date cannot hold: paging must still be exact.
  await db.execute(sql`update contacts set last_synced_at = '2026-02-01 10:00:00.002001+00' where org_id = 'o1' and id = 'sup-b'`);
  await db.insert(s.contactBaselines).values([
    { orgId: 'o1', contactId: 'cust-a', computedAt: T0, ltv: '1200.50', abcClass: 'A', cadence: 'MONTHLY', cadenceConfidence: 80,
      paymentDelayMedianDays: '3.5', details: { expectedLifetimeYears: 7, churnStatus: 'AT_RISK' } },
    { orgId: 'o1', contactId: 'both-x', computedAt: T0, ltv: '5000', abcClass: 'B' },
    { orgId: 'o1', contactId: 'sup-b', computedAt: T0, ltv: '999999', abcClass: 'A' },
  ]);
  await db.insert(s.accounts).values([
    { orgId: 'o1', id: 'acc-200', code: '200', name: 'Sales', type: 'REVENUE', class: 'REVENUE', lastSyncedAt: T0 },
    { orgId: 'o1', id: 'acc-310', code: '310', name: 'Owner drawings', type: 'EXPENSE', class: 'EXPENSE', isSensitive: true, lastSyncedAt: T0 },
    { orgId: 'o1', id: 'acc-400', code: '400', name: 'General expenses', type: 'EXPENSE', class: 'EXPENSE', lastSyncedAt: T0 },
    { orgId: 'o1', id: 'acc-610', code: '610', name: 'Receivables', type: 'CURRENT', class: 'ASSET', lastSyncedAt: T0 },
    { orgId: 'o1', id: 'acc-800', code: '800', name: 'Payables', type: 'CURRLIAB', class: 'LIABILITY', lastSyncedAt: T0 },
    { orgId: 'o1', id: 'acc-820', code: '820', name: 'Director loan', type: 'CURRLIAB', class: 'LIABILITY', isSensitive: true, lastSyncedAt: T0 },
    { orgId: 'o1', id: 'acc-960', code: '960', name: 'Retained earnings', type: 'EQUITY', class: 'EQUITY', lastSyncedAt: T0 },
    { orgId: 'o1', id: 'acc-970', code: '970', name: 'Old equity', type: 'EQUITY', class: 'EQUITY', status: 'ARCHIVED', lastSyncedAt: T0 },
    { orgId: 'o1', id: 'bank-1', code: '090', name: 'Operating', type: 'BANK', class: 'ASSET', currency: 'AUD', lastSyncedAt: T0 },
    { orgId: 'o1', id: 'bank-2', code: '091', name: 'Owner savings', type: 'BANK', class: 'ASSET', isSensitive: true, lastSyncedAt: T0 },
    { orgId: 'o1', id: 'bank-3', code: '092', name: 'Closed', type: 'BANK', class: 'ASSET', status: 'ARCHIVED', lastSyncedAt: T0 },
    { orgId: 'o2', id: 'o2-bank', code: '090', name: 'Kiwi bank', type: 'BANK', class: 'ASSET', currency: 'NZD', lastSyncedAt: T0 },
  ]);
  await db.insert(s.bankBalances).values([
    { orgId: 'o1', accountId: 'bank-1', reconciledBalance: '1000.10', balanceSyncedAt: T0 },
    { orgId: 'o1', accountId: 'bank-2', reconciledBalance: '50', statementBalance: '75.25', balanceSyncedAt: T0 },
    { orgId: 'o2', accountId: 'o2-bank', reconciledBalance: '5', balanceSyncedAt: T0 },
  ]);
  await db.insert(s.bankTransactions).values([
    { orgId: 'o1', id: 'bt-1', type: 'RECEIVE', bankAccountId: 'bank-1', date: '2026-02-20', status: 'AUTHORISED', currency: 'AUD', subTotal: '20', totalTax: '0', total: '20.05', lastSyncedAt: T0 },
    { orgId: 'o1', id: 'bt-2', type: 'SPEND', bankAccountId: 'bank-1', date: '2026-02-21', status: 'AUTHORISED', currency: 'AUD', subTotal: '5', totalTax: '0', total: '5', lastSyncedAt: T0 },
    { orgId: 'o1', id: 'bt-3', type: 'SPEND', bankAccountId: 'bank-1', date: '2026-02-22', status: 'AUTHORISED', isReconciled: true, currency: 'AUD', subTotal: '99', totalTax: '0', total: '99', lastSyncedAt: T0 },
    { orgId: 'o1', id: 'bt-4', type: 'SPEND', bankAccountId: 'bank-1', date: '2026-02-22', status: 'DELETED', currency: 'AUD', subTotal: '7', totalTax: '0', total: '7', lastSyncedAt: T0 },
  ]);
  await db.insert(s.journalLines).values([
    { orgId: 'o1', journalId: 'j1', id: 'j1-1', journalDate: '2026-01-10', accountId: 'acc-610', accountCode: '610', netAmount: '110', taxAmount: '0' },
    { orgId: 'o1', journalId: 'j1', id: 'j1-2', journalDate: '2026-01-10', accountId: 'acc-200', accountCode: '200', netAmount: '-110', taxAmount: '0' },
    { orgId: 'o1', journalId: 'j2', id: 'j2-1', journalDate: '2026-02-10', accountId: 'acc-610', accountCode: '610', netAmount: '-40.5', taxAmount: '0' },
    { orgId: 'o1', journalId: 'j2', id: 'j2-2', journalDate: '2026-02-10', accountId: null, accountCode: '090', netAmount: '40.5', taxAmount: '0' },
    { orgId: 'o1', journalId: 'j3', id: 'j3-1', journalDate: '2026-01-20', accountId: 'acc-400', accountCode: '400', netAmount: '30', taxAmount: '0' },
    { orgId: 'o1', journalId: 'j3', id: 'j3-2', journalDate: '2026-01-20', accountId: 'acc-800', accountCode: '800', netAmount: '-30', taxAmount: '0' },
    { orgId: 'o1', journalId: 'j4', id: 'j4-1', journalDate: '2026-01-05', accountId: 'acc-820', accountCode: '820', netAmount: '-1000', taxAmount: '0' },
    { orgId: 'o1', journalId: 'j4', id: 'j4-2', journalDate: '2026-01-05', accountId: 'bank-2', accountCode: '091', netAmount: '1000', taxAmount: '0' },
    { orgId: 'o2', journalId: 'k1', id: 'k1-1', journalDate: '2026-01-05', accountId: 'acc-610', accountCode: '610', netAmount: '12345', taxAmount: '0' },
  ]);

  const INV = { source: 'LEDGER_INVOICE', ledgerType: 'ACCREC' } as const;
  const BILL = { source: 'LEDGER_BILL', ledgerType: 'ACCPAY' } as const;
  await db.insert(s.cashItems).values([
    item({ ...INV, id: 'inv-1', number: 'INV-0001', reference: 'Jan work', contactId: 'cust-a', ledgerStatus: 'AUTHORISED', issueDate: '2026-01-10', dueDate: '2026-02-10', total: '100.50' }),
    item({ ...INV, id: 'inv-2', number: 'INV-0002', contactId: 'cust-s', ledgerStatus: 'PAID', issueDate: '2026-01-10', dueDate: '2026-01-20', paidDate: '2026-01-18', total: '2000' }),
    // No issue date: sorts and filters on its due date.
    item({ ...INV, id: 'inv-3', number: 'INV-0003', contactId: 'cust-a', ledgerStatus: 'PAID', dueDate: '2026-01-31', paidDate: '2026-02-03', total: '300.25' }),
    item({ ...INV, id: 'inv-4', number: 'INV-0004', contactId: 'cust-a', ledgerStatus: 'DRAFT', issueDate: '2026-01-31', dueDate: '2026-03-02', total: '10' }),
    // A line on a sensitive account (310).
    item({ ...INV, id: 'inv-5', number: 'INV-0005', contactId: 'cust-a', ledgerStatus: 'AUTHORISED', issueDate: '2026-01-05', dueDate: '2026-02-05', total: '55' }),
    item({ ...INV, id: 'inv-6', number: 'INV-0006', contactId: 'both-x', ledgerStatus: 'VOIDED', issueDate: '2026-02-01', dueDate: '2026-03-01', total: '77' }),
    // Foreign currency (rate: 0.5 USD per AUD).
    item({ ...INV, id: 'inv-7', number: 'INV-0007', contactId: 'cust-a', ledgerStatus: 'PAID', currency: 'USD', currencyRate: '0.5', issueDate: '2025-06-01', dueDate: '2025-06-30', paidDate: '2025-06-20', total: '40' }),
    item({ source: 'LEDGER_CREDIT_NOTE', ledgerType: 'ACCRECCREDIT', id: 'cn-1', number: 'CN-0001', contactId: 'cust-a', ledgerStatus: 'AUTHORISED', issueDate: '2026-01-20', total: '30', remainingCredit: '10' }),
    item({ source: 'LEDGER_CREDIT_NOTE', ledgerType: 'ACCRECCREDIT', id: 'cn-3', number: 'CN-0003', contactId: 'cust-s', ledgerStatus: 'AUTHORISED', issueDate: '2026-01-21', total: '5', remainingCredit: '5' }),
    item({ source: 'LEDGER_CREDIT_NOTE', ledgerType: 'ACCRECCREDIT', id: 'cn-4', number: 'CN-0004', contactId: 'cust-a', ledgerStatus: 'PAID', currency: 'USD', issueDate: '2026-01-22', total: '8', remainingCredit: '0' }),
    item({ source: 'LEDGER_CREDIT_NOTE', ledgerType: 'ACCRECCREDIT', id: 'cn-5', number: 'CN-0005', contactId: 'cust-a', ledgerStatus: 'AUTHORISED', currency: 'USD', issueDate: '2026-01-23', total: '9', remainingCredit: '9' }),
    item({ source: 'LEDGER_CREDIT_NOTE', ledgerType: 'ACCPAYCREDIT', id: 'cn-2', number: 'CN-0002', contactId: 'sup-b', ledgerStatus: 'AUTHORISED', issueDate: '2026-01-20', total: '12', remainingCredit: '12' }),
    item({ ...BILL, id: 'bill-1', number: 'B-1', contactId: 'sup-b', ledgerStatus: 'AUTHORISED', issueDate: '2026-01-12', dueDate: '2026-02-12', total: '220' }),
    item({ ...BILL, id: 'bill-2', number: 'B-2', contactId: 'sup-s', ledgerStatus: 'PAID', issueDate: '2026-01-13', dueDate: '2026-02-13', paidDate: '2026-02-01', total: '330' }),
    item({ ...BILL, id: 'bill-3', number: 'B-3', contactId: 'both-x', ledgerStatus: 'PAID', issueDate: '2026-01-14', dueDate: '2026-02-14', paidDate: '2026-02-02', total: '440.4' }),
    item({ ...BILL, id: 'bill-4', number: 'B-4', contactId: 'sup-b', ledgerStatus: 'PAID', issueDate: '2025-12-14', dueDate: '2026-01-14', paidDate: '2026-01-10', total: '60' }),
    item({ ...INV, orgId: 'o2', id: 'o2-inv', number: 'NZ-1', contactId: 'o2-cust', ledgerStatus: 'AUTHORISED', currency: 'NZD', issueDate: '2026-01-10', dueDate: '2026-02-10', total: '999' }),
    item({ source: 'LEDGER_CREDIT_NOTE', ledgerType: 'ACCRECCREDIT', orgId: 'o2', id: 'o2-cn', number: 'CN-9', contactId: 'o2-cust', ledgerStatus: 'AUTHORISED', currency: 'NZD', issueDate: '2026-01-10', total: '1' }),
  ]);
  await db.insert(s.cashItemLines).values([
    { orgId: 'o1', itemId: 'inv-1', lineNumber: 1, id: 'l-1-1', description: 'Consulting', quantity: '2', unitAmount: '25.125', lineAmount: '45.225', taxAmount: '4.5', taxType: 'OUTPUT', accountCode: '200', discountRate: '0.1' },
    { orgId: 'o1', itemId: 'inv-1', lineNumber: 2, id: 'l-1-2', description: 'Expenses', quantity: null, unitAmount: '50.775', lineAmount: '50.775', taxAmount: '0', accountCode: '400', discountAmount: '1.5' },
    { orgId: 'o1', itemId: 'inv-1', lineNumber: 3, id: 'l-1-3', description: 'Note', quantity: '3', unitAmount: null, lineAmount: '0', taxAmount: '0', accountCode: null },
    { orgId: 'o1', itemId: 'inv-5', lineNumber: 1, id: 'l-5-1', description: 'Drawings', quantity: '1', unitAmount: '55', lineAmount: '55', taxAmount: '0', accountCode: '310' },
    { orgId: 'o1', itemId: 'inv-3', lineNumber: 1, id: 'l-3-1', quantity: '1', unitAmount: '100', lineAmount: '100', taxAmount: '0', accountCode: '200' },
    { orgId: 'o1', itemId: 'inv-3', lineNumber: 2, id: 'l-3-2', quantity: '1', unitAmount: '200.25', lineAmount: '200.25', taxAmount: '0', accountCode: '310' },
    { orgId: 'o1', itemId: 'inv-7', lineNumber: 1, id: 'l-7-1', quantity: '4', unitAmount: '10', lineAmount: '40', taxAmount: '0', accountCode: '200' },
    { orgId: 'o1', itemId: 'bill-1', lineNumber: 1, id: 'l-b1-1', quantity: '4', unitAmount: '50', lineAmount: '200', taxAmount: '20', accountCode: '400', discountRate: '0.2', discountAmount: '3' },
    { orgId: 'o1', itemId: 'cn-1', lineNumber: 1, id: 'l-cn1-1', description: 'Refund', quantity: '1', unitAmount: '20', lineAmount: '20', taxAmount: '0', accountCode: '200', itemCode: 'SKU1' },
    { orgId: 'o1', itemId: 'cn-1', lineNumber: 2, id: 'l-cn1-2', description: 'Refund drawings', quantity: '1', unitAmount: '10', lineAmount: '10', taxAmount: '0', accountCode: '310' },
  ]);
  await db.insert(s.creditNoteAllocations).values([
    { orgId: 'o1', creditNoteId: 'cn-1', seq: 0, invoiceId: 'inv-1', amount: '20', date: '2026-01-25' },
  ]);
  await db.insert(s.purchaseOrders).values([
    { orgId: 'o1', id: 'po-1', number: 'PO-0001', reference: 'Bolts', contactId: 'sup-b', status: 'AUTHORISED', currency: 'AUD', issueDate: '2026-01-05', deliveryDate: '2026-01-20', sortDate: '2026-01-05', subTotal: '100', totalTax: '10', total: '110', lastSyncedAt: T0 },
    { orgId: 'o1', id: 'po-2', number: 'PO-0002', contactId: 'sup-b', status: 'BILLED', currency: 'AUD', issueDate: '2026-01-06', sortDate: '2026-01-06', subTotal: '50', totalTax: '5', total: '55', suppressedReason: 'REFERENCE', lastSyncedAt: T0 },
    { orgId: 'o1', id: 'po-3', number: 'PO-0003', contactId: 'sup-s', status: 'DRAFT', currency: 'AUD', issueDate: '2026-01-07', sortDate: '2026-01-07', subTotal: '1', totalTax: '0', total: '1', lastSyncedAt: T0 },
    { orgId: 'o2', id: 'o2-po', number: 'PO-9', contactId: 'o2-cust', status: 'AUTHORISED', currency: 'NZD', issueDate: '2026-01-07', sortDate: '2026-01-07', subTotal: '1', totalTax: '0', total: '1', lastSyncedAt: T0 },
  ]);
  await db.insert(s.purchaseOrderLines).values([
    { orgId: 'o1', purchaseOrderId: 'po-1', lineNumber: 1, description: 'Bolts', quantity: '100', unitAmount: '1', lineAmount: '100', taxAmount: '10', accountCode: '400', itemCode: 'BOLT' },
    { orgId: 'o1', purchaseOrderId: 'po-1', lineNumber: 2, description: 'Private', quantity: '1', unitAmount: '0', lineAmount: '0', accountCode: '310' },
  ]);
}

/**
 * A bulk organisation for paging tests: `n` invoices of which `sameDay` share
 * one date (2026-01-15), the rest spread over 2025; every 20th contact (of 50)
 * sensitive. Ids are zero-padded so id order is predictable.
 */
export async function seedBulk(db: Db, orgId: string, n: number, sameDay: number, opts: { orgExists?: boolean } = {}): Promise<void> {
  if (!opts.orgExists) await db.insert(s.organisations).values({ id: orgId, name: `Bulk ${orgId}`, slug: `bulk-${orgId}` });
  await db.execute(sql`insert into contacts (org_id, id, name, is_customer, is_sensitive, last_synced_at)
    select ${orgId}, 'c' || lpad(g::text, 3, '0'), 'Contact ' || g, true, g % 20 = 0, ${T0.toISOString()}::timestamptz
    from generate_series(1, 50) g`);
  await db.execute(sql`insert into cash_items (org_id, id, source, ledger_type, number, contact_id, ledger_status, status, currency,
      issue_date, due_date, sort_date, sub_total, total_tax, total, amount_due, amount_paid, amount_credited, last_synced_at)
    select ${orgId}, 'b' || lpad(g::text, 6, '0'), 'LEDGER_INVOICE', 'ACCREC', 'INV-' || g, 'c' || lpad((g % 50 + 1)::text, 3, '0'),
      case when g % 3 = 0 then 'PAID' else 'AUTHORISED' end, case when g % 3 = 0 then 'ACTUAL' else 'FORECAST' end, 'AUD',
      d, d + 30, d, (g % 97) + 0.25, 0, (g % 97) + 0.25, 0, 0, 0, ${T0.toISOString()}::timestamptz
    from (select g, case when g <= ${sameDay} then date '2026-01-15' else date '2025-01-01' + (g % 365) end as d
          from generate_series(1, ${n}) g) x`);
  await db.execute(sql`insert into cash_item_lines (org_id, item_id, line_number, id, quantity, unit_amount, line_amount, tax_amount, account_code)
    select ${orgId}, 'b' || lpad(g::text, 6, '0'), 1, 'b' || lpad(g::text, 6, '0') || ':1', 1, (g % 97) + 0.25, (g % 97) + 0.25, 0,
      case when g % 101 = 0 then 'S1' else 'R1' end
    from generate_series(1, ${n}) g`);
  await db.insert(s.accounts).values([
    { orgId, id: 'a-r1', code: 'R1', name: 'Revenue', type: 'REVENUE', class: 'REVENUE', lastSyncedAt: T0 },
    { orgId, id: 'a-s1', code: 'S1', name: 'Secret revenue', type: 'REVENUE', class: 'REVENUE', isSensitive: true, lastSyncedAt: T0 },
  ]);
}
