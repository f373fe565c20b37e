/** Invoices and bills (GET /Invoices) with their lines, payments and applied credits. */
import type { CashItemRow, MappedCashItem } from '../../store/rows.js';
import { canonical, dec } from '../../domain/money.js';
import { parseWith } from '../xero/errors.js';
import { XeroInvoice } from '../xero/schemas.js';
import { decimalOf, optDecimalOf, textOf } from '../xero/fields.js';
import { mapEmbeddedPayments, mapLineItems } from './lines.js';
import { cashStatus, contactStub, currencyOf, type MapContext, SOURCE_OF_TYPE, sortDateOf } from './shared.js';

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
