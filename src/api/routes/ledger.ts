/**
 * The ledger lists and drills (spec 4.3, 4.6; decisions.md):
 * GET /api/agent/invoices, /bills, /credit-notes, /credit-notes/{id} (READ_INVOICES),
 * /purchase-orders, /purchase-orders/{id} (READ_PURCHASE_ORDERS).
 *
 * Lists share one shape: parameters parsed by src/domain/list-params.ts (a
 * malformed one is a 400 naming it), cursors signed and bound to the
 * organisation, the endpoint and the normalised filters (anything else is
 * 400 invalid_cursor), keyset pages from src/store/queries, and the paging
 * fields nextCursor / totalCount / redactedItemCount / truncated / totals /
 * totalsTruncated. docs/lists.md has the decisions.
 */
import type { Context } from 'hono';
import { type CursorPosition, decodeCursor, encodeCursor, filtersHash, InvalidCursorError } from '../../domain/cursor.js';
import {
  type IgnoredValue,
  itemFiltersForCursor,
  type ItemListParams,
  ParamError,
  type PagingParams,
  parseItemListParams,
  PURCHASE_ORDER_STATUS_VALUES,
  type RawQuery,
} from '../../domain/list-params.js';
import {
  BillsResponse,
  CreditNoteDrillResponse,
  CreditNotesResponse,
  InvoicesResponse,
  PurchaseOrderDrillResponse,
  PurchaseOrdersResponse,
} from '../../schemas/ledger.js';
import { ErrorResponse } from '../../schemas/common.js';
import { CreditNoteListQuery, IdParam, InvoiceListQuery, PurchaseOrderListQuery } from '../../schemas/params.js';
import { listItems } from '../../store/queries/cash-items.js';
import { getCreditNote, listCreditNotes } from '../../store/queries/credit-notes.js';
import { getPurchaseOrder, listPurchaseOrders } from '../../store/queries/purchase-orders.js';
import type { ApiApp, AppEnv } from '../context.js';
import { ApiError, notFound } from '../errors.js';
import { agentRoute, warn, withAlerts } from '../route.js';

// ---------------------------------------------------------------------------
// Shared by every list (contacts too)
// ---------------------------------------------------------------------------

/** Parses the query with a list-params parser; a ParamError becomes the 400 that names the parameter. */
export function parseQuery<T>(c: Context<AppEnv>, parse: (raw: RawQuery) => T): T {
  try {
    const out = parse(c.req.queries() as RawQuery);
    // Parsers that drop what they cannot use (unknown status values, a cursor beside autoPaginate) say so: reported as warnings.
    const ignored = (out as { ignored?: unknown } | null)?.ignored;
    if (Array.isArray(ignored)) warn(c, ignored as IgnoredValue[]);
    return out;
  } catch (err) {
    if (err instanceof ParamError) throw new ApiError(400, 'bad_request', err.message, { parameter: err.parameter });
    throw err;
  }
}

/** The request's organisation and what its key may see. */
export function listCaller(c: Context<AppEnv>): { orgId: string; gate: boolean } {
  const auth = c.get('auth');
  // The pipeline resolves the organisation before any handler of these routes runs.
  if (!auth.orgId) throw new ApiError(400, 'org_required', 'This endpoint needs an organisation.');
  return { orgId: auth.orgId, gate: !auth.canSeeSensitive };
}

export interface Paging {
  /** Where the page starts (null: the beginning; always null with autoPaginate). */
  after: CursorPosition | null;
  /** nextCursor for a result's `next` position (always null with autoPaginate). */
  nextCursor(next: CursorPosition | null): string | null;
}

/** Verifies the cursor against (organisation, endpoint, filters) and gives the encoder of the next one. */
export function paging(c: Context<AppEnv>, orgId: string, endpoint: string, filters: Record<string, unknown>, params: PagingParams): Paging {
  const secret = c.get('deps').cursorSecret;
  const ctx = { orgId, endpoint, filtersHash: filtersHash(filters) };
  let after: CursorPosition | null = null;
  if (params.cursor !== undefined) {
    try {
      after = decodeCursor(secret, ctx, params.cursor);
    } catch (err) {
      if (err instanceof InvalidCursorError) throw invalidCursor();
      throw err;
    }
  }
  return {
    after,
    nextCursor: (next) => (params.autoPaginate || !next ? null : encodeCursor(secret, ctx, next)),
  };
}

