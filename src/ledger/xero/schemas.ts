/**
 * zod schemas of the parts of Xero Accounting API bodies that Cashline reads
 * (xero_accounting.yaml). Unknown fields are ignored (stripped); fields we
 * need that are missing or of the wrong JSON type fail with a message naming
 * the field. Numbers come out raw (XeroNumber: convert them with decimalOf),
 * dates as 'YYYY-MM-DD', timestamps as Dates; optional fields may be null or
 * undefined when absent (./fields.ts).
 */
import { z } from 'zod';
import {
  array,
  date,
  decimal,
  id,
  object,
  oneOf,
  optArray,
  optBool,
  optDate,
  optDecimal,
  optInt,
  optObject,
  optStr,
  optTimestamp,
  str,
} from './fields.js';

export const LEDGER_STATUSES = ['DRAFT', 'SUBMITTED', 'AUTHORISED', 'PAID', 'VOIDED', 'DELETED'] as const;
export const PURCHASE_ORDER_STATUSES = ['DRAFT', 'SUBMITTED', 'AUTHORISED', 'BILLED', 'DELETED'] as const;

/** A contact as embedded in invoices, credit notes, orders and transactions. */
export const XeroContactRef = object({
  ContactID: id,
  Name: optStr,
});

/** An account as embedded in payments ({AccountID, Code}) and transactions ({AccountID, Code, Name}). */
export const XeroAccountRef = object({
  AccountID: optStr,
  Code: optStr,
  Name: optStr,
});

export const XeroOrganisation = object({
  OrganisationID: id,
  Name: optStr,
  BaseCurrency: optStr,
  FinancialYearEndDay: optInt,
  FinancialYearEndMonth: optInt,
  Timezone: optStr,
});

export const XeroContact = object({
  ContactID: id,
  Name: str,
  EmailAddress: optStr,
  ContactStatus: optStr,
  IsCustomer: optBool,
  IsSupplier: optBool,
  DefaultCurrency: optStr,
  UpdatedDateUTC: optTimestamp,
});

export const XeroAccount = object({
  AccountID: id,
  Code: optStr,
  Name: str,
  Type: str,
  Class: optStr,
  Status: optStr,
  CurrencyCode: optStr,
  BankAccountType: optStr,
  /** DEBTORS, CREDITORS, GST, … on the accounts Xero keeps for itself (the control accounts among them). */
  SystemAccount: optStr,
  UpdatedDateUTC: optTimestamp,
});

export const XeroLineItem = object({
  LineItemID: optStr,
  Description: optStr,
  Quantity: optDecimal,
  UnitAmount: optDecimal,
  /** Absent only on description-only lines (no Quantity, no UnitAmount): read as 0. */
  LineAmount: optDecimal,
  TaxAmount: optDecimal,
  TaxType: optStr,
  AccountCode: optStr,
  ItemCode: optStr,
  /** A percentage: 50 is 50% off. */
  DiscountRate: optDecimal,
  DiscountAmount: optDecimal,
});

/** A payment as embedded in an invoice's or credit note's Payments. */
export const XeroEmbeddedPayment = object({
  PaymentID: id,
  Date: date,
  Amount: decimal,
  CurrencyRate: optDecimal,
  Reference: optStr,
  Status: optStr,
  PaymentType: optStr,
  IsReconciled: optBool,
  Account: optObject(XeroAccountRef),
  UpdatedDateUTC: optTimestamp,
});

/** A credit note as embedded in an invoice's CreditNotes: the credit applied to that invoice. */
export const XeroAppliedCreditNote = object({
  CreditNoteID: id,
  CreditNoteNumber: optStr,
  AppliedAmount: decimal,
  Date: optDate,
});

