/**
 * Xero Accounting API records -> rows of Cashline's store (pure functions).
 *
 * Each map function validates one Xero record (./xero/schemas.ts) and returns
 * insert rows of src/store/schema.ts for one organisation. A field we need
 * that is missing or of the wrong type throws a XeroValidationError naming
 * the field; unknown fields are ignored. `mapPage` maps a whole response body
 * (one page) into a LedgerBatch, which src/store/ledger-write.ts writes.
 *
 * The rows and their conventions are the store's (src/store/rows.ts). The
 * mapping table is in docs/import.md.
 */
import type { AccountRow, BankBalanceRow, BankTransactionRow, CashItemLineRow, CashItemRow, ContactRow, EmbeddedPaymentRow, JournalLineRow, LedgerBatch, MappedBankSummary, MappedBankTransaction, MappedCashItem, MappedPurchaseOrder, OrganisationUpdate, PaymentRow, PurchaseOrderLineRow, PurchaseOrderRow, RepeatingInvoiceRow } from '../store/rows.js';
import { canonical, dec, sum } from '../domain/money.js';
import { isValidFyEnd } from '../domain/calendar.js';
import { XeroValidationError, parseWith } from './xero/errors.js';
import {
  XeroAccount,
  XeroBankSummary,
  XeroBankTransaction,
  XeroContact,
  XeroCreditNote,
  XeroInvoice,
  XeroJournal,
  XeroOrganisation,
  XeroOverpayment,
  XeroPayment,
  XeroPrepayment,
  XeroPurchaseOrder,
  XeroRepeatingInvoice,
  type XeroEmbeddedPaymentT,
  type XeroLineItemT,
  type XeroReportRowT,
} from './xero/schemas.js';
import { decimalOf, optDecimalOf, reportAmount, textOf } from './xero/fields.js';
import { ianaFromXeroTimezone } from './xero/timezones.js';
import { jsonTypeOf } from './xero/json.js';

export interface MapContext {
  orgId: string;
  /** Stamped on every row as last_synced_at. */
  now: Date;
  /** Currency of records that name none (Xero omits it for the base currency); default 'AUD'. */
  baseCurrency?: string | undefined;
}

// ---------------------------------------------------------------------------
// Shared rules
// ---------------------------------------------------------------------------

export type CashStatus = 'FORECAST' | 'ACTUAL' | 'CANCELLED';

/** The internal cash-flow label of a ledger status. */
export function cashStatus(ledgerStatus: string): CashStatus {
  switch (ledgerStatus) {
    case 'PAID':
      return 'ACTUAL';
    case 'VOIDED':
    case 'DELETED':
      return 'CANCELLED';
    default:
      return 'FORECAST';
  }
}

export const SOURCE_OF_TYPE = {
  ACCREC: 'LEDGER_INVOICE',
  ACCPAY: 'LEDGER_BILL',
  ACCRECCREDIT: 'LEDGER_CREDIT_NOTE',
  ACCPAYCREDIT: 'LEDGER_CREDIT_NOTE',
  'RECEIVE-OVERPAYMENT': 'LEDGER_OVERPAYMENT',
  'SPEND-OVERPAYMENT': 'LEDGER_OVERPAYMENT',
  'RECEIVE-PREPAYMENT': 'LEDGER_PREPAYMENT',
  'SPEND-PREPAYMENT': 'LEDGER_PREPAYMENT',
} as const;

const PAYMENT_TYPE_OF = {
  ACCREC: 'ACCRECPAYMENT',
  ACCPAY: 'ACCPAYPAYMENT',
  ACCRECCREDIT: 'ARCREDITPAYMENT',
  ACCPAYCREDIT: 'APCREDITPAYMENT',
  'RECEIVE-OVERPAYMENT': 'AROVERPAYMENTPAYMENT',
  'SPEND-OVERPAYMENT': 'APOVERPAYMENTPAYMENT',
  'RECEIVE-PREPAYMENT': 'ARPREPAYMENTPAYMENT',
  'SPEND-PREPAYMENT': 'APPREPAYMENTPAYMENT',
} as const;

/** Xero's DiscountRate is a percentage (50 = 50% off); the store keeps the fraction (0.5). */
export function discountFraction(percent: string): string {
  return canonical(dec(percent).div(100));
}

function utcDay(d: Date): string {
  return d.toISOString().slice(0, 10);
}

/** sort_date: the first of the given dates, else the UTC day of the last update. */
function sortDateOf(fields: string, updated: Date | undefined, ...dates: Array<string | undefined>): string {
  for (const d of dates) if (d) return d;
  if (updated) return utcDay(updated);
  throw new XeroValidationError('Date', `required (the record has no ${fields} and no UpdatedDateUTC)`);
}

