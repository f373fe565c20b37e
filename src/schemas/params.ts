/**
 * Query parameters of the list endpoints (spec 4.3, 4.4, 4.6; decisions.md):
 * the one parser of each list's query (src/schemas/query.ts has the rules
 * every parameter shares), from which the OpenAPI document, the CLI's flags
 * and the MCP tools' inputs are derived. The handler reads the typed result
 * with `c.req.valid('query')`: ItemListParams for the item lists, the
 * paging and contact filters for /contacts. What a list ignores (an unknown
 * status value, a cursor beside autoPaginate) is in `ignored`, which the
 * API returns as warnings.
 */
import { z } from '@hono/zod-openapi';
import {
  AUTO_PAGINATE_CAP,
  CONTACT_SORTS,
  CONTACT_TYPES,
  DEFAULT_PAGE_LIMIT,
  type ItemListParams,
  LEDGER_STATUS_VALUES,
  MAX_PAGE_LIMIT,
  type PagingParams,
  PURCHASE_ORDER_STATUS_VALUES,
  SEARCH_MAX_LENGTH,
  TOTALS_CAP,
} from '../domain/list-params.js';
import { boolParam, dateParam, enumParam, intParam, statusParam, textParam } from './query.js';

export const pagingShape = {
  cursor: textParam({
    name: 'cursor',
    description:
      'Opaque value from a prior nextCursor. Signed and bound to the organisation, the endpoint and the filters of the request that produced it; any other use is 400 invalid_cursor. Ignored when autoPaginate=true.',
  }),
  limit: intParam({
    name: 'limit',
    min: 1,
    cap: MAX_PAGE_LIMIT,
    default: DEFAULT_PAGE_LIMIT,
    description: `Rows per page: default ${DEFAULT_PAGE_LIMIT}; values above ${MAX_PAGE_LIMIT} are capped at ${MAX_PAGE_LIMIT}; below 1 or not an integer is 400.`,
    example: 200,
  }),
  autoPaginate: boolParam({
    name: 'autoPaginate',
    description: `Return the whole matched set in one response, hard-capped at ${AUTO_PAGINATE_CAP} rows (truncated true on overflow); cursor is ignored and nextCursor is null. true or false (default false).`,
    example: true,
  }),
  totals: boolParam({
    name: 'totals',
    description: `Add totals computed in the store over the full filtered set (not the page). Above ${TOTALS_CAP} matched rows totals is omitted and totalsTruncated is true. true or false (default false).`,
    example: true,
  }),
};

type PagingInput = { cursor?: string | undefined; limit: number; autoPaginate: boolean; totals: boolean };

/** autoPaginate returns the whole set: the cursor is ignored (and reported) and the page is the cap. */
export function pagingOf(q: PagingInput): PagingParams {
  return {
    ignored:
      q.autoPaginate && q.cursor !== undefined
        ? [{ parameter: 'cursor', value: q.cursor, message: 'ignored: autoPaginate returns the whole matched set in one answer' }]
        : [],
    autoPaginate: q.autoPaginate,
    limit: q.autoPaginate ? AUTO_PAGINATE_CAP : q.limit,
    totals: q.totals,
    cursor: q.autoPaginate ? undefined : q.cursor,
  };
}

/**
 * `q`, the search text of a list: trimmed, 1 to SEARCH_MAX_LENGTH characters
 * (empty or longer is a 400 naming q); runs of spaces inside count as one.
 */
const searchParam = (fields: string, example: string, sensitiveNote: string) =>
  textParam({
    name: 'q',
    nonEmpty: true,
    maxLength: SEARCH_MAX_LENGTH,
    description:
      `Search: keeps the rows whose ${fields} contains this text anywhere (a prefix or any substring), ignoring case and accents ('cafe zoe' finds 'Café Zoë'). ` +
      `Trimmed; 1 to ${SEARCH_MAX_LENGTH} characters (empty or longer is a 400). Combines with every other filter (AND); a cursor is bound to it. ` +
      sensitiveNote,
    example,
  });

/** The search text as the queries and cursors take it: runs of spaces as one. */
const searchText = (q: string | undefined) => q?.replace(/\s+/g, ' ');

/** Without READ_SENSITIVE, what the search of a document list does with sensitive contacts. */
const DOCUMENT_SEARCH_SENSITIVE =
  "Without READ_SENSITIVE a sensitive contact's name is not searched: a document of such a contact matches only by its own fields, and is then withheld (counted in redactedItemCount).";

const itemFilterShape = (statusVocabulary: readonly string[], statusNote: string, search: { fields: string; example: string }) => ({
  q: searchParam(search.fields, search.example, DOCUMENT_SEARCH_SENSITIVE),
  status: statusParam({
    name: 'status',
    values: statusVocabulary,
    description: `Comma-separated statuses from ${statusVocabulary.join(', ')} (OR semantics; case-insensitive; the parameter may also be repeated). ${statusNote} Unknown values are ignored; when none is known there is no status filter.`,
    example: 'AUTHORISED,PAID',
  }),
  contactId: textParam({ name: 'contactId', description: 'Ledger contact external id.' }),
  dateFrom: dateParam({ name: 'dateFrom', description: 'Inclusive lower bound (YYYY-MM-DD) on the issue date, falling back to the due date when the issue date is unknown.', example: '2026-01-31' }),
  dateTo: dateParam({ name: 'dateTo', description: 'Inclusive upper bound (YYYY-MM-DD) on the same date, expanded to the end of that day UTC.', example: '2026-01-31' }),
  ...pagingShape,
});

