/** Purchase orders (GET /PurchaseOrders) with their lines. */
import type { MappedPurchaseOrder, PurchaseOrderLineRow, PurchaseOrderRow } from '../../store/rows.js';
import { XeroValidationError, parseWith } from '../xero/errors.js';
import { XeroPurchaseOrder } from '../xero/schemas.js';
import { decimalOf, optDecimalOf, textOf } from '../xero/fields.js';
import { contactStub, currencyOf, isAbsent, type MapContext, sortDateOf } from './shared.js';

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
