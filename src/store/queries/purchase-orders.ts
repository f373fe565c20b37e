/**
 * Purchase orders (spec 2.7, 4.6): the invoices' parameters, with `status`
 * matching the raw purchase-order status verbatim (DRAFT, SUBMITTED,
 * AUTHORISED, BILLED, DELETED; no FORECAST/ACTUAL collapse). Order: sort_date
 * (issue date, else delivery date) desc, id desc. Without READ_SENSITIVE,
 * orders of sensitive suppliers are withheld from the list and are 404 on the
 * drill; drill lines on sensitive accounts lose their account code.
 */
import { type SQL, sql } from 'drizzle-orm';
import { type Db, rows } from '../db.js';
import type { CursorPosition } from '../../domain/cursor.js';
import { canonical, canonicalOrNull } from '../../domain/money.js';
import { type ItemFilters, PURCHASE_ORDER_STATUS_VALUES, TOTALS_CAP } from '../../domain/list-params.js';
import type { PurchaseOrder, PurchaseOrderDrill } from '../../schemas/ledger.js';
import type { ItemListResult } from './cash-items.js';
import { sensitiveCode } from './credit-notes.js';
import { type AggregateSource, countOf, dayToDateTime, type KeysetSpec, keysetPage, sortKeyText, textArray, totalsOf } from './paging.js';
import { documentSearch, namedContacts } from './search.js';

const SENSITIVE_SUPPLIER = sql`coalesce(c.is_sensitive, false)`;

const COLUMNS = sql`po.id, po.number, po.reference, po.contact_id, c.name as contact_name, po.status,
  po.issue_date, po.delivery_date, po.expected_arrival_date, po.sort_date, po.total, po.currency, po.suppressed_reason`;

const FROM = sql`from purchase_orders po left join contacts c on c.org_id = po.org_id and c.id = po.contact_id`;

/** With `q`, `named` are the contacts it names as the caller may see them (search.ts; never a sensitive one without READ_SENSITIVE). */
function poWhere(orgId: string, f: ItemFilters, named: readonly string[] | undefined): SQL {
  const conds: SQL[] = [sql`po.org_id = ${orgId}`];
  if (f.statuses.length > 0) conds.push(sql`po.status = any(${textArray(f.statuses)})`);
  if (f.contactId) conds.push(sql`po.contact_id = ${f.contactId}`);
  if (f.dateFrom) conds.push(sql`po.sort_date >= ${f.dateFrom}::date`);
  if (f.dateTo) conds.push(sql`po.sort_date <= ${f.dateTo}::date`);
  if (f.q) {
    if (!named) throw new Error('poWhere: a search needs the contacts it names (namedContacts)');
    conds.push(documentSearch(f.q, [sql`po.number`], sql`po.contact_id`, named));
  }
  return sql.join(conds, sql` and `);
}

interface PoRow extends Record<string, unknown> {
  sort_key: string;
  id: string;
  gated: boolean;
  number: string;
  reference: string;
  contact_id: string | null;
  contact_name: string | null;
  status: string;
  issue_date: string | null;
  delivery_date: string | null;
  expected_arrival_date: string | null;
  sort_date: string;
  total: string;
  currency: string;
  suppressed_reason: string | null;
}

function toPurchaseOrder(r: PoRow): PurchaseOrder {
  return {
    id: r.id,
    externalId: r.id,
    purchaseOrderNumber: r.number,
    reference: r.reference ?? '',
    contactId: r.contact_id ?? '',
    contactName: r.contact_name ?? '',
    status: r.status as PurchaseOrder['status'],
    issueDate: dayToDateTime(r.issue_date ?? r.sort_date),
    deliveryDate: dayToDateTime(r.delivery_date),
    expectedArrivalDate: dayToDateTime(r.expected_arrival_date),
    total: canonical(r.total),
    currency: r.currency,
    suppressedReason: (r.suppressed_reason as PurchaseOrder['suppressedReason']) ?? null,
  };
}

export interface PurchaseOrderListInput {
  orgId: string;
  filters: ItemFilters;
  after: CursorPosition | null;
  limit: number;
  gate: boolean;
  totals: boolean;
  totalsCap?: number;
  /** With `q`: the contacts it names (namedContacts); listPurchaseOrders looks them up when absent. */
  named?: readonly string[];
}

