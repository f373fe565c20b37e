/**
 * What a document (invoice, bill, credit note, overpayment, prepayment)
 * carries: its line items and its embedded payments.
 */
import type { CashItemLineRow, EmbeddedPaymentRow } from '../../store/rows.js';
import { XeroValidationError } from '../xero/errors.js';
import type { XeroEmbeddedPaymentT, XeroLineItemT } from '../xero/schemas.js';
import { decimalOf, optDecimalOf, textOf } from '../xero/fields.js';
import { discountFraction, isAbsent, type MapContext, type SOURCE_OF_TYPE } from './shared.js';

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

export function mapLineItems(
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

export function mapEmbeddedPayments(
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