function currencyOf(code: string | null | undefined, ctx: MapContext): string {
  return (textOf(code) ?? ctx.baseCurrency ?? 'AUD').toUpperCase();
}

function contactStub(
  ref: { ContactID: string; Name?: string | null | undefined } | null | undefined,
  role: 'customer' | 'supplier' | null,
  ctx: MapContext,
): ContactRow | null {
  if (!ref || ref.Name === undefined || ref.Name === null) return null;
  return {
    orgId: ctx.orgId,
    id: ref.ContactID,
    name: ref.Name,
    isCustomer: role === 'customer',
    isSupplier: role === 'supplier',
    lastSyncedAt: ctx.now,
  };
}

const isAbsent = (v: unknown): v is null | undefined => v === null || v === undefined;

function mapLineItems(
  items: XeroLineItemT[] | null | undefined,
  itemId: string,
  ledgerType: keyof typeof SOURCE_OF_TYPE,
  ctx: MapContext,
): CashItemLineRow[] | null {
  if (!items || items.length === 0) return null;
  const sales = ledgerType === 'ACCREC';
  const out: CashItemLineRow[] = new Array(items.length);
  for (let i = 0; i < items.length; i++) {
    const li = items[i]!;
    if (isAbsent(li.LineAmount) && (!isAbsent(li.Quantity) || !isAbsent(li.UnitAmount))) {
      throw new XeroValidationError(`LineItems[${i}].LineAmount`, 'required');
    }
    const lineNumber = i + 1;
    out[i] = {
      orgId: ctx.orgId,
      itemId,
      lineNumber,
      id: textOf(li.LineItemID) ?? `${itemId}:${lineNumber}`,
      description: li.Description ?? null,
      quantity: optDecimalOf(li.Quantity),
      unitAmount: optDecimalOf(li.UnitAmount),
      // Absent only on a description-only line.
      lineAmount: optDecimalOf(li.LineAmount) ?? '0',
      taxAmount: optDecimalOf(li.TaxAmount) ?? '0',
      taxType: textOf(li.TaxType),
      accountCode: textOf(li.AccountCode),
      itemCode: textOf(li.ItemCode),
      // Discounts exist on sales invoices only (spec: always null on bills).
      discountRate: sales && !isAbsent(li.DiscountRate) ? discountFraction(decimalOf(li.DiscountRate)) : null,
      discountAmount: sales ? optDecimalOf(li.DiscountAmount) : null,
    };
  }
  return out;
}

function mapEmbeddedPayments(
  payments: XeroEmbeddedPaymentT[] | null | undefined,
  itemId: string,
  ledgerType: keyof typeof PAYMENT_TYPE_OF,
  ctx: MapContext,
): EmbeddedPaymentRow[] {
  return (payments ?? []).map((p) => ({
    orgId: ctx.orgId,
    id: p.PaymentID,
    itemId,
    bankAccountId: textOf(p.Account?.AccountID),
    date: p.Date,
    amount: decimalOf(p.Amount),
    currencyRate: optDecimalOf(p.CurrencyRate),
    paymentType: textOf(p.PaymentType) ?? PAYMENT_TYPE_OF[ledgerType],
    status: textOf(p.Status) ?? undefined,
    reference: p.Reference ?? null,
    isReconciled: p.IsReconciled ?? undefined,
    ledgerUpdatedAt: p.UpdatedDateUTC ?? null,
    lastSyncedAt: ctx.now,
  }));
}

// ---------------------------------------------------------------------------
// One record each
// ---------------------------------------------------------------------------

export function mapOrganisation(raw: unknown, ctx: MapContext): OrganisationUpdate {
  const o = parseWith(XeroOrganisation, raw);
  const out: OrganisationUpdate = { orgId: ctx.orgId, ledgerTenantId: o.OrganisationID, ledgerName: o.Name ?? undefined };
  const currency = textOf(o.BaseCurrency);
  if (currency !== null) {
    if (!/^[A-Za-z]{3}$/.test(currency)) {
      throw new XeroValidationError('BaseCurrency', `not a currency code: ${JSON.stringify(currency)}`);
    }
    out.baseCurrency = currency.toUpperCase();
  }
  const day = o.FinancialYearEndDay ?? undefined;
  const month = o.FinancialYearEndMonth ?? undefined;
  if ((day === undefined) !== (month === undefined)) {
    const missing = day === undefined ? 'FinancialYearEndDay' : 'FinancialYearEndMonth';
    throw new XeroValidationError(missing, 'required (the financial year end needs both day and month)');
  }
  if (day !== undefined && month !== undefined) {
    if (!isValidFyEnd(day, month)) {
      throw new XeroValidationError('FinancialYearEndDay', `${day}/${month} is not a day of the year`);
    }
    out.fyEndDay = day;
    out.fyEndMonth = month;
  }
  const tz = ianaFromXeroTimezone(o.Timezone);
  if (tz) out.timezone = tz;
  return out;
}

