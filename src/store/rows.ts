/**
 * The rows the ledger writer takes (src/store/ledger-write/): insert rows of
 * the ledger tables, and the batch the Xero mapping (src/ledger/map/) fills.
 *
 * Conventions (the writer relies on them):
 * - `undefined` in a NOT NULL column means "this source does not carry it":
 *   a new row gets the column's default, a stored row keeps its value;
 * - `null` in a nullable column never overwrites a stored value;
 * - `lines: null` means the record carried no line items: stored lines stay.
 */
import type * as s from './schema.js';

/** An organisation and a billing account as stored (what authentication reads). */
export type OrgRow = typeof s.organisations.$inferSelect;
export type BillingRow = typeof s.billingAccounts.$inferSelect;

export type ContactRow = typeof s.contacts.$inferInsert;
export type AccountRow = typeof s.accounts.$inferInsert;
export type BankBalanceRow = typeof s.bankBalances.$inferInsert;
export type CashItemRow = typeof s.cashItems.$inferInsert;
export type CashItemLineRow = typeof s.cashItemLines.$inferInsert;
export type PaymentRow = typeof s.payments.$inferInsert;
/** A payment seen inside an invoice or credit note: no status or reconciliation state of its own. */
export type EmbeddedPaymentRow = Omit<PaymentRow, 'status'> & { status?: string | undefined };
export type AllocationRow = typeof s.creditNoteAllocations.$inferInsert;
/** A credit applied to an invoice, seen from the invoice: its position in the note's allocations is unknown. */
export type AppliedCreditRow = Omit<AllocationRow, 'seq'>;
export type PurchaseOrderRow = typeof s.purchaseOrders.$inferInsert;
export type PurchaseOrderLineRow = typeof s.purchaseOrderLines.$inferInsert;
export type BankTransactionRow = typeof s.bankTransactions.$inferInsert;
export type JournalLineRow = typeof s.journalLines.$inferInsert;
export type RepeatingInvoiceRow = typeof s.repeatingInvoices.$inferInsert;

/** What the ledger says about the organisation itself. */
export interface OrganisationUpdate {
  orgId: string;
  /** Xero OrganisationID: the ledger tenant. */
  ledgerTenantId: string;
  /** The ledger's name (informational: the organisation's own name is the operator's). */
  ledgerName?: string | undefined;
  baseCurrency?: string | undefined;
  fyEndDay?: number | undefined;
  fyEndMonth?: number | undefined;
  /** IANA zone, when Xero's code is a known one. */
  timezone?: string | undefined;
}

export interface MappedCashItem {
  item: CashItemRow;
  /** null: the record carried no line items (stored lines are kept). */
  lines: CashItemLineRow[] | null;
  /** Payments embedded in the record (partial: see EmbeddedPaymentRow). */
  payments: EmbeddedPaymentRow[];
  /** Credit notes: the note's own allocations, replacing the stored ones; null when not carried. */
  allocations: AllocationRow[] | null;
  /** Invoices: credits applied to this invoice, merged into the notes' allocations. */
  appliedCredits: AppliedCreditRow[];
  /** A contact known only from this record (written only when not already stored). */
  contact: ContactRow | null;
}

export interface MappedPurchaseOrder {
  order: PurchaseOrderRow;
  lines: PurchaseOrderLineRow[] | null;
  contact: ContactRow | null;
}

export interface MappedBankTransaction {
  transaction: BankTransactionRow;
  contact: ContactRow | null;
  /** The bank account as named by the transaction (written only when not already stored). */
  account: AccountRow | null;
}

export interface MappedBankSummary {
  balances: BankBalanceRow[];
  /** The bank accounts as named by the report (written only when not already stored). */
  accounts: AccountRow[];
}

/** Everything mapped from some pages, in the shape the writer takes. */
export interface LedgerBatch {
  organisation: OrganisationUpdate | null;
  contacts: ContactRow[];
  accounts: AccountRow[];
  /** Cash items: invoices, bills, credit notes, overpayments and prepayments. */
  cashItems: MappedCashItem[];
  /**
   * Repeating invoices and bills: null when the batch carries none; a list is
   * the organisation's whole set (the ledger answers it whole), replacing the
   * stored one.
   */
  repeatingInvoices: RepeatingInvoiceRow[] | null;
  repeatingContacts: ContactRow[];
  purchaseOrders: MappedPurchaseOrder[];
  payments: PaymentRow[];
  bankTransactions: MappedBankTransaction[];
  bankSummary: MappedBankSummary;
  journalLines: JournalLineRow[];
}


/** Rows of a whole ledger, inserted as they are (synthetic ledgers: src/backtest/synthetic.ts). */
export interface LedgerRows {
  contacts: ContactRow[];
  accounts: AccountRow[];
  bankBalances: BankBalanceRow[];
  items: CashItemRow[];
  lines: CashItemLineRow[];
  payments: PaymentRow[];
  bankTransactions: BankTransactionRow[];
  purchaseOrders: PurchaseOrderRow[];
}
