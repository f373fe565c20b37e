/**
 * Response schemas of the ledger lists and drills (spec 2.2, 2.4-2.7 and
 * decisions.md): invoices, bills, credit notes, purchase orders, contacts,
 * bank accounts and account balances. Money is always a canonical decimal
 * string (Money). Fields the spec marks optional may be absent or null; the
 * service emits them as null when unknown so the shape of a row is stable
 * (except `lines`, present only when lines=true was requested).
 */
import { z } from '@hono/zod-openapi';
import {
  CashStatus,
  DateOnly,
  DateTime,
  LedgerStatus,
  Money,
  PURCHASE_ORDER_STATUSES,
  alertFields,
} from './common.js';

const opt = <T extends z.ZodTypeAny>(t: T) => t.nullable().optional();

// ---------------------------------------------------------------------------
// Paging envelope
// ---------------------------------------------------------------------------

export const ListTotalsBucket = z
  .object({ count: z.number().int(), amount: Money })
  .openapi('ListTotalsBucket', { description: "count and amount; amount is '0' when empty." });
export type ListTotalsBucket = z.infer<typeof ListTotalsBucket>;

export const InvoiceBillTotals = z
  .object({
    byStatus: z
      .record(z.string(), ListTotalsBucket)
      .nullable()
      .optional()
      .openapi({
        description:
          'Status to bucket, every status key present and zero-filled, when the matched set is single-currency or empty. Null when mixedCurrency is true. Purchase orders use their own statuses.',
      }),
    grandTotal: ListTotalsBucket.optional().openapi({
      description:
        'Sum across the buckets. When mixedCurrency is true: count and amount of the rows in primaryCurrency only (amounts of different currencies are never added).',
    }),
    currency: z.string().optional().openapi({ description: 'Present when the set is non-empty and spans exactly one currency.' }),
    mixedCurrency: z.boolean().optional().openapi({ description: 'Present and true only when the set spans more than one currency.' }),
    primaryCurrency: z
      .string()
      .optional()
      .openapi({ description: 'Only with mixedCurrency true: the lexicographically first currency code (the currency of grandTotal).' }),
    byCurrency: z
      .record(z.string(), ListTotalsBucket)
      .optional()
      .openapi({ description: 'Only with mixedCurrency true: a bucket per currency, each in its own currency (amounts of different currencies are never added).' }),
    convertedTotal: z
      .object({
        currency: z.string(),
        count: z.number().int(),
        amount: Money,
        converted: z.literal(true),
        unconvertedCount: z.number().int().openapi({
          description: 'Foreign-currency documents of the set without a currency rate: they cannot be converted, so they are left out of amount and count (0 when every document was converted).',
        }),
      })
      .optional()
      .openapi({
        description:
          "Invoices and bills only, with mixedCurrency true: the whole set in the organisation's base currency, each document converted with its own currency rate (Xero's CurrencyRate, rounded to cents per document); labelled converted: it is not a figure of any one ledger document. count is the documents converted.",
      }),
  })
  .openapi('InvoiceBillTotals', {
    description:
      'Totals over the full filtered set (before sensitive-data gating; amounts are never masked), computed in the store with exact decimals. Variants: single-currency (byStatus, grandTotal, currency); multi-currency (mixedCurrency, primaryCurrency, byStatus null, grandTotal in primaryCurrency); empty (all-zero buckets, grandTotal count 0 and amount 0).',
  });
export type InvoiceBillTotals = z.infer<typeof InvoiceBillTotals>;

const pageFields = {
  nextCursor: z.string().nullable().openapi({
    description: 'Opaque base64url cursor for the next page; always present; null on the last page and on autoPaginate responses.',
  }),
  totalCount: z.number().int().openapi({ description: 'Rows matching the filters before sensitive-data gating.' }),
  redactedItemCount: z.number().int().openapi({
    description:
      'Rows withheld by sensitive-data gating in the stretch of the list this page covers (from the cursor to the last row returned, or to the end of the list on the last page). Summed over all pages, rows returned plus redactedItemCount equals totalCount. Always 0 with READ_SENSITIVE.',
  }),
  truncated: z.boolean().optional().openapi({
    description: 'Present and true only with autoPaginate=true when the matched set did not fit in 5,000 rows (the first 5,000 visible rows are returned).',
  }),
  totalsTruncated: z.boolean().optional().openapi({
    description: 'Present and true only when totals=true and the matched set exceeded 100,000 rows; totals is then omitted.',
  }),
  ...alertFields,
};

