/** Repeating invoices and bills (GET /RepeatingInvoices): schedules. */
import type { ContactRow, RepeatingInvoiceRow } from '../../store/rows.js';
import { XeroValidationError, parseWith } from '../xero/errors.js';
import { XeroRepeatingInvoice } from '../xero/schemas.js';
import { decimalOf, textOf } from '../xero/fields.js';
import { contactStub, currencyOf, type MapContext } from './shared.js';

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
