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
  .object({
    count: z.number().int().openapi({ description: 'Documents in the bucket.' }),
    amount: Money.openapi({ description: "Their total, in the set's currency; '0' when empty." }),
  })
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
        currency: z.string().openapi({ description: "The organisation's base currency, in which amount is given." }),
        count: z.number().int().openapi({ description: 'Documents converted and summed.' }),
        amount: Money.openapi({ description: 'Their total in the base currency, each converted with its own currency rate.' }),
        converted: z.literal(true).openapi({ description: 'Always true: a converted figure, not one of any ledger document.' }),
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
    id: z.string().openapi({ description: 'Line id.' }),
    lineNumber: z.number().int().openapi({ description: 'Position of the line on the document, from 1.' }),
    accountCode: opt(z.string()).openapi({ description: "The line account's code; null when unknown." }),
    accountName: z.string().openapi({ description: "The line account's name; empty when the line has no known account." }),
    lineAmount: Money.openapi({ description: 'Ex-tax line amount after discount.' }),
    taxAmount: Money.openapi({ description: 'Tax on the line.' }),
    quantity: opt(Money).openapi({ description: 'Null means unknown, not zero.' }),
    unitAmount: opt(Money).openapi({ description: 'Per-unit list price ex-tax, pre-discount. Null means unknown.' }),
    discountRate: opt(Money).openapi({ description: 'Fraction 0 to 1. Sales invoices only; always null on bills.' }),
    discountAmount: opt(Money).openapi({ description: 'Absolute discount; always null on bills.' }),
    lineSubtotal: opt(Money).openapi({
      description: 'quantity x unitAmount before discount (exact); null when either is null; always null on bills.',
    }),
    taxType: opt(z.string()).openapi({ description: "The ledger's tax type of the line (e.g. OUTPUT, INPUT, EXEMPTOUTPUT); null when unknown." }),
    currency: z.string().openapi({ description: '3-letter ISO currency code of the document.' }),
    lineDescription: opt(z.string()).openapi({ description: "The line's text; null when empty." }),
  })
  .openapi('InvoiceLine', { description: 'A line of an invoice or bill (present with lines=true).' });
export type InvoiceLine = z.infer<typeof InvoiceLine>;

export const Invoice = z
  .object({
    id: z.string().openapi({ description: "The service's id of the document." }),
    externalId: opt(z.string()).openapi({ description: 'Ledger invoice GUID (Xero InvoiceID).' }),
    invoiceNumber: opt(z.string()).openapi({ description: 'The document number (e.g. INV-0042); null when the ledger has none.' }),
    reference: opt(z.string()).openapi({ description: 'Free-form reference (a customer PO number, for example); null when empty.' }),
    amount: Money.openapi({ description: 'The total, tax-inclusive (gross).' }),
    amountPaid: Money.openapi({ description: "Paid so far (Xero's AmountPaid), in the document's currency." }),
    amountCredited: Money.openapi({
      description: "Credited so far by credit notes, overpayments and prepayments allocated to it (Xero's AmountCredited), in the document's currency.",
    }),
    amountDue: Money.openapi({
      description: "Still owed (Xero's AmountDue): amount - amountPaid - amountCredited, in the document's currency; 0 once PAID. AR and AP totals elsewhere are sums of it.",
    }),
    currency: z.string().openapi({ description: '3-letter ISO currency code of the document.' }),
    expectedDate: DateTime.openapi({ description: 'Due date (the issue date when there is none), midnight UTC.' }),
    actualDate: opt(DateTime).openapi({ description: 'Paid date, when fully paid.' }),
    issueDate: opt(DateTime).openapi({ description: 'Issue date, midnight UTC; null when the ledger has none.' }),
    status: CashStatus.openapi({ description: 'Internal cash-flow label, for diagnostics: FORECAST (still expected), ACTUAL (paid), CANCELLED (voided or deleted). Filter by ledgerStatus.' }),
    ledgerStatus: LedgerStatus.openapi({ description: 'The ledger status: DRAFT, SUBMITTED, AUTHORISED (approved, not fully paid), PAID, VOIDED or DELETED.' }),
    contactId: opt(z.string()).openapi({ description: 'Ledger contact id of the customer (invoices) or supplier (bills); the contacts drill takes it.' }),
    contactName: opt(z.string()).openapi({ description: "The contact's name." }),
    category: opt(z.string()).openapi({
      description:
        "The account of the document's largest line (by absolute line amount; the first such line on a tie): its display name, `Sensitive account` for a sensitive account without READ_SENSITIVE; null without lines.",
    }),
    categorySlug: opt(z.string()).openapi({ description: 'The same account as a slug (lower-case letters, digits, hyphens; `sensitive-account` when redacted); null without lines.' }),
    lines: z.array(InvoiceLine).optional().openapi({ description: 'Present only when lines=true was requested.' }),
  })
  .openapi('Invoice', { description: 'A receivable invoice (/invoices) or payable bill (/bills).' });