export const invalidCursor = () =>
  new ApiError(400, 'invalid_cursor', 'The cursor is not valid for this request: use the nextCursor of the same endpoint, organisation and filters.', {
    parameter: 'cursor',
  });

/** The paging fields of a list response (spec 2.4 InvoicesResponse, 2.5 ContactsListResponse). */
export function pageFields<T>(
  params: PagingParams,
  p: Paging,
  r: { next: CursorPosition | null; totalCount: number; redactedItemCount: number; totals?: T; totalsTruncated?: true },
): {
  nextCursor: string | null;
  totalCount: number;
  redactedItemCount: number;
  truncated?: true;
  totals?: T;
  totalsTruncated?: true;
} {
  return {
    nextCursor: p.nextCursor(r.next),
    totalCount: r.totalCount,
    redactedItemCount: r.redactedItemCount,
    // autoPaginate: more rows than the 5,000 returned (spec 4.3).
    ...(params.autoPaginate && r.next ? { truncated: true as const } : {}),
    ...(r.totals !== undefined ? { totals: r.totals } : {}),
    ...(r.totalsTruncated ? { totalsTruncated: true as const } : {}),
  };
}

/** A store-level InvalidCursorError (a signed cursor whose position does not fit) is still a 400 invalid_cursor. */
export async function cursorSafe<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (err) {
    if (err instanceof InvalidCursorError) throw invalidCursor();
    throw err;
  }
}

export const json = <T>(schema: T, description: string) => ({ description, content: { 'application/json': { schema } } });

export const notFoundResponse = {
  404: {
    description: 'No such id in this organisation (also for ids of other organisations, and for rows withheld from keys without READ_SENSITIVE).',
    content: { 'application/json': { schema: ErrorResponse } },
  },
} as const;

// ---------------------------------------------------------------------------
// Invoices and bills
// ---------------------------------------------------------------------------

const LIST_NOTES =
  'Order: issue date (else due date) descending, then id descending; keyset pages. nextCursor is null on the last page. ' +
  'Without READ_SENSITIVE, rows of sensitive contacts (and, with lines=true, rows with a line on a sensitive account) are withheld: ' +
  'a page still holds `limit` visible rows, and redactedItemCount counts the withheld rows of the stretch of the list the page covers, ' +
  'so over a full walk rows returned plus redactedItemCount equals totalCount. Totals and amounts are never masked.';

export const invoicesRoute = agentRoute('READ_INVOICES', {
  path: '/api/agent/invoices',
  summary: 'Receivable invoices',
  description: `Receivable invoices (ledger type ACCREC). Credit notes never appear here (see /credit-notes). ${LIST_NOTES}`,
  request: { query: InvoiceListQuery },
  responses: { 200: json(InvoicesResponse, 'A page of invoices') },
});

export const billsRoute = agentRoute('READ_INVOICES', {
  path: '/api/agent/bills',
  summary: 'Payable bills',
  description: `Payable bills (ledger type ACCPAY), with the invoices' parameters and semantics. On bill lines discountRate, discountAmount and lineSubtotal are always null. ${LIST_NOTES}`,
  request: { query: InvoiceListQuery },
  responses: { 200: json(BillsResponse, 'A page of bills') },
});

async function itemPage(c: Context<AppEnv>, kind: 'invoices' | 'bills') {
  const params: ItemListParams = parseQuery(c, (raw) => parseItemListParams(raw));
  const { orgId, gate } = listCaller(c);
  const p = paging(c, orgId, kind, itemFiltersForCursor(params.filters), params);
  const r = await cursorSafe(
    listItems(c.get('deps').store.db, {
      orgId,
      kind,
      filters: params.filters,
      after: p.after,
      limit: params.limit,
      lines: params.lines,
      gate,
      totals: params.totals,
    }),
  );
  return { items: r.items, fields: pageFields(params, p, r) };
}

// ---------------------------------------------------------------------------
// Credit notes and purchase orders
// ---------------------------------------------------------------------------

export const creditNotesRoute = agentRoute('READ_INVOICES', {
  path: '/api/agent/credit-notes',
  summary: 'Receivable credit notes',
  description: `Receivable credit notes (ledger type ACCRECCREDIT) with the invoices' parameters (status matches ledgerStatus; no lines parameter). ${LIST_NOTES}`,
  request: { query: CreditNoteListQuery },
  responses: { 200: json(CreditNotesResponse, 'A page of credit notes') },
});