// ---------------------------------------------------------------------------
// Invoices and bills
// ---------------------------------------------------------------------------

export const InvoiceLine = z
  .object({
    id: z.string(),
    lineNumber: z.number().int(),
    accountCode: opt(z.string()),
    accountName: z.string().openapi({ description: "The line account's name; empty when the line has no known account." }),
    lineAmount: Money.openapi({ description: 'Ex-tax line amount after discount.' }),
    taxAmount: Money,
    quantity: opt(Money).openapi({ description: 'Null means unknown, not zero.' }),
    unitAmount: opt(Money).openapi({ description: 'Per-unit list price ex-tax, pre-discount. Null means unknown.' }),
    discountRate: opt(Money).openapi({ description: 'Fraction 0 to 1. Sales invoices only; always null on bills.' }),
    discountAmount: opt(Money).openapi({ description: 'Absolute discount; always null on bills.' }),
    lineSubtotal: opt(Money).openapi({
      description: 'quantity x unitAmount before discount (exact); null when either is null; always null on bills.',
    }),
    taxType: opt(z.string()),
    currency: z.string(),
    lineDescription: opt(z.string()),
  })
  .openapi('InvoiceLine');
export type InvoiceLine = z.infer<typeof InvoiceLine>;

export const Invoice = z
  .object({
    id: z.string(),
    externalId: opt(z.string()),
    invoiceNumber: opt(z.string()),
    reference: opt(z.string()),
    amount: Money.openapi({ description: 'The total, tax-inclusive (gross).' }),
    amountPaid: Money.openapi({ description: "Paid so far (Xero's AmountPaid), in the document's currency." }),
    amountCredited: Money.openapi({
      description: "Credited so far by credit notes, overpayments and prepayments allocated to it (Xero's AmountCredited), in the document's currency.",
    }),
    amountDue: Money.openapi({
      description: "Still owed (Xero's AmountDue): amount - amountPaid - amountCredited, in the document's currency; 0 once PAID. AR and AP totals elsewhere are sums of it.",
    }),
    currency: z.string(),
    expectedDate: DateTime.openapi({ description: 'Due date (the issue date when there is none), midnight UTC.' }),
    actualDate: opt(DateTime).openapi({ description: 'Paid date, when fully paid.' }),
    issueDate: opt(DateTime),
    status: CashStatus,
    ledgerStatus: LedgerStatus,
    contactId: opt(z.string()),
    contactName: opt(z.string()),
    category: opt(z.string()).openapi({
      description:
        "The account of the document's largest line (by absolute line amount; the first such line on a tie): its display name, `Sensitive account` for a sensitive account without READ_SENSITIVE; null without lines.",
    }),
    categorySlug: opt(z.string()).openapi({ description: 'The same account as a slug (lower-case letters, digits, hyphens; `sensitive-account` when redacted); null without lines.' }),
    lines: z.array(InvoiceLine).optional().openapi({ description: 'Present only when lines=true was requested.' }),
  })
  .openapi('Invoice');
export type Invoice = z.infer<typeof Invoice>;

export const InvoicesResponse = z
  .object({ invoices: z.array(Invoice), ...pageFields, totals: InvoiceBillTotals.optional() })
  .openapi('InvoicesResponse');
export type InvoicesResponse = z.infer<typeof InvoicesResponse>;

export const BillsResponse = z
  .object({ bills: z.array(Invoice), ...pageFields, totals: InvoiceBillTotals.optional() })
  .openapi('BillsResponse');
export type BillsResponse = z.infer<typeof BillsResponse>;

// ---------------------------------------------------------------------------
// Credit notes
// ---------------------------------------------------------------------------