export type Invoice = z.infer<typeof Invoice>;

export const InvoicesResponse = z
  .object({ invoices: z.array(Invoice).openapi({ description: 'The page of invoices, newest issue date first (then id).' }), ...pageFields, totals: InvoiceBillTotals.optional() })
  .openapi('InvoicesResponse');
export type InvoicesResponse = z.infer<typeof InvoicesResponse>;

export const BillsResponse = z
  .object({ bills: z.array(Invoice).openapi({ description: 'The page of bills, newest issue date first (then id).' }), ...pageFields, totals: InvoiceBillTotals.optional() })
  .openapi('BillsResponse');
export type BillsResponse = z.infer<typeof BillsResponse>;

// ---------------------------------------------------------------------------
// Credit notes
// ---------------------------------------------------------------------------

export const CreditNote = z
  .object({
    id: z.string().openapi({ description: "The service's id of the credit note; the credit-note drill takes it." }),
    externalId: z.string().openapi({ description: 'Ledger credit note GUID.' }),
    creditNoteNumber: opt(z.string()).openapi({ description: 'The credit note number (e.g. CN-0007); null when the ledger has none.' }),
    contactId: opt(z.string()).openapi({ description: 'Ledger contact id of the customer.' }),
    contactName: opt(z.string()).openapi({ description: "The customer's name." }),
    issueDate: DateTime.openapi({ description: 'Issue date, midnight UTC.' }),
    status: CashStatus.openapi({ description: 'Internal cash-flow label, for diagnostics: same convention as invoices. Filter by ledgerStatus.' }),
    ledgerStatus: LedgerStatus.openapi({ description: 'The ledger status: DRAFT, SUBMITTED, AUTHORISED (approved, not fully paid), PAID, VOIDED or DELETED.' }),
    total: Money.openapi({ description: 'The credit note total, tax-inclusive.' }),
    remainingCredit: Money.openapi({ description: 'Unallocated credit still available to the customer.' }),
    allocatedAmount: Money.openapi({ description: 'total minus remainingCredit: credit already applied to invoices.' }),
    currency: z.string().openapi({ description: '3-letter ISO currency code of the document.' }),
  })
  .openapi('CreditNote', { description: 'A receivable credit note (ledger type ACCRECCREDIT).' });
export type CreditNote = z.infer<typeof CreditNote>;

export const CreditNoteAllocation = z
  .object({
    invoiceNumber: opt(z.string()).openapi({ description: 'Number of the invoice the credit was applied to.' }),
    invoiceExternalId: opt(z.string()).openapi({ description: 'Ledger GUID of that invoice.' }),
    amount: opt(Money).openapi({ description: 'Credit applied to it.' }),
    date: opt(DateTime).openapi({ description: 'When it was applied.' }),
  })
  .openapi('CreditNoteAllocation', { description: 'An invoice the credit note was applied to.' });

export const CreditNoteLine = z
  .object({
    description: opt(z.string()).openapi({ description: "The line's text." }),
    quantity: opt(Money).openapi({ description: 'Quantity; null means unknown.' }),
    unitAmount: opt(Money).openapi({ description: 'Per-unit price; null means unknown.' }),
    lineAmount: opt(Money).openapi({ description: 'The line amount.' }),
    itemCode: opt(z.string()).openapi({ description: "The ledger's item code, when the line names an item." }),
    accountCode: opt(z.string()).openapi({ description: 'Null for a sensitive account without READ_SENSITIVE.' }),
  })
  .openapi('CreditNoteLine', { description: 'A line of a credit note.' });