export function purchaseOrderKeysetSpec(input: Pick<PurchaseOrderListInput, 'orgId' | 'filters' | 'gate' | 'named'>): KeysetSpec {
  return {
    columns: sql`${sortKeyText(sql`po.sort_date`, 'date')} as sort_key, ${COLUMNS}`,
    from: FROM,
    where: poWhere(input.orgId, input.filters, input.named),
    sortCol: sql`po.sort_date`,
    sortKind: 'date',
    idCol: sql`po.id`,
    gated: input.gate ? SENSITIVE_SUPPLIER : null,
    // A status list: filter on purchase_orders_list_idx alone (index-only), then fetch the page's rows.
    ...(input.filters.statuses.length > 0 && !input.filters.contactId && !input.filters.q
      ? {
          keysFirst: {
            keysFrom: sql`from purchase_orders po`,
            keyCols: sql`po.org_id, po.sort_date, po.id`,
            joinKeys: sql`from k join purchase_orders po on po.org_id = k.org_id and po.id = k.id
              left join contacts c on c.org_id = po.org_id and c.id = po.contact_id`,
          },
        }
      : {}),
  };
}

/** Purchase orders are counted on the rows (purchase_orders_list_idx makes it index-only). */
function poAggregate(input: Pick<PurchaseOrderListInput, 'orgId' | 'filters' | 'named'>): AggregateSource {
  return {
    from: sql`from purchase_orders po`,
    where: poWhere(input.orgId, input.filters, input.named),
    status: sql`po.status`,
    currency: sql`po.currency`,
    n: sql`count(*)`,
    amount: sql`sum(po.total)`,
  };
}

export async function listPurchaseOrders(db: Db, query: PurchaseOrderListInput): Promise<ItemListResult<PurchaseOrder>> {
  const q = query.filters.q;
  const input = { ...query, named: query.named ?? (q ? await namedContacts(db, query.orgId, q, query.gate) : []) };
  const spec = purchaseOrderKeysetSpec(input);
  const agg = poAggregate(input);
  const [page, totalCount] = await Promise.all([keysetPage<PoRow>(db, spec, input.after, input.limit), countOf(db, agg)]);
  const result: ItemListResult<PurchaseOrder> = {
    items: page.rows.map(toPurchaseOrder),
    next: page.next,
    totalCount,
    redactedItemCount: page.redacted,
  };
  if (input.totals) {
    const t = await totalsOf(db, agg, PURCHASE_ORDER_STATUS_VALUES, totalCount, input.totalsCap ?? TOTALS_CAP);
    if ('totals' in t) result.totals = t.totals;
    else result.totalsTruncated = true;
  }
  return result;
}

/** A purchase order with its lines; null when absent, another org's, or withheld. */
export async function getPurchaseOrder(
  db: Db,
  input: { orgId: string; id: string; gate: boolean },
): Promise<{ purchaseOrder: PurchaseOrderDrill; redactedItemCount: number } | null> {
  const [row] = await rows<PoRow & { sub_total: string; total_tax: string; contact_sensitive: boolean | null }>(
    db,
    sql`select po.sort_date as sort_key, false as gated, ${COLUMNS}, po.sub_total, po.total_tax, c.is_sensitive as contact_sensitive
      ${FROM} where po.org_id = ${input.orgId} and po.id = ${input.id}`,
  );
  if (!row) return null;
  if (input.gate && row.contact_sensitive) return null;
  const lines = await rows<{
    description: string | null;
    quantity: string | null;
    unit_amount: string | null;
    line_amount: string;
    item_code: string | null;
    account_code: string | null;
    sensitive: boolean;
  }>(
    db,
    sql`select l.description, l.quantity, l.unit_amount, l.line_amount, l.item_code, l.account_code,
        ${sensitiveCode(sql`l.org_id`, sql`l.account_code`)} as sensitive
      from purchase_order_lines l where l.org_id = ${input.orgId} and l.purchase_order_id = ${input.id} order by l.line_number`,
  );
  let redacted = 0;
  return {
    purchaseOrder: {
      ...toPurchaseOrder(row),
      subTotal: canonical(row.sub_total),
      totalTax: canonical(row.total_tax),
      lines: lines.map((l) => {
        const masked = input.gate && l.sensitive;
        if (masked) redacted++;
        return {
          description: l.description,
          quantity: canonicalOrNull(l.quantity),
          unitAmount: canonicalOrNull(l.unit_amount),
          lineAmount: canonical(l.line_amount),
          itemCode: l.item_code,
          accountCode: masked ? null : l.account_code,
        };
      }),
    },
    redactedItemCount: redacted,
  };
}