export const CreditNote = z
  .object({
    id: z.string(),
    externalId: z.string(),
    creditNoteNumber: opt(z.string()),
    contactId: opt(z.string()),
    contactName: opt(z.string()),
    issueDate: DateTime,
    status: CashStatus,
    ledgerStatus: LedgerStatus,
    total: Money,
    remainingCredit: Money,
    allocatedAmount: Money,
    currency: z.string(),
  })
  .openapi('CreditNote', { description: 'A receivable credit note (ledger type ACCRECCREDIT).' });
export type CreditNote = z.infer<typeof CreditNote>;

export const CreditNoteAllocation = z
  .object({
    invoiceNumber: opt(z.string()),
    invoiceExternalId: opt(z.string()),
    amount: opt(Money),
    date: opt(DateTime),
  })
  .openapi('CreditNoteAllocation');

export const CreditNoteLine = z
  .object({
    description: opt(z.string()),
    quantity: opt(Money),
    unitAmount: opt(Money),
    lineAmount: opt(Money),
    itemCode: opt(z.string()),
    accountCode: opt(z.string()).openapi({ description: 'Null for a sensitive account without READ_SENSITIVE.' }),
  })
  .openapi('CreditNoteLine');

export const CreditNoteDrill = CreditNote.extend({
  reference: opt(z.string()),
  subTotal: Money,
  totalTax: Money,
  allocations: z.array(CreditNoteAllocation),
  lines: z.array(CreditNoteLine),
}).openapi('CreditNoteDrill');
export type CreditNoteDrill = z.infer<typeof CreditNoteDrill>;

export const CreditNotesResponse = z
  .object({ creditNotes: z.array(CreditNote), ...pageFields, totals: InvoiceBillTotals.optional() })
  .openapi('CreditNotesResponse');
export type CreditNotesResponse = z.infer<typeof CreditNotesResponse>;

export const CreditNoteDrillResponse = z
  .object({
    creditNote: CreditNoteDrill,
    redactedItemCount: z.number().int().openapi({ description: 'Lines whose sensitive account code was withheld. 0 with READ_SENSITIVE.' }),
    ...alertFields,
  })
  .openapi('CreditNoteDrillResponse');
export type CreditNoteDrillResponse = z.infer<typeof CreditNoteDrillResponse>;

// ---------------------------------------------------------------------------
// Purchase orders
// ---------------------------------------------------------------------------

export const PurchaseOrderStatus = z.enum(PURCHASE_ORDER_STATUSES);

export const PurchaseOrder = z
  .object({
    id: z.string(),
    externalId: z.string(),
    purchaseOrderNumber: z.string(),
    reference: z.string(),
    contactId: z.string().openapi({ description: 'Supplier contact id (empty when the ledger has none).' }),
    contactName: z.string(),
    status: PurchaseOrderStatus,
    issueDate: DateTime,
    deliveryDate: DateTime.nullable().openapi({ description: 'Null when the ledger has none.' }),
    expectedArrivalDate: DateTime.nullable().openapi({ description: 'Null when the ledger has none.' }),
    total: Money.openapi({ description: 'Gross, tax-inclusive.' }),
    currency: z.string(),
    suppressedReason: z.enum(['REFERENCE', 'CONTACT_AMOUNT']).nullable(),
  })
  .openapi('PurchaseOrder');
export type PurchaseOrder = z.infer<typeof PurchaseOrder>;

export const PurchaseOrderLine = z
  .object({
    description: opt(z.string()),
    quantity: opt(Money),
    unitAmount: opt(Money),
    lineAmount: opt(Money),
    itemCode: opt(z.string()),
    accountCode: opt(z.string()).openapi({ description: 'Null for a sensitive account without READ_SENSITIVE.' }),
  })
  .openapi('PurchaseOrderLine');

export const PurchaseOrderDrill = PurchaseOrder.extend({
  subTotal: Money,
  totalTax: Money,
  lines: z.array(PurchaseOrderLine),
}).openapi('PurchaseOrderDrill');
export type PurchaseOrderDrill = z.infer<typeof PurchaseOrderDrill>;

