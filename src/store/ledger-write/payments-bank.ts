/** Payments, bank transactions and bank balances. */
import type { Db } from '../db.js';
import * as s from '../schema.js';
import type { BankBalanceRow, BankTransactionRow, EmbeddedPaymentRow, PaymentRow } from '../rows.js';
import { upsert, type UpsertSpec } from './upsert.js';

const BANK_BALANCES: UpsertSpec = {
  table: s.bankBalances,
  key: ['accountId'],
  guard: 'balanceSyncedAt',
  chunk: 1000,
};

const PAYMENTS: UpsertSpec = {
  table: s.payments,
  key: ['id'],
  insertDefaults: { status: `'AUTHORISED'`, isReconciled: 'false' },
  guard: 'ledgerUpdatedAt',
  chunk: 1000,
};

const BANK_TRANSACTIONS: UpsertSpec = {
  table: s.bankTransactions,
  key: ['id'],
  insertDefaults: { isReconciled: 'false', lines: `'[]'::jsonb` },
  guard: 'ledgerUpdatedAt',
  chunk: 1000,
};

/** Bank balances from Reports/BankSummary; a stored statement_balance is kept when the row has none. */
export async function upsertBankBalances(db: Db, orgId: string, rows: readonly BankBalanceRow[]): Promise<number> {
  return (await upsert(db, orgId, BANK_BALANCES, rows, 'bank balances')).size;
}

/**
 * Payments. Rows from GET /Payments carry everything; rows embedded in
 * invoices (EmbeddedPaymentRow) leave status and reconciliation undefined and
 * often have no bank account: those stored values are kept.
 */
export async function upsertPayments(db: Db, orgId: string, rows: ReadonlyArray<PaymentRow | EmbeddedPaymentRow>): Promise<number> {
  return (await upsert(db, orgId, PAYMENTS, rows, 'payments')).size;
}

/** Bank transactions; their lines are kept when a record carries none. */
export async function upsertBankTransactions(db: Db, orgId: string, rows: readonly BankTransactionRow[]): Promise<number> {
  return (await upsert(db, orgId, BANK_TRANSACTIONS, rows, 'bank transactions')).size;
}
