/** Payments (GET /Payments). */
import type { PaymentRow } from '../../store/rows.js';
import { parseWith } from '../xero/errors.js';
import { XeroPayment } from '../xero/schemas.js';
import { decimalOf, optDecimalOf, textOf } from '../xero/fields.js';
import type { MapContext } from './shared.js';

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
