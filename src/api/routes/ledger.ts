/**
 * The ledger lists and drills (spec 4.3, 4.6; decisions.md):
 * GET /api/agent/invoices, /bills, /credit-notes, /credit-notes/{id} (READ_INVOICES),
 * /purchase-orders, /purchase-orders/{id} (READ_PURCHASE_ORDERS).
 *
 * Lists share one shape (src/api/lists.ts): parameters parsed by their
 * query schemas (src/schemas/params.ts; a malformed one is a 400 naming it), signed
 * cursors, keyset pages from src/store/queries, and the paging fields.
 * docs/lists.md has the decisions.
 */
import { dateIn } from '../../domain/calendar.js';
import type { Context } from 'hono';
import { itemFiltersForCursor, type ItemListParams } from '../../domain/list-params.js';
import {
  BillsResponse,
  CreditNoteDrillResponse,
  CreditNotesResponse,
  InvoicesResponse,
  PurchaseOrderDrillResponse,
  PurchaseOrdersResponse,
} from '../../schemas/ledger.js';
import { CreditNoteListQuery, IdParam, InvoiceListQuery, PurchaseOrderListQuery } from '../../schemas/params.js';
import { listItems } from '../../store/queries/cash-items.js';
import { getCreditNote, listCreditNotes } from '../../store/queries/credit-notes.js';
import { getPurchaseOrder, listPurchaseOrders } from '../../store/queries/purchase-orders.js';
import type { ApiApp, AppEnv } from '../context.js';
import { notFound } from '../errors.js';
import { agentRoute, withAlerts } from '../route.js';
import { callerOrg, json, listCaller, listPage, notFoundResponse } from '../lists.js';

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

function itemPage(c: Context<AppEnv>, kind: 'invoices' | 'bills', q: ItemListParams) {
  // overdue=true: due before the organisation's today (a cursor is bound to that day).
  const filters = q.overdue ? { ...q.filters, overdueOn: dateIn(callerOrg(c).timezone, c.get('deps').clock.now()) } : q.filters;
  return listPage(c, kind, itemFiltersForCursor(filters), q, (w) => listItems(c.get('db'), { ...w, kind, filters, lines: q.lines }));
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

export function registerLedger(app: ApiApp) {
  return app
    .openapi(invoicesRoute, async (c) => {
      const { r, fields } = await itemPage(c, 'invoices', c.req.valid('query'));
      return c.json(withAlerts(c, { invoices: r.items, ...fields }), 200);
    })
    .openapi(billsRoute, async (c) => {
      const { r, fields } = await itemPage(c, 'bills', c.req.valid('query'));
      return c.json(withAlerts(c, { bills: r.items, ...fields }), 200);
    })
    .openapi(creditNotesRoute, async (c) => {
      const q = c.req.valid('query');
      const { r, fields } = await listPage(c, 'credit-notes', itemFiltersForCursor(q.filters), q, (w) => listCreditNotes(c.get('db'), { ...w, filters: q.filters }));
      return c.json(withAlerts(c, { creditNotes: r.items, ...fields }), 200);
    })
    .openapi(creditNoteRoute, async (c) => {
      const { orgId, gate } = listCaller(c);
      const r = await getCreditNote(c.get('db'), { orgId, id: c.req.valid('param').id, gate });
      if (!r) throw notFound('credit note');
      return c.json(withAlerts(c, r), 200);
    })
    .openapi(purchaseOrdersRoute, async (c) => {
      const q = c.req.valid('query');
      const { r, fields } = await listPage(c, 'purchase-orders', itemFiltersForCursor(q.filters), q, (w) => listPurchaseOrders(c.get('db'), { ...w, filters: q.filters }));
      return c.json(withAlerts(c, { purchaseOrders: r.items, ...fields }), 200);
    })
    .openapi(purchaseOrderRoute, async (c) => {
      const { orgId, gate } = listCaller(c);
      const r = await getPurchaseOrder(c.get('db'), { orgId, id: c.req.valid('param').id, gate });
      if (!r) throw notFound('purchase order');
      return c.json(withAlerts(c, r), 200);
    });
}