export const creditNoteRoute = agentRoute('READ_INVOICES', {
  path: '/api/agent/credit-notes/{id}',
  summary: 'One credit note with allocations and lines',
  description:
    'A receivable credit note with the invoices it was allocated to and its lines. Without READ_SENSITIVE, a credit note of a sensitive contact is 404 (as in the list), and lines on sensitive accounts keep their amounts but lose their accountCode (counted in redactedItemCount).',
  request: { params: IdParam },
  responses: { 200: json(CreditNoteDrillResponse, 'The credit note'), ...notFoundResponse },
});

export const purchaseOrdersRoute = agentRoute('READ_PURCHASE_ORDERS', {
  path: '/api/agent/purchase-orders',
  summary: 'Purchase orders',
  description: `Purchase orders with the invoices' parameters; status matches the raw purchase-order status verbatim (DRAFT, SUBMITTED, AUTHORISED, BILLED, DELETED). Order: issue date (else delivery date) descending, then id descending. Without READ_SENSITIVE, orders of sensitive suppliers are withheld (redactedItemCount). Totals by purchase-order status.`,
  request: { query: PurchaseOrderListQuery },
  responses: { 200: json(PurchaseOrdersResponse, 'A page of purchase orders') },
});

export const purchaseOrderRoute = agentRoute('READ_PURCHASE_ORDERS', {
  path: '/api/agent/purchase-orders/{id}',
  summary: 'One purchase order with lines',
  description:
    'A purchase order with its lines. Without READ_SENSITIVE, an order of a sensitive supplier is 404 (as in the list), and lines on sensitive accounts lose their accountCode (redactedItemCount).',
  request: { params: IdParam },
  responses: { 200: json(PurchaseOrderDrillResponse, 'The purchase order'), ...notFoundResponse },
});

export function registerLedger(app: ApiApp): void {
  app.openapi(invoicesRoute, async (c) => {
    const { items, fields } = await itemPage(c, 'invoices');
    return c.json(withAlerts(c, { invoices: items, ...fields }), 200);
  });

  app.openapi(billsRoute, async (c) => {
    const { items, fields } = await itemPage(c, 'bills');
    return c.json(withAlerts(c, { bills: items, ...fields }), 200);
  });

  app.openapi(creditNotesRoute, async (c) => {
    const params = parseQuery(c, (raw) => parseItemListParams(raw));
    const { orgId, gate } = listCaller(c);
    const p = paging(c, orgId, 'credit-notes', itemFiltersForCursor(params.filters), params);
    const r = await cursorSafe(
      listCreditNotes(c.get('deps').store.db, {
        orgId,
        filters: params.filters,
        after: p.after,
        limit: params.limit,
        gate,
        totals: params.totals,
      }),
    );
    return c.json(withAlerts(c, { creditNotes: r.items, ...pageFields(params, p, r) }), 200);
  });

  app.openapi(creditNoteRoute, async (c) => {
    const { orgId, gate } = listCaller(c);
    const r = await getCreditNote(c.get('deps').store.db, { orgId, id: c.req.valid('param').id, gate });
    if (!r) throw notFound('credit note');
    return c.json(withAlerts(c, r), 200);
  });

  app.openapi(purchaseOrdersRoute, async (c) => {
    const params = parseQuery(c, (raw) => parseItemListParams(raw, PURCHASE_ORDER_STATUS_VALUES));
    const { orgId, gate } = listCaller(c);
    const p = paging(c, orgId, 'purchase-orders', itemFiltersForCursor(params.filters), params);
    const r = await cursorSafe(
      listPurchaseOrders(c.get('deps').store.db, {
        orgId,
        filters: params.filters,
        after: p.after,
        limit: params.limit,
        gate,
        totals: params.totals,
      }),
    );
    return c.json(withAlerts(c, { purchaseOrders: r.items, ...pageFields(params, p, r) }), 200);
  });

  app.openapi(purchaseOrderRoute, async (c) => {
    const { orgId, gate } = listCaller(c);
    const r = await getPurchaseOrder(c.get('deps').store.db, { orgId, id: c.req.valid('param').id, gate });
    if (!r) throw notFound('purchase order');
    return c.json(withAlerts(c, r), 200);
  });
}