export const CreditNoteDrill = CreditNote.extend({
  reference: opt(z.string()).openapi({ description: 'Free-form reference; null when empty.' }),
  subTotal: Money.openapi({ description: 'Total before tax.' }),
  totalTax: Money.openapi({ description: 'Tax.' }),
  allocations: z.array(CreditNoteAllocation).openapi({ description: 'The invoices the credit was applied to.' }),
  lines: z.array(CreditNoteLine).openapi({ description: "The credit note's lines." }),
}).openapi('CreditNoteDrill', { description: 'A credit note with its lines and allocations.' });
export type CreditNoteDrill = z.infer<typeof CreditNoteDrill>;

export const CreditNotesResponse = z
  .object({ creditNotes: z.array(CreditNote).openapi({ description: 'The page of credit notes, newest first.' }), ...pageFields, totals: InvoiceBillTotals.optional() })
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
    id: z.string().openapi({ description: "The service's id of the purchase order; the purchase-order drill takes it." }),
    externalId: z.string().openapi({ description: 'Ledger purchase order GUID.' }),
    purchaseOrderNumber: z.string().openapi({ description: 'The order number (e.g. PO-0012).' }),
    reference: z.string().openapi({ description: 'Free-form reference (empty when none).' }),
    contactId: z.string().openapi({ description: 'Supplier contact id (empty when the ledger has none).' }),
    contactName: z.string().openapi({ description: "The supplier's name." }),
    status: PurchaseOrderStatus.openapi({ description: 'Raw ledger status (no FORECAST/ACTUAL collapse): DRAFT, SUBMITTED, AUTHORISED, BILLED, DELETED. The status filter matches it verbatim.' }),
    issueDate: DateTime.openapi({ description: 'Issue date, midnight UTC.' }),
    deliveryDate: DateTime.nullable().openapi({ description: 'Null when the ledger has none.' }),
    expectedArrivalDate: DateTime.nullable().openapi({ description: 'Null when the ledger has none.' }),
    total: Money.openapi({ description: 'Gross, tax-inclusive.' }),
    currency: z.string().openapi({ description: '3-letter ISO currency code of the document.' }),
    suppressedReason: z.enum(['REFERENCE', 'CONTACT_AMOUNT']).nullable().openapi({
      description:
        'REFERENCE or CONTACT_AMOUNT when the order has been matched to a supplier bill (by reference, or by supplier and amount) and is left out of the forecast to avoid counting it twice; null otherwise.',
    }),
  })
  .openapi('PurchaseOrder', { description: 'A purchase order to a supplier.' });
export type PurchaseOrder = z.infer<typeof PurchaseOrder>;

export const PurchaseOrderLine = z
  .object({
    description: opt(z.string()).openapi({ description: "The line's text." }),
    quantity: opt(Money).openapi({ description: 'Quantity ordered; null means unknown.' }),
    unitAmount: opt(Money).openapi({ description: 'Per-unit price; null means unknown.' }),
    lineAmount: opt(Money).openapi({ description: 'The line amount.' }),
    itemCode: opt(z.string()).openapi({ description: "The ledger's item code, when the line names an item." }),
    accountCode: opt(z.string()).openapi({ description: 'Null for a sensitive account without READ_SENSITIVE.' }),
  })
  .openapi('PurchaseOrderLine', { description: 'A line of a purchase order.' });

export const PurchaseOrderDrill = PurchaseOrder.extend({
  subTotal: Money.openapi({ description: 'Total before tax.' }),
  totalTax: Money.openapi({ description: 'Tax.' }),
  lines: z.array(PurchaseOrderLine).openapi({ description: "The order's lines." }),
}).openapi('PurchaseOrderDrill', { description: 'A purchase order with its lines.' });
export type PurchaseOrderDrill = z.infer<typeof PurchaseOrderDrill>;