export function mapContact(raw: unknown, ctx: MapContext): ContactRow {
  const c = parseWith(XeroContact, raw);
  return {
    orgId: ctx.orgId,
    id: c.ContactID,
    name: c.Name,
    email: textOf(c.EmailAddress),
    contactStatus: textOf(c.ContactStatus) ?? undefined,
    isCustomer: c.IsCustomer ?? undefined,
    isSupplier: c.IsSupplier ?? undefined,
    defaultCurrency: textOf(c.DefaultCurrency)?.toUpperCase() ?? null,
    ledgerUpdatedAt: c.UpdatedDateUTC ?? null,
    lastSyncedAt: ctx.now,
  };
}

export function mapAccount(raw: unknown, ctx: MapContext): AccountRow {
  const a = parseWith(XeroAccount, raw);
  return {
    orgId: ctx.orgId,
    id: a.AccountID,
    code: textOf(a.Code),
    name: a.Name,
    type: a.Type,
    class: textOf(a.Class),
    status: textOf(a.Status) ?? undefined,
    currency: textOf(a.CurrencyCode)?.toUpperCase() ?? null,
    bankAccountType: textOf(a.BankAccountType),
    ledgerUpdatedAt: a.UpdatedDateUTC ?? null,
    lastSyncedAt: ctx.now,
  };
}

/** An invoice (ACCREC) or bill (ACCPAY) from GET /Invoices. */
export function mapInvoice(raw: unknown, ctx: MapContext): MappedCashItem {
  const inv = parseWith(XeroInvoice, raw);
  const id = inv.InvoiceID;
  const total = decimalOf(inv.Total);
  const amountPaid = optDecimalOf(inv.AmountPaid) ?? '0';
  const amountCredited = optDecimalOf(inv.AmountCredited) ?? '0';
  const amountDue = optDecimalOf(inv.AmountDue) ?? canonical(dec(total).minus(amountPaid).minus(amountCredited));
  const number = textOf(inv.InvoiceNumber);
  const item: CashItemRow = {
    orgId: ctx.orgId,
    id,
    source: SOURCE_OF_TYPE[inv.Type],
    ledgerType: inv.Type,
    number,
    reference: inv.Reference ?? null,
    contactId: inv.Contact?.ContactID ?? null,
    ledgerStatus: inv.Status,
    status: cashStatus(inv.Status),
    currency: currencyOf(inv.CurrencyCode, ctx),
    currencyRate: optDecimalOf(inv.CurrencyRate),
    lineAmountTypes: textOf(inv.LineAmountTypes),
    issueDate: inv.Date ?? null,
    dueDate: inv.DueDate ?? null,
    paidDate: inv.FullyPaidOnDate ?? null,
    sortDate: sortDateOf('Date or DueDate', inv.UpdatedDateUTC, inv.Date, inv.DueDate),
    subTotal: decimalOf(inv.SubTotal),
    totalTax: decimalOf(inv.TotalTax),
    total,
    amountDue,
    amountPaid,
    amountCredited,
    remainingCredit: null,
    ledgerUpdatedAt: inv.UpdatedDateUTC ?? null,
    lastSyncedAt: ctx.now,
  };
  return {
    item,
    lines: mapLineItems(inv.LineItems, id, inv.Type, ctx),
    payments: mapEmbeddedPayments(inv.Payments, id, inv.Type, ctx),
    allocations: null,
    appliedCredits: (inv.CreditNotes ?? []).map((cn) => ({
      orgId: ctx.orgId,
      creditNoteId: cn.CreditNoteID,
      invoiceId: id,
      invoiceNumber: number,
      amount: decimalOf(cn.AppliedAmount),
      date: cn.Date ?? null,
    })),
    contact: contactStub(inv.Contact, inv.Type === 'ACCREC' ? 'customer' : 'supplier', ctx),
  };
}