export const XeroInvoice = object({
  InvoiceID: id,
  Type: oneOf(['ACCREC', 'ACCPAY'] as const),
  InvoiceNumber: optStr,
  Reference: optStr,
  Contact: optObject(XeroContactRef),
  Status: oneOf(LEDGER_STATUSES),
  LineAmountTypes: optStr,
  Date: optDate,
  DueDate: optDate,
  FullyPaidOnDate: optDate,
  CurrencyCode: optStr,
  CurrencyRate: optDecimal,
  SubTotal: decimal,
  TotalTax: decimal,
  Total: decimal,
  AmountDue: optDecimal,
  AmountPaid: optDecimal,
  AmountCredited: optDecimal,
  UpdatedDateUTC: optTimestamp,
  LineItems: optArray(XeroLineItem),
  Payments: optArray(XeroEmbeddedPayment),
  CreditNotes: optArray(XeroAppliedCreditNote),
});

export const XeroAllocation = object({
  Amount: decimal,
  Date: optDate,
  Invoice: optObject(object({ InvoiceID: optStr, InvoiceNumber: optStr })),
});

export const XeroCreditNote = object({
  CreditNoteID: id,
  Type: oneOf(['ACCRECCREDIT', 'ACCPAYCREDIT'] as const),
  CreditNoteNumber: optStr,
  Reference: optStr,
  Contact: optObject(XeroContactRef),
  Status: oneOf(LEDGER_STATUSES),
  LineAmountTypes: optStr,
  Date: optDate,
  DueDate: optDate,
  FullyPaidOnDate: optDate,
  CurrencyCode: optStr,
  CurrencyRate: optDecimal,
  SubTotal: decimal,
  TotalTax: decimal,
  Total: decimal,
  RemainingCredit: decimal,
  UpdatedDateUTC: optTimestamp,
  LineItems: optArray(XeroLineItem),
  Allocations: optArray(XeroAllocation),
  Payments: optArray(XeroEmbeddedPayment),
});

/**
 * An overpayment or prepayment (GET /Overpayments, /Prepayments): money
 * received or paid before (or beyond) a document, held as a credit that
 * allocations apply to invoices and bills. RemainingCredit is what is left.
 */
const creditShape = {
  Contact: optObject(XeroContactRef),
  Reference: optStr,
  Status: oneOf(['AUTHORISED', 'PAID', 'VOIDED'] as const),
  LineAmountTypes: optStr,
  Date: optDate,
  CurrencyCode: optStr,
  CurrencyRate: optDecimal,
  SubTotal: decimal,
  TotalTax: decimal,
  Total: decimal,
  RemainingCredit: optDecimal,
  UpdatedDateUTC: optTimestamp,
  LineItems: optArray(XeroLineItem),
  Allocations: optArray(XeroAllocation),
  Payments: optArray(XeroEmbeddedPayment),
};

export const XeroOverpayment = object({
  OverpaymentID: id,
  Type: oneOf(['RECEIVE-OVERPAYMENT', 'SPEND-OVERPAYMENT'] as const),
  ...creditShape,
});

export const XeroPrepayment = object({
  PrepaymentID: id,
  Type: oneOf(['RECEIVE-PREPAYMENT', 'SPEND-PREPAYMENT'] as const),
  ...creditShape,
});

/** A repeating invoice or bill (GET /RepeatingInvoices): a schedule, not a document. */
export const XeroRepeatingInvoice = object({
  RepeatingInvoiceID: id,
  Type: oneOf(['ACCREC', 'ACCPAY'] as const),
  Reference: optStr,
  Contact: optObject(XeroContactRef),
  Status: oneOf(['DRAFT', 'AUTHORISED', 'DELETED'] as const),
  Schedule: object({
    Period: optInt,
    Unit: oneOf(['WEEKLY', 'MONTHLY'] as const),
    DueDate: optInt,
    DueDateType: optStr,
    StartDate: optDate,
    EndDate: optDate,
    NextScheduledDate: optDate,
  }),
  LineAmountTypes: optStr,
  LineItems: optArray(XeroLineItem),
  SubTotal: decimal,
  TotalTax: decimal,
  Total: decimal,
  CurrencyCode: optStr,
});