export const PurchaseOrdersResponse = z
  .object({ purchaseOrders: z.array(PurchaseOrder).openapi({ description: 'The page of purchase orders, newest first.' }), ...pageFields, totals: InvoiceBillTotals.optional() })
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
    name: z.string().openapi({ description: "The contact's name." }),
    isCustomer: z.boolean().openapi({ description: 'The contact is a customer (has receivable invoices).' }),
    isSupplier: z.boolean().openapi({ description: 'The contact is a supplier (has payable bills).' }),
    isSensitive: z.boolean().openapi({ description: 'Flagged sensitive by the operator: hidden from keys without READ_SENSITIVE.' }),
    lastSyncedAt: DateTime.openapi({ description: 'When the contact was last updated from the ledger (the default sort of the list).' }),
    ltv: opt(Money).openapi({
      description: 'Historical cumulative gross-profit lifetime value from the nightly baseline. Null before the baseline has run or for non-customers.',
    }),
  })
  .openapi('ContactSummary', { description: 'A customer or supplier, as the contacts list shows it.' });
export type ContactSummary = z.infer<typeof ContactSummary>;

export const ContactsTotals = z
  .object({
    byType: z
      .object({
        customer: z.number().int().openapi({ description: 'Contacts that are customers only.' }),
        supplier: z.number().int().openapi({ description: 'Contacts that are suppliers only.' }),
        both: z.number().int().openapi({ description: 'Contacts that are customers and suppliers.' }),
        neither: z.number().int().openapi({ description: 'Contacts that are neither (no invoice or bill yet).' }),
      })
      .openapi({
        description: 'Partition of the matched contacts: customer only, supplier only, both, neither. Counts before sensitive-data gating.',
      }),
    grandTotal: z
      .object({ count: z.number().int().openapi({ description: 'Matched contacts.' }) })
      .openapi({ description: 'Sum across byType; equals totalCount.' }),
  })
  .openapi('ContactsTotals', { description: 'Counts of the matched contacts (totals=true): never amounts.' });
export type ContactsTotals = z.infer<typeof ContactsTotals>;

export const ContactsListResponse = z
  .object({
    contacts: z.array(ContactSummary).openapi({ description: 'The page of contacts, in the order of sort.' }),
    ...pageFields,
    totals: ContactsTotals.optional(),
  })
  .openapi('ContactsListResponse');
export type ContactsListResponse = z.infer<typeof ContactsListResponse>;

/** lastInvoice / lastBill of the contact drill. */
export const ContactLastItem = z
  .object({
    id: z.string().openapi({ description: "The service's id of the document." }),
    number: opt(z.string()).openapi({ description: 'The invoice or bill number; null when the ledger has none.' }),
    reference: opt(z.string()).openapi({ description: 'Free-form reference; null when empty.' }),
    amount: Money.openapi({ description: 'The total, tax-inclusive.' }),
    amountDue: Money.openapi({ description: 'Still owed on it; 0 once paid.' }),
    currency: z.string().openapi({ description: '3-letter ISO currency code of the document.' }),
    issueDate: opt(DateTime).openapi({ description: 'Issue date; null when unknown.' }),
    dueDate: opt(DateTime).openapi({ description: 'Due date; null when none.' }),
    paidDate: opt(DateTime).openapi({ description: 'When it was fully paid; null while unpaid.' }),
    status: CashStatus.openapi({ description: 'Internal cash-flow label, for diagnostics: FORECAST (still expected), ACTUAL (paid), CANCELLED (voided or deleted). Filter by ledgerStatus.' }),
    ledgerStatus: LedgerStatus.openapi({ description: 'The ledger status: DRAFT, SUBMITTED, AUTHORISED (approved, not fully paid), PAID, VOIDED or DELETED.' }),
  })
  .openapi('ContactLastItem', { description: 'The most recent (by issue date, then due date) invoice or bill that is not VOIDED or DELETED.' });
export type ContactLastItem = z.infer<typeof ContactLastItem>;

export const RecentPaidInvoice = z
  .object({
    id: z.string().openapi({ description: "The service's id of the invoice." }),
    invoiceNumber: opt(z.string()).openapi({ description: 'The invoice number; null when the ledger has none.' }),
    reference: opt(z.string()).openapi({ description: 'Free-form reference; null when empty.' }),
    amount: Money.openapi({ description: 'The invoice total, tax-inclusive.' }),
    currency: z.string().openapi({ description: '3-letter ISO currency code of the document.' }),
    issueDate: opt(DateTime).openapi({ description: 'Issue date; null when unknown.' }),
    dueDate: opt(DateTime).openapi({ description: 'Due date; null when none.' }),
    paidDate: DateTime.openapi({ description: 'When it was fully paid.' }),
    daysLate: opt(z.number().int()).openapi({ description: 'Paid date minus due date in days (negative when early); null without a due date.' }),
    accountCode: opt(z.string()).openapi({ description: 'The main line account (largest line); null on a sensitive account without READ_SENSITIVE.' }),
    accountName: z.string().openapi({ description: "The main line account's name; `Sensitive account` when any line is on a sensitive account and the key lacks READ_SENSITIVE." }),
  })
  .openapi('RecentPaidInvoice', { description: 'A paid invoice of the contact.' });