/** dateFrom after dateTo is a 400 naming dateFrom. */
const dateOrder = (q: { dateFrom?: string | undefined; dateTo?: string | undefined }, ctx: z.RefinementCtx) => {
  if (q.dateFrom && q.dateTo && q.dateFrom > q.dateTo) ctx.addIssue({ code: 'custom', path: ['dateFrom'], message: 'must not be after dateTo' });
};

type ItemInput = PagingInput & {
  q?: string | undefined;
  status: { statuses: string[]; ignored: ItemListParams['ignored'] };
  contactId?: string | undefined;
  dateFrom?: string | undefined;
  dateTo?: string | undefined;
  dueFrom?: string | undefined;
  dueTo?: string | undefined;
  overdue?: boolean;
  lines?: boolean;
};

function itemListOf(q: ItemInput): ItemListParams {
  const paging = pagingOf(q);
  return {
    ...paging,
    ignored: [...paging.ignored, ...q.status.ignored],
    lines: q.lines ?? false,
    filters: {
      statuses: q.status.statuses,
      contactId: q.contactId,
      dateFrom: q.dateFrom,
      dateTo: q.dateTo,
      dueFrom: q.dueFrom,
      dueTo: q.dueTo,
      q: searchText(q.q),
    },
    overdue: q.overdue ?? false,
  };
}

/** /invoices and /bills. */
export const InvoiceListQuery = z
  .object({
    ...itemFilterShape(LEDGER_STATUS_VALUES, 'Matches ledgerStatus.', { fields: 'number, reference or contact name', example: 'INV-00' }),
    dueFrom: dateParam({ name: 'dueFrom', description: 'Inclusive lower bound (YYYY-MM-DD) on the due date; items without a due date are left out.', example: '2026-12-01' }),
    dueTo: dateParam({ name: 'dueTo', description: 'Inclusive upper bound (YYYY-MM-DD) on the due date; items without a due date are left out.', example: '2026-12-31' }),
    overdue: boolParam({
      name: 'overdue',
      description:
        "Only what is overdue: AUTHORISED, still owed (amountDue above 0) and due before today in the organisation's time zone. Combines with the other filters (dueTo=<60 days ago> for more than 60 days overdue). true or false (default false).",
      example: true,
    }),
    lines: boolParam({
      name: 'lines',
      description:
        "Include each item's lines. Without READ_SENSITIVE, items with a line on a sensitive account are then withheld (counted in redactedItemCount). true or false (default false).",
      example: true,
    }),
  })
  .superRefine(dateOrder)
  .superRefine((q, ctx) => {
    if (q.dueFrom && q.dueTo && q.dueFrom > q.dueTo) ctx.addIssue({ code: 'custom', path: ['dueFrom'], message: 'must not be after dueTo' });
  })
  .transform(itemListOf);

/** /credit-notes. */
export const CreditNoteListQuery = z
  .object(itemFilterShape(LEDGER_STATUS_VALUES, 'Matches ledgerStatus.', { fields: 'credit-note number or contact name', example: 'CN-' }))
  .superRefine(dateOrder)
  .transform(itemListOf);

/** /purchase-orders. */
export const PurchaseOrderListQuery = z
  .object(
    itemFilterShape(PURCHASE_ORDER_STATUS_VALUES, 'Matches the raw purchase-order status verbatim (no FORECAST/ACTUAL collapse).', {
      fields: 'purchase-order number or contact (supplier) name',
      example: 'PO-00',
    }),
  )
  .superRefine(dateOrder)
  .transform(itemListOf);

/** /contacts. */
export const ContactListQuery = z
  .object({
    q: searchParam('name or email', 'acme', 'Without READ_SENSITIVE sensitive contacts never match (they are not counted either).'),
    type: enumParam({
      name: 'type',
      values: CONTACT_TYPES,
      default: 'both',
      description:
        'customer (isCustomer), supplier (isSupplier) or both (default): both means no type filter, every contact (customers, suppliers, contacts that are both, and contacts that are neither).',
    }),
    sort: enumParam({
      name: 'sort',
      values: CONTACT_SORTS,
      default: 'recent_desc',
      description:
        'recent_desc (default): lastSyncedAt descending, then id descending; this is also the paging order. revenue_desc (by ltv) and spend_desc (by all-time paid bills) sort the whole matched set, nulls last, ties by id.',
    }),
    ...pagingShape,
  })
  .transform((q) => ({ ...pagingOf(q), type: q.type, sort: q.sort, q: searchText(q.q) }));

/** /account-balances. */
export const AccountBalancesQuery = z.object({
  date: dateParam({ name: 'date', description: "Balances as at the end of this day (YYYY-MM-DD); default today in the organisation's time zone.", example: '2026-01-31' }),
});

/** Path parameter of the drills. */
export const IdParam = z.object({
  id: z
    .string()
    .min(1)
    .openapi({ param: { name: 'id', in: 'path' }, description: 'Ledger id (external GUID).' }),
});

/** /receivables/aged and /payables/aged: paging only. */
export const AgedQuery = z.object(pagingShape).transform(pagingOf);