export const PurchaseOrdersResponse = z
  .object({ purchaseOrders: z.array(PurchaseOrder), ...pageFields, totals: InvoiceBillTotals.optional() })
  .openapi('PurchaseOrdersResponse');
export type PurchaseOrdersResponse = z.infer<typeof PurchaseOrdersResponse>;

export const PurchaseOrderDrillResponse = z
  .object({
    purchaseOrder: PurchaseOrderDrill,
    redactedItemCount: z.number().int().openapi({ description: 'Lines whose sensitive account code was withheld. 0 with READ_SENSITIVE.' }),
    ...alertFields,
  })
  .openapi('PurchaseOrderDrillResponse');
export type PurchaseOrderDrillResponse = z.infer<typeof PurchaseOrderDrillResponse>;

// ---------------------------------------------------------------------------
// Contacts
// ---------------------------------------------------------------------------

export const ContactSummary = z
  .object({
    id: z.string().openapi({ description: 'Ledger contact external id; same value as contactId on invoices and bills.' }),
    name: z.string(),
    isCustomer: z.boolean(),
    isSupplier: z.boolean(),
    isSensitive: z.boolean(),
    lastSyncedAt: DateTime,
    ltv: opt(Money).openapi({
      description: 'Historical cumulative gross-profit lifetime value from the nightly baseline. Null before the baseline has run or for non-customers.',
    }),
  })
  .openapi('ContactSummary');
export type ContactSummary = z.infer<typeof ContactSummary>;

export const ContactsTotals = z
  .object({
    byType: z
      .object({ customer: z.number().int(), supplier: z.number().int(), both: z.number().int(), neither: z.number().int() })
      .openapi({
        description: 'Partition of the matched contacts: customer only, supplier only, both, neither. Counts before sensitive-data gating.',
      }),
    grandTotal: z.object({ count: z.number().int() }).openapi({ description: 'Sum across byType; equals totalCount.' }),
  })
  .openapi('ContactsTotals');
export type ContactsTotals = z.infer<typeof ContactsTotals>;

export const ContactsListResponse = z
  .object({
    contacts: z.array(ContactSummary),
    ...pageFields,
    totals: ContactsTotals.optional(),
  })
  .openapi('ContactsListResponse');
export type ContactsListResponse = z.infer<typeof ContactsListResponse>;

/** lastInvoice / lastBill of the contact drill. */
export const ContactLastItem = z
  .object({
    id: z.string(),
    number: opt(z.string()),
    reference: opt(z.string()),
    amount: Money,
    amountDue: Money,
    currency: z.string(),
    issueDate: opt(DateTime),
    dueDate: opt(DateTime),
    paidDate: opt(DateTime),
    status: CashStatus,
    ledgerStatus: LedgerStatus,
  })
  .openapi('ContactLastItem', { description: 'The most recent (by issue date, then due date) invoice or bill that is not VOIDED or DELETED.' });
export type ContactLastItem = z.infer<typeof ContactLastItem>;

export const RecentPaidInvoice = z
  .object({
    id: z.string(),
    invoiceNumber: opt(z.string()),
    reference: opt(z.string()),
    amount: Money,
    currency: z.string(),
    issueDate: opt(DateTime),
    dueDate: opt(DateTime),
    paidDate: DateTime,
    daysLate: opt(z.number().int()).openapi({ description: 'Paid date minus due date in days (negative when early); null without a due date.' }),
    accountCode: opt(z.string()).openapi({ description: 'The main line account (largest line); null on a sensitive account without READ_SENSITIVE.' }),
    accountName: z.string().openapi({ description: "The main line account's name; `Sensitive account` when any line is on a sensitive account and the key lacks READ_SENSITIVE." }),
  })
  .openapi('RecentPaidInvoice');
export type RecentPaidInvoice = z.infer<typeof RecentPaidInvoice>;

export const Cadence = z.enum(['WEEKLY', 'FORTNIGHTLY', 'MONTHLY', 'QUARTERLY', 'ANNUAL', 'NONE']);