export type RecentPaidInvoice = z.infer<typeof RecentPaidInvoice>;

export const Cadence = z.enum(['WEEKLY', 'FORTNIGHTLY', 'MONTHLY', 'QUARTERLY', 'ANNUAL', 'NONE']);

export const ContactDrill = z
  .object({
    id: z.string().openapi({ description: 'Ledger contact external id; same value as contactId on invoices and bills.' }),
    name: z.string().openapi({ description: "The contact's name." }),
    isCustomer: z.boolean().openapi({ description: 'The contact is a customer (has receivable invoices).' }),
    isSupplier: z.boolean().openapi({ description: 'The contact is a supplier (has payable bills).' }),
    isSensitive: z.boolean().openapi({ description: 'Flagged sensitive by the operator: hidden from keys without READ_SENSITIVE.' }),
    lastSyncedAt: DateTime.openapi({ description: 'When the contact was last updated from the ledger.' }),
    availableCredit: Money.openapi({
      description: "Sum of remainingCredit across the contact's AUTHORISED receivable credit notes in the organisation's base currency; '0' when none.",
    }),
    revenueTrailing12m: Money.openapi({ description: "Sum of ACTUAL (paid) receivable totals paid in the last 365 days, base currency; '0' when none." }),
    revenueAllTime: Money.openapi({ description: "Sum of every ACTUAL (paid) receivable total to date, base currency; '0' when none." }),
    projectedLtv: opt(Money).openapi({
      description:
        "Projected lifetime value: annual run-rate (revenueTrailing12m) x gross margin x expectedLifetimeYears x churn-retention factor (Active 1.0, At-risk 0.5, Churned 0.0). Null when grossMarginPercent is null; '0' for a churned customer.",
    }),
    historicalLtv: opt(Money).openapi({ description: 'revenueAllTime x gross margin; null when grossMarginPercent is null.' }),
    grossMarginPercent: opt(z.number()).openapi({ description: 'Gross margin as a fraction in [0,1] (0.35 is 35%); null without a gross-profit override or enough cost history.' }),
    expectedLifetimeYears: z.number().openapi({ description: 'Median lifetime of engaged customers (cadence not NONE), in years, clamped to [1,5].' }),
    paymentDelayMedianDays: opt(Money).openapi({ description: 'Median days late on paid invoices (decimal string; negative when early); null without paid invoices.' }),
    cadence: opt(Cadence).openapi({ description: 'How regularly the customer buys: WEEKLY, FORTNIGHTLY, MONTHLY, QUARTERLY, ANNUAL or NONE; null before the nightly baseline.' }),
    cadenceConfidence: opt(z.number().int()).openapi({ description: 'Confidence in cadence, 0 to 100; null before the nightly baseline.' }),
    abcClass: opt(z.enum(['A', 'B', 'C'])).openapi({
      description: 'Customer tier by revenue (A: the top customers making about 80% of it, then B, then C); null for non-customers or before the nightly baseline.',
    }),
    lastInvoice: opt(ContactLastItem).openapi({ description: "The contact's most recent invoice; null when none." }),
    lastBill: opt(ContactLastItem).openapi({ description: "The contact's most recent bill; null when none." }),
    recentPaidInvoices: z.array(RecentPaidInvoice).openapi({ description: 'Up to 50 most recent paid invoices (by paid date).' }),
  })
  .openapi('ContactDrill', { description: 'One contact in depth: revenue, lifetime value, payment behaviour, ABC class, recent documents.' });
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
    id: z.string().openapi({ description: 'Ledger bank account id (Xero AccountID).' }),
    name: z.string().openapi({ description: 'The account name; `Sensitive account` for a sensitive account without READ_SENSITIVE.' }),
    currency: z.string().openapi({ description: '3-letter ISO currency code of the account.' }),
    reconciledBalance: Money.openapi({ description: "The ledger's balance of reconciled transactions (BankSummary)." }),
    statementBalance: Money.openapi({
      description: "The bank statement's balance when a feed statement is known, else reconciled plus unreconciled bank transactions.",
    }),
    balanceSource: z.enum(['STATEMENT', 'RECONCILED']).openapi({
      description: 'Which balance the forecast uses: STATEMENT when a feed statement balance is known, else RECONCILED.',
    }),
    balanceSyncedAt: DateTime.optional().openapi({ description: 'When the balances were last read from the ledger.' }),
  })
  .openapi('BankAccount', { description: 'An active bank account and its balances.' });