/** A credit note (ACCRECCREDIT or ACCPAYCREDIT) from GET /CreditNotes. */
export function mapCreditNote(raw: unknown, ctx: MapContext): MappedCashItem {
  const cn = parseWith(XeroCreditNote, raw);
  const id = cn.CreditNoteID;
  const total = decimalOf(cn.Total);
  const remaining = decimalOf(cn.RemainingCredit);
  // Cash refunds of the credit are its payments; the rest of the used credit was allocated to invoices.
  const refunded = canonical(sum((cn.Payments ?? []).map((p) => decimalOf(p.Amount))));
  const allocated = canonical(dec(total).minus(remaining).minus(refunded));
  const item: CashItemRow = {
    orgId: ctx.orgId,
    id,
    source: SOURCE_OF_TYPE[cn.Type],
    ledgerType: cn.Type,
    number: textOf(cn.CreditNoteNumber),
    reference: cn.Reference ?? null,
    contactId: cn.Contact?.ContactID ?? null,
    ledgerStatus: cn.Status,
    status: cashStatus(cn.Status),
    currency: currencyOf(cn.CurrencyCode, ctx),
    currencyRate: optDecimalOf(cn.CurrencyRate),
    lineAmountTypes: textOf(cn.LineAmountTypes),
    issueDate: cn.Date ?? null,
    dueDate: cn.DueDate ?? null,
    paidDate: cn.FullyPaidOnDate ?? null,
    sortDate: sortDateOf('Date or DueDate', cn.UpdatedDateUTC, cn.Date, cn.DueDate),
    subTotal: decimalOf(cn.SubTotal),
    totalTax: decimalOf(cn.TotalTax),
    total,
    amountDue: remaining,
    amountPaid: refunded,
    amountCredited: allocated,
    remainingCredit: remaining,
    ledgerUpdatedAt: cn.UpdatedDateUTC ?? null,
    lastSyncedAt: ctx.now,
  };
  return {
    item,
    lines: mapLineItems(cn.LineItems, id, cn.Type, ctx),
    payments: mapEmbeddedPayments(cn.Payments, id, cn.Type, ctx),
    allocations:
      cn.Allocations === undefined || cn.Allocations === null
        ? null
        : cn.Allocations.map((a, seq) => ({
            orgId: ctx.orgId,
            creditNoteId: id,
            seq,
            invoiceId: textOf(a.Invoice?.InvoiceID),
            invoiceNumber: textOf(a.Invoice?.InvoiceNumber),
            amount: decimalOf(a.Amount),
            date: a.Date ?? null,
          })),
    appliedCredits: [],
    contact: contactStub(cn.Contact, cn.Type === 'ACCRECCREDIT' ? 'customer' : 'supplier', ctx),
  };
}

/**
 * An overpayment or prepayment (GET /Overpayments, /Prepayments): a credit of
 * the contact's, stored like a credit note (its own source) so that what is
 * left of it (RemainingCredit, `amountDue`) reduces what the contact owes or
 * is owed (docs/import.md#credits). Allocations apply it to invoices and
 * bills; its Payments are refunds.
 */
export function mapPrepaidCredit(kind: 'Overpayments' | 'Prepayments', raw: unknown, ctx: MapContext): MappedCashItem {
  const cp = kind === 'Overpayments' ? parseWith(XeroOverpayment, raw) : parseWith(XeroPrepayment, raw);
  const id = 'OverpaymentID' in cp ? cp.OverpaymentID : cp.PrepaymentID;
  const total = decimalOf(cp.Total);
  const refunded = canonical(sum((cp.Payments ?? []).map((p) => decimalOf(p.Amount))));
  const allocatedSum = cp.Allocations ? canonical(sum(cp.Allocations.map((a) => decimalOf(a.Amount)))) : null;
  // Xero gives RemainingCredit; without it, the total less what was allocated and refunded.
  const remaining =
    optDecimalOf(cp.RemainingCredit) ?? (cp.Status === 'AUTHORISED' ? canonical(dec(total).minus(allocatedSum ?? '0').minus(refunded)) : '0');
  const allocated = canonical(dec(total).minus(remaining).minus(refunded));
  const receive = cp.Type.startsWith('RECEIVE');
  const item: CashItemRow = {
    orgId: ctx.orgId,
    id,
    source: SOURCE_OF_TYPE[cp.Type],
    ledgerType: cp.Type,
    number: null,
    reference: cp.Reference ?? null,
    contactId: cp.Contact?.ContactID ?? null,
    ledgerStatus: cp.Status,
    status: cashStatus(cp.Status),
    currency: currencyOf(cp.CurrencyCode, ctx),
    currencyRate: optDecimalOf(cp.CurrencyRate),
    lineAmountTypes: textOf(cp.LineAmountTypes),
    issueDate: cp.Date ?? null,
    dueDate: null,
    paidDate: null,
    sortDate: sortDateOf('Date', cp.UpdatedDateUTC, cp.Date),
    subTotal: decimalOf(cp.SubTotal),
    totalTax: decimalOf(cp.TotalTax),
    total,
    amountDue: remaining,
    amountPaid: refunded,
    amountCredited: allocated,
    remainingCredit: remaining,
    ledgerUpdatedAt: cp.UpdatedDateUTC ?? null,
    lastSyncedAt: ctx.now,
  };
  return {
    item,
    lines: mapLineItems(cp.LineItems, id, cp.Type, ctx),
    payments: mapEmbeddedPayments(cp.Payments, id, cp.Type, ctx),
    allocations:
      cp.Allocations === undefined || cp.Allocations === null
        ? null
        : cp.Allocations.map((a, seq) => ({
            orgId: ctx.orgId,
            creditNoteId: id,
            seq,
            invoiceId: textOf(a.Invoice?.InvoiceID),
            invoiceNumber: textOf(a.Invoice?.InvoiceNumber),
            amount: decimalOf(a.Amount),
            date: a.Date ?? null,
          })),
    appliedCredits: [],
    contact: contactStub(cp.Contact, receive ? 'customer' : 'supplier', ctx),
  };
}