export const ContactDrill = z
  .object({
    id: z.string(),
    name: z.string(),
    isCustomer: z.boolean(),
    isSupplier: z.boolean(),
    isSensitive: z.boolean(),
    lastSyncedAt: DateTime,
    availableCredit: Money.openapi({
      description: "Sum of remainingCredit across the contact's AUTHORISED receivable credit notes in the organisation's base currency; '0' when none.",
    }),
    revenueTrailing12m: Money.openapi({ description: "Sum of ACTUAL (paid) receivable totals paid in the last 365 days, base currency; '0' when none." }),
    revenueAllTime: Money.openapi({ description: "Sum of every ACTUAL (paid) receivable total to date, base currency; '0' when none." }),
    projectedLtv: opt(Money),
    historicalLtv: opt(Money),
    grossMarginPercent: opt(z.number()),
    expectedLifetimeYears: z.number(),
    paymentDelayMedianDays: opt(Money),
    cadence: opt(Cadence),
    cadenceConfidence: opt(z.number().int()),
    abcClass: opt(z.enum(['A', 'B', 'C'])),
    lastInvoice: opt(ContactLastItem),
    lastBill: opt(ContactLastItem),
    recentPaidInvoices: z.array(RecentPaidInvoice).openapi({ description: 'Up to 50 most recent paid invoices (by paid date).' }),
  })
  .openapi('ContactDrill');
export type ContactDrill = z.infer<typeof ContactDrill>;

export const ContactDrillResponse = z
  .object({
    contact: ContactDrill,
    redactedItemCount: z.number().int().openapi({ description: 'recentPaidInvoices entries masked. 0 with READ_SENSITIVE.' }),
    ...alertFields,
  })
  .openapi('ContactDrillResponse');
export type ContactDrillResponse = z.infer<typeof ContactDrillResponse>;

// ---------------------------------------------------------------------------
// Bank accounts and account balances
// ---------------------------------------------------------------------------

export const BankAccount = z
  .object({
    id: z.string(),
    name: z.string().openapi({ description: '`Sensitive account` for a sensitive account without READ_SENSITIVE.' }),
    currency: z.string(),
    reconciledBalance: Money.openapi({ description: "The ledger's balance of reconciled transactions (BankSummary)." }),
    statementBalance: Money.openapi({
      description: "The bank statement's balance when a feed statement is known, else reconciled plus unreconciled bank transactions.",
    }),
    balanceSource: z.enum(['STATEMENT', 'RECONCILED']).openapi({
      description: 'Which balance the forecast uses: STATEMENT when a feed statement balance is known, else RECONCILED.',
    }),
    balanceSyncedAt: DateTime.optional(),
  })
  .openapi('BankAccount');
export type BankAccount = z.infer<typeof BankAccount>;

export const BankAccountsResponse = z
  .object({
    bankAccounts: z.array(BankAccount),
    redactedItemCount: z.number().int().openapi({ description: 'Accounts whose name was rewritten. 0 with READ_SENSITIVE.' }),
    ...alertFields,
  })
  .openapi('BankAccountsResponse');
export type BankAccountsResponse = z.infer<typeof BankAccountsResponse>;

export const AccountBalance = z
  .object({
    code: z.string().nullable(),
    name: z.string().openapi({ description: '`Sensitive account` for a sensitive account without READ_SENSITIVE.' }),
    type: z.string(),
    class: z.string(),
    balance: Money.openapi({
      description: 'Sum of journal lines dated up to asOfDate, in natural sign: debit-positive for ASSET, credit-positive for LIABILITY and EQUITY.',
    }),
  })
  .openapi('AccountBalance');
export type AccountBalance = z.infer<typeof AccountBalance>;

export const AccountBalancesResponse = z
  .object({
    asOfDate: DateOnly,
    currency: z.string(),
    accounts: z.array(AccountBalance).openapi({
      description: 'Balance-sheet accounts (ASSET, LIABILITY, EQUITY): every active one, and archived ones with a non-zero balance; ordered by code, then name.',
    }),
    redactedItemCount: z.number().int().openapi({ description: 'Accounts whose name was rewritten. 0 with READ_SENSITIVE.' }),
    ...alertFields,
  })
  .openapi('AccountBalancesResponse');
export type AccountBalancesResponse = z.infer<typeof AccountBalancesResponse>;
