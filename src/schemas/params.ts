/**
 * Query parameters of the list endpoints, for the OpenAPI document, the CLI's
 * flags and the MCP tools' inputs. Every parameter is declared as a string
 * (query strings are strings); the rules are enforced by
 * src/domain/list-params.ts, which is the single place that parses them, so
 * that "limit above the cap is capped" and "unknown status values are
 * ignored" hold exactly (a zod enum or max() would reject them instead).
 */
import { z } from '@hono/zod-openapi';
import {
  AUTO_PAGINATE_CAP,
  DEFAULT_PAGE_LIMIT,
  LEDGER_STATUS_VALUES,
  MAX_PAGE_LIMIT,
  PURCHASE_ORDER_STATUS_VALUES,
  TOTALS_CAP,
} from '../domain/list-params.js';

const bool = (name: string, description: string) =>
  z
    .string()
    .optional()
    .openapi({ param: { name, in: 'query' }, description: `${description} true or false (default false).`, example: 'true', enum: ['true', 'false'] });

const dateParam = (name: string, description: string) =>
  z
    .string()
    .optional()
    .openapi({ param: { name, in: 'query' }, description, format: 'date', example: '2026-01-31' });

const pagingParams = {
  cursor: z
    .string()
    .optional()
    .openapi({
      param: { name: 'cursor', in: 'query' },
      description:
        'Opaque value from a prior nextCursor. Signed and bound to the organisation, the endpoint and the filters of the request that produced it; any other use is 400 invalid_cursor. Ignored when autoPaginate=true.',
    }),
  limit: z
    .string()
    .optional()
    .openapi({
      param: { name: 'limit', in: 'query' },
      description: `Rows per page: default ${DEFAULT_PAGE_LIMIT}; values above ${MAX_PAGE_LIMIT} are capped at ${MAX_PAGE_LIMIT}; below 1 or not an integer is 400.`,
      example: '200',
    }),
  autoPaginate: bool(
    'autoPaginate',
    `Return the whole matched set in one response, hard-capped at ${AUTO_PAGINATE_CAP} rows (truncated true on overflow); cursor is ignored and nextCursor is null.`,
  ),
  totals: bool(
    'totals',
    `Add totals computed in the store over the full filtered set (not the page). Above ${TOTALS_CAP} matched rows totals is omitted and totalsTruncated is true.`,
  ),
};

const itemFilterParams = (statusVocabulary: readonly string[], statusNote: string) => ({
  // A string, or several when the parameter is repeated (status=PAID&status=DRAFT is status=PAID,DRAFT).
  status: z
    .union([z.string(), z.array(z.string())])
    .optional()
    .openapi({
      param: { name: 'status', in: 'query' },
      description: `Comma-separated statuses from ${statusVocabulary.join(', ')} (OR semantics; case-insensitive; the parameter may also be repeated). ${statusNote} Unknown values are ignored; when none is known there is no status filter.`,
      example: 'AUTHORISED,PAID',
    }),
  contactId: z
    .string()
    .optional()
    .openapi({ param: { name: 'contactId', in: 'query' }, description: 'Ledger contact external id.' }),
  dateFrom: dateParam('dateFrom', 'Inclusive lower bound (YYYY-MM-DD) on the issue date, falling back to the due date when the issue date is unknown.'),
  dateTo: dateParam('dateTo', 'Inclusive upper bound (YYYY-MM-DD) on the same date, expanded to the end of that day UTC.'),
  ...pagingParams,
});

/** /invoices and /bills. */
export const InvoiceListQuery = z.object({
  ...itemFilterParams(LEDGER_STATUS_VALUES, 'Matches ledgerStatus.'),
  lines: bool(
    'lines',
    'Include each item\'s lines. Without READ_SENSITIVE, items with a line on a sensitive account are then withheld (counted in redactedItemCount).',
  ),
});

/** /credit-notes. */
export const CreditNoteListQuery = z.object(itemFilterParams(LEDGER_STATUS_VALUES, 'Matches ledgerStatus.'));

/** /purchase-orders. */
export const PurchaseOrderListQuery = z.object(
  itemFilterParams(PURCHASE_ORDER_STATUS_VALUES, 'Matches the raw purchase-order status verbatim (no FORECAST/ACTUAL collapse).'),
);

/** /contacts. */
export const ContactListQuery = z.object({
  type: z
    .string()
    .optional()
    .openapi({
      param: { name: 'type', in: 'query' },
      description:
        'customer (isCustomer), supplier (isSupplier) or both (default): both means no type filter, every contact (customers, suppliers, contacts that are both, and contacts that are neither).',
      enum: ['customer', 'supplier', 'both'],
    }),
  sort: z
    .string()
    .optional()
    .openapi({
      param: { name: 'sort', in: 'query' },
      description:
        'recent_desc (default): lastSyncedAt descending, then id descending; this is also the paging order. revenue_desc (by ltv) and spend_desc (by all-time paid bills) re-sort the returned page in memory, nulls last (with autoPaginate, the whole set).',
      enum: ['recent_desc', 'revenue_desc', 'spend_desc'],
    }),
  ...pagingParams,
});

/** /account-balances. */
export const AccountBalancesQuery = z.object({
  date: dateParam('date', "Balances as at the end of this day (YYYY-MM-DD); default today in the organisation's time zone."),
});

/** Path parameter of the drills. */
export const IdParam = z.object({
  id: z
    .string()
    .min(1)
    .openapi({ param: { name: 'id', in: 'path' }, description: 'Ledger id (external GUID).' }),
});