/**
 * A repeating invoice or bill (GET /RepeatingInvoices): a schedule. Its
 * category is the account of its largest line, like a document's.
 */
export function mapRepeatingInvoice(raw: unknown, ctx: MapContext): { row: RepeatingInvoiceRow; contact: ContactRow | null } {
  const r = parseWith(XeroRepeatingInvoice, raw);
  const sch = r.Schedule;
  let largest: { code: string | null; amount: number } | null = null;
  for (const li of r.LineItems ?? []) {
    const amount = Math.abs(Number(li.LineAmount ?? 0));
    if (!largest || amount > largest.amount) largest = { code: textOf(li.AccountCode), amount };
  }
  const row: RepeatingInvoiceRow = {
    orgId: ctx.orgId,
    id: r.RepeatingInvoiceID,
    ledgerType: r.Type,
    contactId: r.Contact?.ContactID ?? null,
    status: r.Status,
    reference: textOf(r.Reference),
    period: sch.Period ?? 1,
    unit: sch.Unit,
    dueDay: sch.DueDate ?? 0,
    dueDateType: textOf(sch.DueDateType) ?? 'DAYSAFTERBILLDATE',
    startDate: sch.StartDate ?? null,
    endDate: sch.EndDate ?? null,
    nextScheduledDate: sch.NextScheduledDate ?? null,
    currency: currencyOf(r.CurrencyCode, ctx),
    lineAmountTypes: textOf(r.LineAmountTypes),
    subTotal: decimalOf(r.SubTotal),
    totalTax: decimalOf(r.TotalTax),
    total: decimalOf(r.Total),
    accountCode: largest?.code ?? null,
    lastSyncedAt: ctx.now,
  };
  if (row.period < 1) throw new XeroValidationError('Schedule.Period', `must be 1 or more, got ${row.period}`);
  return { row, contact: contactStub(r.Contact, r.Type === 'ACCREC' ? 'customer' : 'supplier', ctx) };
}

export function mapPurchaseOrder(raw: unknown, ctx: MapContext): MappedPurchaseOrder {
  const po = parseWith(XeroPurchaseOrder, raw);
  const id = po.PurchaseOrderID;
  const order: PurchaseOrderRow = {
    orgId: ctx.orgId,
    id,
    number: po.PurchaseOrderNumber ?? '',
    reference: po.Reference ?? '',
    contactId: po.Contact?.ContactID ?? null,
    status: po.Status,
    currency: currencyOf(po.CurrencyCode, ctx),
    issueDate: po.Date ?? null,
    deliveryDate: po.DeliveryDate ?? null,
    expectedArrivalDate: po.ExpectedArrivalDate ?? null,
    sortDate: sortDateOf(
      'Date, DeliveryDate or ExpectedArrivalDate',
      po.UpdatedDateUTC,
      po.Date,
      po.DeliveryDate,
      po.ExpectedArrivalDate,
    ),
    subTotal: decimalOf(po.SubTotal),
    totalTax: decimalOf(po.TotalTax),
    total: decimalOf(po.Total),
    ledgerUpdatedAt: po.UpdatedDateUTC ?? null,
    lastSyncedAt: ctx.now,
  };
  const lines =
    po.LineItems && po.LineItems.length > 0
      ? po.LineItems.map((li, i): PurchaseOrderLineRow => {
          if (isAbsent(li.LineAmount) && (!isAbsent(li.Quantity) || !isAbsent(li.UnitAmount))) {
            throw new XeroValidationError(`LineItems[${i}].LineAmount`, 'required');
          }
          return {
            orgId: ctx.orgId,
            purchaseOrderId: id,
            lineNumber: i + 1,
            description: li.Description ?? null,
            quantity: optDecimalOf(li.Quantity),
            unitAmount: optDecimalOf(li.UnitAmount),
            lineAmount: optDecimalOf(li.LineAmount) ?? '0',
            taxAmount: optDecimalOf(li.TaxAmount),
            accountCode: textOf(li.AccountCode),
            itemCode: textOf(li.ItemCode),
          };
        })
      : null;
  return { order, lines, contact: contactStub(po.Contact, 'supplier', ctx) };
}

