/**
 * Credits of a contact's: credit notes (GET /CreditNotes), overpayments and
 * prepayments (GET /Overpayments, /Prepayments), with their allocations.
 */
import type { z } from 'zod';
import type { CashItemRow, MappedCashItem } from '../../store/rows.js';
import { canonical, dec, sum } from '../../domain/money.js';
import { parseWith } from '../xero/errors.js';
import { XeroCreditNote, XeroOverpayment, XeroPrepayment } from '../xero/schemas.js';
import { decimalOf, optDecimalOf, textOf } from '../xero/fields.js';
import { mapEmbeddedPayments, mapLineItems } from './lines.js';
import { cashStatus, contactStub, currencyOf, type MapContext, SOURCE_OF_TYPE, sortDateOf } from './shared.js';

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
  return { item, ...creditParts(cn, id, cn.Type === 'ACCRECCREDIT' ? 'customer' : 'supplier', ctx) };
}

/** A credit's lines, its refunds (payments) and its allocations to invoices or bills, and its contact: the same for credit notes, overpayments and prepayments. */
function creditParts(
  c: z.infer<typeof XeroCreditNote> | z.infer<typeof XeroOverpayment> | z.infer<typeof XeroPrepayment>,
  id: string,
  role: 'customer' | 'supplier',
  ctx: MapContext,
): Omit<MappedCashItem, 'item'> {
  return {
    lines: mapLineItems(c.LineItems, id, c.Type, ctx),
    payments: mapEmbeddedPayments(c.Payments, id, c.Type, ctx),
    allocations:
      c.Allocations === undefined || c.Allocations === null
        ? null
        : c.Allocations.map((a, seq) => ({
            orgId: ctx.orgId,
            creditNoteId: id,
            seq,
            invoiceId: textOf(a.Invoice?.InvoiceID),
            invoiceNumber: textOf(a.Invoice?.InvoiceNumber),
            amount: decimalOf(a.Amount),
            date: a.Date ?? null,
          })),
    appliedCredits: [],
    contact: contactStub(c.Contact, role, ctx),
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
  return { item, ...creditParts(cp, id, receive ? 'customer' : 'supplier', ctx) };
}
