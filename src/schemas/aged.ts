/** Schemas of GET /api/agent/receivables/aged and /payables/aged (issue 19; docs/lists.md#aged). */
import { z } from '@hono/zod-openapi';
import { alertFields, DateOnly, Money } from './common.js';

const bandFields = {
  current: Money.openapi({ description: 'Not yet past due (due today or later).' }),
  days30: Money.openapi({ description: '1-30 days past due.' }),
  days60: Money.openapi({ description: '31-60 days past due.' }),
  days90: Money.openapi({ description: '61-90 days past due.' }),
  days90plus: Money.openapi({ description: 'Over 90 days past due.' }),
  overdue: Money.openapi({ description: 'days30 + days60 + days90 + days90plus.' }),
  total: Money.openapi({ description: 'current + overdue: everything still owed.' }),
};

export const AgedContact = z
  .object({
    contactId: z.string().nullable().openapi({ description: 'Ledger contact id (the contacts drill takes it); null for documents without a contact.' }),
    contactName: z.string().openapi({ description: '`Sensitive contact` for a sensitive contact without READ_SENSITIVE; `No contact` for documents without one.' }),
    ...bandFields,
    documents: z.number().int().openapi({ description: 'Open documents (invoices or bills) behind the balance.' }),
    oldestDueDate: DateOnly.nullable().openapi({ description: 'The earliest due date among them.' }),
  })
  .openapi('AgedContact', { description: "A contact's open balance by age." });

const agedFields = {
  asOfDate: DateOnly.openapi({ description: "Today in the organisation's time zone: the day the ages are counted to." }),
  currency: z.string().openapi({ description: 'The base currency of every amount (documents converted at their own rate).' }),
  nextCursor: z.string().nullable().openapi({ description: 'Opaque cursor for the next page; null on the last page and with autoPaginate=true.' }),
  totalCount: z.number().int().openapi({ description: 'Contacts with something open.' }),
  redactedItemCount: z.number().int().openapi({ description: 'Rows of this page whose contact name was rewritten. Amounts are never masked; always 0 with READ_SENSITIVE.' }),
  totals: z
    .object({ ...bandFields, documents: z.number().int().openapi({ description: 'Open documents behind the totals.' }) })
    .openapi({ description: "Over every contact (not the page). The receivables' totals are the daily summary's `ar` (the same bands, the same documents)." }),
  ...alertFields,
};

export const AgedReceivablesResponse = z
  .object({ contacts: z.array(AgedContact).openapi({ description: 'Customers by what they owe overdue, largest first (then by the whole balance, then by id).' }), ...agedFields })
  .openapi('AgedReceivablesResponse');

export const AgedPayablesResponse = z
  .object({ contacts: z.array(AgedContact).openapi({ description: 'Suppliers by what is owed to them overdue, largest first (then by the whole balance, then by id).' }), ...agedFields })
  .openapi('AgedPayablesResponse');