export const XeroPurchaseOrderLine = object({
  Description: optStr,
  Quantity: optDecimal,
  UnitAmount: optDecimal,
  LineAmount: optDecimal,
  TaxAmount: optDecimal,
  AccountCode: optStr,
  ItemCode: optStr,
});

export const XeroPurchaseOrder = object({
  PurchaseOrderID: id,
  PurchaseOrderNumber: optStr,
  Reference: optStr,
  Contact: optObject(XeroContactRef),
  Status: oneOf(PURCHASE_ORDER_STATUSES),
  CurrencyCode: optStr,
  Date: optDate,
  DeliveryDate: optDate,
  ExpectedArrivalDate: optDate,
  SubTotal: decimal,
  TotalTax: decimal,
  Total: decimal,
  UpdatedDateUTC: optTimestamp,
  LineItems: optArray(XeroPurchaseOrderLine),
});

export const XeroPayment = object({
  PaymentID: id,
  Date: date,
  Amount: decimal,
  CurrencyRate: optDecimal,
  PaymentType: optStr,
  Status: str,
  IsReconciled: optBool,
  Reference: optStr,
  Account: optObject(XeroAccountRef),
  Invoice: optObject(object({ InvoiceID: optStr })),
  CreditNote: optObject(object({ CreditNoteID: optStr })),
  /** Refunds of overpayments and prepayments name them. */
  Overpayment: optObject(object({ OverpaymentID: optStr })),
  Prepayment: optObject(object({ PrepaymentID: optStr })),
  UpdatedDateUTC: optTimestamp,
});

export const XeroBankTransactionLine = object({
  Description: optStr,
  Quantity: optDecimal,
  UnitAmount: optDecimal,
  LineAmount: optDecimal,
  TaxAmount: optDecimal,
  AccountCode: optStr,
});

export const XeroBankTransaction = object({
  BankTransactionID: id,
  Type: str,
  Contact: optObject(XeroContactRef),
  BankAccount: object({ AccountID: id, Code: optStr, Name: optStr }),
  Date: date,
  Status: str,
  IsReconciled: optBool,
  Reference: optStr,
  CurrencyCode: optStr,
  SubTotal: decimal,
  TotalTax: decimal,
  Total: decimal,
  UpdatedDateUTC: optTimestamp,
  LineItems: optArray(XeroBankTransactionLine),
});

export const XeroJournalLine = object({
  JournalLineID: id,
  AccountID: optStr,
  AccountCode: optStr,
  NetAmount: decimal,
  TaxAmount: optDecimal,
});

export const XeroJournal = object({
  JournalID: id,
  JournalDate: date,
  JournalNumber: optInt,
  SourceID: optStr,
  SourceType: optStr,
  JournalLines: optArray(XeroJournalLine),
});

export const XeroReportAttribute = object({ Id: optStr, Value: optStr });
export const XeroReportCell = object({
  Value: z.unknown(),
  Attributes: optArray(XeroReportAttribute),
});
export interface XeroReportRowT {
  RowType?: string | null | undefined;
  Title?: string | null | undefined;
  Cells?: Array<z.infer<typeof XeroReportCell>> | null | undefined;
  Rows?: XeroReportRowT[] | null | undefined;
}
export const XeroReportRow: z.ZodType<XeroReportRowT> = z.lazy(() =>
  object({
    RowType: optStr,
    Title: optStr,
    Cells: optArray(XeroReportCell),
    Rows: optArray(XeroReportRow),
  }),
);
export const XeroReport = object({
  ReportType: optStr,
  ReportName: optStr,
  UpdatedDateUTC: optTimestamp,
  Rows: optArray(XeroReportRow),
});
/** The Reports/BankSummary body. */
export const XeroBankSummary = object({
  Reports: array(XeroReport).min(1, 'expected at least one report'),
});

export type XeroLineItemT = z.infer<typeof XeroLineItem>;
export type XeroEmbeddedPaymentT = z.infer<typeof XeroEmbeddedPayment>;