export type BankAccount = z.infer<typeof BankAccount>;

export const BankAccountsResponse = z
  .object({
    bankAccounts: z.array(BankAccount).openapi({ description: 'The active bank accounts.' }),
    redactedItemCount: z.number().int().openapi({ description: 'Accounts whose name was rewritten. 0 with READ_SENSITIVE.' }),
    ...alertFields,
  })
  .openapi('BankAccountsResponse');
export type BankAccountsResponse = z.infer<typeof BankAccountsResponse>;

export const AccountBalance = z
  .object({
    code: z.string().nullable().openapi({ description: "The account's code in the chart of accounts; null when it has none (bank accounts often)." }),
    name: z.string().openapi({ description: 'The account name; `Sensitive account` for a sensitive account without READ_SENSITIVE.' }),
    type: z.string().openapi({ description: "The ledger's account type (e.g. BANK, CURRENT, FIXED, CURRLIAB, TERMLIAB, EQUITY)." }),
    class: z.string().openapi({ description: 'ASSET, LIABILITY or EQUITY.' }),
    balance: Money.openapi({
      description:
        'The balance at the end of asOfDate, in natural sign (debit-positive for ASSET, credit-positive for LIABILITY and EQUITY). basis journals: the sum of the journal lines dated up to asOfDate. ' +
        "basis documents: a bank account's balance from the bank summary less the payments and bank transactions dated after asOfDate (the /bank-accounts statementBalance for today); " +
        'the receivables (or payables) control account: what the invoices (bills) issued by asOfDate still owed then, as /receivables/aged (/payables/aged) totals them for today, less the credit notes and overpayments not yet allocated.',
    }),
  })
  .openapi('AccountBalance', { description: 'A balance-sheet account and its balance as at asOfDate.' });
export type AccountBalance = z.infer<typeof AccountBalance>;

export const AccountBalancesResponse = z
  .object({
    asOfDate: DateOnly.openapi({ description: 'The balances are as at the end of this day (the date parameter, default today in the organisation\'s time zone).' }),
    currency: z.string().openapi({ description: "The organisation's base currency, in which every balance is given." }),
    accounts: z.array(AccountBalance).openapi({
      description:
        'Balance-sheet accounts (ASSET, LIABILITY, EQUITY), ordered by code, then name. basis journals: every active one, and archived ones with a non-zero balance. basis documents: only the accounts the documents determine (see basis).',
    }),
    redactedItemCount: z.number().int().openapi({ description: 'Accounts whose name was rewritten. 0 with READ_SENSITIVE.' }),
    basis: z.enum(['journals', 'documents']).openapi({
      description:
        "What the balances are computed from. journals: the sums of the ledger's journal lines (every balance-sheet account). " +
        "documents: the ledger's Journals are not available to Cashline (a scope not granted, or an endpoint Xero keeps for other apps), so only the accounts the documents determine are listed: " +
        'the bank accounts in the base currency from the bank summary and the bank movements, the receivables and payables control accounts from the open invoices and bills (and unallocated credits) as at the date, and the GST account from the documents\' tax and the bank payments coded to it; the rest are omitted, not zero.',
    }),
    note: z.string().optional().openapi({ description: 'With basis documents: which accounts are listed and why the others are not, in one sentence for a person. Absent with basis journals.' }),
    ...alertFields,
  })
  .openapi('AccountBalancesResponse');
export type AccountBalancesResponse = z.infer<typeof AccountBalancesResponse>;