/** A payment from GET /Payments: the fuller source of a payment (status, bank account, reconciliation). */
export function mapPayment(raw: unknown, ctx: MapContext): PaymentRow {
  const p = parseWith(XeroPayment, raw);
  return {
    orgId: ctx.orgId,
    id: p.PaymentID,
    itemId:
      textOf(p.Invoice?.InvoiceID) ??
      textOf(p.CreditNote?.CreditNoteID) ??
      textOf(p.Overpayment?.OverpaymentID) ??
      textOf(p.Prepayment?.PrepaymentID),
    bankAccountId: textOf(p.Account?.AccountID),
    date: p.Date,
    amount: decimalOf(p.Amount),
    currencyRate: optDecimalOf(p.CurrencyRate),
    paymentType: textOf(p.PaymentType),
    status: p.Status,
    reference: p.Reference ?? null,
    isReconciled: p.IsReconciled ?? undefined,
    ledgerUpdatedAt: p.UpdatedDateUTC ?? null,
    lastSyncedAt: ctx.now,
  };
}

export function mapBankTransaction(raw: unknown, ctx: MapContext): MappedBankTransaction {
  const t = parseWith(XeroBankTransaction, raw);
  const currency = currencyOf(t.CurrencyCode, ctx);
  const lines =
    t.LineItems && t.LineItems.length > 0
      ? t.LineItems.map((li) => ({
          description: li.Description ?? null,
          quantity: optDecimalOf(li.Quantity),
          unitAmount: optDecimalOf(li.UnitAmount),
          lineAmount: optDecimalOf(li.LineAmount),
          taxAmount: optDecimalOf(li.TaxAmount),
          accountCode: textOf(li.AccountCode),
        }))
      : undefined;
  const transaction: BankTransactionRow = {
    orgId: ctx.orgId,
    id: t.BankTransactionID,
    type: t.Type,
    contactId: t.Contact?.ContactID ?? null,
    bankAccountId: t.BankAccount.AccountID,
    date: t.Date,
    status: t.Status,
    isReconciled: t.IsReconciled ?? undefined,
    reference: t.Reference ?? null,
    currency,
    subTotal: decimalOf(t.SubTotal),
    totalTax: decimalOf(t.TotalTax),
    total: decimalOf(t.Total),
    lines,
    ledgerUpdatedAt: t.UpdatedDateUTC ?? null,
    lastSyncedAt: ctx.now,
  };
  const isReceive = t.Type.startsWith('RECEIVE');
  const bankName = t.BankAccount.Name;
  return {
    transaction,
    contact: contactStub(t.Contact, isReceive ? 'customer' : 'supplier', ctx),
    account:
      bankName !== undefined && bankName !== null && bankName !== ''
        ? {
            orgId: ctx.orgId,
            id: t.BankAccount.AccountID,
            code: textOf(t.BankAccount.Code),
            name: bankName,
            type: 'BANK',
            class: 'ASSET',
            currency,
            lastSyncedAt: ctx.now,
          }
        : null,
  };
}

/** A journal from GET /Journals: one row per journal line. */
export function mapJournal(raw: unknown, ctx: MapContext): JournalLineRow[] {
  const j = parseWith(XeroJournal, raw);
  return (j.JournalLines ?? []).map((l) => ({
    orgId: ctx.orgId,
    journalId: j.JournalID,
    id: l.JournalLineID,
    journalNumber: j.JournalNumber ?? null,
    journalDate: j.JournalDate,
    accountId: textOf(l.AccountID),
    accountCode: textOf(l.AccountCode),
    netAmount: decimalOf(l.NetAmount),
    taxAmount: optDecimalOf(l.TaxAmount) ?? '0',
    sourceType: textOf(j.SourceType),
    sourceId: textOf(j.SourceID),
  }));
}

const ACCOUNT_ATTRIBUTE_IDS = new Set(['accountid', 'account']);

/**
 * The Reports/BankSummary body: one balance per bank-account row. The row's
 * account id is in its cells' Attributes (Id accountID or account); the
 * closing balance (the column headed "Closing Balance", else the last cell)
 * is the ledger's reconciled balance. statement_balance is not known here.
 */
