/**
 * Schemas of GET /api/agent/collections (issue 18; docs/forecast.md#collections):
 * what to do about the lowest week of the BASE forecast.
 */
import { z } from '@hono/zod-openapi';
import { alertFields, DateOnly, Money } from './common.js';
import { intParam } from './query.js';

const COLLECTIONS_DEFAULT_LIMIT = 10;
const COLLECTIONS_MAX_LIMIT = 200;

export const CollectionsQuery = z.object({
  limit: intParam({
    name: 'limit',
    min: 1,
    cap: COLLECTIONS_MAX_LIMIT,
    default: COLLECTIONS_DEFAULT_LIMIT,
    description: `How many receivables and how many payables to return, the largest lift first: default ${COLLECTIONS_DEFAULT_LIMIT}; values above ${COLLECTIONS_MAX_LIMIT} are capped at ${COLLECTIONS_MAX_LIMIT}; below 1 or not an integer is 400.`,
    example: 5,
  }),
});

const documentFields = {
  documentId: z.string().openapi({ description: 'The invoice or bill (its id in /invoices and /bills).' }),
  number: z.string().nullable().openapi({ description: 'Its number; null when the ledger has none.' }),
  contactId: z.string().nullable().openapi({ description: 'The customer or supplier; null without one.' }),
  contactName: z.string().nullable().openapi({ description: '`Sensitive contact` for a sensitive contact without READ_SENSITIVE; null without a contact.' }),
  amountDue: Money.openapi({ description: "What is still owed, in the base currency, as the forecast counts it (a customer's unallocated credit already taken off)." }),
  dueDate: DateOnly.nullable().openapi({ description: 'Its due date; null without one.' }),
  daysOverdue: z.number().int().openapi({ description: "Days past its due date today (the organisation's time zone); 0 when not yet due." }),
};

export const CollectionReceivable = z
  .object({
    ...documentFields,
    predictedDate: DateOnly.nullable().openapi({
      description: 'When the forecast expects it paid: the expected day of the week by which half of it is expected; null when that is not within the 13 weeks.',
    }),
    probabilityAfterLowestWeek: z.number().min(0).max(1).openapi({ description: 'The chance it is still unpaid at the end of the lowest week (never paid included), from the customer\'s payment delays given it is unpaid today.' }),
    history: z.string().openapi({ description: "The customer's paying history in one line ('the customer pays a median 23 days late')." }),
    lift: Money.openapi({
      description:
        'How much the lowest closing cash of the BASE forecast rises if it is collected on its due date (today when overdue) instead of when the forecast expects it; 0 when that does not help the lowest week, negative when collecting it on a due date after the 13 weeks would take expected money out of them.',
    }),
  })
  .openapi('CollectionReceivable');

export const CollectionPayable = z
  .object({
    ...documentFields,
    predictedDate: DateOnly.openapi({ description: 'When the forecast expects it paid (its due date plus the business\'s usual delay).' }),
    lift: Money.openapi({ description: 'How much the lowest closing cash rises if it is paid on its due date instead (never after it).' }),
  })
  .openapi('CollectionPayable');

export const CollectionsResponse = z
  .object({
    computedAt: z.string().openapi({ description: 'When the forecast these figures come from was computed: the latest BASE snapshot (as GET /forecast), or this request before any.' }),
    asOfDate: DateOnly.openapi({ description: "Today in the organisation's time zone." }),
    currency: z.string().openapi({ description: 'The base currency of every amount.' }),
    lowestWeekIndex: z.number().int().openapi({ description: "The lowest week of the BASE forecast, 0-based (GET /forecast's minClosingCashWeekIndex)." }),
    minClosingCash: Money.openapi({ description: 'Its closing cash (GET /forecast\'s minClosingCash).' }),
    receivables: z.array(CollectionReceivable).openapi({ description: 'Open approved invoices, the largest lift first (then by id): chase the first ones first.' }),
    receivableCount: z.number().int().openapi({ description: 'Open approved invoices ranked (every one, not only those returned).' }),
    payables: z.array(CollectionPayable).openapi({
      description: 'Approved bills the forecast expects paid before their due week, which could wait until their due date: the largest lift first. Empty when the business pays on or after due dates.',
    }),
    payableCount: z.number().int().openapi({ description: 'Such bills (every one).' }),
    redactedItemCount: z.number().int().openapi({ description: 'Rows whose contact name was rewritten. Always 0 with READ_SENSITIVE.' }),
    ...alertFields,
  })
  .openapi('CollectionsResponse');