export function mapBankSummary(raw: unknown, ctx: MapContext): MappedBankSummary {
  const body = parseWith(XeroBankSummary, raw);
  const balances = new Map<string, BankBalanceRow>();
  const accounts = new Map<string, AccountRow>();
  body.Reports.forEach((report, r) => {
    // The ledger's own time of the report, never later than ours (a ledger clock ahead of ours is not a time in the future).
    const syncedAt = report.UpdatedDateUTC && report.UpdatedDateUTC < ctx.now ? report.UpdatedDateUTC : ctx.now;
    let closingColumn: number | undefined;
    const walk = (rows: XeroReportRowT[] | null | undefined, path: Array<string | number>) => {
      (rows ?? []).forEach((row, i) => {
        const here = [...path, 'Rows', i];
        const type = (row.RowType ?? '').toLowerCase();
        const cells = row.Cells ?? [];
        if (type === 'header') {
          const idx = cells.findIndex((c) => typeof c.Value === 'string' && c.Value.trim().toLowerCase() === 'closing balance');
          if (idx >= 0) closingColumn = idx;
        } else if (type === 'section') {
          walk(row.Rows, here);
        } else if (type === 'row') {
          let accountId: string | undefined;
          for (const cell of cells) {
            for (const attr of cell.Attributes ?? []) {
              if (attr.Id && ACCOUNT_ATTRIBUTE_IDS.has(attr.Id.toLowerCase()) && attr.Value) {
                accountId ??= attr.Value;
              }
            }
          }
          if (accountId === undefined) {
            throw new XeroValidationError(
              formatReportPath([...here, 'Cells']),
              'no account id (an attribute accountID) in the row',
            );
          }
          const col = closingColumn ?? cells.length - 1;
          const cellPath = [...here, 'Cells', col, 'Value'];
          if (col < 0 || col >= cells.length) throw new XeroValidationError(formatReportPath(cellPath), 'required');
          const amount = parseWith(reportAmount, cells[col]!.Value, cellPath);
          balances.set(accountId, {
            orgId: ctx.orgId,
            accountId,
            reconciledBalance: amount,
            statementBalance: null,
            balanceSyncedAt: syncedAt,
          });
          const name = cells[0]?.Value;
          if (typeof name === 'string' && name.trim() !== '' && jsonTypeOf(name) === 'string') {
            accounts.set(accountId, {
              orgId: ctx.orgId,
              id: accountId,
              name,
              type: 'BANK',
              class: 'ASSET',
              lastSyncedAt: ctx.now,
            });
          }
        }
      });
    };
    walk(report.Rows, ['Reports', r]);
  });
  return { balances: [...balances.values()], accounts: [...accounts.values()] };
}

function formatReportPath(path: Array<string | number>): string {
  let out = '';
  for (const seg of path) out += typeof seg === 'number' ? `[${seg}]` : out ? `.${seg}` : seg;
  return out;
}

// ---------------------------------------------------------------------------
// Whole bodies (pages)
// ---------------------------------------------------------------------------

export const RESOURCES = [
  'Organisation',
  'Contacts',
  'Accounts',
  'Invoices',
  'CreditNotes',
  'Overpayments',
  'Prepayments',
  'PurchaseOrders',
  'Payments',
  'BankTransactions',
  'BankSummary',
  'Journals',
  'RepeatingInvoices',
] as const;
export type Resource = (typeof RESOURCES)[number];

/** The array each body holds its records in, and the id field of a record. */
export const BODY_KEYS: Record<Resource, { array: string; id: string } | null> = {
  Organisation: { array: 'Organisations', id: 'OrganisationID' },
  Contacts: { array: 'Contacts', id: 'ContactID' },
  Accounts: { array: 'Accounts', id: 'AccountID' },
  Invoices: { array: 'Invoices', id: 'InvoiceID' },
  CreditNotes: { array: 'CreditNotes', id: 'CreditNoteID' },
  Overpayments: { array: 'Overpayments', id: 'OverpaymentID' },
  Prepayments: { array: 'Prepayments', id: 'PrepaymentID' },
  RepeatingInvoices: { array: 'RepeatingInvoices', id: 'RepeatingInvoiceID' },
  PurchaseOrders: { array: 'PurchaseOrders', id: 'PurchaseOrderID' },
  Payments: { array: 'Payments', id: 'PaymentID' },
  BankTransactions: { array: 'BankTransactions', id: 'BankTransactionID' },
  BankSummary: null, // a report: the body is the record
  Journals: { array: 'Journals', id: 'JournalID' },
};

export function emptyBatch(): LedgerBatch {
  return {
    organisation: null,
    contacts: [],
    accounts: [],
    cashItems: [],
    repeatingInvoices: null,
    repeatingContacts: [],
    purchaseOrders: [],
    payments: [],
    bankTransactions: [],
    bankSummary: { balances: [], accounts: [] },
    journalLines: [],
  };
}

/** A validation error located in a body: which record (index and Xero id) and which field. */
export class XeroRecordError extends Error {
  constructor(
    /** Index of the record in the body's array; null for the body itself. */
    readonly recordIndex: number | null,
    /** 'InvoiceID 8f…' when the record has an id. */
    readonly recordId: string | null,
    readonly field: string,
    readonly problem: string,
  ) {
    const where = recordIndex === null ? '' : `record ${recordIndex}${recordId ? ` (${recordId})` : ''}: `;
    super(`${where}${field ? `${field}: ` : ''}${problem}`);
    this.name = 'XeroRecordError';
  }
}

/** The records of a body, or a XeroRecordError when the body does not hold them. */
export function recordsOf(resource: Resource, body: unknown): unknown[] {
  const keys = BODY_KEYS[resource];
  if (!keys) return [body];
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new XeroRecordError(null, null, '', `expected a response body object with "${keys.array}", got ${jsonTypeOf(body)}`);
  }
  const arr = (body as Record<string, unknown>)[keys.array];
  if (arr === undefined || arr === null) {
    throw new XeroRecordError(null, null, keys.array, 'required (the body holds no such array)');
  }
  if (!Array.isArray(arr)) throw new XeroRecordError(null, null, keys.array, `expected an array, got ${jsonTypeOf(arr)}`);
  return arr;
}

function recordLabel(resource: Resource, record: unknown): string | null {
  const keys = BODY_KEYS[resource];
  if (!keys || typeof record !== 'object' || record === null) return null;
  const v = (record as Record<string, unknown>)[keys.id];
  return typeof v === 'string' && v !== '' && jsonTypeOf(v) === 'string' ? `${keys.id} ${v}` : null;
}

/**
 * Maps one response body (one page) of `resource` into `batch` (a new one by
 * default). Throws XeroRecordError naming the record and field at fault.
 */
export function mapPage(resource: Resource, body: unknown, ctx: MapContext, batch: LedgerBatch = emptyBatch()): LedgerBatch {
  const records = recordsOf(resource, body);
  // A body of repeating invoices is the whole list, even an empty one.
  if (resource === 'RepeatingInvoices') batch.repeatingInvoices ??= [];
  records.forEach((record, i) => {
    try {
      mapRecordInto(resource, record, ctx, batch);
    } catch (err) {
      if (err instanceof XeroValidationError) {
        const index = BODY_KEYS[resource] ? i : null;
        throw new XeroRecordError(index, recordLabel(resource, record), err.field, err.problem);
      }
      throw err;
    }
  });
  return batch;
}

function mapRecordInto(resource: Resource, record: unknown, ctx: MapContext, batch: LedgerBatch): void {
  switch (resource) {
    case 'Organisation': {
      // The first organisation is the tenant's own (GET /Organisation returns one).
      if (!batch.organisation) batch.organisation = mapOrganisation(record, ctx);
      return;
    }
    case 'Contacts':
      batch.contacts.push(mapContact(record, ctx));
      return;
    case 'Accounts':
      batch.accounts.push(mapAccount(record, ctx));
      return;
    case 'Invoices':
      batch.cashItems.push(mapInvoice(record, ctx));
      return;
    case 'CreditNotes':
      batch.cashItems.push(mapCreditNote(record, ctx));
      return;
    case 'Overpayments':
    case 'Prepayments':
      batch.cashItems.push(mapPrepaidCredit(resource, record, ctx));
      return;
    case 'RepeatingInvoices': {
      const m = mapRepeatingInvoice(record, ctx);
      (batch.repeatingInvoices ??= []).push(m.row);
      if (m.contact) batch.repeatingContacts.push(m.contact);
      return;
    }
    case 'PurchaseOrders':
      batch.purchaseOrders.push(mapPurchaseOrder(record, ctx));
      return;
    case 'Payments':
      batch.payments.push(mapPayment(record, ctx));
      return;
    case 'BankTransactions':
      batch.bankTransactions.push(mapBankTransaction(record, ctx));
      return;
    case 'BankSummary': {
      const m = mapBankSummary(record, ctx);
      batch.bankSummary.balances.push(...m.balances);
      batch.bankSummary.accounts.push(...m.accounts);
      return;
    }
    case 'Journals':
      for (const row of mapJournal(record, ctx)) batch.journalLines.push(row);
      return;
  }
}
